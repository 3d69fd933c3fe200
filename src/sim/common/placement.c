/* sim/common/placement: the start-inside-the-domain and substep-resolution checks (see placement.h). */
#include "sim/common/placement.h"

#include "core/log.h"

#include <float.h>
#include <math.h>

bool fl_check_inside_domain(const char *type, const char *name, const float (*points)[4], uint32_t count,
                            const fl_sim_desc *sim)
{
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  bool inside = true;
  for (uint32_t i = 0; i < count; i++)
    for (int a = 0; a < 3; a++) {
      float x = points[i][a];
      inside &= x >= sim->domain_min[a] && x <= sim->domain_max[a]; /* false for a NaN too */
      lo[a] = fminf(lo[a], x);
      hi[a] = fmaxf(hi[a], x);
    }
  if (inside) return true;
  const float *dl = sim->domain_min, *dh = sim->domain_max;
  return fl_error_set("%s \"%s\" starts outside sim.domain: it spans [%g, %g, %g]..[%g, %g, %g], the domain is "
                      "[%g, %g, %g]..[%g, %g, %g]; move the object or grow sim.domain",
                      type, name, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], dl[0], dl[1], dl[2], dh[0], dh[1], dh[2]);
}

/* The points' largest coordinate (*far), half the float spacing there (*half) and gravity's |g|;
 * false when either is 0 (nothing to check). */
static bool resolution_at(const float (*points)[4], uint32_t count, const fl_sim_desc *sim, double *far,
                          double *half, double *g)
{
  const float *gv = sim->gravity;
  *g = sqrt((double)gv[0] * gv[0] + (double)gv[1] * gv[1] + (double)gv[2] * gv[2]);
  *far = 0;
  for (uint32_t i = 0; i < count; i++)
    for (int a = 0; a < 3; a++) *far = fmax(*far, fabs((double)points[i][a]));
  if (*g == 0 || *far == 0) return false;
  int e;
  frexp(*far, &e); /* far = m 2^e, 0.5 <= m < 1: floats there are 2^(e - 24) apart */
  *half = ldexp(1.0, e - FLT_MANT_DIG - 1);
  return true;
}

uint32_t fl_substep_resolution_most(const float (*points)[4], uint32_t count, const fl_sim_desc *sim, double *far)
{
  double half, g;
  if (!resolution_at(points, count, sim, far, &half, &g)) return UINT32_MAX;
  double most = ceil(sim->dt / sqrt(half / g)) - 1; /* the most n with (dt / n)^2 g > half */
  return most >= (double)UINT32_MAX ? UINT32_MAX : most < 0 ? 0 : (uint32_t)most;
}

bool fl_check_substep_resolution(const float (*points)[4], uint32_t count, const fl_sim_desc *sim)
{
  double far, half, g;
  if (!resolution_at(points, count, sim, &far, &half, &g)) return true;
  double h = (double)sim->dt / sim->substeps, least = sqrt(half / g);
  if (h * h * g > half) return true;
  double most = ceil(sim->dt / least) - 1;
  if (most >= 1)
    return fl_error_set("sim.substeps: %u substeps of %.3g s are too short for float positions: gravity moves a cloth "
                        "or body particle at rest %.3g m a substep, not more than half the %.3g m spacing of floats at "
                        "%g m, the largest coordinate one starts at, so one at rest there would never fall; use at most %.0f (or a longer "
                        "sim.dt)", sim->substeps, h, h * h * g, 2 * half, far, most);
  return fl_error_set("sim.dt: %g s in %u substeps is too short for float positions: gravity moves a cloth or body "
                      "particle at rest %.3g m a substep, not more than half the %.3g m spacing of floats at %g m, the "
                      "largest coordinate one starts at, so one at rest there would never fall; use more than %.3g s (%u substeps) or "
                      "fewer sim.substeps", (double)sim->dt, sim->substeps, h * h * g, 2 * half, far,
                      least * sim->substeps, sim->substeps);
}
