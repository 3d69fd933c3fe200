/* sim/common/sdf_cpu: CPU mirror of shaders/common/sdf.glsl. Keep the two in step. */
#include "sim/common/sdf_cpu.h"

#include <math.h>
#include <string.h>

#define GRADIENT_STEP 1e-3f

void fl_collider_pack(const fl_collider_desc *d, fl_gpu_collider *out)
{
  memset(out, 0, sizeof *out);
  out->info[0] = (uint32_t)d->shape;
  out->info[1] = d->inside ? 1u : 0u;
  switch (d->shape) {
  case FL_SHAPE_PLANE:
    memcpy(out->p0, d->normal, sizeof d->normal);
    out->p0[3] = d->offset;
    break;
  case FL_SHAPE_SPHERE:
    memcpy(out->p0, d->center, sizeof d->center);
    out->p0[3] = d->radius;
    break;
  case FL_SHAPE_BOX:
    memcpy(out->p0, d->center, sizeof d->center);
    memcpy(out->p1, d->half_extents, sizeof d->half_extents);
    break;
  case FL_SHAPE_CAPSULE:
    memcpy(out->p0, d->a, sizeof d->a);
    out->p0[3] = d->radius;
    memcpy(out->p1, d->b, sizeof d->b);
    break;
  }
  memcpy(out->velocity, d->velocity, sizeof d->velocity);
  out->velocity[3] = d->friction;
}

static float len3(float x, float y, float z) { return sqrtf(x * x + y * y + z * z); }
static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

float fl_collider_sdf_cpu(const fl_gpu_collider *c, const float p[3], float t)
{
  float q[3] = {p[0] - c->velocity[0] * t, p[1] - c->velocity[1] * t, p[2] - c->velocity[2] * t};
  float d;
  switch (c->info[0]) {
  case FL_GPU_SHAPE_PLANE:
    d = c->p0[0] * q[0] + c->p0[1] * q[1] + c->p0[2] * q[2] - c->p0[3];
    break;
  case FL_GPU_SHAPE_SPHERE:
    d = len3(q[0] - c->p0[0], q[1] - c->p0[1], q[2] - c->p0[2]) - c->p0[3];
    break;
  case FL_GPU_SHAPE_BOX: {
    float e[3];
    for (int i = 0; i < 3; i++) e[i] = fabsf(q[i] - c->p0[i]) - c->p1[i];
    float outside = len3(fmaxf(e[0], 0), fmaxf(e[1], 0), fmaxf(e[2], 0));
    d = outside + fminf(fmaxf(e[0], fmaxf(e[1], e[2])), 0.0f);
    break;
  }
  default: { /* capsule */
    float pa[3], ba[3];
    for (int i = 0; i < 3; i++) {
      pa[i] = q[i] - c->p0[i];
      ba[i] = c->p1[i] - c->p0[i];
    }
    float bb = ba[0] * ba[0] + ba[1] * ba[1] + ba[2] * ba[2];
    float h = clampf((pa[0] * ba[0] + pa[1] * ba[1] + pa[2] * ba[2]) / fmaxf(bb, 1e-12f), 0.0f, 1.0f);
    d = len3(pa[0] - ba[0] * h, pa[1] - ba[1] * h, pa[2] - ba[2] * h) - c->p0[3];
    break;
  }
  }
  return c->info[1] ? -d : d;
}

void fl_collider_normal_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3])
{
  static const float k[4][3] = {{1, -1, -1}, {-1, -1, 1}, {-1, 1, -1}, {1, 1, 1}};
  float g[3] = {0, 0, 0};
  for (int i = 0; i < 4; i++) {
    float s[3] = {p[0] + GRADIENT_STEP * k[i][0], p[1] + GRADIENT_STEP * k[i][1], p[2] + GRADIENT_STEP * k[i][2]};
    float f = fl_collider_sdf_cpu(c, s, t);
    for (int a = 0; a < 3; a++) g[a] += k[i][a] * f;
  }
  float len = len3(g[0], g[1], g[2]);
  if (len > 1e-20f) {
    for (int a = 0; a < 3; a++) n_out[a] = g[a] / len;
  } else {
    n_out[0] = 0;
    n_out[1] = 1;
    n_out[2] = 0;
  }
}
