/* sim/mpm/snow_implicit_cpu: the CPU reference of the semi-implicit solve (see snow_implicit_cpu.h). */
#include "sim/mpm/snow_implicit_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

typedef double m33[3][3]; /* row-major: m[row][col] */

/* ---- small double matrix helpers ---- */

static void mat_mul(m33 a, m33 b, m33 out)
{
  m33 t;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) t[r][c] = a[r][0] * b[0][c] + a[r][1] * b[1][c] + a[r][2] * b[2][c];
  memcpy(out, t, sizeof t);
}

static void mat_mul_bt(m33 a, m33 b, m33 out) /* a b^T */
{
  m33 t;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) t[r][c] = a[r][0] * b[c][0] + a[r][1] * b[c][1] + a[r][2] * b[c][2];
  memcpy(out, t, sizeof t);
}

static void mat_mul_at(m33 a, m33 b, m33 out) /* a^T b */
{
  m33 t;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) t[r][c] = a[0][r] * b[0][c] + a[1][r] * b[1][c] + a[2][r] * b[2][c];
  memcpy(out, t, sizeof t);
}

/* The cofactor matrix J F^-T: C[r][c] = the signed minor of F[r][c]. */
static void cofactor(m33 F, m33 C)
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      C[r][c] = F[r1][c1] * F[r2][c2] - F[r1][c2] * F[r2][c1];
    }
}

static double det(m33 F) { return F[0][0] * (F[1][1] * F[2][2] - F[1][2] * F[2][1]) -
                                         F[0][1] * (F[1][0] * F[2][2] - F[1][2] * F[2][0]) +
                                         F[0][2] * (F[1][0] * F[2][1] - F[1][1] * F[2][0]); }

/* The differential of cof F along dF (linear in dF): d/de cof(F + e dF) at e = 0. */
static void cofactor_differential(m33 F, m33 dF, m33 out)
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      out[r][c] = dF[r1][c1] * F[r2][c2] + F[r1][c1] * dF[r2][c2] - dF[r1][c2] * F[r2][c1] - F[r1][c2] * dF[r2][c1];
    }
}

/* The rotation of the polar decomposition F = R S by Newton's iteration X <- (X + X^-T) / 2
 * (Higham 1986); F must be nonsingular with det > 0 (a valid F_E). */
static void polar_rotation(double (*F)[3], double (*R)[3]) /* 3x3; pointers: GCC 12 misreads m33 parameters after ISRA */
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) R[r][c] = F[r][c];
  for (int it = 0; it < 100; it++) {
    m33 C;
    cofactor(R, C);
    double J = det(R), change = 0, norm = 0;
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        double next = 0.5 * (R[r][c] + C[r][c] / J); /* X^-T = cof X / det X */
        change += (next - R[r][c]) * (next - R[r][c]);
        norm += next * next;
        R[r][c] = next;
      }
    if (change <= 1e-28 * norm) break;
  }
}

/* ---- per-particle data ---- */

typedef struct {
  m33 F, R, M; /* F_E, its polar rotation, (tr(S) I - S)^-1 */
  double mu2, lam; /* 2 V0 mu, V0 lambda (hardened) */
  bool apic;
} particle_data;

static bool is_apic(const fl_snow_material *m) { return m->transfer == FL_SNOW_TRANSFER_APIC; }

static const fl_snow_material *material_of(const fl_snow_material *materials, const fl_snow_cpu_particles *p,
                                           uint32_t i)
{
  float w = p->fe[3 * i + 1][3];
  uint32_t idx = w >= 0.0f && w < (float)FL_SNOW_MAX_MATERIALS ? (uint32_t)w : 0u;
  return &materials[idx];
}

