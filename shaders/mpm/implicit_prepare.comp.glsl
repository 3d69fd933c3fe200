// mpm/implicit_prepare.comp: one thread per particle, once per semi-implicit
// solve (src/sim/mpm/snow_implicit.h): the data every Hessian product of the
// substep reads (mpm/implicit.glsl PARTICLE DATA): the polar rotation R = U V^T
// of F_E = U S V^T, M = (tr(S) I - S)^-1 = V diag(1 / (s1 + s2), 1 / (s0 + s2),
// 1 / (s0 + s1)) V^T, and the hardened 2 V0 mu, V0 lambda (snow_spec.h G2P).
// The singular values of F_E are clamped positive by G2P; a pair sum below
// 1e-6 (never met in a valid state) is taken as 1e-6.
// CPU mirror (double, Newton polar iteration instead of an SVD):
// src/sim/mpm/snow_implicit_cpu.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"
#include "svd3.glsl"

layout(std430, binding = 0) readonly buffer Velocities { vec4 vel[]; };
layout(std430, binding = 1) readonly buffer ElasticF { vec4 fe[]; };
layout(std430, binding = 2) writeonly buffer ParticleData { vec4 pd[]; };
layout(std140, binding = 3) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  vec4 f0 = fe[3u * p], f1 = fe[3u * p + 1u], f2 = fe[3u * p + 2u];
  fl_snow_material mat = materials[uint(f1.w)];
  mat3 F = transpose(mat3(f0.xyz, f1.xyz, f2.xyz));
  mat3 U, V;
  vec3 s;
  fl_svd3(F, U, s, V);
  mat3 R = U * transpose(V);
  vec3 d = 1.0 / max(vec3(s.y + s.z, s.x + s.z, s.x + s.y), vec3(1e-6));
  mat3 M = V * mat3(d.x, 0, 0, 0, d.y, 0, 0, 0, d.z) * transpose(V);
  float k = exp(min(mat.xi * (1.0 - f0.w), log(FL_SNOW_HARDENING_MAX)));
  float V0 = vel[p].w;
  mat3 Rt = transpose(R);
  uint o = FL_SNOW_CR_PARTICLE_VEC4S * p;
  pd[o] = vec4(Rt[0], M[0][0]);
  pd[o + 1u] = vec4(Rt[1], M[1][1]);
  pd[o + 2u] = vec4(Rt[2], M[2][2]);
  pd[o + 3u] = vec4(M[1][0], M[2][0], M[2][1], 0.0);
  pd[o + 4u] = vec4(2.0 * V0 * mat.mu0 * k, V0 * mat.lambda0 * k,
                    mat.transfer == FL_SNOW_TRANSFER_APIC ? 1.0 : 0.0, 0.0);
}
