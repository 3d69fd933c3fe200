/* sim/xpbd/tri_collider_cpu: the CPU reference of colliders against cloth
 * triangles (see tri_collider_cpu.h). Every float expression is written in the
 * order of shaders/xpbd/tri_collider.glsl and tri_collider.comp. */
#include "sim/xpbd/tri_collider_cpu.h"

#include <math.h>
#include <string.h>

#include "sim/common/sdf_cpu.h"

static float dot3(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const float *a, const float *b, float *o)
{
  o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}
static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
/* |u - v| */
static float dist3(const float *u, const float *v)
{
  float d[3] = {u[0] - v[0], u[1] - v[1], u[2] - v[2]};
  return sqrtf(dot3(d, d));
}
/* The point of (a, b, c) with weights w. */
static void point_at(const float w[3], const float *a, const float *b, const float *c, float out[3])
{
  for (int k = 0; k < 3; k++) out[k] = w[0] * a[k] + w[1] * b[k] + w[2] * c[k];
}
/* The normal (b - a) x (c - a), unnormalized. */
static void tri_normal(const float *a, const float *b, const float *c, float n[3])
{
  float u[3], v[3];
  for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k];
  cross3(u, v, n);
}

/* Distance between the point at s of p-q and at t of e0-e1. */
static float segments_gap(const float *p, const float *q, const float *e0, const float *e1, const float st[2])
{
  float u[3], v[3];
  for (int k = 0; k < 3; k++) u[k] = p[k] + st[0] * (q[k] - p[k]), v[k] = e0[k] + st[1] * (e1[k] - e0[k]);
  return dist3(u, v);
}

float fl_tri_nearest_segment_cpu(const float p[3], const float q[3], const float a[3], const float b[3],
                                 const float c[3], float bary[3])
{
  float n[3], pa[3], qa[3];
  tri_normal(a, b, c, n);
  for (int k = 0; k < 3; k++) pa[k] = p[k] - a[k], qa[k] = q[k] - a[k];
  float dp = dot3(n, pa), dq = dot3(n, qa);
  if (((dp <= 0 && dq >= 0) || (dp >= 0 && dq <= 0)) && dp != dq) {
    float x[3], e[3][3], cr[3];
    float f = dp / (dp - dq);
    for (int k = 0; k < 3; k++) x[k] = p[k] + f * (q[k] - p[k]);
    const float *from[3] = {b, c, a}, *to[3] = {c, a, b}; /* u: (c - b) x (x - b), v: (a - c) x (x - c), w: (b - a) x (x - a) */
    float uvw[3];
    for (int m = 0; m < 3; m++) {
      float xf[3];
      for (int k = 0; k < 3; k++) e[m][k] = to[m][k] - from[m][k], xf[k] = x[k] - from[m][k];
      cross3(e[m], xf, cr);
      uvw[m] = dot3(n, cr);
    }
    if (uvw[0] >= 0 && uvw[1] >= 0 && uvw[2] >= 0 && uvw[0] + uvw[1] + uvw[2] > 0) {
      float sum = uvw[0] + uvw[1] + uvw[2];
      for (int m = 0; m < 3; m++) bary[m] = uvw[m] / sum;
      return 0.0f;
    }
  }
  float y[3], bq[3], st[2];
  fl_tri_closest_on_triangle(p, a, b, c, bary);
  point_at(bary, a, b, c, y);
  float best = dist3(y, p);
  fl_tri_closest_on_triangle(q, a, b, c, bq);
  point_at(bq, a, b, c, y);
  float d = dist3(y, q);
  if (d < best) best = d, memcpy(bary, bq, sizeof bq);
  fl_tri_closest_on_segments(p, q, a, b, st);
  d = segments_gap(p, q, a, b, st);
  if (d < best) best = d, bary[0] = 1.0f - st[1], bary[1] = st[1], bary[2] = 0.0f;
  fl_tri_closest_on_segments(p, q, b, c, st);
  d = segments_gap(p, q, b, c, st);
  if (d < best) best = d, bary[0] = 0.0f, bary[1] = 1.0f - st[1], bary[2] = st[1];
  fl_tri_closest_on_segments(p, q, c, a, st);
  d = segments_gap(p, q, c, a, st);
  if (d < best) best = d, bary[0] = st[1], bary[1] = 0.0f, bary[2] = 1.0f - st[1];
  return best;
}

/* fl_tri_box_sdf */
static float box_sdf(const float centre[3], const float half[3], const float x[3])
{
  float e[3], out = 0;
  for (int k = 0; k < 3; k++) e[k] = fabsf(x[k] - centre[k]) - half[k];
  for (int k = 0; k < 3; k++) out += fmaxf(e[k], 0.0f) * fmaxf(e[k], 0.0f);
  return sqrtf(out) + fminf(fmaxf(e[0], fmaxf(e[1], e[2])), 0.0f);
}

