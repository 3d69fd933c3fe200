// xpbd/predict.comp: step 2 of the substep (xpbd_spec.h): v += h (g + a);
// prev = x; x += h v. Pinned particles (w = 0) keep x, with v = 0.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) writeonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_VEL) buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_XPBD_B_ACCEL) readonly buffer Accel { vec4 accel[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  vec4 x = pos[k];
  prev[k] = x;
  if (x.w == 0.0) {
    vel[k] = vec4(0.0);
    return;
  }
  float h = pc.h;
  vec3 v = vel[k].xyz + h * (pc.gravity + accel[k].xyz);
  vel[k] = vec4(v, 0.0);
  pos[k] = vec4(x.xyz + h * v, x.w);
}
