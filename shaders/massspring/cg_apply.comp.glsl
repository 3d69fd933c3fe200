// massspring/cg_apply.comp: q = A p for IM's conjugate gradients, matrix-free:
// (A p)_i = A_ii p_i - sum_s B_s p_j (ms_spec.h); pinned rows are 0.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(std430, binding = FL_MS_B_DIAG) readonly buffer Diag { vec4 diag[]; };
layout(std430, binding = FL_MS_B_CG_P) readonly buffer CgP { vec4 cg_p[]; };
layout(std430, binding = FL_MS_B_CG_Q) writeonly buffer CgQ { vec4 cg_q[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  vec4 p = pos[k];
  if (p.w == 0.0) {
    cg_q[k] = vec4(0.0);
    return;
  }
  float h = pc.h, kappa = pc.kappa, damping = pc.damping;
  bool definite = fl_ms_flag(FL_MS_FLAG_DEFINITE);
  vec3 dd = diag[2 * k].xyz, off = diag[2 * k + 1].xyz, pk = cg_p[k].xyz;
  vec3 q = vec3(dot(vec3(dd.x, off.x, off.y), pk), dot(vec3(off.x, dd.y, off.z), pk), dot(vec3(off.y, off.z, dd.z), pk));
  for (uint e = first[k]; e < first[k + 1]; e++) {
    fl_ms_spring_view s;
    if (!fl_ms_spring_at(e, p.xyz, s)) continue;
    q -= fl_ms_apply_b(s.xhat, fl_ms_transverse(s.len, s.rest, definite), kappa, damping, h, cg_p[s.other].xyz);
  }
  cg_q[k] = vec4(q, 0.0);
}
