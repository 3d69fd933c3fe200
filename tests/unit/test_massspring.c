/* tests/unit/test_massspring.c: the mass-spring CPU reference of ms_spec.h
 * (Kang 2018): the harmonic-oscillator impulse against RK4 quadrature in every
 * damping regime, the spring Jacobian against finite differences, the grid
 * layout, the two-body period under HO and E, Jacobi (JI) converging to the
 * CG solve (IM), stability of HO and HY where E diverges, momentum of the two
 * HO splits (and of IM), and pinned particles. */
#include "test.h"

#include "core/log.h"
#include "sim/massspring/ms_cpu.h"
#include "sim/massspring/ms_ho.h"

#include <stdint.h>
#include <stdlib.h>

#define PI_D 3.14159265358979323846

static uint32_t rng_state = 2024;
static double drand_sym(void) /* uniform in [-1, 1) */
{
  rng_state = rng_state * 1664525u + 1013904223u;
  return (double)(rng_state >> 8) / (double)(1u << 23) - 1.0;
}

/* Integrates (delta, delta', integral of delta) with RK4 in n steps over [0, h]. */
static void rk4_oscillator(double delta, double rate, double m, double kappa, double c, double h, int n,
                           double out[3])
{
  double y[3] = {delta, rate, 0}, dt = h / n, a = c / m, b = kappa / m;
  for (int s = 0; s < n; s++) {
    double k[4][3], t[3];
    for (int st = 0; st < 4; st++) {
      double f = st == 0 ? 0 : (st == 3 ? 1.0 : 0.5);
      for (int q = 0; q < 3; q++) t[q] = y[q] + (st ? f * dt * k[st - 1][q] : 0);
      k[st][0] = t[1];
      k[st][1] = -a * t[1] - b * t[0];
      k[st][2] = t[0];
    }
    for (int q = 0; q < 3; q++) y[q] += dt / 6 * (k[0][q] + 2 * k[1][q] + 2 * k[2][q] + k[3][q]);
  }
  memcpy(out, y, sizeof y);
}

static void test_ho_impulse_matches_quadrature(void)
{
  const double m = 0.5, kappa = 100.0, crit = 2.0 * sqrt(kappa * m);
  /* damping c_d, step h: undamped, underdamped, critical, near critical both sides, overdamped */
  const double cases[][2] = {
      {0, 0.3},         {0, 1e-3},          {2.0, 0.2},          {2.0, 0.004},  {crit, 0.2},
      {crit, 0.01},     {crit * (1 + 1e-9), 0.2}, {crit * (1 - 1e-9), 0.2}, {crit * 1.001, 0.3},
      {crit * 0.999, 0.3}, {50.0, 0.2},     {50.0, 0.005},       {1e4, 0.1},    {1e3, 2.0},
  };
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
    for (int sd = -1; sd <= 1; sd += 2)
      for (int sr = -1; sr <= 1; sr += 2) {
        double c = cases[ci][0], h = cases[ci][1], d0 = 0.1 * sd, r0 = 0.7 * sr;
        double ref[3];
        rk4_oscillator(d0, r0, m, kappa, c, h, 200000, ref);
        double phi = fl_ms_ho_impulse(d0, r0, m, kappa, c, h), want = kappa * ref[2];
        ENSURE_MSG(fabs(want) > 1e-9, "case %zu: reference %g too small to compare", ci, want);
        ENSURE_MSG(fabs(phi - want) <= 1e-6 * fabs(want), "case %zu (c %g, h %g, %g, %g): phi %.12g, RK4 %.12g",
                   ci, c, h, d0, r0, phi, want);
        double dt, rt;
        fl_ms_ho_evolve(d0, r0, m, kappa, c, h, &dt, &rt);
        ENSURE_MSG(fabs(dt - ref[0]) <= 1e-8 * (fabs(d0) + fabs(r0)) &&
                       fabs(rt - ref[1]) <= 1e-7 * (fabs(d0) * sqrt(kappa / m) + fabs(r0)),
                   "case %zu: state (%g, %g), RK4 (%g, %g)", ci, dt, rt, ref[0], ref[1]);
      }
  ENSURE(fl_ms_ho_impulse(0, 0, m, kappa, 1.0, 0.1) == 0.0);
}

