/* sim/xpbd/tri_contact_cpu: the CPU reference of triangle contacts (see tri_contact_cpu.h).
 * Every float expression is written in the order of shaders/xpbd/tri_contact.glsl. */
#include "sim/xpbd/tri_contact_cpu.h"

#include "sim/common/sdf_cpu.h"
#include "sim/xpbd/tri_collider_cpu.h"

#include <math.h>
#include <string.h>

static float dot3f(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void sub3f(const float *a, const float *b, float *o)
{
  for (int k = 0; k < 3; k++) o[k] = a[k] - b[k];
}
static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

void fl_tri_closest_on_triangle(const float p[3], const float a[3], const float b[3], const float c[3],
                                float bary[3])
{
  float ab[3], ac[3], ap[3], bp[3], cp[3];
  sub3f(b, a, ab);
  sub3f(c, a, ac);
  sub3f(p, a, ap);
  float d1 = dot3f(ab, ap), d2 = dot3f(ac, ap);
  bary[0] = 1, bary[1] = 0, bary[2] = 0;
  if (d1 <= 0 && d2 <= 0) return;
  sub3f(p, b, bp);
  float d3 = dot3f(ab, bp), d4 = dot3f(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    bary[0] = 0, bary[1] = 1;
    return;
  }
  float vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    float v = d1 / (d1 - d3);
    bary[0] = 1.0f - v, bary[1] = v;
    return;
  }
  sub3f(p, c, cp);
  float d5 = dot3f(ab, cp), d6 = dot3f(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    bary[0] = 0, bary[2] = 1;
    return;
  }
  float vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    float w = d2 / (d2 - d6);
    bary[0] = 1.0f - w, bary[2] = w;
    return;
  }
  float va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    float w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    bary[0] = 0, bary[1] = 1.0f - w, bary[2] = w;
    return;
  }
  float sum = va + vb + vc;
  if (!(sum > 0)) return; /* a degenerate triangle */
  float v = vb / sum, w = vc / sum;
  bary[0] = 1.0f - v - w, bary[1] = v, bary[2] = w;
}

void fl_tri_closest_on_segments(const float p1[3], const float q1[3], const float p2[3], const float q2[3],
                                float st[2])
{
  float d1[3], d2[3], r[3];
  sub3f(q1, p1, d1);
  sub3f(q2, p2, d2);
  sub3f(p1, p2, r);
  float a = dot3f(d1, d1), e = dot3f(d2, d2), f = dot3f(d2, r);
  st[0] = st[1] = 0;
  if (a <= 1e-20f && e <= 1e-20f) return;
  if (a <= 1e-20f) {
    st[1] = clampf(f / e, 0, 1);
    return;
  }
  float c = dot3f(d1, r);
  if (e <= 1e-20f) {
    st[0] = clampf(-c / a, 0, 1);
    return;
  }
  float b = dot3f(d1, d2), denom = a * e - b * b;
  float s = denom > 1e-6f * a * e ? clampf((b * f - c * e) / denom, 0, 1) : 0.0f;
  float t = (b * s + f) / e;
  if (t < 0) {
    t = 0;
    s = clampf(-c / a, 0, 1);
  } else if (t > 1) {
    t = 1;
    s = clampf((b - c) / a, 0, 1);
  }
  st[0] = s, st[1] = t;
}

/* sum_k c[k] v[k] in the kernel's order. */
static void combine(float v[4][3], const float c[4], float out[3])
{
  for (int a = 0; a < 3; a++) out[a] = c[0] * v[0][a] + c[1] * v[1][a] + c[2] * v[2][a] + c[3] * v[3][a];
}

bool fl_tri_contact_solve(float x[4][3], float xp[4][3], const float w[4], const float c[4], float reach,
                          float mu_s, float mu_k, const float outward[3], float dx[4][3])
{
  memset(dx, 0, 4 * sizeof dx[0]);
  float d[3], dp[3], n[3];
  combine(x, c, d);
  if (!(dot3f(d, d) < reach * reach)) return false;
  combine(xp, c, dp);
  float lp = sqrtf(dot3f(dp, dp)), l = sqrtf(dot3f(d, d));
  for (int a = 0; a < 3; a++) n[a] = lp > 1e-9f ? dp[a] / lp : l > 1e-12f ? d[a] / l : (a == 1 ? 1.0f : 0.0f);
  if (dot3f(n, outward) < 0) memcpy(n, outward, sizeof n); /* a closed surface's side wins over a start inside it */
  float C = dot3f(n, d) - reach;
  float S = w[0] * c[0] * c[0] + w[1] * c[1] * c[1] + w[2] * c[2] * c[2] + w[3] * c[3] * c[3];
  if (!(C < 0) || S < 1e-12f) return false;
  float dl = -C / S, disp[4][3], D[3], Dt[3], fr[3] = {0, 0, 0};
  for (int k = 0; k < 4; k++) sub3f(x[k], xp[k], disp[k]);
  combine(disp, c, D);
  float dn = dot3f(D, n);
  for (int a = 0; a < 3; a++) Dt[a] = D[a] - dn * n[a];
  float lt = sqrtf(dot3f(Dt, Dt)), depth = -C;
  if (lt > 0) {
    float f = lt < mu_s * depth ? 1.0f : fminf(mu_k * depth / lt, 1.0f);
    for (int a = 0; a < 3; a++) fr[a] = -Dt[a] * f;
  }
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++) dx[k][a] = (w[k] * c[k]) * (n[a] * dl + fr[a] / S);
  return true;
}

