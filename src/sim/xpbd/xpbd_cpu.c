/* sim/xpbd/xpbd_cpu: the CPU reference of one XPBD substep (xpbd_spec.h,
 * steps 1-7, with what softbody_spec.h adds for soft bodies and balloons) on
 * the arrays of an fl_xpbd_build. It is written for clarity, not speed; the
 * GPU kernels compare against it at ~1e-5.
 *
 * Floating-point formulation (all float; the GPU kernels mirror these):
 *  - integrator (sim.integrator): Euler, or BDF2 (NOTES.md "BDF2 variant"): its
 *    first substep is an Euler step that records x^(n-1) and v^(n-1); later ones
 *    predict x = 4/3 x - 1/3 x_old + h (8/9 v - 2/9 v_old) + 4/9 h^2 (g + a),
 *    solve with h_s = 2 h / 3 in place of h in every alpha~ below (the implicit
 *    step of BDF2 is 2 h / 3), and set v = (3/2 x - 2 prev + 1/2 older) / h.
 *  - XPBD update: alpha~ = compliance / (h_s*h_s), h_s = h for Euler; denom = S + alpha~ with
 *    S = w_i + w_j for a distance constraint (|n|^2 taken as 1) and
 *    S = sum over k = 0..3 of w_k * dot(g_k, g_k) for a bend or tet; skipped when
 *    denom < 1e-12; dlambda = (-C - alpha~ * lambda) / denom;
 *    x_k[a] += g_k[a] * (w_k * dlambda).
 *  - families, in this order every iteration: distance, bend, tet (each by colour
 *    or Jacobi, the same code with the family's eval).
 *  - distance: dx = x_i - x_j, len = sqrt(dot(dx, dx)), n = dx / len, C = len - rest;
 *    skipped (dlambda = 0) when len < 1e-12.
 *  - dihedral: q_k exactly as xpbd_spec.h writes them, but grad_k C = +q_k /
 *    sqrt(1 - d^2): those q are the NEGATIVE gradients of d (checked numerically in
 *    tests/unit/test_cloth_build.c), so the spec's "-q_k" would push away from rest.
 *    The rest angle of a flat stencil is pi with these normals (d = -1).
 *  - isometric: s = ((K0 x0 + K1 x1) + K2 x2) + K3 x3 on absolute positions;
 *    C = (0.5 * c) * dot(s, s); grad_k = (c * K_k) * s.
 *  - tet, d_c = x_c - x0: volume: C = dot(d1 x d2, d3) / 6 - V0, g1 = (d2 x d3) / 6,
 *    g2 = (d3 x d1) / 6, g3 = (d1 x d2) / 6. Neo-Hookean: with M the stored rows of
 *    Dm^-1, F column c = (d1 M[0][c] + d2 M[1][c]) + d3 M[2][c]; hydrostatic:
 *    C = dot(F0, F1 x F2) - gamma, dC = (F1 x F2, F2 x F0, F0 x F1); deviatoric:
 *    C = sqrt((dot(F0,F0) + dot(F1,F1)) + dot(F2,F2)), skipped when C < 1e-9,
 *    dC = F * (1 / C); g_{c+1} = (dC0 M[c][0] + dC1 M[c][1]) + dC2 M[c][2]. Both:
 *    g0 = -((g1 + g2) + g3). The two are one record, solved together
 *    (softbody_spec.h): s_xy summed over k = 0..3 of w_k * dot(gx_k, gy_k) (split
 *    w for Jacobi), dl as the spec writes it, then dl times omega (Jacobi); GS:
 *    x_k += (gD_k * dl_D + gH_k * dl_H) * w_k; Jacobi corr = w_k * (gD_k * dl_D + gH_k * dl_H).
 *  - Jacobi (mass splitting): the constraint pass computes dlambda with each w_k of
 *    the denominator S replaced by w_k * (float)n_k, n_k the particle's CSR degree
 *    (first[k+1] - first[k], at least 1), multiplies it by omega, does
 *    lambda += dlambda and stores per constraint slot
 *    corr = g_k * (w_k * dlambda); the particle pass sums, from 0, the corr of the
 *    constraints in the particle's CSR list in ascending (colour-ordered) index
 *    whose dlambda != 0 (a constraint listing the particle contributes its first
 *    matching slot); then x_k[a] += delta[a].
 *  - body volumes (after the families, every iteration; per body in order):
 *    V = (sum over its triangles in order of dot(x_a x x_b, x_c)) / 6 (the GPU sums
 *    in a tree: not bitwise); g_i = (sum over i's triangles in vertex-to-triangle
 *    CSR order of the cyclic cross product) / 6; target = V0 * k.
 *    Overpressure (volume.w != 0): lambda = state.y, S = sum_i w_i dot(g_i, g_i),
 *    alpha~ = pressure_compliance / (h*h); nothing unless S + alpha~ > 0;
 *    dl = (-(V - target) - alpha~ lambda) / (S + alpha~); x_i += (w_i g_i) * dl;
 *    state.y = lambda + dl. Conservation (mode != none), V and g_i again:
 *    r_i = |x_i - prev_i|; free_i = (i has triangles) && contact_i == 0;
 *    s_i = (r_i + sum over i's triangles of (((r_a + r_b) + r_c) - r_i)) / (1 + 2 n_i)
 *    for free vertices, else 0; sigma = sum s_i, m = number of free; m = 0: nothing;
 *    l = sigma > 0 ? s_i / sigma : 1/m; omega = local ? (1 - alpha) l + alpha (1/m)
 *    : 1/m (0 when not free); W_i = omega w_i; S = sum W_i dot(g_i, g_i); nothing
 *    unless S > 0; x_i -= (W_i ((V - target) / S)) g_i.
 *  - wind: u = (((v0 + v1) + v2) / 3) - wind; cr = (x1-x0) x (x2-x0); len = |cr|,
 *    no force when len < 1e-12; A = 0.5 len, n = cr / len, flipped when dot(u, n) < 0;
 *    f = -drag A un u - lift A un (n - nu uh), un = u.n, uh = u / |u|, nu = n.uh
 *    (f = 0 when |u| < 1e-9); each vertex adds f[a] / 3 in ascending triangle
 *    order; a = w * (sum). Predict: v += h * (g + a); x += h * v.
 *  - contacts: colliders in order, then walls x-min, x-max, y-min, ..., z-max with
 *    d = x - (min + r) and d = (max - r) - x. Push x[a] -= d * n[a]; then
 *    D = (x - prev) - h v_c, D_t = D - dot(D, n) n, lt = |D_t|; nothing when lt = 0;
 *    factor 1 when lt < mu_s depth, else min(mu_k depth / lt, 1); x -= D_t * factor.
 *    mu = sqrt(cloth coefficient * collider friction) (walls: friction 1).
 *    contact_i = 1 when any collider or wall had d < 0, else 0 (0 for w = 0).
 *  - particle collisions: the particles of self-colliding objects, every particle
 *    when the build has a body; the hash cell is the largest thickness c among
 *    self-colliding objects (bodies are), and pairs need d < 1 / (1 / c) (the
 *    GPU's cell, from its push constant 1 / c) and d >= 1e-12; same object: never
 *    for a body or a non-self-colliding cloth, else not grid neighbours
 *    (|di| <= 2 and |dj| <= 2); other objects: both self-colliding or either a
 *    body (params.w != 0). reach = 0.5 * (thickness_i + thickness_j), d < reach;
 *    mu_s = sqrt(static_i * static_j), mu_k likewise. Two passes over the same
 *    contacts from the same positions: the first sums s (reach - d) n per contact,
 *    s = w_i / (w_i + w_j), count = number of contacts, P_i = sum / count (0 when
 *    count = 0); the second adds, in the same contact order, s (reach - d) n plus s
 *    times the friction correction (as above, on D = ((x_i + P_i) - prev_i) -
 *    ((x_j + P_j) - prev_j)); x_i[a] += sum[a] / count and contact_i = 1 when count > 0.
 *    Only particles with w_i > 0 move. The sum order (hash order here) is free.
 *  - velocity: v[a] = (x[a] - prev[a]) / h (BDF2: above). Point damping: v *= max(0, 1 - damping h).
 *    Edge damping: per distance constraint in ascending index, n = dx / |dx| (skip
 *    |dx| < 1e-12 or w_i + w_j = 0), s = dot(v_i - v_j, n), dv_i -= ((k w_i) / (w_i + w_j)) s n,
 *    dv_j += ((k w_j) / (w_i + w_j)) s n, k = min(damping h, 1) / 8, dv from 0;
 *    then v += dv.
 *  - global damping (after the point and edge damping): per object with that model,
 *    over its particles with w > 0 (m = 1/w): x_cm, v_cm (mass-weighted means),
 *    r = x - x_cm, L = sum m r x v, I = sum m (|r|^2 E - r r^T), omega = I^-1 L
 *    (0 when det I <= 1e-9 trace(I)^3), v += k (v_cm + omega x r - v), k = min(damping h, 1).
 *  - measure (after the velocities): per body V as above; state = (V, 0, z, w) with,
 *    when t >= conserve.z, z = min(z, V / target), w = max(w, V / target). */
