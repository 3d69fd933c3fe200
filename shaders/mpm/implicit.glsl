// mpm/implicit.glsl: what the kernels of the semi-implicit velocity solve
// share (Stomakhin et al. 2013 step 6; src/sim/mpm/snow_implicit.h states it):
// the per-particle data layout and the differential of the hardened
// fixed-corotated first Piola-Kirchhoff stress
//   P(F) = 2 mu (F - R) + lambda (J - 1) J F^-T,
//   dP = 2 mu (dF - dR) + lambda ((C : dF) C + (J - 1) dC),   C = J F^-T = cof F,
// with dR = R [w]x, (tr(S) I - S) w = axial(R^T dF - dF^T R), F = R S
// (the differential of the polar rotation: Stomakhin et al. 2013's technical report,
// "Material point method for snow simulation", the dR derivation; Sifakis and Barbic
// 2012, "FEM simulation of 3D deformable solids", SIGGRAPH course notes, the
// corotated force differential), and dC column by column from
// C = [f1 x f2, f2 x f0, f0 x f1] (f_k the columns of F).
// CPU mirror (double): src/sim/mpm/snow_implicit_cpu.c.
#ifndef FL_MPM_IMPLICIT_GLSL
#define FL_MPM_IMPLICIT_GLSL

// Per-particle data written by mpm/implicit_prepare.comp (FL_SNOW_CR_PARTICLE_VEC4S vec4s):
//   pd[5p + r], r < 3: (row r of R, M_rr)     M = (tr(S) I - S)^-1 (symmetric)
//   pd[5p + 3]: (M_01, M_02, M_12, 0)
//   pd[5p + 4]: (2 V0 mu, V0 lambda, 1 for an APIC particle else 0, 0)   (hardened mu, lambda)

// [w]x: the cross-product matrix, [w]x v = w x v.
mat3 fl_cross_matrix(vec3 w)
{
  return mat3(0.0, w.z, -w.y, -w.z, 0.0, w.x, w.y, -w.x, 0.0);  // columns
}

// The cofactor matrix J F^-T of F (columns f1 x f2, f2 x f0, f0 x f1).
mat3 fl_cofactor(mat3 F)
{
  return mat3(cross(F[1], F[2]), cross(F[2], F[0]), cross(F[0], F[1]));
}

// V0 dP(F)[dF] for the particle data above (R, M, 2 V0 mu, V0 lambda).
mat3 fl_snow_stress_differential(mat3 F, mat3 R, mat3 M, float mu2, float lam, mat3 dF)
{
  mat3 A = transpose(R) * dF;
  vec3 k = vec3(A[1][2] - A[2][1], A[2][0] - A[0][2], A[0][1] - A[1][0]);  // axial(A - A^T)
  mat3 dR = R * fl_cross_matrix(M * k);
  mat3 C = fl_cofactor(F);
  float J = dot(F[0], C[0]);
  mat3 dC = mat3(cross(dF[1], F[2]) + cross(F[1], dF[2]), cross(dF[2], F[0]) + cross(F[2], dF[0]),
                 cross(dF[0], F[1]) + cross(F[0], dF[1]));
  float CdF = dot(C[0], dF[0]) + dot(C[1], dF[1]) + dot(C[2], dF[2]);
  return mu2 * (dF - dR) + lam * (CdF * C + (J - 1.0) * dC);
}

#endif