static void particle_prepare(const fl_snow_material *materials, const fl_snow_cpu_particles *p, uint32_t i,
                             particle_data *d)
{
  const fl_snow_material *mat = material_of(materials, p, i);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) d->F[r][c] = p->fe[3 * i + r][c];
  polar_rotation(d->F, d->R);
  m33 S, T;
  mat_mul_at(d->R, d->F, S);
  double tr = S[0][0] + S[1][1] + S[2][2];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) T[r][c] = (r == c ? tr : 0.0) - 0.5 * (S[r][c] + S[c][r]);
  m33 adj;
  cofactor(T, adj); /* T symmetric: T^-1 = cof(T)^T / det T = cof(T) / det T */
  double dT = det(T);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) d->M[r][c] = adj[r][c] / dT;
  double jp = p->fe[3 * i][3];
  double k = exp(fmin((double)mat->xi * (1.0 - jp), log(FL_SNOW_HARDENING_MAX)));
  double V0 = p->vel[i][3];
  d->mu2 = 2.0 * V0 * mat->mu0 * k;
  d->lam = V0 * mat->lambda0 * k;
  d->apic = is_apic(mat);
}

/* V0 dP(F)[dF] (snow_implicit.h). */
static void stress_differential(particle_data *d, m33 dF, m33 out)
{
  m33 A, C, dC, dR, W;
  mat_mul_at(d->R, dF, A);
  double k[3] = {A[2][1] - A[1][2], A[0][2] - A[2][0], A[1][0] - A[0][1]}, w[3];
  for (int r = 0; r < 3; r++) w[r] = d->M[r][0] * k[0] + d->M[r][1] * k[1] + d->M[r][2] * k[2];
  double Wm[3][3] = {{0, -w[2], w[1]}, {w[2], 0, -w[0]}, {-w[1], w[0], 0}};
  memcpy(W, Wm, sizeof W);
  mat_mul(d->R, W, dR);
  cofactor(d->F, C);
  cofactor_differential(d->F, dF, dC);
  double J = det(d->F), CdF = 0;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) CdF += C[r][c] * dF[r][c];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      out[r][c] = d->mu2 * (dF[r][c] - dR[r][c]) + d->lam * (CdF * C[r][c] + (J - 1.0) * dC[r][c]);
}

/* V0 P(F^) for the displaced F^, with this particle's hardened moduli. */
static void stress(particle_data *d, m33 Fh, m33 out)
{
  m33 R, C;
  polar_rotation(Fh, R);
  cofactor(Fh, C);
  double J = det(Fh);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) out[r][c] = d->mu2 * (Fh[r][c] - R[r][c]) + d->lam * (J - 1.0) * C[r][c];
}

/* ---- stencils in double ---- */

typedef struct {
  int base[3], width;
  double n[3][4], dn[3][4];
} stencil;

static double cubic_n(double d)
{
  double a = fabs(d);
  if (a < 1) return 0.5 * a * a * a - d * d + 2.0 / 3.0;
  if (a < 2) return -a * a * a / 6.0 + d * d - 2.0 * a + 4.0 / 3.0;
  return 0;
}

static double cubic_dn(double d)
{
  double a = fabs(d), s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
  if (a < 1) return 1.5 * d * a - 2.0 * d;
  if (a < 2) return -0.5 * d * a + 2.0 * d - 2.0 * s;
  return 0;
}

static double quadratic_n(double d)
{
  double a = fabs(d);
  if (a < 0.5) return 0.75 - d * d;
  if (a < 1.5) return 0.5 * (1.5 - a) * (1.5 - a);
  return 0;
}

static bool make_stencil(const fl_mpm_push *push, const float x[3], bool apic, stencil *s)
{
  double inv_h = push->inv_h;
  s->width = apic ? 3 : 4;
  for (int a = 0; a < 3; a++) {
    double fx = ((double)x[a] - push->grid_origin[a]) * inv_h;
    if (!(fx > -8.0 && fx < (double)push->grid_dims[a] + 8.0)) return false;
    s->base[a] = apic ? (int)floor(fx - 0.5) : (int)floor(fx) - 1;
    for (int k = 0; k < s->width; k++) {
      double d = fx - (s->base[a] + k);
      s->n[a][k] = apic ? quadratic_n(d) : cubic_n(d);
      s->dn[a][k] = apic ? 0.0 : cubic_dn(d);
    }
  }
  return true;
}