/* Mirrors fl_tri_pair (tri_contact.glsl). */
static bool tri_pair(const fl_gpu_xpbd_object *a, const fl_gpu_xpbd_object *b)
{
  bool ta = a->self_collision == FL_SELF_TRIANGLES && a->body == 0;
  bool tb = b->self_collision == FL_SELF_TRIANGLES && b->body == 0;
  return (ta && tb) || (ta && b->body != 0) || (a->body != 0 && tb);
}

/* Steps (*e, *f) to the next pair of contact edges e < f, in the order of two nested loops, whose
 * objects collide (tri_pair) and which share no particle; false past the last. Start at (0, 0). */
static bool next_edge_pair(const fl_xpbd_build *b, const fl_tri_contacts *tc, uint32_t *e, uint32_t *f)
{
  for (;;) {
    if (++*f >= tc->edge_count) *f = ++*e + 1;
    if (*f >= tc->edge_count) return false;
    const uint32_t *ab = tc->edges[*e], *cd = tc->edges[*f];
    if (tri_pair(&b->objects[b->particle_object[ab[0]]], &b->objects[b->particle_object[cd[0]]]) &&
        cd[0] != ab[0] && cd[0] != ab[1] && cd[1] != ab[0] && cd[1] != ab[1])
      return true;
  }
}

static int32_t fixed(float v) /* fl_tri_fixed */
{
  return (int32_t)floorf(clampf(v * (float)FL_TRI_FIXED, -2.0e9f, 2.0e9f) + 0.5f);
}

void fl_tri_accumulate_cpu(int32_t (*accum)[4], const uint32_t idx[4], const float w[4], float dx[4][3])
{
  for (int k = 0; k < 4; k++) {
    if (w[k] <= 0 || (dx[k][0] == 0 && dx[k][1] == 0 && dx[k][2] == 0)) continue;
    for (int a = 0; a < 3; a++) accum[idx[k]][a] += fixed(dx[k][a]);
    accum[idx[k]][3]++;
  }
}

static void contact_at(const fl_gpu_xpbd_object *oa, const fl_gpu_xpbd_object *ob, float (*x)[4],
                       const float (*prev)[4], const uint32_t idx[4], const float c[4], const float outward[3],
                       int32_t (*accum)[4])
{
  float xs[4][3], xp[4][3], w[4], dx[4][3];
  for (int k = 0; k < 4; k++) {
    memcpy(xs[k], x[idx[k]], sizeof xs[k]);
    memcpy(xp[k], prev[idx[k]], sizeof xp[k]);
    w[k] = x[idx[k]][3];
  }
  float reach = 0.5f * (oa->thickness + ob->thickness);
  if (fl_tri_contact_solve(xs, xp, w, c, reach, sqrtf(oa->static_friction * ob->static_friction),
                           sqrtf(oa->kinetic_friction * ob->kinetic_friction), outward, dx))
    fl_tri_accumulate_cpu(accum, idx, w, dx);
}

/* The unit face normal cross(b - a, c - a) of triangle v (a body's: wound outward), zeros when degenerate. */
static void outward_normal(float (*x)[4], const uint32_t v[3], float out[3])
{
  float e1[3], e2[3], f[3];
  sub3f(x[v[1]], x[v[0]], e1);
  sub3f(x[v[2]], x[v[0]], e2);
  f[0] = e1[1] * e2[2] - e1[2] * e2[1], f[1] = e1[2] * e2[0] - e1[0] * e2[2], f[2] = e1[0] * e2[1] - e1[1] * e2[0];
  float lf = sqrtf(dot3f(f, f));
  for (int a = 0; a < 3; a++) out[a] = lf > 1e-12f ? f[a] / lf : 0.0f;
}

