/* sim/mpm/svd3_cpu: the CPU mirror of shaders/mpm/svd3.glsl, step for step in
 * float (keep the two in step). The method (McAdams et al. 2011, "Computing
 * the Singular Value Decomposition of 3x3 matrices with minimal branching and
 * elementary floating point operations", UW-Madison TR1690, sections 2-4):
 *
 *  0. Scale F by 1 / max |F_ij| (no overflow or underflow in the squares;
 *     max |F_ij| < 1e-30 counts as the zero matrix: U = V = I, sigma = 0).
 *  1. V: the eigenvectors of F^T F by SVD3_SWEEPS cyclic Jacobi sweeps over
 *     the pairs (0,1), (0,2), (1,2) with exact Givens angles, done one-sided
 *     (Hestenes 1958): the sweeps rotate the columns of B = F V, and each
 *     rotation recomputes the 2x2 block of B^T B from the current columns.
 *     Same rotations as Jacobi on F^T F, but F^T F is never formed and then
 *     reused, so small singular values keep their relative accuracy (the
 *     formed F^T F loses sqrt(eps) on nearly singular F).
 *  2. Sort the columns of B (and V) by decreasing norm; each swap negates one
 *     column so V stays a rotation (McAdams section 3).
 *  3. U and sigma from the QR decomposition B = U R by three Givens rotations
 *     (McAdams section 4): U is a product of rotations, so it stays a
 *     rotation even when columns of B vanish (singular F); sigma = diag R,
 *     with sigma.x, sigma.y >= 0 by construction and the sign of det F in
 *     sigma.z; clamps make the order exact (they move sigma only by
 *     rounding, or by < 1e-30 |F| where a Givens rotation was skipped).
 * SVD3_SWEEPS = 4: reconstruction error <= ~1.5e-6 |F| on every family of
 * tests/unit/test_svd3.c (3 sweeps: up to 2e-5). */
#include "sim/mpm/svd3_cpu.h"

#include <math.h>
#include <stdbool.h>

#define SVD3_SWEEPS 4
/* F with max |F_ij| below this counts as the zero matrix. */
#define SVD3_ZERO 1e-30f
/* After scaling to max |F_ij| = 1: the least Jacobi denominator; a QR Givens rotation below this is the identity. */
#define SVD3_TINY 1e-30f

/* Columns: c[j][i] is row i of column j, as GLSL's mat3 (M[col][row]). */
typedef float col3[3];

static float dot3(const col3 a, const col3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* (a, b) <- (c a - s b, s a + c b). */
static void rotate_cols(col3 a, col3 b, float c, float s)
{
  for (int i = 0; i < 3; i++) {
    float x = a[i], y = b[i];
    a[i] = c * x - s * y;
    b[i] = s * x + c * y;
  }
}

/* One Jacobi rotation of columns p, q of B (and of V) making them orthogonal. */
static void jacobi_pair(col3 bp, col3 bq, col3 vp, col3 vq)
{
  float alpha = dot3(bp, bp), beta = dot3(bq, bq), gamma = dot3(bp, bq);
  float d = beta - alpha;
  float den = fabsf(d) + sqrtf(d * d + 4.0f * gamma * gamma);
  /* t = tan(theta), the smaller root of t^2 + 2 zeta t - 1 = 0, zeta = d / (2 gamma);
   * den >= 2 |gamma|, so |t| <= 1, and den = 0 (then gamma = 0) gives t = 0. */
  float t = 2.0f * gamma * (d < 0.0f ? -1.0f : 1.0f) / fmaxf(den, SVD3_TINY);
  float c = 1.0f / sqrtf(1.0f + t * t), s = t * c;
  rotate_cols(bp, bq, c, s);
  rotate_cols(vp, vq, c, s);
}

/* Swaps columns p, q of B and V when |b_p| < |b_q|, negating the new q column (det V stays +1). */
static void sort_pair(col3 bp, col3 bq, col3 vp, col3 vq)
{
  bool swap = dot3(bp, bp) < dot3(bq, bq);
  for (int i = 0; i < 3; i++) {
    float b0 = bp[i], v0 = vp[i];
    bp[i] = swap ? bq[i] : b0;
    bq[i] = swap ? -b0 : bq[i];
    vp[i] = swap ? vq[i] : v0;
    vq[i] = swap ? -v0 : vq[i];
  }
}

/* A Givens rotation on rows i, k of B zeroing B[k][col] against B[i][col]:
 * row_i <- c row_i + s row_k, row_k <- c row_k - s row_i; U <- U G^T. */
static void qr_givens(col3 b[3], col3 u[3], int i, int k, int col)
{
  float x = b[col][i], y = b[col][k];
  float rho = sqrtf(x * x + y * y);
  bool ok = rho > SVD3_TINY;
  float r = fmaxf(rho, SVD3_TINY), c = ok ? x / r : 1.0f, s = ok ? y / r : 0.0f;
  for (int j = col; j < 3; j++) { /* columns before col are done */
    float bi = b[j][i], bk = b[j][k];
    b[j][i] = c * bi + s * bk;
    b[j][k] = c * bk - s * bi;
  }
  rotate_cols(u[i], u[k], c, -s);
}

void fl_svd3_cpu(const float F[3][3], float U[3][3], float sigma[3], float V[3][3])
{
  float m = 0.0f;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) m = fmaxf(m, fabsf(F[r][c]));
  float inv = m >= SVD3_ZERO ? 1.0f / fmaxf(m, SVD3_ZERO) : 0.0f; /* below SVD3_ZERO: the zero matrix */
  col3 b[3], v[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, u[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) b[c][r] = F[r][c] * inv;
  for (int sweep = 0; sweep < SVD3_SWEEPS; sweep++) {
    jacobi_pair(b[0], b[1], v[0], v[1]);
    jacobi_pair(b[0], b[2], v[0], v[2]);
    jacobi_pair(b[1], b[2], v[1], v[2]);
  }
  sort_pair(b[0], b[1], v[0], v[1]);
  sort_pair(b[0], b[2], v[0], v[2]);
  sort_pair(b[1], b[2], v[1], v[2]);
  qr_givens(b, u, 0, 1, 0);
  qr_givens(b, u, 0, 2, 0);
  qr_givens(b, u, 1, 2, 1);
  float s0 = fmaxf(b[0][0], 0.0f), s1 = fminf(fmaxf(b[1][1], 0.0f), s0), s2 = fminf(fmaxf(b[2][2], -s1), s1);
  sigma[0] = s0 * m;
  sigma[1] = s1 * m;
  sigma[2] = s2 * m;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      U[r][c] = u[c][r];
      V[r][c] = v[c][r];
    }
}

void fl_polar3_cpu(const float F[3][3], float R[3][3])
{
  float U[3][3], s[3], V[3][3];
  fl_svd3_cpu(F, U, s, V);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) R[r][c] = U[r][0] * V[c][0] + U[r][1] * V[c][1] + U[r][2] * V[c][2];
}
