/* tests/unit/test_svd3: the 3x3 SVD of the snow model (sim/mpm/svd3_cpu.c,
 * the CPU mirror of shaders/mpm/svd3.glsl; McAdams et al. 2011) on seeded
 * families of matrices, each case checked in double against:
 *   reconstruction  |U diag(s) V^T - F|_F / |F|_F < 1e-5
 *   rotations       |U^T U - I|_F, |V^T V - I|_F < 1e-5; |det U - 1|, |det V - 1| < 1e-5
 *   order, sign     s0 >= s1 >= |s2| exactly; s2 < 0 when det F < -1e-4 |F|^3,
 *                   s2 >= 0 when det F > 1e-4 |F|^3
 *   known sigma     |s - s_true| < 1e-5 s0_true where F was built from s_true
 * Families: uniform random; U0 diag(s) V0^T with random s; one and two
 * singular values 1e-6..1e-3 of the largest; rank 2 and rank 1 (rotated, and
 * exact integer ones); rotations; I + 1e-4 noise; repeated singular values;
 * inverted (det < 0); |F| from 1e-20 to 1e20 with s spread 1e-3..1e3; signed
 * diagonals and permutations; the zero matrix (U = V = I, s = 0 exactly).
 * Polar: R = U V^T is a rotation, R^T F is symmetric (positive semi-definite
 * when det F > 0), R recovers R0 of F = R0 S0, and no rotation Q near R or
 * random gives a larger trace(Q^T F) (the Kabsch / Procrustes maximum). The
 * largest errors per family are printed. */
#include "test.h"

#include "sim/mpm/svd3_cpu.h"
#include "svd_matrices.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* float[3][3] -> const float (*)[3] (an implicit conversion only from C23). */
#define CONST3(m) ((const float(*)[3])(m))

static void to_double(float M[3][3], double D[3][3])
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) D[r][c] = M[r][c];
}

typedef struct {
  double recon, orth, det, sigma;
} errors;

/* Decomposes F and checks everything above; `want` (or NULL): the true signed
 * singular values in order. Updates the maxima in e; false (after printing) on a failure. */
static bool check_svd(float F[3][3], const double *want, errors *e)
{
  float U[3][3], s[3], V[3][3];
  fl_svd3_cpu(CONST3(F), U, s, V);
  double f[3][3], u[3][3], v[3][3], err = 0, norm = 0;
  to_double(F, f);
  to_double(U, u);
  to_double(V, v);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double x = u[r][0] * s[0] * v[c][0] + u[r][1] * s[1] * v[c][1] + u[r][2] * s[2] * v[c][2] - f[r][c];
      err += x * x;
      norm += f[r][c] * f[r][c];
    }
  norm = sqrt(norm);
  double recon = sqrt(err) / fmax(norm, 1e-30), orth = 0, det = 0, serr = 0;
  for (int w = 0; w < 2; w++) {
    double (*M)[3] = w ? v : u, o = 0;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double x = M[0][a] * M[0][b] + M[1][a] * M[1][b] + M[2][a] * M[2][b] - (a == b);
        o += x * x;
      }
    orth = fmax(orth, sqrt(o));
    det = fmax(det, fabs(det3(M) - 1));
  }
  if (want)
    for (int i = 0; i < 3; i++) serr = fmax(serr, fabs(s[i] - want[i]) / fmax(fabs(want[0]), 1e-30));
  e->recon = fmax(e->recon, recon);
  e->orth = fmax(e->orth, orth);
  e->det = fmax(e->det, det);
  e->sigma = fmax(e->sigma, serr);
  double dF = det3(f), big = 1e-4 * norm * norm * norm;
  bool order = s[0] >= s[1] && s[1] >= fabsf(s[2]);
  bool sign = !(dF < -big && !(s[2] < 0)) && !(dF > big && s[2] < 0);
  if (recon < 1e-5 && orth < 1e-5 && det < 1e-5 && serr < 1e-5 && order && sign) return true;
  fprintf(stderr, "  F = [%.9g %.9g %.9g; %.9g %.9g %.9g; %.9g %.9g %.9g]: s = %.9g %.9g %.9g, reconstruction %.3g,"
          " orthonormality %.3g, det %.3g, sigma %.3g, order %d, sign %d (det F %.3g)\n",
          F[0][0], F[0][1], F[0][2], F[1][0], F[1][1], F[1][2], F[2][0], F[2][1], F[2][2], s[0], s[1], s[2], recon,
          orth, det, serr, order, sign, dF);
  return false;
}