/* Node index of stencil node (i, j, k) or -1 outside the grid; g = grad w (cubic) or (4/h^2) w (x_i - x_p). */
static long node_gradient(const fl_mpm_push *push, const stencil *s, const float x[3], int i, int j, int k,
                          double g[3])
{
  const int o[3] = {i, j, k};
  long idx[3];
  for (int a = 0; a < 3; a++) {
    idx[a] = (long)s->base[a] + o[a];
    if (idx[a] < 0 || idx[a] >= (long)push->grid_dims[a]) return -1;
  }
  double inv_h = push->inv_h, h = push->h;
  double nx = s->n[0][i], ny = s->n[1][j], nz = s->n[2][k];
  if (s->width == 3) {
    double w = nx * ny * nz;
    for (int a = 0; a < 3; a++) g[a] = 4.0 * inv_h * inv_h * w * ((push->grid_origin[a] + idx[a] * h) - x[a]);
  } else {
    g[0] = s->dn[0][i] * ny * nz * inv_h;
    g[1] = nx * s->dn[1][j] * nz * inv_h;
    g[2] = nx * ny * s->dn[2][k] * inv_h;
  }
  return (idx[2] * (long)push->grid_dims[1] + idx[1]) * (long)push->grid_dims[0] + idx[0];
}

static uint32_t particle_count(const fl_mpm_push *push, const fl_snow_cpu_particles *p)
{
  return push->count < p->count ? push->count : p->count;
}

/* G = sum_j u_j g_jp^T over the stencil (u may be NULL: G = 0). */
static void gather(const fl_mpm_push *push, const stencil *s, const float x[3], const double (*u)[3], m33 G)
{
  memset(G, 0, sizeof(m33));
  if (!u) return;
  for (int k = 0; k < s->width; k++)
    for (int j = 0; j < s->width; j++)
      for (int i = 0; i < s->width; i++) {
        double g[3];
        long n = node_gradient(push, s, x, i, j, k, g);
        if (n < 0) continue;
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++) G[r][c] += u[n][r] * g[c];
      }
}

/* out_i += sign K g_ip over the stencil. */
static void scatter(const fl_mpm_push *push, const stencil *s, const float x[3], m33 K, double sign,
                    double (*out)[3])
{
  for (int k = 0; k < s->width; k++)
    for (int j = 0; j < s->width; j++)
      for (int i = 0; i < s->width; i++) {
        double g[3];
        long n = node_gradient(push, s, x, i, j, k, g);
        if (n < 0) continue;
        for (int r = 0; r < 3; r++) out[n][r] += sign * (K[r][0] * g[0] + K[r][1] * g[1] + K[r][2] * g[2]);
      }
}

bool fl_snow_implicit_cpu_hessian(const fl_mpm_push *push, const fl_snow_material *materials,
                                  const fl_snow_cpu_particles *p, const double (*u)[3], double (*hu)[3])
{
  memset(hu, 0, (size_t)fl_snow_cpu_nodes(push) * sizeof *hu);
  for (uint32_t pi = 0; pi < particle_count(push, p); pi++) {
    particle_data d;
    particle_prepare(materials, p, pi, &d);
    stencil s;
    if (!make_stencil(push, p->pos[pi], d.apic, &s)) continue;
    m33 G, dF, dP, K;
    gather(push, &s, p->pos[pi], u, G);
    mat_mul(G, d.F, dF);
    stress_differential(&d, dF, dP);
    mat_mul_bt(dP, d.F, K);
    scatter(push, &s, p->pos[pi], K, 1.0, hu);
  }
  return true;
}