/* A free pair of particles on the x axis, masses 1/w0 and 1/w1, rest 1, stretched by `stretch`. */
static bool make_pair(fl_ms_system *s, double kappa, double damping, double stretch, double w0, double w1)
{
  fl_ms_spring sp = {0, 1, 1.0};
  if (!fl_ms_system_create(2, &sp, 1, kappa, damping, s)) return false;
  s->x[1][0] = 1.0 + stretch;
  s->inv_mass[0] = w0;
  s->inv_mass[1] = w1;
  return true;
}

static double pair_strain(const fl_ms_system *s)
{
  double d[3] = {s->x[1][0] - s->x[0][0], s->x[1][1] - s->x[0][1], s->x[1][2] - s->x[0][2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - 1.0;
}

/* Mean period of the strain from upward zero crossings over `steps` steps. */
static double measured_period(fl_ms_system *s, const fl_ms_step_params *p, int steps)
{
  double prev = pair_strain(s), first = -1, last = -1;
  int crossings = 0;
  for (int k = 1; k <= steps; k++) {
    if (!fl_ms_step(s, p)) return -1;
    double cur = pair_strain(s);
    if (prev < 0 && cur >= 0) {
      double t = (k - 1 + prev / (prev - cur)) * p->h;
      if (crossings == 0) first = t;
      last = t;
      crossings++;
    }
    prev = cur;
  }
  return crossings > 1 ? (last - first) / (crossings - 1) : -1;
}

static void test_ho_pair_period(void)
{
  const double kappa = 100.0, m = 1.0, big_m = m / 2, omega = sqrt(kappa / big_m), period = 2 * PI_D / omega;
  fl_ms_system s;
  ENSURE(make_pair(&s, kappa, 0, 0.1, 1 / m, 1 / m));
  fl_ms_step_params p = {.method = FL_MS_HO, .h = period / 400, .split = FL_MS_SPLIT_MOMENTUM};
  double t = measured_period(&s, &p, 4000);
  fl_ms_system_destroy(&s);
  ENSURE_MSG(fabs(t - period) <= 1e-3 * period, "HO period %.9g, expected %.9g", t, period);
  /* The paper's split gives each end half the impulse: for equal masses the pair
   * oscillates like a spring of stiffness kappa/2 (documented in ms_spec.h). */
  ENSURE(make_pair(&s, kappa, 0, 0.1, 1 / m, 1 / m));
  p.split = FL_MS_SPLIT_PAPER;
  t = measured_period(&s, &p, 4000);
  fl_ms_system_destroy(&s);
  ENSURE_MSG(fabs(t - period * sqrt(2.0)) <= 1e-2 * period, "paper split period %.9g, sqrt(2) x %.9g", t,
             period);
}

static void test_euler_matches_analytic(void)
{
  const double kappa = 100.0, m = 1.0, big_m = m / 2, omega = sqrt(kappa / big_m), period = 2 * PI_D / omega;
  const double dampings[] = {0.0, 0.5, 3.0};
  for (size_t di = 0; di < 3; di++) {
    fl_ms_system s;
    ENSURE(make_pair(&s, kappa, dampings[di], 0.1, 1 / m, 1 / m));
    fl_ms_step_params p = {.method = FL_MS_E, .h = period / 20000};
    double worst = 0;
    for (int k = 1; k <= 40000; k++) {
      ENSURE(fl_ms_step(&s, &p));
      double want, rate;
      fl_ms_ho_evolve(0.1, 0, big_m, kappa, dampings[di], k * p.h, &want, &rate);
      worst = fmax(worst, fabs(pair_strain(&s) - want));
    }
    fl_ms_system_destroy(&s);
    ENSURE_MSG(worst <= 1e-3 * 0.1, "damping %g: largest strain error %g", dampings[di], worst);
  }
}

static void test_jacobian_finite_differences(void)
{
  const double kappa = 37.0, eps = 1e-6;
  for (int trial = 0; trial < 6; trial++) {
    fl_ms_system s;
    fl_ms_spring sp = {0, 1, trial < 3 ? 0.5 : 2.0}; /* stretched, then compressed */
    ENSURE(fl_ms_system_create(2, &sp, 1, kappa, 0, &s));
    for (int c = 0; c < 3; c++) {
      s.x[0][c] = drand_sym();
      s.x[1][c] = drand_sym() + (c == 0 ? 1.5 : 0);
    }
    double k[9], f_plus[2][3], f_minus[2][3];
    fl_ms_spring_jacobian(s.x[0], s.x[1], sp.rest, kappa, false, k);
    bool ok = true;
    for (int c = 0; c < 3 && ok; c++) {
      s.x[1][c] += eps;
      fl_ms_forces(&s, f_plus);
      s.x[1][c] -= 2 * eps;
      fl_ms_forces(&s, f_minus);
      s.x[1][c] += eps;
      for (int r = 0; r < 3; r++) {
        double fd_ij = (f_plus[0][r] - f_minus[0][r]) / (2 * eps); /* df_i/dx_j: K */
        double fd_jj = (f_plus[1][r] - f_minus[1][r]) / (2 * eps); /* df_j/dx_j: -K */
        if (fabs(fd_ij - k[3 * r + c]) > 1e-5 * kappa || fabs(fd_jj + k[3 * r + c]) > 1e-5 * kappa) ok = false;
      }
    }
    fl_ms_system_destroy(&s);
    ENSURE_MSG(ok, "trial %d: K differs from finite differences", trial);
  }
}

static fl_ms_grid_desc grid_desc(uint32_t n, double kappa, double damping, double gravity)
{
  return (fl_ms_grid_desc){.nx = n, .ny = n, .size = {1, 1}, .center = {0, 1, 0}, .mass = 1.0,
                           .kappa = kappa, .damping = damping, .gravity = {0, gravity, 0}};
}

static void test_grid_layout(void)
{
  fl_ms_system s;
  fl_ms_grid_desc d = grid_desc(5, 10, 0, 0);
  d.ny = 4;
  ENSURE(fl_ms_grid_create(&d, &s));
  uint32_t nx = 5, ny = 4;
  ENSURE(s.spring_count == (nx - 1) * ny + nx * (ny - 1) + 2 * (nx - 1) * (ny - 1) + (nx - 2) * ny + nx * (ny - 2));
  ENSURE(s.springs[0].i == 0 && s.springs[0].j == 1 && fabs(s.springs[0].rest - 0.25) < 1e-15);
  uint32_t shear = (nx - 1) * ny + nx * (ny - 1);
  ENSURE(s.springs[shear].i == 0 && s.springs[shear].j == nx + 1);
  ENSURE(s.springs[shear + (nx - 1) * (ny - 1)].i == 1 && s.springs[shear + (nx - 1) * (ny - 1)].j == nx);
  const fl_ms_spring *last = &s.springs[s.spring_count - 1];
  ENSURE(last->j == last->i + 2 * nx && fabs(last->rest - 2.0 / 3.0) < 1e-15);
  ENSURE(s.particle_first[s.particle_count] == 2 * s.spring_count);
  for (uint32_t k = 0; k < s.particle_count; k++)
    for (uint32_t a = s.particle_first[k]; a < s.particle_first[k + 1]; a++) {
      const fl_ms_spring *sp = &s.springs[s.particle_springs[a]];
      ENSURE(sp->i == k || sp->j == k);
      if (a > s.particle_first[k]) ENSURE(s.particle_springs[a] > s.particle_springs[a - 1]);
    }
  ENSURE(fabs(1.0 / s.inv_mass[7] - 1.0 / 20) < 1e-15);
  fl_ms_system_destroy(&s);
  fl_error_clear();
  d.nx = 1;
  ENSURE(!fl_ms_grid_create(&d, &s));
  ENSURE(strstr(fl_error_message(), "resolution") != NULL);
  fl_error_clear();
}

/* Jitters positions and sets random velocities of a grid (deterministic). */
static void perturb(fl_ms_system *s, double dx, double dv)
{
  for (uint32_t k = 0; k < s->particle_count; k++)
    for (int c = 0; c < 3; c++) {
      s->x[k][c] += dx * drand_sym();
      if (s->inv_mass[k] > 0) s->v[k][c] = dv * drand_sym();
    }
}

static double diff_norm(const fl_ms_system *s, const double (*a)[3], const double (*b)[3])
{
  double sum = 0;
  for (uint32_t k = 0; k < s->particle_count; k++)
    for (int c = 0; c < 3; c++) sum += (a[k][c] - b[k][c]) * (a[k][c] - b[k][c]);
  return sqrt(sum);
}

static void test_jacobi_approaches_cg(void)
{
  fl_ms_system s;
  fl_ms_grid_desc d = grid_desc(8, 50, 0.05, -9.81);
  ENSURE(fl_ms_grid_create(&d, &s));
  fl_ms_pin(&s, 7 * 8);
  fl_ms_pin(&s, 7 * 8 + 7);
  perturb(&s, 0.01, 0.3);
  uint32_t n = s.particle_count;
  double (*ref)[3] = calloc(n, sizeof *ref), (*dv)[3] = calloc(n, sizeof *dv);
  ENSURE(ref && dv);
  fl_ms_step_params p = {.method = FL_MS_IM, .h = 0.01, .definite = true};
  bool ok = fl_ms_velocity_change(&s, &p, ref);
  double res = s.cg_relative_residual;
  double (*zeros)[3] = calloc(n, sizeof *zeros);
  double ref_norm = diff_norm(&s, (const double (*)[3])ref, (const double (*)[3])zeros);
  const uint32_t ks[] = {1, 2, 3, 5, 10, 20, 50};
  double err[7];
  p.method = FL_MS_JI;
  for (int i = 0; i < 7 && ok; i++) {
    p.iterations = ks[i];
    ok = fl_ms_velocity_change(&s, &p, dv);
    err[i] = diff_norm(&s, (const double (*)[3])dv, (const double (*)[3])ref) / ref_norm;
  }
  free(ref);
  free(dv);
  free(zeros);
  fl_ms_system_destroy(&s);
  ENSURE(ok);
  ENSURE_MSG(res <= 1e-10, "CG relative residual %g", res);
  for (int i = 1; i < 7; i++) ENSURE_MSG(err[i] < err[i - 1], "k %u: error %g, k %u: %g", ks[i], err[i], ks[i - 1], err[i - 1]);
  ENSURE_MSG(err[6] < 1e-4, "JI k=50 relative error %g", err[6]);
}

/* Runs `steps` steps of a 6 x 6 cloth (two corners pinned, gravity, damping 0.5)
 * at mu = h/h_c of its springs; returns the largest |energy - initial| (inf when
 * it stops being finite or a step fails). */
static double cloth_energy_excursion(fl_ms_method method, double mu, int steps)
{
  fl_ms_system s;
  fl_ms_grid_desc d = grid_desc(6, 100, 0.5, -9.81);
  if (!fl_ms_grid_create(&d, &s)) return INFINITY;
  fl_ms_pin(&s, 5 * 6);
  fl_ms_pin(&s, 5 * 6 + 5);
  rng_state = 99;
  perturb(&s, 0.005, 0);
  double omega = sqrt(d.kappa / fl_ms_reduced_mass(&s, 0)), hc = PI_D / omega;
  fl_ms_step_params p = {
      .method = method, .h = mu * hc, .iterations = 3, .split = FL_MS_SPLIT_PAPER, .definite = true};
  double e0 = fl_ms_energy(&s), worst = 0;
  for (int k = 0; k < steps && worst < 1e12; k++) {
    double e = fl_ms_step(&s, &p) ? fl_ms_energy(&s) : NAN;
    worst = isfinite(e) ? fmax(worst, fabs(e - e0)) : INFINITY;
  }
  fl_ms_system_destroy(&s);
  return worst;
}

/* The same for one free spring (equal masses, no gravity, no damping),
 * relative to the initial energy. */
static double pair_energy_excursion(fl_ms_method method, fl_ms_split split, double mu, int steps)
{
  fl_ms_system s;
  if (!make_pair(&s, 100, 0, 0.1, 1, 1)) return INFINITY;
  s.v[0][1] = 0.3; /* some swing as well */
  double hc = PI_D / sqrt(100 / fl_ms_reduced_mass(&s, 0));
  fl_ms_step_params p = {.method = method, .h = mu * hc, .split = split};
  double e0 = fl_ms_energy(&s), worst = 0;
  for (int k = 0; k < steps && worst < 1e12; k++) {
    double e = fl_ms_step(&s, &p) ? fl_ms_energy(&s) : NAN;
    worst = isfinite(e) ? fmax(worst, fabs(e - e0) / e0) : INFINITY;
  }
  fl_ms_system_destroy(&s);
  return worst;
}

static void test_stability_beyond_critical_step(void)
{
  /* One spring at the paper's mu = 2.0625 and 8.0625 (Fig. 2). Undamped, the
   * momentum split (the exact two-body impulse, then x += h v) is stable while
   * theta sin(theta) <= 2 (1 + cos(theta)), theta = omega h: true at 2.0625, not at
   * 8.0625; the paper's split (half the impulse for equal masses) is stable
   * while 0 <= theta sin(theta) <= 2 (3 + cos(theta)): true at both. */
  const double pair_mu[] = {2.0625, 8.0625};
  for (int i = 0; i < 2; i++) {
    double e = pair_energy_excursion(FL_MS_E, FL_MS_SPLIT_PAPER, pair_mu[i], 5000);
    double ho = pair_energy_excursion(FL_MS_HO, FL_MS_SPLIT_PAPER, pair_mu[i], 5000);
    double hom = pair_energy_excursion(FL_MS_HO, FL_MS_SPLIT_MOMENTUM, pair_mu[i], 5000);
    fprintf(stderr, "  one spring, mu %g: relative energy excursion E %g, HO paper %g, HO momentum %g\n",
            pair_mu[i], e, ho, hom);
    ENSURE_MSG(!(e < 1e3), "E stayed bounded on one spring at mu %g (%g)", pair_mu[i], e);
    ENSURE_MSG(ho < 10.0, "HO (paper split) energy excursion %g on one spring at mu %g", ho, pair_mu[i]);
    if (i == 0) ENSURE_MSG(hom < 10.0, "HO (momentum split) energy excursion %g at mu %g", hom, pair_mu[i]);
    else ENSURE_MSG(!(hom < 1e3), "HO (momentum split) stayed bounded at mu %g (%g)", pair_mu[i], hom);
  }
  /* The cloth: HY at mu 2; HO (paper split) at mu 0.3, where E already diverges. */
  double e2 = cloth_energy_excursion(FL_MS_E, 2.0, 2000), hy = cloth_energy_excursion(FL_MS_HY, 2.0, 2000);
  double e03 = cloth_energy_excursion(FL_MS_E, 0.3, 2000), ho = cloth_energy_excursion(FL_MS_HO, 0.3, 2000);
  fprintf(stderr, "  cloth energy excursion: mu 2: E %g, HY %g; mu 0.3: E %g, HO %g\n", e2, hy, e03, ho);
  ENSURE_MSG(!(e2 < 1e3) && !(e03 < 1e3), "E stayed bounded (%g, %g)", e2, e03);
  ENSURE_MSG(hy < 100.0, "HY energy excursion %g at mu 2", hy);
  ENSURE_MSG(ho < 100.0, "HO energy excursion %g at mu 0.3", ho);
}

static void momentum_drift(fl_ms_method method, fl_ms_split split, double *drift, double *scale)
{
  fl_ms_system s;
  fl_ms_grid_desc d = grid_desc(5, 80, 0.1, 0);
  *drift = INFINITY;
  *scale = 0;
  if (!fl_ms_grid_create(&d, &s)) return;
  rng_state = 7;
  for (uint32_t k = 0; k < s.particle_count; k++) s.inv_mass[k] = 25.0 / (1.25 + 0.75 * drand_sym());
  perturb(&s, 0.02, 0.5);
  double p0[3], p1[3];
  fl_ms_momentum(&s, p0);
  for (uint32_t k = 0; k < s.particle_count; k++)
    *scale += sqrt(s.v[k][0] * s.v[k][0] + s.v[k][1] * s.v[k][1] + s.v[k][2] * s.v[k][2]) / s.inv_mass[k];
  fl_ms_step_params p = {.method = method, .h = 1e-3, .split = split};
  bool ok = true;
  for (int k = 0; k < 300 && ok; k++) ok = fl_ms_step(&s, &p);
  fl_ms_momentum(&s, p1);
  fl_ms_system_destroy(&s);
  if (ok) *drift = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) + (p1[2] - p0[2]) * (p1[2] - p0[2]));
}