#include "sim/xpbd/xpbd_cpu.h"
#include "sim/xpbd/collide_cpu.h"
#include "sim/xpbd/tri_collider_cpu.h"
#include "sim/xpbd/tri_contact_cpu.h"
#include "sim/xpbd/sweep_order.h"

#include "core/log.h"
#include "gust_shared.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/sdf_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void sub3(const float a[3], const float b[3], float out[3])
{
  for (int k = 0; k < 3; k++) out[k] = a[k] - b[k];
}
static void cross3(const float a[3], const float b[3], float out[3])
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

bool fl_xpbd_distance_eval(const fl_gpu_distance *d, const float xi[3], const float xj[3], float *c_out,
                            float grad_i[3])
{
  float dx[3];
  sub3(xi, xj, dx);
  float len = sqrtf(dot3(dx, dx));
  if (len < 1e-12f) {
    *c_out = 0.0f;
    grad_i[0] = grad_i[1] = grad_i[2] = 0.0f;
    return false;
  }
  *c_out = len - d->rest;
  for (int a = 0; a < 3; a++) grad_i[a] = dx[a] / len;
  return true;
}

/* (a x b + (c x a) d) / l, the form of every term of the dihedral q's. */
static void q_term(const float a[3], const float b[3], const float c[3], float d, float l, float out[3])
{
  float t[3], u[3];
  cross3(a, b, t);
  cross3(c, a, u);
  for (int k = 0; k < 3; k++) out[k] = (t[k] + u[k] * d) / l;
}

static bool dihedral_eval(const fl_gpu_bend *b, const float x[12], float *c_out, float g[12])
{
  float p1[3], p2[3], p3[3], c12[3], c13[3];
  sub3(x + 3, x, p1);
  sub3(x + 6, x, p2);
  sub3(x + 9, x, p3);
  cross3(p1, p2, c12);
  cross3(p1, p3, c13);
  float l12 = sqrtf(dot3(c12, c12)), l13 = sqrtf(dot3(c13, c13));
  if (l12 < 1e-12f || l13 < 1e-12f) return false;
  float n1[3], n2[3];
  for (int k = 0; k < 3; k++) n1[k] = c12[k] / l12, n2[k] = c13[k] / l13;
  float d = dot3(n1, n2), n12[3];
  d = d < -1.0f ? -1.0f : d > 1.0f ? 1.0f : d;
  cross3(n1, n2, n12);
  float sn = sqrtf(dot3(n12, n12)); /* sin of the angle: exact near flat, where 1 - d^2 is not */
  *c_out = atan2f(sn, d) - b->rest;
  if (sn < 1e-4f) return false;
  float q[4][3], a2[3], a3[3];
  q_term(p1, n2, n1, d, l12, q[2]); /* (p1 x n2 + (n1 x p1) d) / |p1 x p2| */
  q_term(p1, n1, n2, d, l13, q[3]); /* (p1 x n1 + (n2 x p1) d) / |p1 x p3| */
  q_term(p2, n2, n1, d, l12, a2);   /* (p2 x n2 + (n1 x p2) d) / |p1 x p2| */
  q_term(p3, n1, n2, d, l13, a3);   /* (p3 x n1 + (n2 x p3) d) / |p1 x p3| */
  for (int k = 0; k < 3; k++) {
    q[1][k] = -a2[k] - a3[k];
    q[0][k] = -q[1][k] - q[2][k] - q[3][k];
  }
  float inv = 1.0f / sn;
  for (int v = 0; v < 4; v++)
    for (int k = 0; k < 3; k++) g[3 * v + k] = q[v][k] * inv; /* +q: see the file comment */
  return true;
}

static bool isometric_eval(const fl_gpu_bend *b, const float x[12], float *c_out, float g[12])
{
  float s[3];
  for (int a = 0; a < 3; a++)
    s[a] = b->k[0] * x[a] + b->k[1] * x[3 + a] + b->k[2] * x[6 + a] + b->k[3] * x[9 + a];
  float c = b->rest;
  if (b->rest_s == 0.0f) { /* flat rest */
    *c_out = (0.5f * c) * dot3(s, s);
    for (int v = 0; v < 4; v++)
      for (int a = 0; a < 3; a++) g[3 * v + a] = (c * b->k[v]) * s[a];
    return true;
  }
  float l = sqrtf(dot3(s, s)); /* curved rest: C = c/2 (|s| - |s0|)^2 */
  if (l < 1e-4f * b->rest_s) return false;
  float dl = l - b->rest_s, f = c * dl / l;
  *c_out = (0.5f * c) * dl * dl;
  for (int v = 0; v < 4; v++)
    for (int a = 0; a < 3; a++) g[3 * v + a] = (f * b->k[v]) * s[a];
  return true;
}

bool fl_xpbd_bend_eval(const fl_gpu_bend *b, const float x[12], float *c_out, float grad[12])
{
  memset(grad, 0, 12 * sizeof grad[0]);
  *c_out = 0.0f;
  if (b->model == FL_BEND_DIHEDRAL) {
    if (dihedral_eval(b, x, c_out, grad)) return true;
    memset(grad, 0, 12 * sizeof grad[0]);
    return false;
  }
  if (isometric_eval(b, x, c_out, grad)) return true;
  *c_out = 0.0f;
  return false;
}

/* The matrix with columns u0, u1, u2 times M (given by rows, M[row][col]): out column c =
 * (u0 M[0][c] + u1 M[1][c]) + u2 M[2][c], as GLSL mat3(u0, u1, u2) * M. */
static void mat_mul_cols(const float u[3][3], const float m[3][4], float out[3][3])
{
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) out[c][r] = (u[0][r] * m[0][c] + u[1][r] * m[1][c]) + u[2][r] * m[2][c];
}

bool fl_tet_eval_cpu(const fl_gpu_tet *t, const float x[12], float *c_out, float grad[12])
{
  float d[3][3], g[4][3], cr[3];
  for (int c = 0; c < 3; c++) sub3(x + 3 * (c + 1), x, d[c]);
  cross3(d[0], d[1], cr);
  *c_out = dot3(cr, d[2]) / 6.0f - t->rest;
  cross3(d[1], d[2], g[1]);
  cross3(d[2], d[0], g[2]);
  cross3(d[0], d[1], g[3]);
  for (int c = 1; c < 4; c++)
    for (int a = 0; a < 3; a++) g[c][a] /= 6.0f;
  for (int a = 0; a < 3; a++) g[0][a] = -((g[1][a] + g[2][a]) + g[3][a]);
  memcpy(grad, g, 12 * sizeof grad[0]);
  return true;
}

/* The particle gradients (grad_k at 3k) of a function of F with dC/dF = dC (columns), M the rows of
 * Dm^-1: g_{c+1} = the columns of dC Dm^-T, g_0 = -((g1 + g2) + g3) (constraints.glsl, fl_tet_f_gradients). */
static void tet_f_gradients(const float dC[3][3], const float m[3][4], float grad[12])
{
  float G[3][3], mt[3][4]; /* G = dC Dm^-T: M^T's row k, column c is M[c][k] */
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) mt[r][c] = m[c][r];
    mt[r][3] = 0.0f;
  }
  mat_mul_cols(dC, (const float(*)[4])mt, G);
  for (int c = 0; c < 3; c++) memcpy(grad + 3 * (c + 1), G[c], sizeof G[0]);
  for (int a = 0; a < 3; a++) grad[a] = -((grad[3 + a] + grad[6 + a]) + grad[9 + a]);
}

bool fl_tet_nh_eval_cpu(const fl_gpu_tet *t, const float x[12], float C[2], float gd[12], float gh[12])
{
  /* F = Ds Dm^-1 (columns); t->dm_inv holds the rows of Dm^-1. */
  float d[3][3], F[3][3], dC[3][3];
  const float(*m)[4] = (const float(*)[4])t->dm_inv;
  for (int c = 0; c < 3; c++) sub3(x + 3 * (c + 1), x, d[c]);
  mat_mul_cols((const float(*)[3])d, m, F);
  cross3(F[1], F[2], dC[0]);
  cross3(F[2], F[0], dC[1]);
  cross3(F[0], F[1], dC[2]);
  C[1] = dot3(F[0], dC[0]) - t->gamma;
  tet_f_gradients((const float(*)[3])dC, m, gh);
  C[0] = sqrtf((dot3(F[0], F[0]) + dot3(F[1], F[1])) + dot3(F[2], F[2]));
  bool dev = C[0] >= 1e-9f;
  float inv = dev ? 1.0f / C[0] : 0.0f;
  for (int c = 0; c < 3; c++)
    for (int a = 0; a < 3; a++) dC[c][a] = dev ? F[c][a] * inv : 0.0f;
  tet_f_gradients((const float(*)[3])dC, m, gd);
  return dev;
}

