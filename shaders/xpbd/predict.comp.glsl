// xpbd/predict.comp: step 2 of the substep (xpbd_spec.h). Euler: v += h (g + a);
// prev = x; x += h v. BDF2 (the survey's second-order PBD, NOTES.md "BDF2
// variant"): x~ = 4/3 x^n - 1/3 x^(n-1) + 8/9 h v^n - 2/9 h v^(n-1) + 4/9 h^2 (g + a),
// with x^(n-1) = prev and v^(n-1) = vel_old from the last substep; it keeps
// x^(n-1) in older for the velocity pass and v^n in vel_old for the next
// substep. BDF2_START is an Euler step that records that history. Pinned
// particles (w = 0) keep x, with v = 0.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_VEL) buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_XPBD_B_ACCEL) readonly buffer Accel { vec4 accel[]; };
layout(std430, binding = FL_XPBD_B_OLDER) buffer Older { vec4 older[]; };
layout(std430, binding = FL_XPBD_B_VEL_OLD) buffer VelOld { vec4 vel_old[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  vec4 x = pos[k];
  float h = pc.h;
  vec3 v = vel[k].xyz, a = pc.gravity + accel[k].xyz;
  if (pc.integrator != FL_XPBD_EULER) {
    vec3 x_old = prev[k].xyz, v_old = vel_old[k].xyz;
    older[k] = vec4(pc.integrator == FL_XPBD_BDF2 ? x_old : x.xyz, 0.0);
    vel_old[k] = vec4(x.w == 0.0 ? vec3(0.0) : v, 0.0);
    if (pc.integrator == FL_XPBD_BDF2 && x.w != 0.0) {
      prev[k] = x;
      pos[k] = vec4(4.0 / 3.0 * x.xyz - 1.0 / 3.0 * x_old + h * (8.0 / 9.0 * v - 2.0 / 9.0 * v_old) +
                        4.0 / 9.0 * h * h * a, x.w);
      return;
    }
  }
  prev[k] = x;
  if (x.w == 0.0) {
    vel[k] = vec4(0.0);
    return;
  }
  v += h * a;
  vel[k] = vec4(v, 0.0);
  pos[k] = vec4(x.xyz + h * v, x.w);
}