/* How far apart a pair with contact distance `reach` is listed (fl_tri_list_radius, tri_list.glsl). */
static float list_radius(const fl_tri_contacts *tc, float reach)
{
  return tc->guard > 0 ? (float)FL_TRI_GUARD_LIST * reach : reach;
}

/* True when p lies within r of triangle (a, b, c) (tri_pairs.comp's list test). */
static bool within(const float p[3], const float a[3], const float b[3], const float c[3], float r)
{
  float bary[3], d[3];
  fl_tri_closest_on_triangle(p, a, b, c, bary);
  for (int k = 0; k < 3; k++) d[k] = p[k] - (bary[0] * a[k] + bary[1] * b[k] + bary[2] * c[k]);
  return dot3f(d, d) < r * r;
}

/* True when segments (a, b) and (c, d) come within r (tri_pairs.comp's keep_edge test). */
static bool segments_within(const float a[3], const float b[3], const float c[3], const float d[3], float r)
{
  float st[2], sep[3];
  fl_tri_closest_on_segments(a, b, c, d, st);
  for (int k = 0; k < 3; k++) sep[k] = (a[k] + (b[k] - a[k]) * st[0]) - (c[k] + (d[k] - c[k]) * st[1]);
  return dot3f(sep, sep) < r * r;
}

void fl_tri_contacts_cpu_pass(const fl_xpbd_build *b, const fl_tri_contacts *tc, const fl_tri_colliders *cols,
                              float (*x)[4], const float (*prev)[4], const float (*x_list)[4], int32_t (*accum)[4],
                              uint32_t *contact, const fl_collide_env *priority)
{
  if (!tc->any) return;
  const uint32_t *tri = b->triangles;
  /* Vertex-triangle (tri_vertex.comp). */
  for (uint32_t i = 0; i < b->particle_count; i++) {
    const fl_gpu_xpbd_object *oi = &b->objects[b->particle_object[i]];
    if (oi->body == 0 && oi->self_collision != FL_SELF_TRIANGLES) continue;
    for (uint32_t t = 0; t < b->triangle_count; t++) {
      const fl_gpu_xpbd_object *ot = &b->objects[b->triangle_object[t]];
      if (!tri_pair(oi, ot)) continue;
      uint32_t idx[4] = {i, tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]};
      if (idx[1] == i || idx[2] == i || idx[3] == i) continue;
      float bary[3], d[3];
      fl_tri_closest_on_triangle(x[i], x[idx[1]], x[idx[2]], x[idx[3]], bary);
      for (int a = 0; a < 3; a++)
        d[a] = x[i][a] - (bary[0] * x[idx[1]][a] + bary[1] * x[idx[2]][a] + bary[2] * x[idx[3]][a]);
      float reach = 0.5f * (oi->thickness + ot->thickness);
      if (!(dot3f(d, d) < reach * reach)) continue;
      if (x_list && !within(x_list[i], x_list[idx[1]], x_list[idx[2]], x_list[idx[3]], list_radius(tc, reach)))
        continue; /* not in the pair list of the substep */
      float c[4] = {1.0f, -bary[0], -bary[1], -bary[2]}, outward[3] = {0, 0, 0};
      if (ot->body != 0) outward_normal(x, tri + 3 * (size_t)t, outward); /* tri_vertex.comp */
      else if (oi->body != 0) { /* minus the body vertex's normal: the sum of its triangles' */
        double f[3] = {0, 0, 0};
        for (uint32_t u = 0; u < b->triangle_count; u++) {
          const uint32_t *v = tri + 3 * (size_t)u;
          if (v[0] != i && v[1] != i && v[2] != i) continue;
          float e1[3], e2[3];
          sub3f(x[v[1]], x[v[0]], e1);
          sub3f(x[v[2]], x[v[0]], e2);
          f[0] += e1[1] * e2[2] - e1[2] * e2[1], f[1] += e1[2] * e2[0] - e1[0] * e2[2];
          f[2] += e1[0] * e2[1] - e1[1] * e2[0];
        }
        double lf = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        for (int a = 0; a < 3; a++) outward[a] = lf > 1e-12 ? (float)(-f[a] / lf) : 0.0f;
      }
      contact_at(oi, ot, x, prev, idx, c, outward, accum);
    }
  }
  /* Edge-edge (tri_edge.comp): each pair (a, b) < (c, d) once. */
  for (uint32_t e = 0, f = 0; next_edge_pair(b, tc, &e, &f);) {
    const uint32_t *ab = tc->edges[e], *cd = tc->edges[f];
    const fl_gpu_xpbd_object *oi = &b->objects[b->particle_object[ab[0]]];
    const fl_gpu_xpbd_object *ot = &b->objects[b->particle_object[cd[0]]];
    float st[2], sep[3];
    fl_tri_closest_on_segments(x[ab[0]], x[ab[1]], x[cd[0]], x[cd[1]], st);
    for (int a = 0; a < 3; a++) {
      float pa = x[ab[0]][a] + (x[ab[1]][a] - x[ab[0]][a]) * st[0]; /* GLSL mix(x, y, a) = x + (y - x) a */
      float pc = x[cd[0]][a] + (x[cd[1]][a] - x[cd[0]][a]) * st[1];
      sep[a] = pa - pc;
    }
    float reach = 0.5f * (oi->thickness + ot->thickness);
    if (!(dot3f(sep, sep) < reach * reach)) continue;
    if (x_list &&
        !segments_within(x_list[ab[0]], x_list[ab[1]], x_list[cd[0]], x_list[cd[1]], list_radius(tc, reach)))
      continue; /* not in the pair list of the substep */
    uint32_t idx[4] = {ab[0], ab[1], cd[0], cd[1]};
    float c[4] = {1.0f - st[0], st[0], -(1.0f - st[1]), -st[1]}, outward[3] = {0, 0, 0};
    if (ot->body != 0) /* (c, d) a body's edge: its owner's outward normal (tri_edge.comp) */
      for (uint32_t t = 0; t < b->triangle_count; t++) {
        const uint32_t *v = tri + 3 * (size_t)t;
        for (uint32_t k = 0; k < 3; k++)
          if ((tc->owned[t] & (1u << k)) && ((v[k] == cd[0] && v[(k + 1) % 3] == cd[1]) ||
                                             (v[k] == cd[1] && v[(k + 1) % 3] == cd[0])))
            outward_normal(x, v, outward);
      }
    contact_at(oi, ot, x, prev, idx, c, outward, accum);
  }
  fl_tri_colliders_cpu(b, cols, x, prev, accum);
  fl_tri_apply_cpu(b->particle_count, accum, x, contact, priority);
}