void fl_tet_nh_dlambda_cpu(const float C[2], bool dev, const float gd[12], const float gh[12], const float w[4],
                           const float compliance[2], float h, const float lambda[2], float dl[2])
{
  float ax = compliance[0] / (h * h), ay = compliance[1] / (h * h);
  float sdd = 0.0f, sdh = 0.0f, shh = 0.0f;
  for (int k = 0; k < 4; k++) {
    sdd += w[k] * dot3(gd + 3 * k, gd + 3 * k);
    sdh += w[k] * dot3(gd + 3 * k, gh + 3 * k);
    shh += w[k] * dot3(gh + 3 * k, gh + 3 * k);
  }
  float bx = -C[0] - ax * lambda[0], by = -C[1] - ay * lambda[1];
  float a11 = sdd + ax, a22 = shh + ay;
  /* det A as a sum of terms >= 0 (fl_tet_nh_dlambda in constraints.glsl says why). */
  float det = fmaxf(sdd * shh - sdh * sdh, 0.0f) + ax * shh + ay * sdd + ax * ay;
  if (dev && det > 1e-6f * (a11 * a22)) {
    dl[0] = (bx * a22 - sdh * by) / det;
    dl[1] = (a11 * by - sdh * bx) / det;
    return;
  }
  /* Deviatoric skipped, or A near singular: the hydrostatic constraint alone. */
  dl[0] = 0.0f;
  dl[1] = a22 < 1e-12f ? 0.0f : by / a22;
}

bool fl_area_eval_cpu(const fl_gpu_area *a, const float x[9], float *c_out, float grad[9])
{
  float e1[3], e2[3], c[3];
  sub3(x + 3, x, e1);
  sub3(x + 6, x, e2);
  cross3(e1, e2, c);
  float len = sqrtf(dot3(c, c));
  memset(grad, 0, 9 * sizeof grad[0]);
  if (len < 1e-12f) {
    *c_out = -a->rest;
    return false;
  }
  float n[3] = {c[0] / len, c[1] / len, c[2] / len};
  *c_out = 0.5f * len - a->rest;
  cross3(e2, n, grad + 3);
  cross3(n, e1, grad + 6);
  for (int k = 0; k < 3; k++) {
    grad[3 + k] *= 0.5f;
    grad[6 + k] *= 0.5f;
    grad[k] = -(grad[3 + k] + grad[6 + k]);
  }
  return true;
}

/* ---- one constraint, any family ---- */

/* In the order of a GPU iteration (xpbd.c): distance, area, bend, tet. */
enum { FAMILY_DISTANCE, FAMILY_AREA, FAMILY_BEND, FAMILY_TET, FAMILY_COUNT };

typedef struct {
  uint32_t arity;
  uint32_t idx[4];
  float w[4];
  float grad[4][3];              /* grad_k C */
  float C, compliance;
  bool ok;
} con_eval;

static const fl_constraint_family *family_of(const fl_xpbd_build *b, int family)
{
  return family == FAMILY_TET ? &b->tet : family == FAMILY_BEND ? &b->bend : family == FAMILY_AREA ? &b->area : &b->distance;
}

static float *lambda_of(fl_xpbd_cpu *s, int family)
{
  return family == FAMILY_TET    ? s->tet_lambda
         : family == FAMILY_BEND ? s->bend_lambda
         : family == FAMILY_AREA ? s->area_lambda
                                 : s->distance_lambda;
}

/* The particle indices of constraint c of a family (2 for distance, 3 for area, else 4) into idx. */
static void indices_of(const fl_xpbd_build *b, int family, uint32_t c, uint32_t idx[4])
{
  if (family == FAMILY_DISTANCE) {
    idx[0] = b->distances[c].i;
    idx[1] = b->distances[c].j;
    return;
  }
  if (family == FAMILY_AREA) {
    memcpy(idx, b->areas[c].idx, 3 * sizeof idx[0]);
    return;
  }
  memcpy(idx, family == FAMILY_TET ? b->tets[c].idx : b->bends[c].idx, 4 * sizeof idx[0]);
}

static void eval_constraint(const fl_xpbd_build *b, int family, uint32_t c, float (*x)[4], con_eval *e)
{
  if (family == FAMILY_DISTANCE) {
    const fl_gpu_distance *d = &b->distances[c];
    e->arity = 2;
    e->idx[0] = d->i;
    e->idx[1] = d->j;
    e->w[0] = x[d->i][3];
    e->w[1] = x[d->j][3];
    e->compliance = d->compliance;
    e->ok = fl_xpbd_distance_eval(d, x[d->i], x[d->j], &e->C, e->grad[0]);
    for (int a = 0; a < 3; a++) e->grad[1][a] = -e->grad[0][a];
    return;
  }
  if (family == FAMILY_AREA) {
    const fl_gpu_area *ar = &b->areas[c];
    float s[9], g[9];
    e->arity = 3;
    for (int k = 0; k < 3; k++) {
      e->idx[k] = ar->idx[k];
      e->w[k] = x[ar->idx[k]][3];
      memcpy(s + 3 * k, x[ar->idx[k]], 3 * sizeof s[0]);
    }
    e->compliance = ar->compliance;
    e->ok = fl_area_eval_cpu(ar, s, &e->C, g);
    memcpy(e->grad, g, sizeof g);
    return;
  }
  uint32_t idx[4];
  indices_of(b, family, c, idx);
  float s[12], g[12];
  e->arity = 4;
  for (int k = 0; k < 4; k++) {
    e->idx[k] = idx[k];
    e->w[k] = x[idx[k]][3];
    memcpy(s + 3 * k, x[idx[k]], 3 * sizeof s[0]);
  }
  if (family == FAMILY_BEND) {
    e->compliance = b->bends[c].compliance;
    e->ok = fl_xpbd_bend_eval(&b->bends[c], s, &e->C, g);
  } else {
    e->compliance = b->tets[c].compliance;
    e->ok = fl_tet_eval_cpu(&b->tets[c], s, &e->C, g);
  }
  memcpy(e->grad, g, sizeof g);
}

/* The XPBD dlambda of an evaluated constraint (0 where skipped). */
static float xpbd_dlambda(const con_eval *e, float h, float lambda)
{
  if (!e->ok) return 0.0f;
  float alpha = e->compliance / (h * h);
  float denom = 0.0f;
  if (e->arity == 2)
    denom = e->w[0] + e->w[1];
  else
    for (uint32_t k = 0; k < e->arity; k++) denom += e->w[k] * dot3(e->grad[k], e->grad[k]);
  denom += alpha;
  if (denom < 1e-12f) return 0.0f;
  return (-e->C - alpha * lambda) / denom;
}

/* A Neo-Hookean tet's coupled step (softbody_spec.h) from the current positions: dl (deviatoric,
 * hydrostatic; their lambdas at tet_lambda[c] and [tet.count + c]) with each w_k times split[k],
 * added to the lambdas; the particles' w and both gradients into w, gd, gh. */
static void tet_nh_step(fl_xpbd_cpu *s, uint32_t c, const float split[4], float h, float omega, float dl[2],
                        float w[4], float gd[12], float gh[12])
{
  const fl_gpu_tet *t = &s->build->tets[c];
  float x[12], C[2], ws[4], lam[2] = {s->tet_lambda[c], s->tet_lambda[s->build->tet.count + c]};
  for (int k = 0; k < 4; k++) {
    memcpy(x + 3 * k, s->x[t->idx[k]], 3 * sizeof x[0]);
    w[k] = s->x[t->idx[k]][3];
    ws[k] = w[k] * split[k];
  }
  bool dev = fl_tet_nh_eval_cpu(t, x, C, gd, gh);
  fl_tet_nh_dlambda_cpu(C, dev, gd, gh, ws, (const float[2]){t->compliance, t->dm_inv[0][3]}, h, lam, dl);
  dl[0] *= omega;
  dl[1] *= omega;
  s->tet_lambda[c] += dl[0];
  s->tet_lambda[s->build->tet.count + c] += dl[1];
}

/* Particle k's correction by a Neo-Hookean tet's step: w_k (gd_k dl_D + gh_k dl_H). */
static void tet_nh_corr(const float w[4], const float gd[12], const float gh[12], const float dl[2], int k, float out[3])
{
  for (int a = 0; a < 3; a++) out[a] = w[k] * (gd[3 * k + a] * dl[0] + gh[3 * k + a] * dl[1]);
}

/* Gauss-Seidel: a Neo-Hookean tet's coupled step, applied (GPU: four_point.glsl, FL_FOUR_TET). */
static void tet_nh_coloring(fl_xpbd_cpu *s, uint32_t c, float h)
{
  float dl[2], w[4], gd[12], gh[12];
  tet_nh_step(s, c, (const float[4]){1, 1, 1, 1}, h, 1.0f, dl, w, gd, gh);
  if (dl[0] == 0.0f && dl[1] == 0.0f) return;
  for (int k = 0; k < 4; k++) {
    float *p = s->x[s->build->tets[c].idx[k]];
    for (int a = 0; a < 3; a++) p[a] += (gd[3 * k + a] * dl[0] + gh[3 * k + a] * dl[1]) * w[k];
  }
}

/* Jacobi constraint pass of a Neo-Hookean tet: its corrections into the corr slots, and
 * dlambda[c] nonzero where either multiplier moved (the particle pass adds only those). */
static void tet_nh_jacobi(fl_xpbd_cpu *s, uint32_t c, float h, float omega)
{
  const fl_constraint_family *f = &s->build->tet;
  float dl[2], w[4], gd[12], gh[12], split[4];
  for (int k = 0; k < 4; k++) {
    uint32_t i = s->build->tets[c].idx[k], n = f->particle_first[i + 1] - f->particle_first[i];
    split[k] = (float)(n ? n : 1);
  }
  tet_nh_step(s, c, split, h, omega, dl, w, gd, gh);
  s->dlambda[c] = dl[0] != 0.0f ? dl[0] : dl[1];
  for (int k = 0; k < 4; k++) {
    tet_nh_corr(w, gd, gh, dl, k, s->corr[(size_t)c * 4 + k]);
    s->corr[(size_t)c * 4 + k][3] = 0.0f;
  }
}

