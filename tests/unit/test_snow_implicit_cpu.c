/* tests/unit/test_snow_implicit_cpu.c: the CPU reference of the semi-implicit
 * velocity solve of MPM snow (sim/mpm/snow_implicit_cpu.c; Stomakhin et al.
 * 2013 step 6, sim/mpm/snow_implicit.h) on a small hand-built state (domain
 * 1 m, h = 0.1, 512 particles with random deformed F_E in [0.85, 1.15]
 * stretches, random J_P, hardening on; PIC/FLIP, APIC and both mixed):
 *   hessian_fd_*      -H u against the central difference of the elastic forces,
 *                     (f(x + e dt u) - f(x - e dt u)) / (2 e dt), within 1e-3 relative
 *   hessian_symmetric u.(H v) = v.(H u) within 1e-4 relative
 *   hessian_translation H of a uniform translation is 0 (partition of unity)
 *   solve_residual_*  a block hitting the floor and a sphere collider, beta = 1 and 0.5
 *                     at 4x the explicit elastic CFL substep: the mass-weighted
 *                     residual |M^1/2 (A v - v*)| / |M^1/2 v*| of the returned v is
 *                     below FL_SNOW_CR_TOLERANCE after at most FL_SNOW_CR_ITERATIONS,
 *                     the plain |A v - v*| / |v*| below 10x it; held nodes keep v*. */
#include "test.h"

#include "sim/common/sdf_cpu.h"
#include "sim/mpm/snow_cpu.h"
#include "sim/mpm/snow_implicit_cpu.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define MAXP 1024
#define H 0.1f
#define NODES (15 * 15 * 15)

static float g_pos[MAXP][4], g_vel[MAXP][4], g_fe[3 * MAXP][4], g_stress[2 * MAXP][4], g_affine[3 * MAXP][4];
static uint32_t g_acc[8 * NODES];
static float g_gridv[2 * NODES][4], g_vstar[2 * NODES][4];
static double g_u[NODES][3], g_w[NODES][3], g_a[NODES][3], g_b[NODES][3], g_c[NODES][3];
static uint8_t g_free[NODES];

static uint32_t rng = 0x9e3779b9u;
static double frand(void) /* xorshift32, uniform in [-1, 1) */
{
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return (double)(rng >> 8) / (double)(1u << 23) - 1.0;
}

/* The push over the unit cube (snow_spec.h GRID, h = 0.1: 15 nodes per axis). */
static fl_mpm_push make_push(uint32_t n, float dt, float m_max)
{
  fl_mpm_push push;
  memset(&push, 0, sizeof push);
  for (int a = 0; a < 3; a++) {
    push.domain_min[a] = 0.0f;
    push.domain_max[a] = 1.0f;
    push.grid_origin[a] = -2.0f * H;
    push.grid_dims[a] = 15;
  }
  push.node_count = NODES;
  push.h = H;
  push.inv_h = 1.0f / H;
  push.light_node_mass = (float)FL_SNOW_LIGHT_NODE * m_max;
  push.gravity[1] = -9.81f;
  push.mass_scale = 1048576.0f / m_max;
  push.momentum_scale = 65536.0f / m_max;
  push.dt = dt;
  push.time = dt;
  push.count = n;
  return push;
}

static fl_snow_material make_material(uint32_t transfer)
{
  fl_snow_material m;
  memset(&m, 0, sizeof m);
  float E = 1.4e5f, nu = 0.2f;
  m.mu0 = E / (2.0f * (1.0f + nu));
  m.lambda0 = E * nu / ((1.0f + nu) * (1.0f - 2.0f * nu));
  m.xi = 10.0f;                /* xi */
  m.flip = 0.95f;                /* flip */
  m.stretch_min = 1.0f - 0.3f;          /* theta_c, theta_s wide: the random F_E stays elastic */
  m.stretch_max = 1.0f + 0.3f;
  m.friction = 0.3f;                 /* friction */
  m.transfer = transfer;
  return m;
}

