/* sim/common/sdf_cpu: CPU mirror of shaders/common/sdf.glsl. Keep the two in step. */
#include "sim/common/sdf_cpu.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define GRADIENT_STEP 1e-3f

static float len3(float x, float y, float z) { return sqrtf(x * x + y * y + z * z); }
static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }
static float mixf(float a, float b, float s) { return a * (1.0f - s) + b * s; } /* GLSL mix */
static void cross3(const float a[3], const float b[3], float out[3])
{
  float x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  out[0] = x, out[1] = y, out[2] = z;
}

/* The tail of the block record c sits in. */
static const float *tail_of(const fl_gpu_collider *c)
{
  const char *records = (const char *)(c - c->index);
  return ((const fl_collider_block *)(records - offsetof(fl_collider_block, records)))->tail;
}

void fl_quat_rotate_cpu(const float q[4], const float v[3], float out[3])
{
  float t[3], u[3];
  cross3(q, v, t);
  for (int a = 0; a < 3; a++) t[a] += q[3] * v[a];
  cross3(q, t, u);
  for (int a = 0; a < 3; a++) out[a] = v[a] + 2.0f * u[a];
}

static void quat_mul(const float a[4], const float b[4], float out[4])
{
  float c[3];
  cross3(a, b, c);
  float w = a[3] * b[3] - (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
  for (int i = 0; i < 3; i++) out[i] = a[3] * b[i] + b[3] * a[i] + c[i];
  out[3] = w;
}

void fl_quat_from_rotvec_cpu(const float w[3], float q[4])
{
  float angle = len3(w[0], w[1], w[2]);
  if (!(angle > 1e-12f)) {
    q[0] = q[1] = q[2] = 0.0f, q[3] = 1.0f;
    return;
  }
  float s = sinf(0.5f * angle) / angle;
  for (int a = 0; a < 3; a++) q[a] = w[a] * s;
  q[3] = cosf(0.5f * angle);
}

void fl_quat_turn_cpu(const float q0[4], const float q1[4], float turn[3])
{
  double a[4] = {-q0[0], -q0[1], -q0[2], q0[3]}, b[4] = {q1[0], q1[1], q1[2], q1[3]}, dq[4];
  /* dq = q1 q0^-1 (Hamilton product, in double: done once per keyframe, at load) */
  dq[0] = b[3] * a[0] + a[3] * b[0] + (b[1] * a[2] - b[2] * a[1]);
  dq[1] = b[3] * a[1] + a[3] * b[1] + (b[2] * a[0] - b[0] * a[2]);
  dq[2] = b[3] * a[2] + a[3] * b[2] + (b[0] * a[1] - b[1] * a[0]);
  dq[3] = b[3] * a[3] - (b[0] * a[0] + b[1] * a[1] + b[2] * a[2]);
  if (dq[3] < 0)
    for (int i = 0; i < 4; i++) dq[i] = -dq[i]; /* the shorter way round */
  double half_sin = sqrt(dq[0] * dq[0] + dq[1] * dq[1] + dq[2] * dq[2]), angle = 2.0 * atan2(half_sin, dq[3]);
  for (int i = 0; i < 3; i++) turn[i] = half_sin > 1e-12 ? (float)(dq[i] / half_sin * angle) : 0.0f;
}

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
  case FL_SHAPE_MESH: break; /* the grid: fl_collider_block_build */
  }
  memcpy(out->velocity, d->velocity, sizeof d->velocity);
  memcpy(out->angular_velocity, d->angular_velocity, sizeof d->angular_velocity);
  memcpy(out->pivot, d->pivot, sizeof d->pivot);
  out->friction = d->friction;
  out->move_until = d->move_until;
}

float fl_collider_moved_time_cpu(const fl_gpu_collider *c, float t) { return c->move_until > 0 ? fminf(t, c->move_until) : t; }

void fl_collider_pose_cpu(const fl_gpu_collider *c, float t, float d[3], float q[4], float v[3], float w[3])
{
  if (c->keyframe_count == 0) {
    bool moving = !(c->move_until > 0 && t > c->move_until);
    float m = fl_collider_moved_time_cpu(c, t), rv[3];
    for (int a = 0; a < 3; a++) {
      d[a] = c->velocity[a] * m;
      rv[a] = c->angular_velocity[a] * m;
      v[a] = moving ? c->velocity[a] : 0.0f;
      w[a] = moving ? c->angular_velocity[a] : 0.0f;
    }
    fl_quat_from_rotvec_cpu(rv, q);
    return;
  }
  const float *tail = tail_of(c);
  uint32_t first = c->keyframe_offset, last = first + (c->keyframe_count - 1) * FL_COLLIDER_KEYFRAME_FLOATS;
  uint32_t k = first;
  while (k < last && tail[k + FL_COLLIDER_KEYFRAME_FLOATS] <= t) k += FL_COLLIDER_KEYFRAME_FLOATS;
  for (int a = 0; a < 3; a++) {
    v[a] = w[a] = 0.0f;
    d[a] = tail[k + 1 + a] - c->pivot[a];
  }
  memcpy(q, &tail[k + 4], 4 * sizeof *q);
  if (k == last || t <= tail[k]) return;
  uint32_t n = k + FL_COLLIDER_KEYFRAME_FLOATS;
  float span = tail[n] - tail[k], s = (t - tail[k]) / span;
  float rv[3], turn[4], qk[4];
  for (int a = 0; a < 3; a++) {
    float step = tail[n + 1 + a] - tail[k + 1 + a];
    d[a] += s * step;
    v[a] = step / span;
    w[a] = tail[k + 8 + a] / span;
    rv[a] = s * tail[k + 8 + a];
  }
  fl_quat_from_rotvec_cpu(rv, turn);
  memcpy(qk, q, sizeof qk);
  quat_mul(turn, qk, q);
}

