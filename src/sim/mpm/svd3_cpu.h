/* sim/mpm/svd3_cpu: the 3x3 singular value decomposition of the snow model,
 * the CPU mirror of shaders/mpm/svd3.glsl (same algorithm, same steps), for
 * the CPU reference and tests. Matrices are row-major: F[row][col].
 *
 * F = U diag(sigma) V^T with U and V rotations (det +1); sigma[0] >= sigma[1]
 * >= |sigma[2]|, and sigma[2] < 0 exactly when det F < 0. Robust for nearly
 * singular and singular F (sigma down to 0, U still a rotation). The polar
 * decomposition F = R S follows: R = U V^T. */
#pragma once

/* Decomposes F; see above. */
void fl_svd3_cpu(const float F[3][3], float U[3][3], float sigma[3], float V[3][3]);
/* R = U V^T of F's SVD: the rotation of the polar decomposition F = R S. */
void fl_polar3_cpu(const float F[3][3], float R[3][3]);