static void test_momentum_of_splits(void)
{
  double drift, scale;
  momentum_drift(FL_MS_HO, FL_MS_SPLIT_MOMENTUM, &drift, &scale);
  ENSURE_MSG(drift <= 1e-12 * scale, "momentum split drift %g (scale %g)", drift, scale);
  /* IM: sum of the rows of A dv = b is sum m dv = sum b = 0, up to the CG residual. */
  momentum_drift(FL_MS_IM, FL_MS_SPLIT_MOMENTUM, &drift, &scale);
  ENSURE_MSG(drift <= 1e-8 * scale, "IM drift %g (scale %g)", drift, scale);
  momentum_drift(FL_MS_HO, FL_MS_SPLIT_PAPER, &drift, &scale);
  ENSURE_MSG(drift > 1e-3 * scale && isfinite(drift), "paper split drift %g (scale %g)", drift, scale);
}

static void test_pins_never_move(void)
{
  const fl_ms_method methods[] = {FL_MS_E, FL_MS_HO, FL_MS_JI, FL_MS_IM, FL_MS_HY};
  for (int mi = 0; mi < 5; mi++) {
    fl_ms_system s;
    fl_ms_grid_desc d = grid_desc(4, 50, 0.1, -9.81);
    ENSURE(fl_ms_grid_create(&d, &s));
    fl_ms_pin(&s, 12);
    fl_ms_pin(&s, 15);
    double x12[3], x15[3];
    memcpy(x12, s.x[12], sizeof x12);
    memcpy(x15, s.x[15], sizeof x15);
    fl_ms_step_params p = {.method = methods[mi], .h = 2e-3, .iterations = 3, .split = FL_MS_SPLIT_MOMENTUM};
    bool ok = true;
    for (int k = 0; k < 100 && ok; k++) ok = fl_ms_step(&s, &p);
    bool fixed = memcmp(x12, s.x[12], sizeof x12) == 0 && memcmp(x15, s.x[15], sizeof x15) == 0;
    bool fell = s.x[0][1] < 1.0 - 1e-3;
    fl_ms_system_destroy(&s);
    ENSURE_MSG(ok && fixed && fell, "method %d: ok %d, pins fixed %d, free particles fell %d", mi, ok, fixed, fell);
  }
  fl_ms_system s;
  ENSURE(make_pair(&s, 1, 0, 0, 1, 1));
  fl_ms_step_params bad = {.method = FL_MS_E, .h = -1};
  fl_error_clear();
  ENSURE(!fl_ms_step(&s, &bad));
  ENSURE(strstr(fl_error_message(), "step") != NULL);
  fl_error_clear();
  fl_ms_system_destroy(&s);
}

static const fl_test_case TESTS[] = {
    {"ho_impulse_matches_quadrature", test_ho_impulse_matches_quadrature},
    {"ho_pair_period", test_ho_pair_period},
    {"euler_matches_analytic", test_euler_matches_analytic},
    {"jacobian_finite_differences", test_jacobian_finite_differences},
    {"grid_layout", test_grid_layout},
    {"jacobi_approaches_cg", test_jacobi_approaches_cg},
    {"stability_beyond_critical_step", test_stability_beyond_critical_step},
    {"momentum_of_splits", test_momentum_of_splits},
    {"pins_never_move", test_pins_never_move},
};
FL_TEST_MAIN(TESTS)