/* Colouring (Gauss-Seidel) pass over one family: colours in order (last to first when
 * `backward`, sweep_order.h), each applied directly. */
static void pass_coloring(fl_xpbd_cpu *s, int family, float h, bool backward)
{
  const fl_constraint_family *f = family_of(s->build, family);
  float *lambda = lambda_of(s, family);
  for (uint32_t i = 0; i < f->color_count; i++) {
    uint32_t col = fl_sweep_colour(i, f->color_count, backward);
    for (uint32_t c = f->color_offsets[col]; c < f->color_offsets[col + 1]; c++) {
      if (family == FAMILY_TET && s->build->tets[c].model == FL_TET_NEOHOOKEAN) {
        tet_nh_coloring(s, c, h);
        continue;
      }
      con_eval e;
      eval_constraint(s->build, family, c, s->x, &e);
      float dl = xpbd_dlambda(&e, h, lambda[c]);
      lambda[c] += dl;
      for (uint32_t k = 0; k < e.arity; k++) {
        float wdl = e.w[k] * dl;
        for (int a = 0; a < 3; a++) s->x[e.idx[k]][a] += e.grad[k][a] * wdl;
      }
    }
  }
}

/* Jacobi pass over one family (mass splitting): all dlambdas from the same
 * positions, each particle's inverse mass in the denominator multiplied by its
 * CSR degree n_k, dlambda scaled by omega; lambda and the positions move by that
 * same dlambda, and the per-particle gather adds the corrections as they are. */
static void pass_jacobi(fl_xpbd_cpu *s, int family, float h, float omega)
{
  const fl_xpbd_build *b = s->build;
  const fl_constraint_family *f = family_of(b, family);
  float *lambda = lambda_of(s, family);
  uint32_t arity = family == FAMILY_DISTANCE ? 2 : family == FAMILY_AREA ? 3 : 4;
  for (uint32_t c = 0; c < f->count; c++) {
    if (family == FAMILY_TET && b->tets[c].model == FL_TET_NEOHOOKEAN) {
      tet_nh_jacobi(s, c, h, omega);
      continue;
    }
    con_eval e, split;
    eval_constraint(b, family, c, s->x, &e);
    split = e;
    for (uint32_t k = 0; k < arity; k++) {
      uint32_t n = f->particle_first[e.idx[k] + 1] - f->particle_first[e.idx[k]];
      split.w[k] = e.w[k] * (float)(n ? n : 1);
    }
    float dl = omega * xpbd_dlambda(&split, h, lambda[c]);
    lambda[c] += dl;
    s->dlambda[c] = dl;
    for (uint32_t k = 0; k < arity; k++) {
      float wdl = e.w[k] * dl;
      for (int a = 0; a < 3; a++) s->corr[(size_t)c * arity + k][a] = e.grad[k][a] * wdl;
      s->corr[(size_t)c * arity + k][3] = 0.0f;
    }
  }
  for (uint32_t p = 0; p < b->particle_count; p++) {
    float delta[3] = {0, 0, 0};
    for (uint32_t it = f->particle_first[p]; it < f->particle_first[p + 1]; it++) {
      uint32_t c = f->particle_items[it];
      if (s->dlambda[c] == 0.0f) continue;
      uint32_t idx[4];
      indices_of(b, family, c, idx);
      uint32_t k = 0;
      while (k + 1 < arity && idx[k] != p) k++;
      for (int a = 0; a < 3; a++) delta[a] += s->corr[(size_t)c * arity + k][a];
    }
    for (int a = 0; a < 3; a++) s->x[p][a] += delta[a];
  }
}

/* w = I^-1 l for a symmetric inertia tensor I, or 0 where I cannot be inverted (all particles on a
 * line; the GPU kernels' test, global_damping.comp and body_volume.comp). */
static void inertia_solve(double in[3][3], const double l[3], double w[3])
{
  double cof[3][3], det, trace = in[0][0] + in[1][1] + in[2][2];
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 3; c++) {
      int a1 = (a + 1) % 3, a2 = (a + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      cof[a][c] = in[a1][c1] * in[a2][c2] - in[a1][c2] * in[a2][c1];
    }
  det = in[0][0] * cof[0][0] + in[0][1] * cof[0][1] + in[0][2] * cof[0][2];
  w[0] = w[1] = w[2] = 0.0;
  if (det > 1e-9 * trace * trace * trace) /* I symmetric: I^-1 = cof^T / det = cof / det */
    for (int a = 0; a < 3; a++) w[a] = (cof[a][0] * l[0] + cof[a][1] * l[1] + cof[a][2] * l[2]) / det;
}

/* ---- body volumes (softbody_spec.h, BODY VOLUMES) ---- */

/* V = (sum over the body's triangles of dot(x_a x x_b, x_c)) / 6. */
static float body_volume(const fl_xpbd_cpu *s, const fl_gpu_body *bd)
{
  const uint32_t *tri = s->build->triangles;
  float v = 0.0f;
  for (uint32_t t = bd->first_triangle; t < bd->first_triangle + bd->triangle_count; t++) {
    float c[3];
    cross3(s->x[tri[3 * (size_t)t]], s->x[tri[3 * (size_t)t + 1]], c);
    v += dot3(c, s->x[tri[3 * (size_t)t + 2]]);
  }
  return v / 6.0f;
}

/* grad_i V into g: over i's triangles, the cross product of the other two in cyclic order, / 6. */
static void volume_gradient(const fl_xpbd_cpu *s, uint32_t i, float g[3])
{
  const uint32_t *tri = s->build->triangles;
  g[0] = g[1] = g[2] = 0.0f;
  for (uint32_t e = s->tri_first[i]; e < s->tri_first[i + 1]; e++) {
    const uint32_t *v = &tri[3 * (size_t)s->tri_items[e]];
    float c[3];
    if (v[0] == i) cross3(s->x[v[1]], s->x[v[2]], c);
    else if (v[1] == i) cross3(s->x[v[2]], s->x[v[0]], c);
    else cross3(s->x[v[0]], s->x[v[1]], c);
    for (int a = 0; a < 3; a++) g[a] += c[a];
  }
  for (int a = 0; a < 3; a++) g[a] /= 6.0f;
}

/* Step 1: the XPBD overpressure constraint C = V - k V0 (its lambda in the body state). */
static void overpressure(fl_xpbd_cpu *s, uint32_t k, const fl_gpu_body *bd, float target, float h)
{
  uint32_t first = bd->first_particle, end = bd->first_particle + bd->particle_count;
  float lambda = s->body_state[k][1], V = body_volume(s, bd), S = 0.0f;
  for (uint32_t i = first; i < end; i++) {
    float *g = s->body_grad[i];
    volume_gradient(s, i, g);
    g[3] = 0.0f;
    S += s->x[i][3] * dot3(g, g);
  }
  float alpha = bd->pressure_compliance / (h * h);
  if (!(S + alpha > 0.0f)) return;
  float dl = (-(V - target) - alpha * lambda) / (S + alpha);
  for (uint32_t i = first; i < end; i++)
    for (int a = 0; a < 3; a++) s->x[i][a] += s->x[i][3] * s->body_grad[i][a] * dl;
  s->body_state[k][1] = lambda + dl;
}

/* What particle i's local weight grows with: beta s |dd_i| + (1 - beta) |dx_i| (softbody_spec.h,
 * opposite pairs), or |dx_i| alone. */
static float local_measure(const fl_xpbd_cpu *s, const fl_gpu_body *bd, uint32_t i)
{
  float r[3], now[3], then[3];
  sub3(s->x[i], s->prev[i], r);
  float dx = sqrtf(dot3(r, r));
  uint32_t k = s->build->opposite[i];
  if (bd->conservation != FL_CONSERVE_LOCAL || !(bd->pair_beta > 0.0f) || k == i) return dx;
  sub3(s->x[i], s->x[k], now);
  sub3(s->prev[i], s->prev[k], then);
  float dd = fabsf(sqrtf(dot3(now, now)) - sqrtf(dot3(then, then)));
  return bd->pair_beta * bd->pair_stiffness * dd + (1.0f - bd->pair_beta) * dx;
}

/* The colliders and domain walls the body volumes see (freedom). */
typedef struct {
  const fl_sim_desc *sim;
  const fl_gpu_collider *colliders;
  uint32_t count;
  float t;
} body_world;

/* How free x is of the colliders and domain walls, 0..1: 0 closer than r (a contact), 1 from 2 r
 * on, linear between (softbody_spec.h, global weights; body_volume.comp's freedom). */
static float freedom(const body_world *w, const float x[3], float r)
{
  float d = 1e30f;
  for (int a = 0; a < 3; a++) d = fminf(d, fminf(x[a] - w->sim->domain_min[a], w->sim->domain_max[a] - x[a]));
  for (uint32_t c = 0; c < w->count; c++) d = fminf(d, fl_collider_sdf_cpu(&w->colliders[c], x, w->t));
  return fminf(fmaxf((d - r) / r, 0.0f), 1.0f);
}

