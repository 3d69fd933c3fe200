// massspring/reset.comp: when check.comp flagged a divergence, puts the object
// back in its initial state (positions, zero velocities); invocation 0 counts
// the reset. The flag is cleared by a buffer fill before the next check.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_POS) writeonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_MS_B_VEL) writeonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_INITIAL) readonly buffer Initial { vec4 initial[]; };
layout(std430, binding = FL_MS_B_STATUS) buffer Status { uint status[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count || status[FL_MS_STATUS_DIVERGED] == 0u) return;
  pos[k] = initial[k];
  vel[k] = vec4(0.0);
  if (k == 0u) status[FL_MS_STATUS_RESETS] += 1u;
}
