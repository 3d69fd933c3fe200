/* tests/svd_matrices.h: the seeded 3x3 matrix families that the SVD tests
 * (tests/unit/test_svd3.c on the CPU, tests/gpu/test_mpm_svd.c on the GPU)
 * feed to the snow model's SVD, header-only because each test is built alone.
 * Each including file seeds svd_rng_state. */
#pragma once
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uint32_t svd_rng_state = 0x2545f491u;

/* xorshift32, uniform in [lo, hi). */
static inline double rnd(double lo, double hi)
{
  uint32_t x = svd_rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  svd_rng_state = x;
  return lo + (hi - lo) * (double)(x >> 8) / 16777216.0;
}

/* Log-uniform in [lo, hi). */
static inline double rnd_log(double lo, double hi) { return exp(rnd(log(lo), log(hi))); }

/* A uniformly random rotation (from a random unit quaternion). */
static inline void rnd_rotation(double R[3][3])
{
  double q[4], n;
  do {
    n = 0;
    for (int i = 0; i < 4; i++) {
      q[i] = rnd(-1, 1);
      n += q[i] * q[i];
    }
  } while (n < 0.01 || n > 1);
  n = sqrt(n);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  double M[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  memcpy(R, M, sizeof M);
}

static inline double det3(double M[3][3])
{
  return M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
         M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
}

/* The families both tests draw from (the GPU test adds its own after SVD_FAMILIES). */
enum { RANDOM, SPECTRUM, ONE_SMALL, TWO_SMALL, RANK2, RANK1, ROTATION, NEAR_IDENTITY, REPEATED, INVERTED, SCALES,
       SVD_FAMILIES };
static const char *const svd_family_names[SVD_FAMILIES] = {
    "random", "random spectrum", "one small", "two small", "rank 2",  "rank 1",
    "rotation", "near identity", "repeated", "inverted", "scales"};

/* Matrix n of family f (< SVD_FAMILIES): random, I + 1e-4 noise, or A diag(s) B^T with random
 * rotations A, B, rounded to float. Returns true when want (the true singular values, by |s|
 * descending, the sign of the product on the last) is known. */
static inline bool svd_make(int f, int n, float F[3][3], double want[3])
{
  double s[3], a = rnd(0.5, 2);
  memset(F, 0, 9 * sizeof(float));
  switch (f) {
  case RANDOM:
  case NEAR_IDENTITY:
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) F[r][c] = (float)(f == RANDOM ? rnd(-1, 1) : (r == c) + rnd(-1e-4, 1e-4));
    return false;
  case SPECTRUM: s[0] = rnd(0.1, 2), s[1] = rnd(0.1, 2), s[2] = rnd(0.1, 2); break;
  case ONE_SMALL: s[0] = a, s[1] = rnd(0.5, 2), s[2] = a * rnd_log(1e-6, 1e-3); break;
  case TWO_SMALL: s[0] = a, s[1] = a * rnd_log(1e-6, 1e-3), s[2] = a * rnd_log(1e-6, 1e-3); break;
  case RANK2: s[0] = a, s[1] = rnd(0.5, 2), s[2] = 0; break;
  case RANK1: s[0] = a, s[1] = 0, s[2] = 0; break;
  case ROTATION: s[0] = s[1] = s[2] = 1; break;
  case REPEATED: {
    double b = rnd(0.5, 2);
    int k = n % 3;
    s[0] = a, s[1] = k == 1 ? b : a, s[2] = k == 2 ? a : b;
    break;
  }
  case INVERTED: s[0] = rnd(0.1, 2), s[1] = rnd(0.1, 2), s[2] = -rnd(0.1, 2); break;
  default: { /* SCALES */
    double scale = rnd_log(1e-20, 1e20);
    for (int i = 0; i < 3; i++) s[i] = scale * rnd_log(1e-3, 1e3);
    if (n % 2) s[2] = -s[2];
  }
  }
  double A[3][3], B[3][3];
  rnd_rotation(A);
  rnd_rotation(B);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      F[r][c] = (float)(A[r][0] * s[0] * B[c][0] + A[r][1] * s[1] * B[c][1] + A[r][2] * s[2] * B[c][2]);
  double m[3] = {fabs(s[0]), fabs(s[1]), fabs(s[2])}, t;
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (m[j] > m[i]) t = m[i], m[i] = m[j], m[j] = t;
  want[0] = m[0], want[1] = m[1], want[2] = (s[0] < 0) ^ (s[1] < 0) ^ (s[2] < 0) ? -m[2] : m[2];
  return true;
}
