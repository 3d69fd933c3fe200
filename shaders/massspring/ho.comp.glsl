// massspring/ho.comp: HO (Kang 2018 Eq. 20-22, corrected per NOTES.md section 3):
// each spring's strain evolves as a damped harmonic oscillator over the step, and
// its force impulse phi_ij = kappa * integral delta dt goes to particle i as
// s_i phi_ij xhat_ij (split: fl_ms_split). dv_i = w_i sum + g h. One thread per
// particle, both ends of a spring compute the same phi_ij: no atomics.
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
  float h = pc.h;
  bool momentum = fl_ms_flag(FL_MS_FLAG_MOMENTUM);
  vec3 vi = vel[k].xyz, impulse = vec3(0.0);
  for (uint e = first[k]; e < first[k + 1]; e++) {
    fl_ms_spring_view s;
    if (!fl_ms_spring_at(e, p.xyz, s)) continue;
    float wj = pos[s.other].w, rate = dot(s.xhat, vel[s.other].xyz - vi);
    float phi = fl_ms_ho_impulse(s.len - s.rest, rate, 1.0 / (p.w + wj), pc.kappa, pc.damping, h);
    impulse += fl_ms_split(p.w, wj, momentum) * phi * s.xhat;
  }
  dv[k] = vec4(p.w * impulse + pc.gravity * h, 0.0);
}