/* fl_tri_collider_point: the weights; returns 1 when a feature crosses the triangle there,
 * 0 when not, -1 when no box edge comes within reach of the triangle's bounding sphere. */
static int collider_point(const fl_gpu_collider *col, const float *a, const float *b, const float *c, float reach,
                          float bw[3])
{
  if (col->shape == FL_GPU_SHAPE_SPHERE) {
    float y[3];
    fl_tri_closest_on_triangle(col->a, a, b, c, bw);
    point_at(bw, a, b, c, y);
    return !(dist3(y, col->a) > 0) ? 1 : 0;
  }
  if (col->shape == FL_GPU_SHAPE_CAPSULE) return !(fl_tri_nearest_segment_cpu(col->a, col->b, a, b, c, bw) > 0) ? 1 : 0;
  int crossed = -1;
  float deepest = 3.0e38f, g[3], ga[3], gb[3], gc[3];
  bw[0] = 1, bw[1] = 0, bw[2] = 0;
  for (int k = 0; k < 3; k++) g[k] = (a[k] + b[k] + c[k]) / 3.0f;
  for (int k = 0; k < 3; k++) ga[k] = a[k] - g[k], gb[k] = b[k] - g[k], gc[k] = c[k] - g[k];
  float rg = sqrtf(fmaxf(fmaxf(dot3(ga, ga), dot3(gb, gb)), dot3(gc, gc)));
  for (int axis = 0; axis < 3; axis++)
    for (int k = 0; k < 4; k++) {
      float sg[2] = {(float)(k & 1) * 2.0f - 1.0f, (float)(k >> 1) * 2.0f - 1.0f}, lo[3], hi[3], p[3], q[3], s[3], y[3];
      int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2; /* the other two axes, in order */
      lo[axis] = -1, hi[axis] = 1, lo[u] = hi[u] = sg[0], lo[v] = hi[v] = sg[1];
      float pq[3], gp[3], near[3];
      for (int m = 0; m < 3; m++) p[m] = col->a[m] + lo[m] * col->b[m], pq[m] = (hi[m] - lo[m]) * col->b[m];
      for (int m = 0; m < 3; m++) q[m] = p[m] + pq[m], gp[m] = g[m] - p[m];
      float f = clampf(dot3(gp, pq) / fmaxf(dot3(pq, pq), 1e-30f), 0.0f, 1.0f);
      for (int m = 0; m < 3; m++) near[m] = p[m] + pq[m] * f;
      if (dist3(near, g) - rg >= reach) continue;
      float gap = fl_tri_nearest_segment_cpu(p, q, a, b, c, s);
      point_at(s, a, b, c, y);
      float d = box_sdf(col->a, col->b, y);
      if (d < deepest) deepest = d, memcpy(bw, s, sizeof s), crossed = !(gap > 0) ? 1 : 0;
    }
  return crossed;
}

/* sampled_point of tri_collider.comp: the deepest of the centroid and the edge midpoints. */
static void sampled_point(const fl_gpu_collider *col, float t, const float *a, const float *b, const float *c,
                          float bw[3])
{
  static const float w[4][3] = {{1.0f / 3.0f, 1.0f / 3.0f, 1.0f / 3.0f}, {0.5f, 0.5f, 0}, {0, 0.5f, 0.5f},
                                {0.5f, 0, 0.5f}};
  float best = 0;
  for (int k = 0; k < 4; k++) {
    float q[3];
    for (int m = 0; m < 3; m++)
      q[m] = k == 0 ? (a[m] + b[m] + c[m]) / 3.0f
                    : 0.5f * ((k == 1 ? a : k == 2 ? b : c)[m] + (k == 1 ? b : k == 2 ? c : a)[m]);
    float d = fl_collider_sdf_cpu(col, q, t);
    if (k == 0 || d < best) best = d, memcpy(bw, w[k], sizeof w[k]);
  }
}