/* The rigid motion to take out of a local correction (body_volume.comp's local_rigid_part): the
 * excess m_i e_i = (omega_i - S / S_u u_i) g_i over the uniform correction of the same volume
 * change; lin = sum m_i e_i / M, ang = I^-1 sum m_i r_i x e_i about the centre of mass xc of the
 * body's unpinned particles. body_weight: y f_i, z W_i, w omega_i. */
static void local_rigid_part(const fl_xpbd_cpu *s, const fl_gpu_body *bd, float S, float uniform, double xc[3],
                             double lin[3], double ang[3])
{
  uint32_t first = bd->first_particle, end = bd->first_particle + bd->particle_count;
  double m = 0.0, Su = 0.0, q[3] = {0, 0, 0}, l[3] = {0, 0, 0}, in[3][3] = {{0}};
  xc[0] = xc[1] = xc[2] = 0.0;
  for (uint32_t i = first; i < end; i++) {
    const float *w = s->body_weight[i], *g = s->body_grad[i];
    if (!(s->x[i][3] > 0.0f)) continue;
    double mi = 1.0 / s->x[i][3];
    m += mi;
    for (int a = 0; a < 3; a++) xc[a] += mi * s->x[i][a];
    Su += (double)w[1] * uniform * s->x[i][3] * dot3(g, g);
  }
  for (int a = 0; a < 3; a++) xc[a] /= m; /* m > 0: S > 0 needs a particle with W > 0 */
  double ratio = Su > 0.0 ? S / Su : 0.0;
  for (uint32_t i = first; i < end; i++) {
    const float *w = s->body_weight[i], *g = s->body_grad[i];
    if (!(s->x[i][3] > 0.0f)) continue;
    double mi = 1.0 / s->x[i][3], r[3], me[3], c = w[3] - ratio * w[1] * uniform;
    for (int a = 0; a < 3; a++) r[a] = s->x[i][a] - xc[a], me[a] = c * g[a];
    double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    l[0] += r[1] * me[2] - r[2] * me[1];
    l[1] += r[2] * me[0] - r[0] * me[2];
    l[2] += r[0] * me[1] - r[1] * me[0];
    for (int a = 0; a < 3; a++) {
      q[a] += me[a];
      for (int b = 0; b < 3; b++) in[a][b] += mi * ((a == b ? rr : 0.0) - r[a] * r[b]);
    }
  }
  for (int a = 0; a < 3; a++) lin[a] = q[a] / m;
  inertia_solve(in, l, ang);
}

/* Particle i's local correction direction d = W_i g_i - (lin + ang x (x_i - xc)), unpinned. */
static void local_direction(const fl_xpbd_cpu *s, uint32_t i, const double xc[3], const double lin[3],
                            const double ang[3], float d[3])
{
  const float *g = s->body_grad[i], W = s->body_weight[i][2];
  double r[3];
  for (int a = 0; a < 3; a++) r[a] = s->x[i][a] - xc[a];
  double rigid[3] = {lin[0] + ang[1] * r[2] - ang[2] * r[1], lin[1] + ang[2] * r[0] - ang[0] * r[2],
                     lin[2] + ang[0] * r[1] - ang[1] * r[0]};
  for (int a = 0; a < 3; a++) d[a] = W * g[a] - (s->x[i][3] > 0.0f ? (float)rigid[a] : 0.0f);
}

/* Step 2: Diziol 2011 surface volume conservation, sparing colliding vertices. */
static void conserve(fl_xpbd_cpu *s, const fl_gpu_body *bd, float target, const body_world *world)
{
  const uint32_t *tri = s->build->triangles;
  uint32_t first = bd->first_particle, end = bd->first_particle + bd->particle_count;
  float V = body_volume(s, bd);
  for (uint32_t i = first; i < end; i++) {
    float *g = s->body_grad[i];
    volume_gradient(s, i, g);
    g[3] = local_measure(s, bd, i);
  }
  float sigma = 0.0f, free_count = 0.0f;
  for (uint32_t i = first; i < end; i++) {
    uint32_t n = s->tri_first[i + 1] - s->tri_first[i];
    float f = n == 0 || s->contact[i] != 0 ? 0.0f : freedom(world, s->x[i], bd->contact_radius);
    float sm = 0.0f;
    if (f > 0.0f) { /* the displacement smoothed over the triangle neighbours */
      float sum = s->body_grad[i][3];
      for (uint32_t e = s->tri_first[i]; e < s->tri_first[i + 1]; e++) {
        const uint32_t *v = &tri[3 * (size_t)s->tri_items[e]];
        sum += ((s->body_grad[v[0]][3] + s->body_grad[v[1]][3]) + s->body_grad[v[2]][3]) - s->body_grad[i][3];
      }
      sm = f * sum / (float)(1u + 2u * n);
    }
    float *w = s->body_weight[i];
    w[0] = sm;
    w[1] = f;
    w[2] = w[3] = 0.0f;
    sigma += sm;
    free_count += f;
  }
  if (free_count == 0.0f) return;
  bool local = bd->conservation == FL_CONSERVE_LOCAL;
  float alpha = bd->local_alpha, uniform = 1.0f / free_count, S = 0.0f;
  for (uint32_t i = first; i < end; i++) {
    float *w = s->body_weight[i], omega = 0.0f;
    if (w[1] > 0.0f) {
      float l = sigma > 0.0f ? w[0] / sigma : w[1] * uniform;
      omega = local ? (1.0f - alpha) * l + alpha * w[1] * uniform : w[1] * uniform;
    }
    w[2] = omega * s->x[i][3];
    w[3] = omega;
    S += w[2] * dot3(s->body_grad[i], s->body_grad[i]);
  }
  if (!(S > 0.0f)) return;
  double xc[3] = {0, 0, 0}, lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
  if (local) { /* the direction without the excess's rigid part, where that keeps half of S */
    local_rigid_part(s, bd, S, uniform, xc, lin, ang);
    float Sd = 0.0f, d[3];
    for (uint32_t i = first; i < end; i++)
      if (s->x[i][3] > 0.0f) {
        local_direction(s, i, xc, lin, ang, d);
        Sd += dot3(s->body_grad[i], d);
      }
    if (Sd > 0.5f * S) S = Sd;
    else lin[0] = lin[1] = lin[2] = ang[0] = ang[1] = ang[2] = 0.0;
  }
  float kk = (V - target) / S, d[3];
  for (uint32_t i = first; i < end; i++) {
    float spared = (1.0f - s->body_weight[i][1]) * uniform * s->x[i][3] * kk;
    local_direction(s, i, xc, lin, ang, d);
    for (int a = 0; a < 3; a++) {
      s->x[i][a] -= kk * d[a];
      s->load[i][a] -= spared * s->body_grad[i][a];
    }
  }
}

static void body_solve(fl_xpbd_cpu *s, float h, const body_world *world)
{
  const fl_xpbd_build *b = s->build;
  for (uint32_t k = 0; k < b->body_count; k++) {
    const fl_gpu_body *bd = &b->bodies[k];
    float target = bd->rest_volume * bd->pressure;
    if (bd->overpressure != 0) overpressure(s, k, bd, target, h);
    if (bd->conservation != FL_CONSERVE_NONE) conserve(s, bd, target, world);
  }
}

/* Diziol's velocity correction after the velocity update: v_i -= W_i (sum_j g_j . v_j) g_i / S,
 * S = sum_j W_j |g_j|^2, with the weights W of the last conservation (body_weight z). */
static void body_velocity(fl_xpbd_cpu *s)
{
  const fl_xpbd_build *b = s->build;
  for (uint32_t k = 0; k < b->body_count; k++) {
    const fl_gpu_body *bd = &b->bodies[k];
    if (bd->velocity_correction == 0 || bd->conservation == FL_CONSERVE_NONE) continue;
    float rate = 0.0f, S = 0.0f;
    for (uint32_t i = bd->first_particle; i < bd->first_particle + bd->particle_count; i++) {
      float *g = s->body_grad[i];
      volume_gradient(s, i, g);
      rate += dot3(g, s->v[i]);
      S += s->body_weight[i][2] * dot3(g, g);
    }
    if (!(S > 0.0f)) continue;
    float kk = rate / S;
    for (uint32_t i = bd->first_particle; i < bd->first_particle + bd->particle_count; i++)
      for (int a = 0; a < 3; a++) s->v[i][a] -= s->body_weight[i][2] * kk * s->body_grad[i][a];
  }
}

/* After the substep: each body's volume into its state, with its ratio's extremes from conserve.z on. */
static void body_measure(fl_xpbd_cpu *s, float t)
{
  const fl_xpbd_build *b = s->build;
  for (uint32_t k = 0; k < b->body_count; k++) {
    const fl_gpu_body *bd = &b->bodies[k];
    float target = bd->rest_volume * bd->pressure, V = body_volume(s, bd), *st = s->body_state[k];
    st[0] = V;
    st[1] = 0.0f; /* the next substep starts with lambda = 0 */
    if (t >= bd->measure_after) {
      st[2] = fminf(st[2], V / target);
      st[3] = fmaxf(st[3], V / target);
    }
  }
}

/* ---- steps 1, 5, 6 and 7 ---- */

