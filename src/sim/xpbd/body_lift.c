/* sim/xpbd/body_lift: moving a body out of a load-time overlap (body_lift.h). */
#include "sim/xpbd/body_lift.h"

#include <math.h>
#include <stdbool.h>

#include "sim/common/sdf_cpu.h"

/* The deepest overlap of b's free particles (most negative distance minus the contact radius) and the
 * unit normal that leads out of it; 0 when there is none. Below -r a particle is inside a collider or
 * outside the domain: a placement error, not a contact, which is left alone (the caller's check).
 * *outside: some free particle lies outside [lo, hi] (or is not a number), in the same walk. */
static float deepest(const fl_body_build *b, const fl_gpu_collider *colliders, uint32_t collider_count,
                     const float lo[3], const float hi[3], float n[3], bool *outside)
{
  *outside = false;
  const float r = b->body.contact_radius;
  float worst = 0.0f;
  for (uint32_t p = 0; p < b->particle_count; p++) {
    const float *x = b->positions[p];
    if (!(x[3] > 0)) continue;
    for (uint32_t c = 0; c < collider_count; c++) {
      float d = fl_collider_sdf_cpu(&colliders[c], x, 0.0f) - r;
      if (d < worst) worst = d, fl_collider_normal_cpu(&colliders[c], x, 0.0f, n);
    }
    for (int a = 0; a < 3; a++) {
      if (!(x[a] >= lo[a] && x[a] <= hi[a])) *outside = true;
      float below = x[a] - (lo[a] + r), above = (hi[a] - r) - x[a];
      if (below < worst) worst = below, n[0] = n[1] = n[2] = 0.0f, n[a] = 1.0f;
      if (above < worst) worst = above, n[0] = n[1] = n[2] = 0.0f, n[a] = -1.0f;
    }
  }
  return worst;
}

double fl_body_lift_out(fl_body_build *b, const fl_gpu_collider *colliders, uint32_t collider_count,
                        const float domain_min[3], const float domain_max[3])
{
  float shift[3] = {0, 0, 0};
  for (int round = 0; round < 8; round++) {
    bool outside;
    float n[3] = {0, 1, 0}, d = deepest(b, colliders, collider_count, domain_min, domain_max, n, &outside);
    if (round == 0 && outside) return 0.0; /* outside the domain as placed: the caller's placement error, as it is */
    if (d >= 0.0f || d < -b->body.contact_radius) break;
    float move = -d * 1.0001f + 1e-6f; /* clear of the radius after float rounding */
    for (uint32_t p = 0; p < b->particle_count; p++)
      for (int a = 0; a < 3; a++) b->positions[p][a] += move * n[a];
    for (uint32_t v = 0; v < b->render.vertex_count; v++)
      for (int a = 0; a < 3; a++) b->render.positions[v][a] += move * n[a];
    for (int a = 0; a < 3; a++) shift[a] += move * n[a];
  }
  return sqrt((double)shift[0] * shift[0] + (double)shift[1] * shift[1] + (double)shift[2] * shift[2]);
}
