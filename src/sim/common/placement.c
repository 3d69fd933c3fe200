/* sim/common/placement: the start-inside-the-domain check (see placement.h). */
#include "sim/common/placement.h"

#include "core/log.h"

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