/* The wind at triangle v's centroid at time t: the object's wind times its gust factor (gust_shared.h). */
static void gust_wind(const fl_gpu_xpbd_object *o, float (*x)[4], const uint32_t *v, float t, float out[3])
{
  float c[3], wl = sqrtf(dot3(o->wind, o->wind));
  for (int a = 0; a < 3; a++) c[a] = ((x[v[0]][a] + x[v[1]][a]) + x[v[2]][a]) / 3.0f;
  float along = wl > 0.0f ? dot3(c, o->wind) / wl : 0.0f;
  float g = fl_gust_factor(along, c[1], t, o->gust, o->gust_inv_period, o->gust_inv_length);
  for (int a = 0; a < 3; a++) out[a] = o->wind[a] * g;
}

static void wind_accel(fl_xpbd_cpu *s, float time)
{
  const fl_xpbd_build *b = s->build;
  memset(s->accel, 0, (size_t)b->particle_count * sizeof *s->accel);
  for (uint32_t t = 0; t < b->triangle_count; t++) {
    const fl_gpu_xpbd_object *o = &b->objects[b->triangle_object[t]];
    float drag = o->drag, lift = o->lift;
    if (drag == 0.0f && lift == 0.0f) continue;
    const uint32_t *v = &b->triangles[3 * (size_t)t];
    float u[3], e1[3], e2[3], cr[3], w[3];
    gust_wind(o, s->x, v, time, w);
    for (int a = 0; a < 3; a++) u[a] = ((s->v[v[0]][a] + s->v[v[1]][a]) + s->v[v[2]][a]) / 3.0f - w[a];
    sub3(s->x[v[1]], s->x[v[0]], e1);
    sub3(s->x[v[2]], s->x[v[0]], e2);
    cross3(e1, e2, cr);
    float len = sqrtf(dot3(cr, cr)), ul = sqrtf(dot3(u, u));
    if (len < 1e-12f || ul < 1e-9f) continue;
    float area = 0.5f * len, n[3], uh[3];
    for (int a = 0; a < 3; a++) n[a] = cr[a] / len, uh[a] = u[a] / ul;
    float un = dot3(u, n);
    if (un < 0.0f) {
      for (int a = 0; a < 3; a++) n[a] = -n[a];
      un = -un;
    }
    float nu = dot3(n, uh), f[3];
    for (int a = 0; a < 3; a++)
      f[a] = -drag * area * un * u[a] - lift * area * un * (n[a] - nu * uh[a]);
    for (int k = 0; k < 3; k++)
      for (int a = 0; a < 3; a++) s->accel[v[k]][a] += f[a] / 3.0f;
  }
  for (uint32_t p = 0; p < b->particle_count; p++)
    for (int a = 0; a < 3; a++) s->accel[p][a] *= s->x[p][3];
}

/* The collider and wall contacts of step 5 (collide_cpu.c; the contact flags, pinned particles 0). */
static void contacts(fl_xpbd_cpu *s, const fl_collide_env *env)
{
  for (uint32_t p = 0; p < s->build->particle_count; p++)
    s->contact[p] = s->x[p][3] > 0.0f && fl_collide_particle_cpu(env, p, s->x[p]) ? 1u : 0u;
}

static int32_t cell_coord(float v, float cell)
{
  float q = floorf(v / cell);
  if (!(q > -1e6f)) return -1000000;
  if (q > 1e6f) return 1000000;
  return (int32_t)q;
}

static uint32_t cell_hash(int32_t cx, int32_t cy, int32_t cz, uint32_t size)
{
  uint32_t h = ((uint32_t)cx * 73856093u) ^ ((uint32_t)cy * 19349663u) ^ ((uint32_t)cz * 83492791u);
  return h & (size - 1);
}

/* Whether particle p takes part in particle collisions: every particle when
 * the build has a body, else those of self-colliding objects. */
static bool collides(const fl_xpbd_build *b, uint32_t p)
{
  return b->body_count > 0 || b->self_collision[b->particle_object[p]];
}

/* The push a particle got from the first particle-contact pass (its averaged sum), component a. */
static float pushed(const fl_xpbd_cpu *s, uint32_t p, int a)
{
  return s->delta[p][3] > 0.0f ? s->delta[p][a] / s->delta[p][3] : 0.0f;
}

/* Particle p's particle contacts (spec above; xpbd/particle_contacts.glsl) into acc: xyz the sum of
 * the pushes, and with_friction of the friction corrections on the displacement after every push
 * (delta holds the pushes), w the count. Reads the hash of the positions before the passes. */
static void particle_contacts(const fl_xpbd_cpu *s, float cell, float gpu_cell, uint32_t p, bool with_friction,
                              float acc[4])
{
  const fl_xpbd_build *b = s->build;
  uint32_t size = s->hash_size;
  acc[0] = acc[1] = acc[2] = acc[3] = 0.0f;
  uint32_t oi = b->particle_object[p];
  float wi = s->x[p][3];
  if (!collides(b, p) || wi <= 0.0f) return;
  const fl_gpu_xpbd_object *obi = &b->objects[oi];
  bool body_i = obi->body != 0, self_i = b->self_collision[oi] != 0;
  uint32_t li = p - obi->first, nxi = obi->nx > 0 ? obi->nx : 1;
  int32_t gi = (int32_t)(li % nxi), gj = (int32_t)(li / nxi);
  float thick = obi->thickness, Di[3] = {0, 0, 0};
  if (with_friction)
    for (int a = 0; a < 3; a++) Di[a] = (s->x[p][a] + pushed(s, p, a)) - s->prev[p][a];
  int32_t c0[3] = {cell_coord(s->x[p][0], cell), cell_coord(s->x[p][1], cell), cell_coord(s->x[p][2], cell)};
  uint32_t buckets[27];
  int nb = 0;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        uint32_t hb = cell_hash(c0[0] + dx, c0[1] + dy, c0[2] + dz, size);
        bool seen = false;
        for (int k = 0; k < nb; k++) seen = seen || buckets[k] == hb;
        if (!seen) buckets[nb++] = hb;
      }
  for (int k = 0; k < nb; k++)
    for (uint32_t it = s->cell_first[buckets[k]]; it < s->cell_first[buckets[k] + 1]; it++) {
      uint32_t q = s->cell_items[it];
      if (q == p) continue;
      float dxv[3];
      sub3(s->x[p], s->x[q], dxv);
      float d = sqrtf(dot3(dxv, dxv));
      if (!(d < gpu_cell) || d < 1e-12f) continue;
      uint32_t oj = b->particle_object[q];
      if (oj == oi) {
        if (body_i || !self_i) continue; /* never within one body */
        uint32_t lj = q - obi->first;
        int32_t di = (int32_t)(lj % nxi) - gi, dj = (int32_t)(lj / nxi) - gj;
        if (di >= -2 && di <= 2 && dj >= -2 && dj <= 2) continue; /* a mesh neighbour */
      }
      const fl_gpu_xpbd_object *obj = &b->objects[oj];
      if (oj != oi && !(body_i || obj->body != 0 || (self_i && b->self_collision[oj]))) continue;
      float reach = 0.5f * (thick + obj->thickness);
      if (!(d < reach)) continue;
      float wj = s->x[q][3], sc = wi / (wi + wj), depth = reach - d, n[3];
      for (int a = 0; a < 3; a++) {
        n[a] = dxv[a] / d;
        acc[a] += sc * depth * n[a];
      }
      if (with_friction) {
        float D[3], fr[3];
        for (int a = 0; a < 3; a++) D[a] = Di[a] - ((s->x[q][a] + pushed(s, q, a)) - s->prev[q][a]);
        fl_friction_corr_cpu(D, n, depth, sqrtf(obi->static_friction * obj->static_friction),
                             sqrtf(obi->kinetic_friction * obj->kinetic_friction), fr);
        for (int a = 0; a < 3; a++) acc[a] += sc * fr[a];
      }
      acc[3] += 1.0f;
    }
}

static void self_collision(fl_xpbd_cpu *s)
{
  const fl_xpbd_build *b = s->build;
  float cell = 0.0f;
  for (uint32_t o = 0; o < b->object_count; o++)
    if (b->self_collision[o] && b->objects[o].thickness > cell) cell = b->objects[o].thickness;
  if (cell <= 0.0f || !s->cell_first) return;
  float gpu_cell = 1.0f / (1.0f / cell); /* the kernel's cell: 1 / its push constant 1 / cell */
  /* Bucket every colliding particle by the hash of its cell. */
  uint32_t size = s->hash_size;
  memset(s->cell_first, 0, ((size_t)size + 1) * sizeof *s->cell_first);
  for (uint32_t p = 0; p < b->particle_count; p++) {
    if (!collides(b, p)) continue;
    const float *x = s->x[p];
    s->cell_of[p] = cell_hash(cell_coord(x[0], cell), cell_coord(x[1], cell), cell_coord(x[2], cell), size);
    s->cell_first[s->cell_of[p] + 1]++;
  }
  for (uint32_t h = 0; h < size; h++) s->cell_first[h + 1] += s->cell_first[h];
  /* Fill with cell_first[h] as the cursor (it ends at the start of h + 1), then shift back. */
  for (uint32_t p = 0; p < b->particle_count; p++)
    if (collides(b, p)) s->cell_items[s->cell_first[s->cell_of[p]]++] = p;
  for (uint32_t h = size; h > 0; h--) s->cell_first[h] = s->cell_first[h - 1];
  s->cell_first[0] = 0;
  /* Bucket h: cell_items[cell_first[h] .. cell_first[h + 1]). Two passes over the same contacts, from
   * the same positions: the pushes into delta, then pushes and friction (on the displacement after
   * every push) into friction. */
  for (uint32_t p = 0; p < b->particle_count; p++) particle_contacts(s, cell, gpu_cell, p, false, s->delta[p]);
  for (uint32_t p = 0; p < b->particle_count; p++) {
    float *acc = s->friction[p];
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0f;
    if (s->delta[p][3] > 0.0f) particle_contacts(s, cell, gpu_cell, p, true, acc);
  }
  for (uint32_t p = 0; p < b->particle_count; p++)
    if (s->friction[p][3] > 0.0f) {
      for (int a = 0; a < 3; a++) s->x[p][a] += s->friction[p][a] / s->friction[p][3];
      s->contact[p] = 1;
    }
}

