/* tests/gpu/test_mpm_svd.c: the snow kernels' 3x3 SVD (shaders/mpm/svd3.glsl,
 * through the test kernel mpm/svd_test.comp) against its CPU mirror
 * (sim/mpm/svd3_cpu.c), on a validated device. 4800 seeded matrices in 12
 * families (uniform random; random spectrum; one and two singular values
 * 1e-6..1e-3 of the largest; rank 2 and rank 1; rotations; I + 1e-4 noise;
 * repeated singular values; inverted; |F| from 1e-20 to 1e20; exact integer
 * rank-deficient matrices, signed permutations and the zero matrix), each
 * checked in double:
 *   reconstruction  |U diag(s) V^T - F|_F / |F|_F < 1e-4 (the bound)
 *   rotations       |U^T U - I|_F, |V^T V - I|_F, |det - 1| < 1e-4 for U and V
 *   order, sign     s0 >= s1 >= |s2|; s2 < 0 when det F < -1e-4 |F|^3, >= 0
 *                   when det F > 1e-4 |F|^3; the zero matrix: U = V = I, s = 0
 *   versus CPU      |s_gpu - s_cpu| < 1e-4 |F|_F per entry (and < 1e-4 s0 of
 *                   the true values where F was built from them)
 *   polar           fl_polar3 (counts.y = 1) == U V^T of the same run (1e-5)
 *                   and a rotation.
 * The largest errors per family are printed. */
#include "gpu_fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "flurry_shared.h"
#include "sim/mpm/svd3_cpu.h"
#include "svd_matrices.h"

#define PER_FAMILY 400

enum { EXACT = SVD_FAMILIES, FAMILIES }; /* exact integer rank-deficient matrices, signed permutations, zero */

/* The name of family f. */
static const char *family_name(int f) { return f == EXACT ? "exact" : svd_family_names[f]; }

/* Matrix n of family f; returns true when want (the true signed, ordered singular values) is known. */
static bool make(int f, int n, float F[3][3], double want[3])
{
  if (f != EXACT) return svd_make(f, n, F, want);
  memset(F, 0, 9 * sizeof(float));
  if (n == 0) return false; /* the zero matrix */
  if (n < 200) {            /* signed permutations of (3,2,1), (1,1,1), (2,2,0), (0,0,5) */
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const float mags[4][3] = {{3, 2, 1}, {1, 1, 1}, {2, 2, 0}, {0, 0, 5}};
    for (int i = 0; i < 3; i++) F[i][perms[n % 6][i]] = (n >> (3 + i) & 1 ? -1.0f : 1.0f) * mags[n / 6 % 4][i];
    return false;
  }
  int ka = (int)rnd(-3, 4), kb = (int)rnd(-3, 4); /* integer rank 2 (third row = a r0 + b r1), or rank 1 for odd n */
  for (int c = 0; c < 3; c++) {
    F[0][c] = (float)(int)rnd(-9, 10);
    F[1][c] = n % 2 ? (float)kb * F[0][c] : (float)(int)rnd(-9, 10);
    F[2][c] = (float)ka * F[0][c] + (float)kb * F[1][c];
  }
  (void)want;
  return false;
}

typedef struct {
  double recon, orth, det, cpu, want, polar;
} errors;

/* Checks one GPU result (o: 7 vec4 rows, p: the polar run's 7 rows) against F, the CPU and want. */
static bool check(float F[3][3], const float *o, const float *p, const double *want, errors *e)
{
  double f[3][3], u[3][3], v[3][3], rr[3][3], s[3] = {o[12], o[13], o[14]}, err = 0, norm = 0;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      f[r][c] = F[r][c];
      u[r][c] = o[4 * r + c];
      v[r][c] = o[16 + 4 * r + c];
      rr[r][c] = p[4 * r + c];
    }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double x = u[r][0] * s[0] * v[c][0] + u[r][1] * s[1] * v[c][1] + u[r][2] * s[2] * v[c][2] - f[r][c];
      err += x * x;
      norm += f[r][c] * f[r][c];
    }
  norm = sqrt(norm);
  double recon = sqrt(err) / fmax(norm, 1e-30), orth = 0, det = 0, polar = 0, dcpu = 0, dwant = 0;
  for (int w = 0; w < 3; w++) {
    double (*M)[3] = w == 0 ? u : w == 1 ? v : rr, o2 = 0;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double x = M[0][a] * M[0][b] + M[1][a] * M[1][b] + M[2][a] * M[2][b] - (a == b);
        o2 += x * x;
      }
    orth = fmax(orth, sqrt(o2));
    det = fmax(det, fabs(det3(M) - 1));
  }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      polar = fmax(polar, fabs(rr[r][c] - (u[r][0] * v[c][0] + u[r][1] * v[c][1] + u[r][2] * v[c][2])));
  float cu[3][3], cs[3], cv[3][3];
  fl_svd3_cpu((const float(*)[3])F, cu, cs, cv);
  for (int i = 0; i < 3; i++) {
    dcpu = fmax(dcpu, fabs(s[i] - cs[i]) / fmax(norm, 1e-30));
    if (want) dwant = fmax(dwant, fabs(s[i] - want[i]) / fmax(want[0], 1e-30));
  }
  e->recon = fmax(e->recon, recon), e->orth = fmax(e->orth, orth), e->det = fmax(e->det, det);
  e->cpu = fmax(e->cpu, dcpu), e->want = fmax(e->want, dwant), e->polar = fmax(e->polar, polar);
  double dF = det3(f), big = 1e-4 * norm * norm * norm;
  bool order = s[0] >= s[1] && s[1] >= fabs(s[2]);
  bool sign = !(dF < -big && !(s[2] < 0)) && !(dF > big && s[2] < 0);
  bool zero_ok = true;
  if (norm == 0)
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) zero_ok = zero_ok && s[r] == 0 && u[r][c] == (r == c) && v[r][c] == (r == c);
  if (recon < 1e-4 && orth < 1e-4 && det < 1e-4 && dcpu < 1e-4 && dwant < 1e-4 && polar < 1e-5 && order && sign &&
      zero_ok)
    return true;
  fprintf(stderr, "  F = [%.9g %.9g %.9g; %.9g %.9g %.9g; %.9g %.9g %.9g]: s = %.9g %.9g %.9g (CPU %.9g %.9g %.9g),"
          " reconstruction %.3g, orthonormality %.3g, det %.3g, polar %.3g, order %d, sign %d, zero %d\n",
          F[0][0], F[0][1], F[0][2], F[1][0], F[1][1], F[1][2], F[2][0], F[2][1], F[2][2], s[0], s[1], s[2], cs[0],
          cs[1], cs[2], recon, orth, det, polar, order, sign, zero_ok);
  return false;
}