/* p taken back into c's rest frame at pose (d, q): r = p - d turned back about the
 * pivot, as r + (R^T arm - arm), so that the identity gives exactly p - d (sdf.glsl). */
static void rest_point(const fl_gpu_collider *c, const float d[3], const float q[4], const float p[3], float out[3])
{
  float inv[4] = {-q[0], -q[1], -q[2], q[3]}, r[3], arm[3], turned[3];
  for (int a = 0; a < 3; a++) {
    r[a] = p[a] - d[a];
    arm[a] = r[a] - c->pivot[a];
  }
  fl_quat_rotate_cpu(inv, arm, turned);
  for (int a = 0; a < 3; a++) out[a] = r[a] + (turned[a] - arm[a]);
}

void fl_collider_rest_point_cpu(const fl_gpu_collider *c, const float p[3], float t, float out[3])
{
  float d[3], q[4], v[3], w[3];
  fl_collider_pose_cpu(c, t, d, q, v, w);
  rest_point(c, d, q, p, out);
}

uint32_t fl_collider_features(const fl_gpu_collider *colliders, uint32_t count)
{
  uint32_t f = 0;
  for (uint32_t i = 0; i < count; i++) {
    const fl_gpu_collider *c = &colliders[i];
    if (c->keyframe_count || c->angular_velocity[0] != 0.0f || c->angular_velocity[1] != 0.0f ||
        c->angular_velocity[2] != 0.0f)
      f |= FL_COLLIDER_FEATURE_ROTATION;
    if (c->shape == FL_GPU_SHAPE_MESH) f |= FL_COLLIDER_FEATURE_MESH;
  }
  return f;
}

/* sdf.glsl fl_mesh_sdf: trilinear inside the grid, plus the distance to the grid outside it. */
static float mesh_sdf(const fl_gpu_collider *c, const float q[3])
{
  const float *grid = tail_of(c) + c->grid_offset;
  float g[3], gc[3], f[3], outside = 0.0f;
  uint32_t i0[3];
  for (int a = 0; a < 3; a++) {
    float top = (float)(c->grid_dims[a] - 1);
    g[a] = (q[a] - c->grid_min[a]) / c->grid_cell;
    gc[a] = clampf(g[a], 0.0f, top);
    float lo = fminf(floorf(gc[a]), fmaxf(top - 1.0f, 0.0f));
    i0[a] = (uint32_t)lo;
    f[a] = gc[a] - lo;
    outside += (g[a] - gc[a]) * (g[a] - gc[a]);
  }
  uint32_t nx = c->grid_dims[0], nxy = c->grid_dims[0] * c->grid_dims[1];
  const float *b = grid + i0[0] + nx * i0[1] + nxy * i0[2];
  float y0 = mixf(mixf(b[0], b[1], f[0]), mixf(b[nx], b[nx + 1], f[0]), f[1]);
  float y1 = mixf(mixf(b[nxy], b[nxy + 1], f[0]), mixf(b[nxy + nx], b[nxy + nx + 1], f[0]), f[1]);
  return mixf(y0, y1, f[2]) + sqrtf(outside) * c->grid_cell;
}

/* The shape's own signed distance at rest point q (before `inside` flips it). */
static float shape_sdf(const fl_gpu_collider *c, const float q[3])
{
  switch (c->shape) {
  case FL_GPU_SHAPE_PLANE: return c->a[0] * q[0] + c->a[1] * q[1] + c->a[2] * q[2] - c->r;
  case FL_GPU_SHAPE_SPHERE: return len3(q[0] - c->a[0], q[1] - c->a[1], q[2] - c->a[2]) - c->r;
  case FL_GPU_SHAPE_BOX: {
    float e[3];
    for (int i = 0; i < 3; i++) e[i] = fabsf(q[i] - c->a[i]) - c->b[i];
    float outside = len3(fmaxf(e[0], 0), fmaxf(e[1], 0), fmaxf(e[2], 0));
    return outside + fminf(fmaxf(e[0], fmaxf(e[1], e[2])), 0.0f);
  }
  case FL_GPU_SHAPE_MESH: return mesh_sdf(c, q);
  default: { /* capsule */
    float pa[3], ba[3];
    for (int i = 0; i < 3; i++) {
      pa[i] = q[i] - c->a[i];
      ba[i] = c->b[i] - c->a[i];
    }
    float bb = ba[0] * ba[0] + ba[1] * ba[1] + ba[2] * ba[2];
    float h = clampf((pa[0] * ba[0] + pa[1] * ba[1] + pa[2] * ba[2]) / fmaxf(bb, 1e-12f), 0.0f, 1.0f);
    return len3(pa[0] - ba[0] * h, pa[1] - ba[1] * h, pa[2] - ba[2] * h) - c->r;
  }
  }
}

