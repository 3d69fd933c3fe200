// massspring/jacobi.comp: one Jacobi sweep of JI and HY (Kang 2018 Eq. 6-9):
// dv_next_i = A_ii^-1 (b_i + sum_s B_s dv_j), every particle reading only the
// previous iterate. B_s is recomputed from the positions (fewer bytes than storing it).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(std430, binding = FL_MS_B_DV) readonly buffer Dv { vec4 dv[]; };
layout(std430, binding = FL_MS_B_DV_NEXT) writeonly buffer DvNext { vec4 dv_next[]; };
layout(std430, binding = FL_MS_B_RHS) readonly buffer Rhs { vec4 rhs[]; };
layout(std430, binding = FL_MS_B_DIAG) readonly buffer Diag { vec4 diag[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  vec4 p = pos[k];
  if (p.w == 0.0) {
    dv_next[k] = vec4(0.0);
    return;
  }
  float h = pc.h, kappa = pc.kappa, damping = pc.damping;
  bool definite = fl_ms_flag(FL_MS_FLAG_DEFINITE);
  vec3 r = rhs[k].xyz;
  for (uint e = first[k]; e < first[k + 1]; e++) {
    fl_ms_spring_view s;
    if (!fl_ms_spring_at(e, p.xyz, s)) continue;
    r += fl_ms_apply_b(s.xhat, fl_ms_transverse(s.len, s.rest, definite), kappa, damping, h, dv[s.other].xyz);
  }
  vec3 dd = diag[2 * k].xyz, off = diag[2 * k + 1].xyz;
  mat3 a = mat3(dd.x, off.x, off.y, off.x, dd.y, off.z, off.y, off.z, dd.z);
  dv_next[k] = vec4(inverse(a) * r, 0.0);
}
