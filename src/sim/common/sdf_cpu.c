/* sim/common/sdf_cpu: CPU mirror of shaders/common/sdf.glsl. Keep the two in step. */
#include "sim/common/sdf_cpu.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define GRADIENT_STEP 1e-3f

void fl_collider_pack(const fl_collider_desc *d, fl_gpu_collider *out)
{
  memset(out, 0, sizeof *out);
  out->shape = (uint32_t)d->shape;
  out->inside = d->inside ? 1u : 0u;
  switch (d->shape) {
  case FL_SHAPE_PLANE:
    memcpy(out->a, d->normal, sizeof d->normal);
    out->r = d->offset;
    break;
  case FL_SHAPE_SPHERE:
    memcpy(out->a, d->center, sizeof d->center);
    out->r = d->radius;
    break;
  case FL_SHAPE_BOX:
    memcpy(out->a, d->center, sizeof d->center);
    memcpy(out->b, d->half_extents, sizeof d->half_extents);
    break;
  case FL_SHAPE_CAPSULE:
    memcpy(out->a, d->a, sizeof d->a);
    out->r = d->radius;
    memcpy(out->b, d->b, sizeof d->b);
    break;
  }
  memcpy(out->velocity, d->velocity, sizeof d->velocity);
  out->friction = d->friction;
  out->move_until = d->move_until;
}

float fl_collider_moved_time_cpu(const fl_gpu_collider *c, float t) { return c->move_until > 0 ? fminf(t, c->move_until) : t; }

void fl_collider_velocity_cpu(const fl_gpu_collider *c, float t, float v_out[3])
{
  bool stopped = c->move_until > 0 && t > c->move_until;
  for (int a = 0; a < 3; a++) v_out[a] = stopped ? 0.0f : c->velocity[a];
}

static float len3(float x, float y, float z) { return sqrtf(x * x + y * y + z * z); }
static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

float fl_collider_sdf_cpu(const fl_gpu_collider *c, const float p[3], float t)
{
  float m = fl_collider_moved_time_cpu(c, t);
  float q[3] = {p[0] - c->velocity[0] * m, p[1] - c->velocity[1] * m, p[2] - c->velocity[2] * m};
  float d;
  switch (c->shape) {
  case FL_GPU_SHAPE_PLANE:
    d = c->a[0] * q[0] + c->a[1] * q[1] + c->a[2] * q[2] - c->r;
    break;
  case FL_GPU_SHAPE_SPHERE:
    d = len3(q[0] - c->a[0], q[1] - c->a[1], q[2] - c->a[2]) - c->r;
    break;
  case FL_GPU_SHAPE_BOX: {
    float e[3];
    for (int i = 0; i < 3; i++) e[i] = fabsf(q[i] - c->a[i]) - c->b[i];
    float outside = len3(fmaxf(e[0], 0), fmaxf(e[1], 0), fmaxf(e[2], 0));
    d = outside + fminf(fmaxf(e[0], fmaxf(e[1], e[2])), 0.0f);
    break;
  }
  default: { /* capsule */
    float pa[3], ba[3];
    for (int i = 0; i < 3; i++) {
      pa[i] = q[i] - c->a[i];
      ba[i] = c->b[i] - c->a[i];
    }
    float bb = ba[0] * ba[0] + ba[1] * ba[1] + ba[2] * ba[2];
    float h = clampf((pa[0] * ba[0] + pa[1] * ba[1] + pa[2] * ba[2]) / fmaxf(bb, 1e-12f), 0.0f, 1.0f);
    d = len3(pa[0] - ba[0] * h, pa[1] - ba[1] * h, pa[2] - ba[2] * h) - c->r;
    break;
  }
  }
  return c->inside ? -d : d;
}

static void normalize_or_up(const float g[3], bool flip, float n_out[3])
{
  float len = len3(g[0], g[1], g[2]);
  for (int a = 0; a < 3; a++) n_out[a] = len > 1e-20f ? g[a] / len : (a == 1 ? 1.0f : 0.0f);
  if (flip)
    for (int a = 0; a < 3; a++) n_out[a] = -n_out[a];
}

void fl_collider_normal_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3])
{
  float m = fl_collider_moved_time_cpu(c, t);
  float q[3] = {p[0] - c->velocity[0] * m, p[1] - c->velocity[1] * m, p[2] - c->velocity[2] * m};
  float g[3] = {0, 0, 0};
  switch (c->shape) {
  case FL_GPU_SHAPE_PLANE:
    for (int a = 0; a < 3; a++) g[a] = c->a[a];
    break;
  case FL_GPU_SHAPE_SPHERE:
    for (int a = 0; a < 3; a++) g[a] = q[a] - c->a[a];
    break;
  case FL_GPU_SHAPE_BOX: {
    float e[3], s[3];
    for (int a = 0; a < 3; a++) {
      float d = q[a] - c->a[a];
      e[a] = fabsf(d) - c->b[a];
      s[a] = d < 0.0f ? -1.0f : 1.0f;
    }
    if (fmaxf(e[0], fmaxf(e[1], e[2])) > 0.0f) {
      for (int a = 0; a < 3; a++) g[a] = fmaxf(e[a], 0.0f) * s[a];
    } else {
      int axis = e[0] >= e[1] && e[0] >= e[2] ? 0 : (e[1] >= e[2] ? 1 : 2);
      g[axis] = s[axis];
    }
    break;
  }
  default: { /* capsule */
    float pa[3], ba[3];
    for (int a = 0; a < 3; a++) {
      pa[a] = q[a] - c->a[a];
      ba[a] = c->b[a] - c->a[a];
    }
    float bb = ba[0] * ba[0] + ba[1] * ba[1] + ba[2] * ba[2];
    float h = clampf((pa[0] * ba[0] + pa[1] * ba[1] + pa[2] * ba[2]) / fmaxf(bb, 1e-12f), 0.0f, 1.0f);
    for (int a = 0; a < 3; a++) g[a] = pa[a] - ba[a] * h;
    break;
  }
  }
  normalize_or_up(g, c->inside != 0, n_out);
}

void fl_collider_normal_tetra_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3])
{
  static const float k[4][3] = {{1, -1, -1}, {-1, -1, 1}, {-1, 1, -1}, {1, 1, 1}};
  float g[3] = {0, 0, 0};
  for (int i = 0; i < 4; i++) {
    float s[3] = {p[0] + GRADIENT_STEP * k[i][0], p[1] + GRADIENT_STEP * k[i][1], p[2] + GRADIENT_STEP * k[i][2]};
    float f = fl_collider_sdf_cpu(c, s, t);
    for (int a = 0; a < 3; a++) g[a] += k[i][a] * f;
  }
  normalize_or_up(g, false, n_out);
}

void fl_collider_normal_select_cpu(const fl_gpu_collider *c, const float p[3], float t, bool tetrahedral,
                                   float n_out[3])
{
  if (tetrahedral) fl_collider_normal_tetra_cpu(c, p, t, n_out);
  else fl_collider_normal_cpu(c, p, t, n_out);
}
