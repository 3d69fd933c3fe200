// massspring/explicit.comp: E, symplectic Euler (Kang 2018 section 3; ms_spec.h)
// as one dispatch per step: dv_i = h (g + w_i sum_j (kappa delta + c_d delta') xhat_ij),
// v' = v + dv, x' = x + h v', read from pos/vel and written to the other
// buffer of the ping-pong pair (pos_out/vel_out; ms_gpu.c swaps the pair after
// each step). Pinned particles keep x and v; an object whose check flagged a
// divergence is frozen as it blew up (v = 0, x kept), as advance.comp does.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(std430, binding = FL_MS_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_STATUS) readonly buffer Status { uint status[]; };
layout(std430, binding = FL_MS_B_POS_OUT) writeonly buffer PosOut { vec4 pos_out[]; };
layout(std430, binding = FL_MS_B_VEL_OUT) writeonly buffer VelOut { vec4 vel_out[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  vec4 p = pos[k];
  vec3 x = p.xyz, v = vel[k].xyz;
  if (status[FL_MS_STATUS_DIVERGED] != 0u) {
    v = vec3(0.0);
  } else if (p.w != 0.0) {
    vec3 f = vec3(0.0);
    for (uint e = first[k]; e < first[k + 1]; e++) {
      fl_ms_spring_view s;
      if (!fl_ms_spring_at(e, p.xyz, s)) continue;
      float rate = dot(s.xhat, vel[s.other].xyz - v);
      f += (pc.kappa * (s.len - s.rest) + pc.damping * rate) * s.xhat;
    }
    float h = pc.h;
    v += h * (pc.gravity + p.w * f);
    x += h * v;
  }
  vel_out[k] = vec4(v, 0.0);
  pos_out[k] = vec4(x, p.w);
}