float fl_collider_sdf_cpu(const fl_gpu_collider *c, const float p[3], float t)
{
  float d[3], q[4], v[3], w[3], r[3];
  fl_collider_pose_cpu(c, t, d, q, v, w);
  rest_point(c, d, q, p, r);
  float s = shape_sdf(c, r);
  return c->inside ? -s : s;
}

void fl_collider_velocity_cpu(const fl_gpu_collider *c, const float p[3], float t, float v_out[3])
{
  float d[3], q[4], v[3], w[3], arm[3], turn[3];
  fl_collider_pose_cpu(c, t, d, q, v, w);
  for (int a = 0; a < 3; a++) arm[a] = p[a] - (c->pivot[a] + d[a]);
  cross3(w, arm, turn);
  for (int a = 0; a < 3; a++) v_out[a] = v[a] + turn[a];
}

static void normalize_or_up(const float g[3], float n_out[3])
{
  float len = len3(g[0], g[1], g[2]);
  for (int a = 0; a < 3; a++) n_out[a] = len > 1e-20f ? g[a] / len : (a == 1 ? 1.0f : 0.0f);
}

void fl_collider_normal_tetra_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3])
{
  static const float k[4][3] = {{1, -1, -1}, {-1, -1, 1}, {-1, 1, -1}, {1, 1, 1}};
  float d[3], q[4], v[3], w[3], r[3], g[3] = {0, 0, 0};
  fl_collider_pose_cpu(c, t, d, q, v, w);
  rest_point(c, d, q, p, r); /* in the rest frame, as sdf.glsl */
  for (int i = 0; i < 4; i++) {
    float s[3] = {r[0] + GRADIENT_STEP * k[i][0], r[1] + GRADIENT_STEP * k[i][1], r[2] + GRADIENT_STEP * k[i][2]};
    float f = shape_sdf(c, s);
    for (int a = 0; a < 3; a++) g[a] += k[i][a] * f;
  }
  float len = len3(g[0], g[1], g[2]);
  if (!(len > 1e-20f)) {
    n_out[0] = n_out[2] = 0.0f, n_out[1] = 1.0f;
    return;
  }
  for (int a = 0; a < 3; a++) g[a] /= len;
  fl_quat_rotate_cpu(q, g, n_out);
  if (c->inside)
    for (int a = 0; a < 3; a++) n_out[a] = -n_out[a];
}

void fl_collider_normal_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3])
{
  if (c->shape == FL_GPU_SHAPE_MESH) {
    fl_collider_normal_tetra_cpu(c, p, t, n_out);
    return;
  }
  float d[3], q[4], v[3], w[3], r[3];
  fl_collider_pose_cpu(c, t, d, q, v, w);
  rest_point(c, d, q, p, r);
  float g[3] = {0, 0, 0};
  switch (c->shape) {
  case FL_GPU_SHAPE_PLANE:
    for (int a = 0; a < 3; a++) g[a] = c->a[a];
    break;
  case FL_GPU_SHAPE_SPHERE:
    for (int a = 0; a < 3; a++) g[a] = r[a] - c->a[a];
    break;
  case FL_GPU_SHAPE_BOX: {
    float e[3], s[3];
    for (int a = 0; a < 3; a++) {
      float dd = r[a] - c->a[a];
      e[a] = fabsf(dd) - c->b[a];
      s[a] = dd < 0.0f ? -1.0f : 1.0f;
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
      pa[a] = r[a] - c->a[a];
      ba[a] = c->b[a] - c->a[a];
    }
    float bb = ba[0] * ba[0] + ba[1] * ba[1] + ba[2] * ba[2];
    float h = clampf((pa[0] * ba[0] + pa[1] * ba[1] + pa[2] * ba[2]) / fmaxf(bb, 1e-12f), 0.0f, 1.0f);
    for (int a = 0; a < 3; a++) g[a] = pa[a] - ba[a] * h;
    break;
  }
  }
  float n[3];
  normalize_or_up(g, n);
  fl_quat_rotate_cpu(q, n, n_out);
  if (c->inside)
    for (int a = 0; a < 3; a++) n_out[a] = -n_out[a];
}

void fl_collider_normal_select_cpu(const fl_gpu_collider *c, const float p[3], float t, bool tetrahedral,
                                   float n_out[3])
{
  if (tetrahedral) fl_collider_normal_tetra_cpu(c, p, t, n_out);
  else fl_collider_normal_cpu(c, p, t, n_out);
}