/* The "global" damping model (spec above; xpbd/global_damping.comp), in double precision. */
static void global_damping(fl_xpbd_cpu *s, float h)
{
  const fl_xpbd_build *b = s->build;
  for (uint32_t k = 0; k < b->object_count; k++) {
    const fl_gpu_xpbd_object *o = &b->objects[k];
    if (o->damping_model != FL_DAMPING_MODEL_GLOBAL || !(o->damping > 0.0f)) continue;
    double m = 0, xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0}, l[3] = {0, 0, 0}, in[3][3] = {{0}};
    for (uint32_t p = o->first; p < o->first + o->count; p++) {
      if (s->x[p][3] <= 0.0f) continue;
      double mi = 1.0 / s->x[p][3];
      m += mi;
      for (int a = 0; a < 3; a++) xc[a] += mi * s->x[p][a], vc[a] += mi * s->v[p][a];
    }
    if (!(m > 0)) continue;
    for (int a = 0; a < 3; a++) xc[a] /= m, vc[a] /= m;
    for (uint32_t p = o->first; p < o->first + o->count; p++) {
      if (s->x[p][3] <= 0.0f) continue;
      double mi = 1.0 / s->x[p][3], r[3], v[3] = {s->v[p][0], s->v[p][1], s->v[p][2]};
      for (int a = 0; a < 3; a++) r[a] = s->x[p][a] - xc[a];
      double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      l[0] += mi * (r[1] * v[2] - r[2] * v[1]);
      l[1] += mi * (r[2] * v[0] - r[0] * v[2]);
      l[2] += mi * (r[0] * v[1] - r[1] * v[0]);
      for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) in[a][c] += mi * ((a == c ? rr : 0.0) - r[a] * r[c]);
    }
    double w[3];
    inertia_solve(in, l, w);
    double kk = fmin((double)o->damping * h, 1.0);
    for (uint32_t p = o->first; p < o->first + o->count; p++) {
      if (s->x[p][3] <= 0.0f) continue;
      double r[3];
      for (int a = 0; a < 3; a++) r[a] = s->x[p][a] - xc[a];
      double rigid[3] = {vc[0] + w[1] * r[2] - w[2] * r[1], vc[1] + w[2] * r[0] - w[0] * r[2],
                         vc[2] + w[0] * r[1] - w[1] * r[0]};
      for (int a = 0; a < 3; a++) s->v[p][a] = (float)(s->v[p][a] + kk * (rigid[a] - s->v[p][a]));
    }
  }
}

static void velocities(fl_xpbd_cpu *s, float h, uint32_t integrator)
{
  const fl_xpbd_build *b = s->build;
  for (uint32_t p = 0; p < b->particle_count; p++)
    for (int a = 0; a < 3; a++)
      s->v[p][a] = integrator == FL_XPBD_BDF2 ? (1.5f * s->x[p][a] - 2.0f * s->prev[p][a] + 0.5f * s->older[p][a]) / h
                                              : (s->x[p][a] - s->prev[p][a]) / h;
  memset(s->accel, 0, (size_t)b->particle_count * sizeof *s->accel);
  bool edge = false;
  for (uint32_t c = 0; c < b->distance.count; c++) {
    const fl_gpu_distance *d = &b->distances[c];
    uint32_t i = d->i, j = d->j;
    const fl_gpu_xpbd_object *o = &b->objects[b->particle_object[i]];
    if (o->damping_model != FL_DAMPING_MODEL_EDGE) continue;
    edge = true;
    float wi = s->x[i][3], wj = s->x[j][3], dx[3], dv[3];
    sub3(s->x[i], s->x[j], dx);
    float len = sqrtf(dot3(dx, dx)), wsum = wi + wj;
    if (len < 1e-12f || !(wsum > 0.0f)) continue;
    float n[3];
    for (int a = 0; a < 3; a++) n[a] = dx[a] / len;
    sub3(s->v[i], s->v[j], dv);
    float sn = dot3(dv, n), k = fminf(o->damping * h, 1.0f) / 8.0f;
    float ci = ((k * wi) / wsum) * sn, cj = ((k * wj) / wsum) * sn;
    for (int a = 0; a < 3; a++) {
      s->accel[i][a] -= ci * n[a];
      s->accel[j][a] += cj * n[a];
    }
  }
  for (uint32_t p = 0; p < b->particle_count; p++) {
    const fl_gpu_xpbd_object *o = &b->objects[b->particle_object[p]];
    if (o->damping_model == FL_DAMPING_MODEL_EDGE) {
      if (edge)
        for (int a = 0; a < 3; a++) s->v[p][a] += s->accel[p][a];
    } else if (o->damping_model == FL_DAMPING_MODEL_POINT) {
      float f = fmaxf(0.0f, 1.0f - o->damping * h);
      for (int a = 0; a < 3; a++) s->v[p][a] *= f;
    }
    s->v[p][3] = 0.0f;
  }
  global_damping(s, h);
}

/* Particle k put back on the sphere of radius rest around pin `pin` when outside it (xpbd/tether.glsl). */
static void tether(fl_xpbd_cpu *s, uint32_t k, uint32_t pin, float rest)
{
  if (pin == FL_TETHER_NONE) return;
  float d[3], len2 = 0.0f;
  for (int a = 0; a < 3; a++) {
    d[a] = s->x[k][a] - s->x[pin][a];
    len2 += d[a] * d[a];
  }
  float len = sqrtf(len2);
  if (len > rest)
    for (int a = 0; a < 3; a++) s->x[k][a] = s->x[pin][a] + d[a] * (rest / len);
}

/* Step 4b, the long range attachments: each tethered particle's two tethers in turn, FL_TETHER_ROUNDS
 * times; the pins do not move. */
static void tethers(fl_xpbd_cpu *s)
{
  const fl_xpbd_build *b = s->build;
  if (!b->any_tether) return;
  for (uint32_t k = 0; k < b->particle_count; k++)
    for (int round = 0; round < FL_TETHER_ROUNDS; round++) {
      tether(s, k, b->tethers[k].pin0, b->tethers[k].rest0);
      tether(s, k, b->tethers[k].pin1, b->tethers[k].rest1);
    }
}