/* One triangle against one collider (the loop body of tri_collider.comp). */
static void triangle_collider(const fl_gpu_xpbd_object *o, const fl_gpu_collider *col, const fl_tri_colliders *cols,
                              const uint32_t idx[4], float (*x)[4], const float (*prev)[4], int32_t (*accum)[4])
{
  float r = 0.5f * o->thickness, t = cols->t;
  const float *a = x[idx[0]], *b = x[idx[1]], *c = x[idx[2]];
  float lab = dist3(a, b), lbc = dist3(b, c), lca = dist3(c, a);
  if (col->shape == FL_GPU_SHAPE_PLANE) return;
  if (fl_collider_sdf_cpu(col, a, t) - fmaxf(lab, lca) >= r || fl_collider_sdf_cpu(col, b, t) - fmaxf(lab, lbc) >= r ||
      fl_collider_sdf_cpu(col, c, t) - fmaxf(lbc, lca) >= r)
    return;
  float bw[3], nt[3];
  bool crossed = false;
  tri_normal(a, b, c, nt);
  if (col->shape == FL_GPU_SHAPE_MESH || col->inside) {
    sampled_point(col, t, a, b, c, bw);
  } else {
    float ra[3], rb[3], rc[3];
    fl_collider_rest_point_cpu(col, a, t, ra);
    fl_collider_rest_point_cpu(col, b, t, rb);
    fl_collider_rest_point_cpu(col, c, t, rc);
    int found = collider_point(col, ra, rb, rc, r, bw);
    if (found < 0) return; /* no box edge within reach */
    crossed = found > 0;
    if (crossed) {
      float g[3], centre[3], rn[3], gc[3];
      for (int k = 0; k < 3; k++) g[k] = (ra[k] + rb[k] + rc[k]) / 3.0f, centre[k] = col->a[k];
      if (col->shape == FL_GPU_SHAPE_CAPSULE) {
        float ax[3], ga[3];
        for (int k = 0; k < 3; k++) ax[k] = col->b[k] - col->a[k], ga[k] = g[k] - col->a[k];
        float h = clampf(dot3(ga, ax) / fmaxf(dot3(ax, ax), 1e-12f), 0.0f, 1.0f);
        for (int k = 0; k < 3; k++) centre[k] = col->a[k] + ax[k] * h;
      }
      tri_normal(ra, rb, rc, rn);
      for (int k = 0; k < 3; k++) gc[k] = g[k] - centre[k];
      if (dot3(rn, gc) < 0)
        for (int k = 0; k < 3; k++) nt[k] = -nt[k];
    }
  }
  float xb[3], n[3];
  point_at(bw, a, b, c, xb);
  float C = fl_collider_sdf_cpu(col, xb, t) - r;
  if (!(C < 0)) return;
  float lt = sqrtf(dot3(nt, nt));
  if (crossed && !(lt > 1e-20f)) return;
  if (crossed)
    for (int k = 0; k < 3; k++) n[k] = nt[k] / lt;
  else
    fl_collider_normal_select_cpu(col, xb, t, cols->tetrahedral, n);
  float S = a[3] * bw[0] * bw[0] + b[3] * bw[1] * bw[1] + c[3] * bw[2] * bw[2];
  if (!(S > 1e-12f)) return;
  float dl = -C / S, depth = -C, f = o->self_collision == FL_SELF_TRIANGLES ? 0.0f : col->friction, vc[3], D[3], Dt[3];
  fl_collider_velocity_cpu(col, xb, t, vc);
  for (int k = 0; k < 3; k++)
    D[k] = bw[0] * (a[k] - prev[idx[0]][k]) + bw[1] * (b[k] - prev[idx[1]][k]) + bw[2] * (c[k] - prev[idx[2]][k]) -
           cols->h * vc[k];
  float dn = dot3(D, n);
  for (int k = 0; k < 3; k++) Dt[k] = D[k] - dn * n[k];
  float len = sqrtf(dot3(Dt, Dt)), mu_s = sqrtf(o->static_friction * f), mu_k = sqrtf(o->kinetic_friction * f);
  float scale = len > 0 ? (len < mu_s * depth ? 1.0f : fminf(mu_k * depth / len, 1.0f)) : 0.0f;
  float w[4] = {a[3], b[3], c[3], 0}, dx[4][3] = {{0}};
  for (int m = 0; m < 3; m++) {
    float move = n[m] * dl + (-Dt[m] * scale) / S;
    for (int k = 0; k < 3; k++) dx[k][m] = w[k] * bw[k] * move;
  }
  fl_tri_accumulate_cpu(accum, idx, w, dx);
}

void fl_tri_colliders_cpu(const fl_xpbd_build *b, const fl_tri_colliders *cols, float (*x)[4],
                          const float (*prev)[4], int32_t (*accum)[4])
{
  for (uint32_t t = 0; t < b->triangle_count; t++) {
    const fl_gpu_xpbd_object *o = &b->objects[b->triangle_object[t]];
    if (o->body != 0) continue;
    uint32_t idx[4] = {b->triangles[3 * t], b->triangles[3 * t + 1], b->triangles[3 * t + 2], 0};
    for (uint32_t ci = 0; ci < cols->count; ci++) triangle_collider(o, &cols->colliders[ci], cols, idx, x, prev, accum);
  }
}
