/* sim/common/sheet_grid: a sheet's starting positions (see sheet_grid.h). */
#include "sim/common/sheet_grid.h"

#include <math.h>

/* The half angle theta of the arc of length L whose sagitta is s: (1 - cos theta) / (2 theta) = s / L,
 * solved by bisection on (0, pi / 2], where it increases to 1 / pi (a semicircle; deeper arcs would
 * overhang): 0 < s / L <= FL_SHEET_MAX_SAG < 1 / pi. */
static double arc_half_angle(double s_over_l)
{
  double lo = 0.0, hi = 1.5707963267948966;
  for (int k = 0; k < 60; k++) {
    double mid = 0.5 * (lo + hi);
    if ((1.0 - cos(mid)) / (2.0 * mid) < s_over_l)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

void fl_sheet_grid_point(const fl_sheet_grid *g, uint32_t i, uint32_t j, double out[3])
{
  double u = ((double)i / (double)(g->nx - 1) - 0.5) * g->size[0];
  double v = ((double)j / (double)(g->ny - 1) - 0.5) * g->size[1];
  double down = 0.0; /* below the center, along the plane's normal */
  if (g->sag > 0.0) {
    double theta = arc_half_angle(g->sag / g->size[0]), r = 0.5 * g->size[0] / theta, phi = u / r;
    u = r * sin(phi);
    down = g->sag - r * (1.0 - cos(phi));
  }
  out[0] = g->center[0] + u;
  out[1] = g->center[1] + (g->plane_xy ? v : -down);
  out[2] = g->center[2] + (g->plane_xy ? -down : v);
}

static fl_sheet_grid grid_of(const float center[3], const float size[2], fl_cloth_plane plane, const uint32_t res[2],
                             float sag)
{
  return (fl_sheet_grid){.center = {center[0], center[1], center[2]}, .size = {size[0], size[1]},
                         .plane_xy = plane == FL_PLANE_XY, .sag = sag, .nx = res[0], .ny = res[1]};
}

fl_sheet_grid fl_sheet_grid_of_cloth(const fl_cloth_desc *d)
{
  return grid_of(d->center, d->size, d->plane, d->resolution, d->sag);
}

fl_sheet_grid fl_sheet_grid_of_mass_spring(const fl_mass_spring_desc *d)
{
  return grid_of(d->center, d->size, d->plane, d->resolution, 0.0f);
}
