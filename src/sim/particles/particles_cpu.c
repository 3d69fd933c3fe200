/* sim/particles/particles_cpu: CPU references of shaders/particles/{integrate,collide}.comp. */
#include "sim/particles/particles_cpu.h"

#include <math.h>

#include "sim/common/sdf_cpu.h"

void fl_particles_cpu_integrate(float (*pos)[4], float (*vel)[4], const fl_particles_push *pc)
{
  float h = pc->h;
  for (uint32_t i = 0; i < pc->count; i++) {
    for (int a = 0; a < 3; a++) {
      if (pos[i][3] > 0.0f) vel[i][a] += pc->gravity[a] * h;
      pos[i][a] += vel[i][a] * h;
    }
    vel[i][3] = 0.0f;
  }
}

static void contact(float x[3], float v[3], const float n[3], float depth, const float vs[3], float mu, float e)
{
  for (int a = 0; a < 3; a++) x[a] += n[a] * depth;
  float vr[3] = {v[0] - vs[0], v[1] - vs[1], v[2] - vs[2]};
  float vn = vr[0] * n[0] + vr[1] * n[1] + vr[2] * n[2];
  if (vn >= 0.0f) return;
  float vt[3] = {vr[0] - vn * n[0], vr[1] - vn * n[1], vr[2] - vn * n[2]};
  float vt_len = sqrtf(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
  float slow = mu * (1.0f + e) * (-vn);
  float keep = vt_len > slow ? 1.0f - slow / vt_len : 0.0f;
  for (int a = 0; a < 3; a++) v[a] = vs[a] + vt[a] * keep - e * vn * n[a];
}

void fl_particles_cpu_collide(float (*pos)[4], float (*vel)[4], const fl_gpu_collider *colliders,
                              const fl_particles_push *pc)
{
  float r = pc->radius, e = pc->restitution, t = pc->time, mu_scale = pc->friction;
  static const float zero[3] = {0, 0, 0};
  for (uint32_t i = 0; i < pc->count; i++) {
    if (pos[i][3] == 0.0f) continue;
    float x[3] = {pos[i][0], pos[i][1], pos[i][2]}, v[3] = {vel[i][0], vel[i][1], vel[i][2]};
    for (uint32_t c = 0; c < pc->collider_count; c++) {
      const fl_gpu_collider *col = &colliders[c];
      float d = fl_collider_sdf_cpu(col, x, t) - r;
      if (d < 0.0f) {
        float n[3], v_c[3];
        fl_collider_normal_select_cpu(col, x, t, pc->tetrahedral_normals != 0, n);
        fl_collider_velocity_cpu(col, x, t, v_c);
        contact(x, v, n, -d, v_c, col->friction * mu_scale, e);
      }
    }
    for (int a = 0; a < 3; a++) {
      float n[3] = {0, 0, 0};
      n[a] = 1.0f;
      float lo = x[a] - (pc->domain_min[a] + r), hi = (pc->domain_max[a] - r) - x[a];
      if (lo < 0.0f) contact(x, v, n, -lo, zero, mu_scale, e);
      float m[3] = {-n[0], -n[1], -n[2]};
      if (hi < 0.0f) contact(x, v, m, -hi, zero, mu_scale, e);
    }
    for (int a = 0; a < 3; a++) {
      pos[i][a] = x[a];
      vel[i][a] = v[a];
    }
    vel[i][3] = 0.0f;
  }
}
