// xpbd/add_delta.comp: applies Jacobi corrections: target += omega delta.xyz / max(delta.w, 1)
// (target: positions or velocities, bound at FL_XPBD_B_POS). omega = domain_max.w.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) buffer Target { vec4 target[]; };
layout(std430, binding = FL_XPBD_B_DELTA) readonly buffer Delta { vec4 delta[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  vec4 d = delta[k];
  if (d.w > 0.0) target[k].xyz += pc.omega * d.xyz / d.w;
}
