// mpm/svd3.glsl: the robust 3x3 SVD of the snow kernels (G2P: F~ = U S V^T,
// Stomakhin et al. 2013; src/sim/mpm/snow_spec.h) and the polar rotation
// R = U V^T. F = U diag(sigma) V^T with U, V rotations (det +1),
// sigma.x >= sigma.y >= |sigma.z|, sigma.z < 0 exactly when det F < 0 (up to
// rounding: a singular F may give sigma.z = -1e-7 |F|).
// The CPU mirror, step for step: src/sim/mpm/svd3_cpu.c (keep them in step).
//
// Method (McAdams, Selle, Tamstorf, Teran, Sifakis 2011, "Computing the
// Singular Value Decomposition of 3x3 matrices with minimal branching and
// elementary floating point operations", UW-Madison TR1690, sections 2-4),
// float only, a fixed number of steps, no dynamic indexing:
//  0. Scale F by 1 / max |F_ij| (no overflow or underflow in the squares;
//     max |F_ij| < 1e-30 counts as the zero matrix: U = V = I, sigma = 0).
//  1. V: the eigenvectors of F^T F by FL_SVD3_SWEEPS cyclic Jacobi sweeps over
//     the pairs (0,1), (0,2), (1,2) with exact Givens angles, done one-sided
//     (Hestenes 1958): rotate the columns of B = F V, recomputing the 2x2
//     block of B^T B from the current columns at each rotation. The rotations
//     are those of Jacobi on F^T F, but a formed F^T F loses sqrt(eps) on
//     nearly singular F (reconstruction errors near 2e-4 measured with two
//     singular values ~1e-3 |F|); one-sided keeps them near 1e-6.
//  2. Sort the columns of B (and V) by decreasing norm; each swap negates one
//     column so V stays a rotation (McAdams section 3).
//  3. U and sigma from the QR decomposition B = U R by three Givens rotations
//     (McAdams section 4): U stays a rotation even when columns of B vanish;
//     sigma = diag R (x, y >= 0 by construction; z carries the sign of det F),
//     then clamps make the order exact (they move sigma only by rounding, or
//     by < 1e-30 |F| where a Givens rotation was skipped).
// 4 sweeps: reconstruction error <= ~1.5e-6 |F| on every tested family (3
// sweeps: up to 2e-5). See tests/unit/test_svd3.c, tests/gpu/test_mpm_svd.c.
#ifndef FL_SVD3_GLSL
#define FL_SVD3_GLSL

#define FL_SVD3_SWEEPS 4
#define FL_SVD3_ZERO 1e-30 // max |F_ij| below this: the zero matrix
#define FL_SVD3_TINY 1e-30 // after scaling: the least Jacobi denominator; a QR Givens rotation below this is the identity

// (a, b) <- (c a - s b, s a + c b).
void fl_svd3_rotate(inout vec3 a, inout vec3 b, float c, float s)
{
  vec3 x = a;
  a = c * x - s * b;
  b = s * x + c * b;
}

// One Jacobi rotation of columns p, q of B (and V) making them orthogonal.
void fl_svd3_jacobi_pair(inout vec3 bp, inout vec3 bq, inout vec3 vp, inout vec3 vq)
{
  float alpha = dot(bp, bp), beta = dot(bq, bq), gamma = dot(bp, bq);
  float d = beta - alpha;
  float den = abs(d) + sqrt(d * d + 4.0 * gamma * gamma);
  // t = tan(theta), the smaller root of t^2 + 2 zeta t - 1 = 0, zeta = d / (2 gamma).
  // den >= 2 |gamma|, so |t| <= 1 and den = 0 (then gamma = 0) gives t = 0, without a branch.
  float t = 2.0 * gamma * (d < 0.0 ? -1.0 : 1.0) / max(den, FL_SVD3_TINY);
  float c = 1.0 / sqrt(1.0 + t * t), s = t * c;
  fl_svd3_rotate(bp, bq, c, s);
  fl_svd3_rotate(vp, vq, c, s);
}

