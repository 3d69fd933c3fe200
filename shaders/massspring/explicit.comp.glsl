// massspring/explicit.comp: E, symplectic Euler (Kang 2018 section 3; ms_spec.h)
// as one dispatch per step: dv_i = h (g + w_i sum_j (kappa delta + c_d delta') xhat_ij),
// v' = v + dv, x' = x + h v', read from pos/vel and written to the other
// buffer of the ping-pong pair (pos_out/vel_out; ms_gpu.c swaps the pair after
// each step). Pinned particles keep x and v; an object whose check flagged a
// divergence is frozen as it blew up (v = 0, x kept), as advance.comp does.
// The divergence check of the state the step starts from is inside (check.comp's
// test, on the springs this kernel visits anyway), so no check pass runs between
// steps: a particle with a non-finite x or an over-strained spring freezes
// itself at once and sets the object's flag and FL_MS_STATUS_FOUND to the next
// step's number. The others may have moved on in this step; the next step sees
// both, freezes them all and takes x from the other buffer of the pair, which
// still holds the state this step started from: the object freezes in the state
// the check found, as a check pass after every step froze it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(std430, binding = FL_MS_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_STATUS) buffer Status { uint status[]; };
layout(std430, binding = FL_MS_B_POS_OUT) buffer PosOut { vec4 pos_out[]; };
layout(std430, binding = FL_MS_B_VEL_OUT) writeonly buffer VelOut { vec4 vel_out[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  vec4 p = pos[k];
  vec3 x = p.xyz, v = vel[k].xyz;
  bool frozen = status[FL_MS_STATUS_DIVERGED] != 0u;
  if (frozen && status[FL_MS_STATUS_FOUND] == pc.step) x = pos_out[k].xyz;  // back to where it was found
  if (!frozen) {
    vec3 f = vec3(0.0);
    bool bad = any(isnan(x)) || any(isinf(x));
    for (uint e = first[k]; e < first[k + 1]; e++) {
      fl_ms_spring_view s;
      bool has_direction = fl_ms_spring_at(e, p.xyz, s);
      bad = bad || !(abs(s.len - s.rest) <= pc.divergence_strain * s.rest);  // also a NaN length
      if (!has_direction) continue;
      float rate = dot(s.xhat, vel[s.other].xyz - v);
      f += (pc.kappa * (s.len - s.rest) + pc.damping * rate) * s.xhat;
    }
    frozen = bad;
    if (bad) {
      atomicOr(status[FL_MS_STATUS_DIVERGED], 1u);
      atomicMax(status[FL_MS_STATUS_FOUND], pc.step + 1u);
    } else if (p.w != 0.0) {
      float h = pc.h;
      v += h * (pc.gravity + p.w * f);
      x += h * v;
    }
  }
  if (frozen) v = vec3(0.0);
  vel_out[k] = vec4(v, 0.0);
  pos_out[k] = vec4(x, p.w);
}