static void test_families(void)
{
  int failed = 0;
  for (int f = 0; f < SVD_FAMILIES; f++) {
    errors e = {0};
    for (int n = 0; n < 20000; n++) {
      float F[3][3];
      double want[3];
      bool known = svd_make(f, n, F, want);
      if (!check_svd(F, known ? want : NULL, &e) && ++failed > 10) break;
    }
    fprintf(stderr, "  %-16s max reconstruction %.2e, orthonormality %.2e, |det - 1| %.2e, sigma %.2e\n",
            svd_family_names[f], e.recon, e.orth, e.det, e.sigma);
  }
  ENSURE_MSG(failed == 0, "%d matrices failed", failed);
}

static void test_exact_and_special(void)
{
  errors e = {0};
  float zero[3][3] = {{0}}, tiny[3][3] = {{1e-35f, 0, 0}, {0, -1e-36f, 0}, {0, 0, 0}};
  for (int k = 0; k < 2; k++) {
    float U[3][3], s[3], V[3][3];
    fl_svd3_cpu(CONST3(k ? tiny : zero), U, s, V);
    for (int r = 0; r < 3; r++) {
      ENSURE(s[r] == 0.0f);
      for (int c = 0; c < 3; c++) ENSURE(U[r][c] == (r == c) && V[r][c] == (r == c));
    }
  }
  /* Signed diagonals (every sign pattern, with repeats) and signed permutations. */
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  static const float mags[4][3] = {{3, 2, 1}, {1, 1, 1}, {2, 2, 0}, {0, 0, 5}};
  for (int p = 0; p < 6; p++)
    for (int mg = 0; mg < 4; mg++)
      for (int signs = 0; signs < 8; signs++) {
        float F[3][3] = {{0}};
        for (int i = 0; i < 3; i++) F[i][perms[p][i]] = (signs >> i & 1 ? -1.0f : 1.0f) * mags[mg][i];
        ENSURE(check_svd(F, NULL, &e));
      }
  /* Exact integer rank 1 (u v^T) and rank 2 (third row = a r0 + b r1). */
  for (int n = 0; n < 2000; n++) {
    float F[3][3], U[3][3], s[3], V[3][3];
    int a = (int)rnd(-3, 4), b = (int)rnd(-3, 4);
    for (int c = 0; c < 3; c++) {
      F[0][c] = (float)(int)rnd(-9, 10);
      F[1][c] = n % 2 ? (float)b * F[0][c] : (float)(int)rnd(-9, 10); /* odd n: rank 1 */
      F[2][c] = (float)a * F[0][c] + (float)b * F[1][c];
    }
    ENSURE(check_svd(F, NULL, &e));
    fl_svd3_cpu(CONST3(F), U, s, V);
    ENSURE_MSG(fabsf(s[2]) <= 1e-6f * s[0], "s = %g %g %g", s[0], s[1], s[2]);
    if (n % 2) ENSURE_MSG(s[1] <= 1e-6f * s[0], "s = %g %g %g", s[0], s[1], s[2]);
  }
  fprintf(stderr, "  %-16s max reconstruction %.2e, orthonormality %.2e, |det - 1| %.2e\n", "exact", e.recon,
          e.orth, e.det);
}

/* trace(Q^T F) in double. */
static double trace_qtf(double Q[3][3], float F[3][3])
{
  double t = 0;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) t += Q[r][c] * F[r][c];
  return t;
}