bool fl_snow_implicit_cpu_forces(const fl_mpm_push *push, const fl_snow_material *materials,
                                 const fl_snow_cpu_particles *p, const double (*dx)[3], double (*f)[3])
{
  memset(f, 0, (size_t)fl_snow_cpu_nodes(push) * sizeof *f);
  for (uint32_t pi = 0; pi < particle_count(push, p); pi++) {
    particle_data d;
    particle_prepare(materials, p, pi, &d);
    stencil s;
    if (!make_stencil(push, p->pos[pi], d.apic, &s)) continue;
    m33 G, Fh, P, K;
    gather(push, &s, p->pos[pi], dx, G);
    for (int r = 0; r < 3; r++) G[r][r] += 1.0;
    mat_mul(G, d.F, Fh);
    stress(&d, Fh, P);
    mat_mul_bt(P, d.F, K);
    scatter(push, &s, p->pos[pi], K, -1.0, f);
  }
  return true;
}

/* ---- the solve ---- */

static void node_position(const fl_mpm_push *push, uint32_t n, float x[3])
{
  uint32_t nx = push->grid_dims[0], ny = push->grid_dims[1];
  uint32_t idx[3] = {n % nx, (n / nx) % ny, n / (nx * ny)};
  for (int a = 0; a < 3; a++) x[a] = push->grid_origin[a] + (float)idx[a] * push->h;
}

uint32_t fl_snow_implicit_cpu_free_nodes(const fl_mpm_push *push, const fl_snow_material *grid_material,
                                         const fl_gpu_collider *colliders, const uint32_t *acc,
                                         const float (*gridv)[4], uint8_t *free_nodes)
{
  bool fixed = (push->flags & FL_MPM_FIXED_POINT) != 0;
  float dt = push->dt;
  uint32_t count = 0;
  for (uint32_t n = 0; n < fl_snow_cpu_nodes(push); n++) {
    float m = gridv[2 * n][3];
    bool ok = m >= push->light_node_mass && m > 0.0f;
    if (ok) { /* v* before collisions, as fl_snow_cpu_grid_update computes it */
      float w[7], v[3], vc[3], x[3];
      for (int q = 0; q < 7; q++) {
        uint32_t u = acc[8u * n + (uint32_t)q];
        w[q] = fixed ? (float)fl_snow_bits_int(u) / (q == 3 ? push->mass_scale : push->momentum_scale) : fl_snow_bits_float(u);
      }
      for (int a = 0; a < 3; a++) vc[a] = v[a] = (w[a] + w[4 + a]) / m + dt * push->gravity[a];
      node_position(push, n, x);
      fl_snow_cpu_collide(push, colliders, grid_material->friction, x, vc);
      ok = vc[0] == v[0] && vc[1] == v[1] && vc[2] == v[2];
    }
    free_nodes[n] = ok ? 1 : 0;
    count += ok;
  }
  return count;
}

bool fl_snow_implicit_cpu_operator(const fl_mpm_push *push, const fl_snow_material *materials,
                                   const fl_snow_cpu_particles *p, float beta, const float (*gridv)[4],
                                   const uint8_t *free_nodes, const double (*v)[3], double (*out)[3])
{
  size_t nodes = fl_snow_cpu_nodes(push);
  double(*u)[3] = malloc((nodes + 1) * sizeof *u), (*hu)[3] = malloc((nodes + 1) * sizeof *hu);
  if (!u || !hu) {
    free(u);
    free(hu);
    return fl_error_set("snow implicit CPU reference: out of memory for %zu nodes", nodes);
  }
  for (size_t n = 0; n < nodes; n++)
    for (int a = 0; a < 3; a++) u[n][a] = free_nodes[n] ? v[n][a] : 0.0;
  fl_snow_implicit_cpu_hessian(push, materials, p, (const double(*)[3])u, hu);
  double dt = push->dt, c = (double)beta * dt * dt;
  for (size_t n = 0; n < nodes; n++)
    for (int a = 0; a < 3; a++) out[n][a] = v[n][a] + (free_nodes[n] ? c / gridv[2 * n][3] * hu[n][a] : 0.0);
  free(u);
  free(hu);
  return true;
}