/* A random rotation (normalized quaternion). */
static void random_rotation(double R[3][3])
{
  double q[4], n = 0;
  for (int k = 0; k < 4; k++) {
    q[k] = frand();
    n += q[k] * q[k];
  }
  n = sqrt(n);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  double M[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  memcpy(R, M, sizeof M);
}

/* 8^3 particles on a jittered lattice (spacing 0.05) over [lo, lo + 0.4]^3 with velocity v,
 * deformed F_E = R1 diag(s) R2^T (s in [0.85, 1.15]) and J_P in [0.9, 1.1]; material
 * `mode` (0 pic_flip, 1 apic) or, mode 2, alternating. The stress K is made by a G2P
 * through a zero grid with dt = 0 (it then rebuilds F_E from its SVD and keeps x, J_P).
 * Returns the count. */
static uint32_t seed(const float lo[3], const float v[3], int mode, const fl_snow_material *materials,
                     fl_snow_cpu_particles *p, float *m_max)
{
  uint32_t n = 0;
  float s = 0.05f, rho = 400.0f;
  for (int k = 0; k < 8; k++)
    for (int j = 0; j < 8; j++)
      for (int i = 0; i < 8; i++, n++) {
        const int c[3] = {i, j, k};
        for (int a = 0; a < 3; a++) g_pos[n][a] = lo[a] + ((float)c[a] + 0.5f) * s + 0.25f * s * (float)frand();
        g_pos[n][3] = rho * s * s * s * (1.0f + 0.2f * (float)frand());
        g_vel[n][3] = s * s * s;
        double R1[3][3], R2[3][3], d[3];
        random_rotation(R1);
        random_rotation(R2);
        for (int a = 0; a < 3; a++) d[a] = 1.0 + 0.15 * frand();
        for (int r = 0; r < 3; r++) {
          for (int cc = 0; cc < 3; cc++) {
            double f = 0;
            for (int a = 0; a < 3; a++) f += R1[r][a] * d[a] * R2[cc][a];
            g_fe[3 * n + r][cc] = (float)f;
          }
          g_fe[3 * n + r][3] = 0.0f;
        }
        g_fe[3 * n][3] = (float)(1.0 + 0.1 * frand());
        g_fe[3 * n + 1][3] = (float)(mode == 2 ? (int)(n & 1u) : mode);
        memset(g_affine[3 * n], 0, 3 * sizeof g_affine[0]);
        memset(g_stress[2 * n], 0, 2 * sizeof g_stress[0]);
      }
  *m_max = 0;
  for (uint32_t q = 0; q < n; q++) *m_max = fmaxf(*m_max, g_pos[q][3]);
  *p = (fl_snow_cpu_particles){n, g_pos, g_vel, g_fe, g_stress, g_affine};
  fl_mpm_push push = make_push(n, 0.0f, *m_max);
  memset(g_gridv, 0, sizeof g_gridv);
  uint32_t stats[FL_SNOW_STAT_WORDS] = {0, 0x7f7fffffu, 0, 0, 0, 0, 0, 0};
  fl_snow_cpu_g2p(&push, materials, NULL, (const float(*)[4])g_gridv, p, stats);
  for (uint32_t q = 0; q < n; q++) {
    for (int a = 0; a < 3; a++) g_vel[q][a] = v[a];
    memset(g_affine[3 * q], 0, 3 * sizeof g_affine[0]);
  }
  return n;
}

static double norm(const double (*a)[3])
{
  double s = 0;
  for (int i = 0; i < NODES; i++) s += a[i][0] * a[i][0] + a[i][1] * a[i][1] + a[i][2] * a[i][2];
  return sqrt(s);
}

static double dotv(const double (*a)[3], const double (*b)[3])
{
  double s = 0;
  for (int i = 0; i < NODES; i++) s += a[i][0] * b[i][0] + a[i][1] * b[i][1] + a[i][2] * b[i][2];
  return s;
}

static void random_field(double (*u)[3])
{
  for (int i = 0; i < NODES; i++)
    for (int a = 0; a < 3; a++) u[i][a] = frand();
}

/* ---- Hessian product against a finite difference of the forces ---- */

static void hessian_fd(int mode)
{
  rng = 0x12345678u + (uint32_t)mode;
  fl_snow_material materials[2] = {make_material(FL_SNOW_TRANSFER_PIC_FLIP), make_material(FL_SNOW_TRANSFER_APIC)};
  const float lo[3] = {0.3f, 0.3f, 0.3f}, v[3] = {0, 0, 0};
  fl_snow_cpu_particles p;
  float m_max;
  uint32_t n = seed(lo, v, mode, materials, &p, &m_max);
  double dt = 1e-3, eps = 1e-3;
  fl_mpm_push push = make_push(n, (float)dt, m_max);
  random_field(g_u);
  ENSURE(fl_snow_implicit_cpu_hessian(&push, materials, &p, (const double(*)[3])g_u, g_a));
  for (int i = 0; i < NODES; i++)
    for (int a = 0; a < 3; a++) g_w[i][a] = eps * dt * g_u[i][a];
  ENSURE(fl_snow_implicit_cpu_forces(&push, materials, &p, (const double(*)[3])g_w, g_b));
  for (int i = 0; i < NODES; i++)
    for (int a = 0; a < 3; a++) g_w[i][a] = -eps * dt * g_u[i][a];
  ENSURE(fl_snow_implicit_cpu_forces(&push, materials, &p, (const double(*)[3])g_w, g_c));
  for (int i = 0; i < NODES; i++)
    for (int a = 0; a < 3; a++) g_c[i][a] = (g_b[i][a] - g_c[i][a]) / (2.0 * eps * dt) + g_a[i][a]; /* fd - (-Hu) */
  /* the force itself, for scale: the undisplaced f equals P2G's impulse / dt */
  ENSURE(fl_snow_implicit_cpu_forces(&push, materials, &p, NULL, g_b));
  double err = norm((const double(*)[3])g_c) / norm((const double(*)[3])g_a);
  printf("  mode %d: %u particles, |Hu| %.4g, |f| %.4g, |fd + Hu| / |Hu| = %.3g\n", mode, n,
         norm((const double(*)[3])g_a), norm((const double(*)[3])g_b), err);
  ENSURE(norm((const double(*)[3])g_a) > 0);
  ENSURE_MSG(err <= 1e-3, "Hessian product off its finite difference by %g relative", err);
}

static void test_hessian_fd_pic_flip(void) { hessian_fd(0); }
static void test_hessian_fd_apic(void) { hessian_fd(1); }
static void test_hessian_fd_mixed(void) { hessian_fd(2); }

/* ---- symmetry, translation ---- */

static void test_hessian_symmetric(void)
{
  rng = 0x2468ace1u;
  fl_snow_material materials[2] = {make_material(FL_SNOW_TRANSFER_PIC_FLIP), make_material(FL_SNOW_TRANSFER_APIC)};
  const float lo[3] = {0.3f, 0.3f, 0.3f}, v[3] = {0, 0, 0};
  fl_snow_cpu_particles p;
  float m_max;
  uint32_t n = seed(lo, v, 2, materials, &p, &m_max);
  fl_mpm_push push = make_push(n, 1e-3f, m_max);
  random_field(g_u);
  random_field(g_w);
  ENSURE(fl_snow_implicit_cpu_hessian(&push, materials, &p, (const double(*)[3])g_u, g_a));
  ENSURE(fl_snow_implicit_cpu_hessian(&push, materials, &p, (const double(*)[3])g_w, g_b));
  double uhv = dotv((const double(*)[3])g_u, (const double(*)[3])g_b);
  double vhu = dotv((const double(*)[3])g_w, (const double(*)[3])g_a);
  double scale = norm((const double(*)[3])g_u) * norm((const double(*)[3])g_b);
  printf("  u.Hv %.9g, v.Hu %.9g, relative difference %.3g (|u||Hv| %.4g)\n", uhv, vhu, fabs(uhv - vhu) / fabs(uhv),
         scale);
  ENSURE(fabs(uhv) > 1e-3 * scale); /* a generic pair, not a near-orthogonal one */
  ENSURE_MSG(fabs(uhv - vhu) <= 1e-4 * fabs(uhv), "u.Hv = %.9g, v.Hu = %.9g", uhv, vhu);
}

static void test_hessian_translation(void)
{
  rng = 0x13579bdfu;
  fl_snow_material materials[2] = {make_material(FL_SNOW_TRANSFER_PIC_FLIP), make_material(FL_SNOW_TRANSFER_APIC)};
  const float lo[3] = {0.3f, 0.3f, 0.3f}, v[3] = {0, 0, 0};
  fl_snow_cpu_particles p;
  float m_max;
  uint32_t n = seed(lo, v, 2, materials, &p, &m_max);
  fl_mpm_push push = make_push(n, 1e-3f, m_max);
  random_field(g_u);
  ENSURE(fl_snow_implicit_cpu_hessian(&push, materials, &p, (const double(*)[3])g_u, g_a));
  for (int i = 0; i < NODES; i++) {
    g_w[i][0] = 0.3;
    g_w[i][1] = -1.0;
    g_w[i][2] = 0.7;
  }
  ENSURE(fl_snow_implicit_cpu_hessian(&push, materials, &p, (const double(*)[3])g_w, g_b));
  double rel = norm((const double(*)[3])g_b) / (norm((const double(*)[3])g_a) * norm((const double(*)[3])g_w) /
                                                 norm((const double(*)[3])g_u));
  /* exact but for float h * (1/h) != 1 (1.5e-8 for h = 0.1f), which shifts the MLS moment
   * sum_i w_ip (x_i - x_p) off 0 by ~1e-8 m */
  printf("  |H t| / (|H u| |t| / |u|) = %.3g\n", rel);
  ENSURE(rel <= 1e-5);
}

/* ---- the solve ---- */

static void solve_residual(float beta)
{
  rng = 0xdeadbeefu;
  fl_snow_material materials[2] = {make_material(FL_SNOW_TRANSFER_PIC_FLIP), make_material(FL_SNOW_TRANSFER_APIC)};
  const float lo[3] = {0.25f, 0.02f, 0.3f}, v[3] = {0.5f, -2.0f, 0.0f};
  fl_snow_cpu_particles p;
  float m_max;
  uint32_t n = seed(lo, v, 2, materials, &p, &m_max);
  /* 4x the explicit elastic CFL substep (snow_spec.h SUBSTEPS: 0.5 h / c, hardening at J_P 0.9) */
  double k = exp(10.0 * 0.1), c = sqrt((materials[0].lambda0 + 2.0 * materials[0].mu0) * k / 400.0);
  float dt = (float)(4.0 * FL_SNOW_ELASTIC_CFL * H / c);
  fl_mpm_push push = make_push(n, dt, m_max);
  fl_gpu_collider sphere;
  memset(&sphere, 0, sizeof sphere);
  fl_collider_desc desc = {.shape = FL_SHAPE_SPHERE, .center = {0.45f, 0.1f, 0.5f}, .radius = 0.12f};
  fl_collider_pack(&desc, &sphere);
  push.collider_count = 1;
  ENSURE(fl_snow_cpu_p2g(&push, materials, &p, g_acc));
  fl_snow_cpu_grid_update(&push, &materials[0], &sphere, g_acc, g_gridv);
  memcpy(g_vstar, g_gridv, sizeof g_gridv);
  fl_snow_implicit_cpu_report rep;
  ENSURE(fl_snow_implicit_cpu_solve(&push, materials, &sphere, &p, beta, g_acc, g_gridv, FL_SNOW_CR_ITERATIONS,
                                    FL_SNOW_CR_TOLERANCE, g_u, &rep));
  uint32_t free_count = fl_snow_implicit_cpu_free_nodes(&push, &materials[0], &sphere, g_acc,
                                                        (const float(*)[4])g_vstar, g_free);
  uint32_t occupied = 0;
  for (int i = 0; i < NODES; i++) occupied += g_vstar[2 * i][3] > 0;
  ENSURE(free_count == rep.free_nodes);
  ENSURE(fl_snow_implicit_cpu_operator(&push, materials, &p, beta, (const float(*)[4])g_vstar, g_free,
                                       (const double(*)[3])g_u, g_a));
  /* residual over free nodes; held nodes must keep v* exactly */
  double rm = 0, bm = 0, r2 = 0, b2 = 0, change = 0;
  bool held_kept = true;
  for (int i = 0; i < NODES; i++) {
    double m = g_vstar[2 * i][3];
    for (int a = 0; a < 3; a++) {
      double vs = g_vstar[2 * i][a], d = g_a[i][a] - vs;
      if (!g_free[i]) {
        held_kept = held_kept && g_u[i][a] == vs;
        continue;
      }
      rm += m * d * d;
      bm += m * vs * vs;
      r2 += d * d;
      b2 += vs * vs;
      change = fmax(change, fabs(g_u[i][a] - vs));
    }
  }
  double rel_m = sqrt(rm / bm), rel_2 = sqrt(r2 / b2);
  printf("  beta %.2g, dt %.3g ms (4x the elastic CFL), %u occupied nodes, %u free: %u CR iterations%s, "
         "|A v - v*|_M / |v*|_M = %.3g (recursion %.3g), |A v - v*| / |v*| = %.3g, max |v - v*| %.3g m/s\n",
         beta, dt * 1e3, occupied, free_count, rep.iterations, rep.broke_down ? " (breakdown)" : "", rel_m,
         rep.recursive_residual, rel_2, change);
  ENSURE(held_kept);
  ENSURE(free_count > 0 && free_count < occupied); /* some nodes collided or are light */
  ENSURE(!rep.broke_down);
  ENSURE(change > 1e-2); /* the solve did something */
  ENSURE_MSG(rel_m <= FL_SNOW_CR_TOLERANCE, "mass-weighted residual %g", rel_m);
  ENSURE_MSG(rel_2 <= 10 * FL_SNOW_CR_TOLERANCE, "residual %g", rel_2);
}

static void test_solve_residual_backward_euler(void) { solve_residual(1.0f); }
static void test_solve_residual_trapezoidal(void) { solve_residual(0.5f); }

static const fl_test_case cases[] = {
    {"hessian_fd_pic_flip", test_hessian_fd_pic_flip},
    {"hessian_fd_apic", test_hessian_fd_apic},
    {"hessian_fd_mixed", test_hessian_fd_mixed},
    {"hessian_symmetric", test_hessian_symmetric},
    {"hessian_translation", test_hessian_translation},
    {"solve_residual_backward_euler", test_solve_residual_backward_euler},
    {"solve_residual_trapezoidal", test_solve_residual_trapezoidal},
};
FL_TEST_MAIN(cases)