static void test_polar(void)
{
  double worst_r0 = 0, worst_sym = 0;
  for (int n = 0; n < 2000; n++) {
    /* F = R0 S0, S0 symmetric positive definite (eigenvalues 0.2..2), or with one negative (inverted). */
    double R0[3][3], Q[3][3], S0[3][3], l[3] = {rnd(0.2, 2), rnd(0.2, 2), rnd(0.2, 2)};
    bool inverted = n % 4 == 3;
    if (inverted) l[(int)rnd(0, 3)] = -0.1; /* the smallest |l|, so R0 stays the polar rotation */
    rnd_rotation(R0);
    rnd_rotation(Q);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) S0[r][c] = Q[r][0] * l[0] * Q[c][0] + Q[r][1] * l[1] * Q[c][1] + Q[r][2] * l[2] * Q[c][2];
    float F[3][3], R[3][3];
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) F[r][c] = (float)(R0[r][0] * S0[0][c] + R0[r][1] * S0[1][c] + R0[r][2] * S0[2][c]);
    fl_polar3_cpu(CONST3(F), R);
    double rd[3][3], A[3][3], dr = 0, orth = 0, sym = 0, fn = 0;
    to_double(R, rd);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        A[r][c] = rd[0][r] * F[0][c] + rd[1][r] * F[1][c] + rd[2][r] * F[2][c]; /* R^T F */
        double x = rd[0][r] * rd[0][c] + rd[1][r] * rd[1][c] + rd[2][r] * rd[2][c] - (r == c);
        orth += x * x;
        dr = fmax(dr, fabs(rd[r][c] - R0[r][c]));
        fn += (double)F[r][c] * F[r][c];
      }
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) sym = fmax(sym, fabs(A[r][c] - A[c][r]) / sqrt(fn));
    worst_r0 = fmax(worst_r0, dr);
    worst_sym = fmax(worst_sym, sym);
    ENSURE_MSG(sqrt(orth) < 1e-5 && fabs(det3(rd) - 1) < 1e-5, "R not a rotation (%g)", sqrt(orth));
    ENSURE_MSG(dr < 1e-5 && sym < 1e-5, "R - R0 %g, asymmetry of R^T F %g", dr, sym);
    for (int k = 0; k < 50 && !inverted; k++) { /* x^T R^T F x >= 0 */
      double x[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)}, q = 0;
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) q += x[r] * A[r][c] * x[c];
      ENSURE_MSG(q >= -1e-6 * sqrt(fn), "x^T R^T F x = %g", q);
    }
    /* Kabsch: R maximizes trace(Q^T F) over rotations (random ones, and R turned by 1e-2 rad). */
    double best = trace_qtf(rd, F);
    for (int k = 0; k < 20; k++) {
      double T[3][3], QR[3][3], ax[3], th = k < 10 ? 1e-2 : 0;
      rnd_rotation(T);
      if (th > 0) { /* a small rotation about a random axis (Rodrigues) */
        double len = 0;
        for (int i = 0; i < 3; i++) {
          ax[i] = rnd(-1, 1);
          len += ax[i] * ax[i];
        }
        len = sqrt(len);
        for (int i = 0; i < 3; i++) ax[i] /= len;
        double K[3][3] = {{0, -ax[2], ax[1]}, {ax[2], 0, -ax[0]}, {-ax[1], ax[0], 0}};
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++)
            T[r][c] = (r == c) + sin(th) * K[r][c] +
                      (1 - cos(th)) * (K[r][0] * K[0][c] + K[r][1] * K[1][c] + K[r][2] * K[2][c]);
      }
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) QR[r][c] = T[r][0] * rd[0][c] + T[r][1] * rd[1][c] + T[r][2] * rd[2][c];
      ENSURE_MSG(trace_qtf(QR, F) <= best + 1e-6 * sqrt(fn), "trace %g > %g", trace_qtf(QR, F), best);
    }
  }
  fprintf(stderr, "  polar: max |R - R0| %.2e, max asymmetry of R^T F %.2e\n", worst_r0, worst_sym);
}

static const fl_test_case cases[] = {
    {"families", test_families},
    {"exact_and_special", test_exact_and_special},
    {"polar", test_polar},
};
FL_TEST_MAIN(cases)