static double dot(const double (*a)[3], const double (*b)[3], size_t n)
{
  double s = 0;
  for (size_t i = 0; i < n; i++) s += a[i][0] * b[i][0] + a[i][1] * b[i][1] + a[i][2] * b[i][2];
  return s;
}

/* out = B z = z + c info H (info z) on free nodes, 0 on held ones (info 0). */
static void operator_b(const fl_mpm_push *push, const fl_snow_material *materials, const fl_snow_cpu_particles *p,
                       double c, const double *info, const double (*z)[3], double (*u)[3], double (*hu)[3],
                       double (*out)[3])
{
  size_t nodes = fl_snow_cpu_nodes(push);
  for (size_t n = 0; n < nodes; n++)
    for (int a = 0; a < 3; a++) u[n][a] = info[n] * z[n][a];
  fl_snow_implicit_cpu_hessian(push, materials, p, (const double(*)[3])u, hu);
  for (size_t n = 0; n < nodes; n++)
    for (int a = 0; a < 3; a++) out[n][a] = info[n] != 0.0 ? z[n][a] + c * info[n] * hu[n][a] : 0.0;
}

bool fl_snow_implicit_cpu_solve(const fl_mpm_push *push, const fl_snow_material *materials,
                                const fl_gpu_collider *colliders, const fl_snow_cpu_particles *p, float beta,
                                const uint32_t *acc, float (*gridv)[4], uint32_t iterations, double tolerance,
                                double (*v_solved)[3], fl_snow_implicit_cpu_report *report)
{
  size_t nodes = fl_snow_cpu_nodes(push);
  uint8_t *free_nodes = malloc(nodes + 1);
  double *info = calloc(nodes + 1, sizeof *info);
  double(*vec)[3] = malloc((7 * nodes + 1) * sizeof *vec);
  if (!free_nodes || !info || !vec) {
    free(free_nodes);
    free(info);
    free(vec);
    return fl_error_set("snow implicit CPU reference: out of memory for %zu nodes", nodes);
  }
  double(*z)[3] = vec, (*r)[3] = vec + nodes, (*pp)[3] = vec + 2 * nodes, (*br)[3] = vec + 3 * nodes,
        (*bp)[3] = vec + 4 * nodes, (*u)[3] = vec + 5 * nodes, (*hu)[3] = vec + 6 * nodes;
  fl_snow_implicit_cpu_report rep = {0};
  rep.free_nodes = fl_snow_implicit_cpu_free_nodes(push, &materials[0], colliders, acc,
                                                   (const float(*)[4])gridv, free_nodes);
  for (size_t n = 0; n < nodes; n++) {
    double s = free_nodes[n] ? sqrt((double)gridv[2 * n][3]) : 0.0;
    info[n] = free_nodes[n] ? 1.0 / s : 0.0;
    for (int a = 0; a < 3; a++) z[n][a] = s * gridv[2 * n][a];
  }
  double dt = push->dt, c = (double)beta * dt * dt, tol2 = tolerance * tolerance;
  double bb = dot((const double(*)[3])z, (const double(*)[3])z, nodes);
  /* r0 = b - B z0 with z0 = b; p = r */
  operator_b(push, materials, p, c, info, (const double(*)[3])z, u, hu, br);
  for (size_t n = 0; n < nodes; n++)
    for (int a = 0; a < 3; a++) pp[n][a] = r[n][a] = z[n][a] - br[n][a];
  double rr = dot((const double(*)[3])r, (const double(*)[3])r, nodes), rbr = 0;
  if (rr > tol2 * bb) {
    operator_b(push, materials, p, c, info, (const double(*)[3])r, u, hu, br);
    memcpy(bp, br, nodes * sizeof *bp);
    rbr = dot((const double(*)[3])r, (const double(*)[3])br, nodes);
  }
  for (uint32_t k = 0; k < iterations && rr > tol2 * bb && !rep.broke_down; k++) {
    double bpbp = dot((const double(*)[3])bp, (const double(*)[3])bp, nodes), alpha = rbr / bpbp;
    if (!(bpbp > 0) || !isfinite(alpha)) {
      rep.broke_down = true;
      break;
    }
    for (size_t n = 0; n < nodes; n++)
      for (int a = 0; a < 3; a++) {
        z[n][a] += alpha * pp[n][a];
        r[n][a] -= alpha * bp[n][a];
      }
    rep.iterations = k + 1;
    rr = dot((const double(*)[3])r, (const double(*)[3])r, nodes);
    if (k + 1 == iterations || !(rr > tol2 * bb)) break;
    operator_b(push, materials, p, c, info, (const double(*)[3])r, u, hu, br);
    double rbr_new = dot((const double(*)[3])r, (const double(*)[3])br, nodes), b = rbr_new / rbr;
    if (rbr == 0 || !isfinite(b)) {
      rep.broke_down = true;
      break;
    }
    for (size_t n = 0; n < nodes; n++)
      for (int a = 0; a < 3; a++) {
        pp[n][a] = r[n][a] + b * pp[n][a];
        bp[n][a] = br[n][a] + b * bp[n][a];
      }
    rbr = rbr_new;
  }
  rep.recursive_residual = bb > 0 ? sqrt(rr / bb) : 0.0;
  for (uint32_t n = 0; n < (uint32_t)nodes; n++) {
    double v[3];
    for (int a = 0; a < 3; a++) v[a] = free_nodes[n] ? z[n][a] * info[n] : gridv[2 * n][a];
    if (v_solved)
      for (int a = 0; a < 3; a++) v_solved[n][a] = v[a];
    if (!free_nodes[n]) continue;
    float vf[3] = {(float)v[0], (float)v[1], (float)v[2]}, x[3];
    node_position(push, n, x);
    fl_snow_cpu_collide(push, colliders, materials[0].friction, x, vf);
    for (int a = 0; a < 3; a++) gridv[2 * n][a] = vf[a];
  }
  if (report) *report = rep;
  free(free_nodes);
  free(info);
  free(vec);
  return true;
}