/* Runs svd_test.comp over `count` matrices with counts.y = `polar`, reading 7 vec4 per matrix into out. */
static bool run(fl_gpu *gpu, const fl_buffer *in_buf, const fl_buffer *out_buf, uint32_t count, uint32_t polar,
                float *out)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(gpu, &once)) return false;
  fl_count_push push = {.count = count, .mode = polar};
  fl_rec_pass(&once.rec, &(fl_pass){.kernel = "mpm/svd_test", FL_PUSH(push), .threads = count,
                                    FL_BUFFERS(in_buf, out_buf)});
  return fl_fixture_once_end(&once) && fl_buffer_readback(gpu, out_buf, 0, out, (VkDeviceSize)count * 7 * 16);
}

static void svd_body(fl_gpu *gpu)
{
  svd_rng_state = 0x6a09e667u; /* this test's own sequence */
  const uint32_t count = FAMILIES * PER_FAMILY;
  float *in = calloc((size_t)count * 12, sizeof(float)), *out = malloc((size_t)count * 28 * sizeof(float)),
        *pol = malloc((size_t)count * 28 * sizeof(float));
  double *want = malloc((size_t)count * 3 * sizeof(double));
  bool *known = malloc(count * sizeof(bool));
  ENSURE(in && out && pol && want && known);
  for (uint32_t i = 0; i < count; i++) {
    float F[3][3];
    known[i] = make((int)(i / PER_FAMILY), (int)(i % PER_FAMILY), F, &want[3 * i]);
    for (int r = 0; r < 3; r++) memcpy(&in[12 * i + 4 * r], F[r], sizeof F[r]);
  }
  fl_buffer in_buf = {0}, out_buf = {0};
  bool ok = fl_fixture_buffer_with(gpu, (VkDeviceSize)count * 48, in, "svd test matrices", &in_buf) &&
            fl_fixture_buffer_with(gpu, (VkDeviceSize)count * 112, NULL, "svd test results", &out_buf) &&
            run(gpu, &in_buf, &out_buf, count, 0, out) && run(gpu, &in_buf, &out_buf, count, 1, pol);
  uint32_t bad = 0;
  for (int f = 0; ok && f < FAMILIES; f++) {
    errors e = {0};
    for (uint32_t i = (uint32_t)f * PER_FAMILY; i < (uint32_t)(f + 1) * PER_FAMILY; i++) {
      float F[3][3];
      for (int r = 0; r < 3; r++) memcpy(F[r], &in[12 * i + 4 * r], sizeof F[r]);
      if (!check(F, &out[28 * i], &pol[28 * i], known[i] ? &want[3 * i] : NULL, &e) && ++bad > 10) break;
    }
    fprintf(stderr, "  %-16s max reconstruction %.2e, orthonormality %.2e, |det - 1| %.2e, |s - s_cpu| %.2e,"
            " |s - s_true| %.2e, polar %.2e\n", family_name(f), e.recon, e.orth, e.det, e.cpu, e.want, e.polar);
  }
  fl_buffer_destroy(gpu, &in_buf);
  fl_buffer_destroy(gpu, &out_buf);
  free(in), free(out), free(pol), free(want), free(known);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE_MSG(bad == 0, "%u of %u matrices failed", bad, count);
}
FL_GPU_TEST(test_svd_matches_cpu, svd_body)

static const fl_test_case cases[] = {
    {"svd_matches_cpu", test_svd_matches_cpu},
};
FL_TEST_MAIN(cases)