void fl_xpbd_cpu_substep(fl_xpbd_cpu *s, const fl_sim_desc *sim, const fl_gpu_collider *colliders,
                          uint32_t collider_count, float h, float t)
{
  const fl_xpbd_build *b = s->build;
  /* 1. wind, 2. predict (BDF2: NOTES.md "BDF2 variant", as xpbd/predict.comp). */
  wind_accel(s, t);
  uint32_t integrator = sim->integrator != FL_INTEGRATOR_BDF2 ? FL_XPBD_EULER
                        : s->bdf2_history                    ? FL_XPBD_BDF2
                                                             : FL_XPBD_BDF2_START;
  float solve_h = integrator == FL_XPBD_BDF2 ? 2.0f * h / 3.0f : h;
  for (uint32_t p = 0; p < b->particle_count; p++) {
    float *x = s->x[p], *v = s->v[p];
    if (integrator != FL_XPBD_EULER) {
      float x_old[4], v_old[4];
      memcpy(x_old, s->prev[p], sizeof x_old);
      memcpy(v_old, s->v_old[p], sizeof v_old);
      memcpy(s->older[p], integrator == FL_XPBD_BDF2 ? x_old : x, sizeof s->older[p]);
      for (int a = 0; a < 3; a++) s->v_old[p][a] = x[3] == 0.0f ? 0.0f : v[a];
      if (integrator == FL_XPBD_BDF2 && x[3] != 0.0f) {
        memcpy(s->prev[p], x, sizeof s->prev[p]);
        for (int a = 0; a < 3; a++)
          x[a] = 4.0f / 3.0f * x[a] - 1.0f / 3.0f * x_old[a] + h * (8.0f / 9.0f * v[a] - 2.0f / 9.0f * v_old[a]) +
                 4.0f / 9.0f * h * h * (sim->gravity[a] + s->accel[p][a]);
        continue;
      }
    }
    memcpy(s->prev[p], x, sizeof s->prev[p]);
    if (x[3] > 0.0f) {
      for (int a = 0; a < 3; a++) {
        v[a] += h * (sim->gravity[a] + s->accel[p][a]);
        x[a] += h * v[a];
      }
    } else {
      v[0] = v[1] = v[2] = 0.0f;
    }
  }
  /* 3. lambdas, 4. iterations. */
  memset(s->distance_lambda, 0, (size_t)b->distance.count * sizeof *s->distance_lambda);
  memset(s->bend_lambda, 0, (size_t)b->bend.count * sizeof *s->bend_lambda);
  memset(s->tet_lambda, 0, (size_t)b->tet.count * 2 * sizeof *s->tet_lambda);
  memset(s->area_lambda, 0, (size_t)b->area.count * sizeof *s->area_lambda);
  for (uint32_t k = 0; k < b->body_count; k++) s->body_state[k][1] = 0.0f;
  if (b->body_count) memset(s->load, 0, (size_t)b->particle_count * sizeof *s->load);
  body_world world = {sim, colliders, collider_count, t};
  fl_hierarchy_cpu_substep(&b->hier, &FL_HIERARCHY_FINE(b), b->particle_count, s->x, s->hier_x0, s->hier_lambda,
                           s->distance_lambda, sim->iterations, solve_h); /* the fine lambdas not zeroed again */
  for (uint32_t it = 0; it < sim->iterations; it++) {
    for (int family = 0; family < FAMILY_COUNT; family++) {
      if (sim->solver == FL_SOLVER_JACOBI)
        pass_jacobi(s, family, solve_h, sim->relaxation);
      else
        pass_coloring(s, family, solve_h, fl_sweep_backward(sim->solver, it));
    }
    body_solve(s, solve_h, &world); /* then the body volumes */
  }
  tethers(s); /* 4b. */
  /* 5. contacts, 6. particle collisions, 7. velocities and damping, then the body volumes' measure. */
  fl_collide_env env = {.b = b, .colliders = colliders, .count = collider_count, .t = t, .h = h,
                        .tetrahedral = sim->collider_normals == FL_NORMALS_TETRAHEDRAL,
                        .domain_min = sim->domain_min, .domain_max = sim->domain_max,
                        .prev = (const float(*)[4])s->prev, .load = (const float(*)[4])s->load};
  contacts(s, &env);
  self_collision(s);
  bool collider_triangles = sim->collider_triangles && collider_count && b->object_count > b->body_count;
  fl_tri_colliders cols = {colliders, collider_triangles ? collider_count : 0, t,
                           sim->collider_normals == FL_NORMALS_TETRAHEDRAL, h};
  bool guard = s->tri.any && s->tri.guard > 0; /* the list at the start, within 2 reach (docs/CLOTH.md) */
  if (s->tri.any) memcpy(s->tri_list_x, guard ? s->prev : s->x, (size_t)b->particle_count * sizeof *s->x);
  for (uint32_t pass = 0; s->tri.any && pass < FL_TRI_CONTACT_PASSES; pass++)
    fl_tri_contacts_cpu_pass(b, &s->tri, &cols, s->x, (const float(*)[4])s->prev,
                             pass == 0 && !guard ? NULL : (const float(*)[4])s->tri_list_x, s->tri_accum,
                             s->contact, pass + 1 == FL_TRI_CONTACT_PASSES ? &env : NULL); /* colliders first */
  if (guard) fl_tri_guard_cpu(b, &s->tri, s->x, (const float(*)[4])s->prev, s->tri_guard_bound);
  if (!s->tri.any && collider_triangles) { /* cloth triangles against the colliders (tri_collider.comp) */
    fl_tri_colliders_cpu(b, &cols, s->x, (const float(*)[4])s->prev, s->tri_accum);
    fl_tri_apply_cpu(b->particle_count, s->tri_accum, s->x, s->contact, NULL);
  }
  velocities(s, h, integrator);
  s->bdf2_history = integrator != FL_XPBD_EULER;
  body_velocity(s);
  body_measure(s, t);
}

static void *alloc_n(size_t count, size_t size)
{
  if (count && size > SIZE_MAX / count) return NULL;
  return calloc(count ? count : 1, size);
}

bool fl_xpbd_cpu_create(const fl_xpbd_build *b, fl_xpbd_cpu *out)
{
  memset(out, 0, sizeof *out);
  out->build = b;
  size_t n = b->particle_count;
  size_t constraints = b->distance.count, slots = (size_t)b->distance.count * 2;
  const fl_constraint_family *four[3] = {&b->bend, &b->tet, &b->area}; /* area: 3 slots, counted as 4 */
  for (int f = 0; f < 3; f++) {
    if (four[f]->count > constraints) constraints = four[f]->count;
    if ((size_t)four[f]->count * 4 > slots) slots = (size_t)four[f]->count * 4;
  }
  out->x = alloc_n(n, sizeof *out->x);
  out->prev = alloc_n(n, sizeof *out->prev);
  out->older = alloc_n(n, sizeof *out->older);
  out->v_old = alloc_n(n, sizeof *out->v_old);
  out->v = alloc_n(n, sizeof *out->v);
  out->distance_lambda = alloc_n(b->distance.count, sizeof *out->distance_lambda);
  out->bend_lambda = alloc_n(b->bend.count, sizeof *out->bend_lambda);
  out->tet_lambda = alloc_n((size_t)b->tet.count * 2, sizeof *out->tet_lambda); /* NH: deviatoric, hydrostatic */
  out->area_lambda = alloc_n(b->area.count, sizeof *out->area_lambda);
  out->body_state = alloc_n(b->body_count, sizeof *out->body_state);
  out->contact = alloc_n(n, sizeof *out->contact);
  out->accel = alloc_n(n, sizeof *out->accel);
  out->delta = alloc_n(n, sizeof *out->delta);
  out->friction = alloc_n(n, sizeof *out->friction);
  out->dlambda = alloc_n(constraints, sizeof *out->dlambda);
  out->corr = alloc_n(slots, sizeof *out->corr);
  out->hier_x0 = alloc_n(b->hier.levels > 1 ? n : 0, sizeof *out->hier_x0);
  out->hier_lambda = alloc_n(b->hier.constraint_count, sizeof *out->hier_lambda);
  bool ok = out->x && out->prev && out->older && out->v_old && out->v && out->distance_lambda && out->bend_lambda && out->tet_lambda && out->area_lambda &&
            out->body_state && out->contact && out->accel && out->delta && out->friction && out->dlambda && out->corr &&
            out->hier_x0 && out->hier_lambda;
  if (ok && b->body_count) {
    out->body_grad = alloc_n(n, sizeof *out->body_grad);
    out->body_weight = alloc_n(n, sizeof *out->body_weight);
    out->load = alloc_n(n, sizeof *out->load);
    fl_cpu_mesh mesh = {.positions = b->positions, .indices = b->triangles, .vertex_count = b->particle_count,
                        .triangle_count = b->triangle_count};
    ok = out->body_grad && out->body_weight && out->load && fl_mesh_vertex_faces(&mesh, &out->tri_first, &out->tri_items);
  }
  bool self = false;
  for (uint32_t o = 0; o < b->object_count; o++) self = self || b->self_collision[o];
  if (ok && self) {
    out->hash_size = 64;
    while (out->hash_size < 2 * n && out->hash_size < (1u << 31)) out->hash_size *= 2;
    out->cell_first = alloc_n((size_t)out->hash_size + 1, sizeof *out->cell_first);
    out->cell_items = alloc_n(n, sizeof *out->cell_items);
    out->cell_of = alloc_n(n, sizeof *out->cell_of);
    ok = out->cell_first && out->cell_items && out->cell_of;
  }
  if (ok) ok = fl_tri_contacts_create(b, &out->tri);
  if (ok) ok = (out->tri_accum = alloc_n(n, sizeof *out->tri_accum)) != NULL; /* triangle and collider contacts */
  if (ok && out->tri.any)
    ok = (out->tri_list_x = alloc_n(n, sizeof *out->tri_list_x)) != NULL &&
         (out->tri_guard_bound = alloc_n(n, sizeof *out->tri_guard_bound)) != NULL;
  if (!ok) {
    fl_xpbd_cpu_destroy(out);
    return fl_error_set("cloth CPU reference: out of memory for %zu particles", n);
  }
  memcpy(out->x, b->positions, n * sizeof *out->x);
  memcpy(out->prev, b->positions, n * sizeof *out->prev);
  if (b->velocities) memcpy(out->v, b->velocities, n * sizeof *out->v);
  for (uint32_t k = 0; k < b->body_count; k++) {
    out->body_state[k][0] = b->bodies[k].rest_volume;
    out->body_state[k][2] = 1e30f;
  }
  return true;
}

void fl_xpbd_cpu_destroy(fl_xpbd_cpu *c)
{
  if (!c) return;
  void *arrays[] = {c->x,     c->prev,  c->v,       c->distance_lambda, c->bend_lambda, c->tet_lambda,
                    c->body_state, c->contact, c->accel, c->delta, c->friction, c->dlambda, c->corr,
                    c->body_grad, c->body_weight, c->tri_first, c->tri_items, c->cell_first, c->cell_items,
                    c->cell_of, c->tri_accum, c->older, c->v_old, c->area_lambda, c->tri_list_x, c->load,
                    c->hier_x0, c->hier_lambda, c->tri_guard_bound};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
  fl_tri_contacts_destroy(&c->tri);
  memset(c, 0, sizeof *c);
}