bool fl_snow_implicit_cpu_substep(const fl_mpm_push *push, const fl_snow_material *materials,
                                  const fl_gpu_collider *colliders, float beta, fl_snow_cpu_particles *p,
                                  uint32_t stats[FL_SNOW_STAT_WORDS], fl_snow_implicit_cpu_report *report)
{
  size_t nodes = fl_snow_cpu_nodes(push);
  uint32_t *acc = malloc((nodes * 8u + 1u) * sizeof *acc);
  float(*gridv)[4] = malloc((nodes * 2u + 1u) * sizeof *gridv);
  bool ok = acc && gridv;
  if (!ok) fl_error_set("snow implicit CPU reference: out of memory for %zu grid nodes", nodes);
  stats[FL_SNOW_STAT_CLAMPED] = 0; /* step 0 */
  ok = ok && fl_snow_cpu_p2g(push, materials, p, acc);
  if (ok) fl_snow_cpu_grid_update(push, &materials[0], colliders, acc, gridv);
  ok = ok && fl_snow_implicit_cpu_solve(push, materials, colliders, p, beta, acc, gridv, FL_SNOW_CR_ITERATIONS,
                                        FL_SNOW_CR_TOLERANCE, NULL, report);
  if (ok) fl_snow_cpu_g2p(push, materials, colliders, (const float(*)[4])gridv, p, stats);
  free(acc);
  free(gridv);
  return ok;
}