// Swaps columns p, q of B and V when |b_p| < |b_q|, negating the new q column (det V stays +1).
void fl_svd3_sort_pair(inout vec3 bp, inout vec3 bq, inout vec3 vp, inout vec3 vq)
{
  bvec3 swap = bvec3(dot(bp, bp) < dot(bq, bq));
  vec3 b0 = bp, v0 = vp;
  bp = mix(b0, bq, swap);
  bq = mix(bq, -b0, swap);
  vp = mix(v0, vq, swap);
  vq = mix(vq, -v0, swap);
}

// (c, s) of the Givens rotation taking (x, y) to (rho, 0); the identity when rho is tiny.
vec2 fl_svd3_givens(float x, float y)
{
  float rho = sqrt(x * x + y * y);
  return mix(vec2(1.0, 0.0), vec2(x, y) / max(rho, FL_SVD3_TINY), bvec2(rho > FL_SVD3_TINY));
}

// Rows (i, k) of one column: (r_i, r_k) <- (c r_i + s r_k, c r_k - s r_i).
void fl_svd3_rotate_rows(inout vec2 r, vec2 cs)
{
  r = vec2(cs.x * r.x + cs.y * r.y, cs.x * r.y - cs.y * r.x);
}

// F = U diag(sigma) V^T; see the top of this file. mat3 is column-major: F[col][row].
void fl_svd3(mat3 F, out mat3 U, out vec3 sigma, out mat3 V)
{
  vec3 a = max(max(abs(F[0]), abs(F[1])), abs(F[2]));
  float m = max(max(a.x, a.y), a.z);
  mat3 B = F * mix(0.0, 1.0 / max(m, FL_SVD3_ZERO), m >= FL_SVD3_ZERO);
  V = mat3(1.0);
  U = mat3(1.0);
  for (int sweep = 0; sweep < FL_SVD3_SWEEPS; sweep++) {
    fl_svd3_jacobi_pair(B[0], B[1], V[0], V[1]);
    fl_svd3_jacobi_pair(B[0], B[2], V[0], V[2]);
    fl_svd3_jacobi_pair(B[1], B[2], V[1], V[2]);
  }
  fl_svd3_sort_pair(B[0], B[1], V[0], V[1]);
  fl_svd3_sort_pair(B[0], B[2], V[0], V[2]);
  fl_svd3_sort_pair(B[1], B[2], V[1], V[2]);
  // QR: zero B(1,0), B(2,0), B(2,1); U <- U G^T after each.
  vec2 cs = fl_svd3_givens(B[0].x, B[0].y);
  fl_svd3_rotate_rows(B[0].xy, cs);
  fl_svd3_rotate_rows(B[1].xy, cs);
  fl_svd3_rotate_rows(B[2].xy, cs);
  fl_svd3_rotate(U[0], U[1], cs.x, -cs.y);
  cs = fl_svd3_givens(B[0].x, B[0].z);
  fl_svd3_rotate_rows(B[0].xz, cs);
  fl_svd3_rotate_rows(B[1].xz, cs);
  fl_svd3_rotate_rows(B[2].xz, cs);
  fl_svd3_rotate(U[0], U[2], cs.x, -cs.y);
  cs = fl_svd3_givens(B[1].y, B[1].z);
  fl_svd3_rotate_rows(B[1].yz, cs);
  fl_svd3_rotate_rows(B[2].yz, cs);
  fl_svd3_rotate(U[1], U[2], cs.x, -cs.y);
  float s0 = max(B[0].x, 0.0), s1 = clamp(B[1].y, 0.0, s0), s2 = clamp(B[2].z, -s1, s1);
  sigma = vec3(s0, s1, s2) * m;
}

// R = U V^T of F's SVD: the rotation of the polar decomposition F = R S.
mat3 fl_polar3(mat3 F)
{
  mat3 U, V;
  vec3 sigma;
  fl_svd3(F, U, sigma, V);
  return U * transpose(V);
}

#endif