/* The largest |coordinate| of four points, times FL_TRI_GUARD_ULPS float epsilons (tri_guard_bound.comp). */
static float guard_ulps(const float *p0, const float *p1, const float *p2, const float *p3)
{
  float m[3];
  for (int a = 0; a < 3; a++)
    m[a] = fmaxf(fmaxf(fabsf(p0[a]), fabsf(p1[a])), fmaxf(fabsf(p2[a]), fabsf(p3[a])));
  return (float)FL_TRI_GUARD_ULPS * 1.1920929e-7f * fmaxf(fmaxf(m[0], m[1]), m[2]);
}

/* A listed pair of particles idx (side 1: idx[0] and, for an edge pair, idx[1]) whose nearest points at the
 * start are sep apart (tri_guard_bound.comp's main and fold). */
static void guard_pair(float (*x)[4], const float (*prev)[4], const uint32_t idx[4], const float sep[3],
                       bool vertex, float *bound)
{
  float g = sqrtf(dot3f(sep, sep));
  if (!(g > 0)) return;
  float n[3] = {sep[0] / g, sep[1] / g, sep[2] / g};
  float ulps = guard_ulps(prev[idx[0]], prev[idx[1]], prev[idx[2]], prev[idx[3]]);
  float beta = fmaxf((float)FL_TRI_GUARD_SHARE * g - ulps, 0.0f);
  const float side[4] = {1.0f, vertex ? -1.0f : 1.0f, -1.0f, -1.0f};
  for (int k = 0; k < 4; k++) {
    float d[3];
    sub3f(x[idx[k]], prev[idx[k]], d);
    float c = -side[k] * dot3f(n, d);
    if (c > beta) bound[idx[k]] = fminf(bound[idx[k]], beta / c);
  }
}

