/* sim/xpbd/collide_cpu: one particle's collider and wall contacts (see collide_cpu.h). */
#include "sim/xpbd/collide_cpu.h"

#include "sim/common/sdf_cpu.h"

#include <math.h>

static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

void fl_friction_corr_cpu(const float D[3], const float n[3], float depth, float mu_s, float mu_k, float out[3])
{
  float dn = dot3(D, n), dt[3];
  for (int a = 0; a < 3; a++) dt[a] = D[a] - dn * n[a];
  float lt = sqrtf(dot3(dt, dt));
  out[0] = out[1] = out[2] = 0.0f;
  if (lt == 0.0f) return;
  float factor = lt < mu_s * depth ? 1.0f : fminf(mu_k * depth / lt, 1.0f);
  for (int a = 0; a < 3; a++) out[a] = -dt[a] * factor;
}

/* Pushes x out by -d along n, then applies friction against a surface moving at vc, with the
 * depth -d plus the part of the body load u (zero for cloth) that pushes into the surface. */
static void contact(float x[3], const float prev[3], const float n[3], float d, const float u[3], const float vc[3],
                    float h, float mu_s, float mu_k)
{
  for (int a = 0; a < 3; a++) x[a] -= d * n[a];
  float D[3], corr[3];
  for (int a = 0; a < 3; a++) D[a] = (x[a] - prev[a]) - h * vc[a];
  fl_friction_corr_cpu(D, n, -d + fmaxf(0.0f, -dot3(u, n)), mu_s, mu_k, corr);
  for (int a = 0; a < 3; a++) x[a] += corr[a];
}

bool fl_collide_particle_cpu(const fl_collide_env *e, uint32_t p, float x[3])
{
  static const float still[3] = {0, 0, 0};
  const fl_gpu_xpbd_object *o = &e->b->objects[e->b->particle_object[p]];
  float r = o->thickness * 0.5f;
  const float *u = o->body ? e->load[p] : still, *prev = e->prev[p];
  bool touched = false;
  for (uint32_t c = 0; c < e->count; c++) {
    const fl_gpu_collider *col = &e->colliders[c];
    float d = fl_collider_sdf_cpu(col, x, e->t) - r;
    if (!(d < 0.0f)) continue;
    touched = true;
    float n[3];
    fl_collider_normal_select_cpu(col, x, e->t, e->tetrahedral, n);
    float mu = col->friction, v_c[3];
    fl_collider_velocity_cpu(col, x, e->t, v_c);
    contact(x, prev, n, d, u, v_c, e->h, sqrtf(o->static_friction * mu), sqrtf(o->kinetic_friction * mu));
  }
  float mu_s = sqrtf(o->static_friction), mu_k = sqrtf(o->kinetic_friction);
  for (int a = 0; a < 3; a++) {
    float n[3] = {0, 0, 0};
    n[a] = 1.0f;
    float d = x[a] - (e->domain_min[a] + r);
    touched = touched || d < 0.0f;
    if (d < 0.0f) contact(x, prev, n, d, u, still, e->h, mu_s, mu_k);
    n[a] = -1.0f;
    d = (e->domain_max[a] - r) - x[a];
    touched = touched || d < 0.0f;
    if (d < 0.0f) contact(x, prev, n, d, u, still, e->h, mu_s, mu_k);
  }
  return touched;
}
