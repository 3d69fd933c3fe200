// massspring/explicit.comp: E, symplectic Euler (Kang 2018 section 3; ms_spec.h):
// dv_i = h (g + w_i sum_j (kappa delta + c_d delta') xhat_ij). advance.comp then
// sets v += dv, x += h v.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(std430, binding = FL_MS_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_DV) writeonly buffer Dv { vec4 dv[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  vec4 p = pos[k];
  if (p.w == 0.0) {
    dv[k] = vec4(0.0);
    return;
  }
  vec3 vi = vel[k].xyz, f = vec3(0.0);
  for (uint e = first[k]; e < first[k + 1]; e++) {
    fl_ms_spring_view s;
    if (!fl_ms_spring_at(e, p.xyz, s)) continue;
    float rate = dot(s.xhat, vel[s.other].xyz - vi);
    f += (pc.kappa * (s.len - s.rest) + pc.damping * rate) * s.xhat;
  }
  float h = pc.h;
  dv[k] = vec4(h * (pc.gravity + p.w * f), 0.0);
}