void fl_tri_guard_cpu(const fl_xpbd_build *b, const fl_tri_contacts *tc, float (*x)[4], const float (*prev)[4],
                      float *bound)
{
  if (!tc->any || !(tc->guard > 0)) return;
  const uint32_t *tri = b->triangles;
  for (uint32_t k = 0; k < b->particle_count; k++) bound[k] = INFINITY;
  /* The pair list at the start (tri_pairs.comp with the guard): vertex-triangle, then edge-edge. */
  for (uint32_t i = 0; i < b->particle_count; i++) {
    const fl_gpu_xpbd_object *oi = &b->objects[b->particle_object[i]];
    if (oi->body == 0 && oi->self_collision != FL_SELF_TRIANGLES) continue;
    for (uint32_t t = 0; t < b->triangle_count; t++) {
      const fl_gpu_xpbd_object *ot = &b->objects[b->triangle_object[t]];
      uint32_t idx[4] = {i, tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]};
      if (!tri_pair(oi, ot) || idx[1] == i || idx[2] == i || idx[3] == i) continue;
      float bary[3], d[3];
      fl_tri_closest_on_triangle(prev[i], prev[idx[1]], prev[idx[2]], prev[idx[3]], bary);
      for (int a = 0; a < 3; a++)
        d[a] = prev[i][a] - (bary[0] * prev[idx[1]][a] + bary[1] * prev[idx[2]][a] + bary[2] * prev[idx[3]][a]);
      float r = list_radius(tc, 0.5f * (oi->thickness + ot->thickness));
      if (dot3f(d, d) < r * r) guard_pair(x, prev, idx, d, true, bound);
    }
  }
  for (uint32_t e = 0, f = 0; next_edge_pair(b, tc, &e, &f);) {
    const uint32_t *ab = tc->edges[e], *cd = tc->edges[f];
    const fl_gpu_xpbd_object *oi = &b->objects[b->particle_object[ab[0]]];
    const fl_gpu_xpbd_object *ot = &b->objects[b->particle_object[cd[0]]];
    float st[2], sep[3];
    fl_tri_closest_on_segments(prev[ab[0]], prev[ab[1]], prev[cd[0]], prev[cd[1]], st);
    for (int a = 0; a < 3; a++)
      sep[a] = (prev[ab[0]][a] + (prev[ab[1]][a] - prev[ab[0]][a]) * st[0]) -
               (prev[cd[0]][a] + (prev[cd[1]][a] - prev[cd[0]][a]) * st[1]);
    float r = list_radius(tc, 0.5f * (oi->thickness + ot->thickness));
    uint32_t idx[4] = {ab[0], ab[1], cd[0], cd[1]};
    if (dot3f(sep, sep) < r * r) guard_pair(x, prev, idx, sep, false, bound);
  }
  /* The clamp (tri_guard_clamp.comp). */
  for (uint32_t k = 0; k < b->particle_count; k++) {
    const fl_gpu_xpbd_object *ok = &b->objects[b->particle_object[k]];
    if ((ok->body == 0 && ok->self_collision != FL_SELF_TRIANGLES) || !(x[k][3] > 0)) continue;
    bool in_triangle = false;
    for (uint32_t t = 0; t < 3 * b->triangle_count && !in_triangle; t++) in_triangle = tri[t] == k;
    if (!in_triangle) continue;
    float m = fmaxf(fmaxf(fabsf(prev[k][0]), fabsf(prev[k][1])), fabsf(prev[k][2])), d[3];
    float ulps = (float)FL_TRI_GUARD_ULPS * 1.1920929e-7f * m;
    float bk = fmaxf(tc->guard - ulps, 0.0f);
    sub3f(x[k], prev[k], d);
    float l2 = dot3f(d, d), lambda = fminf(1.0f, bound[k]);
    if (l2 > bk * bk) lambda = fminf(lambda, bk / sqrtf(l2));
    if (lambda < 1.0f)
      for (int a = 0; a < 3; a++) x[k][a] = prev[k][a] + d[a] * lambda;
  }
}

void fl_tri_apply_cpu(uint32_t particle_count, int32_t (*accum)[4], float (*x)[4], uint32_t *contact,
                      const fl_collide_env *priority)
{
  for (uint32_t k = 0; k < particle_count; k++) {
    bool moved = accum[k][3] != 0;
    if (moved) {
      for (int a = 0; a < 3; a++) x[k][a] += ((float)accum[k][a] / (float)FL_TRI_FIXED) / (float)accum[k][3];
      memset(accum[k], 0, sizeof accum[k]);
    }
    bool hit = priority && x[k][3] > 0.0f && fl_collide_particle_cpu(priority, k, x[k]); /* pinned: kept */
    if (moved || hit) contact[k] = 1;
  }
}

/* Six times the signed volume of (a, b, c, d). */
static double orient(const double a[3], const double b[3], const double c[3], const double d[3])
{
  double u[3], v[3], w[3];
  for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

bool fl_segment_hits_triangle(const double p[3], const double q[3], const double a[3], const double b[3],
                              const double c[3])
{
  double sp = orient(a, b, c, p), sq = orient(a, b, c, q);
  if ((sp > 0 && sq > 0) || (sp < 0 && sq < 0) || (sp == 0 && sq == 0)) return false;
  double e0 = orient(p, q, a, b), e1 = orient(p, q, b, c), e2 = orient(p, q, c, a);
  return (e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0);
}
