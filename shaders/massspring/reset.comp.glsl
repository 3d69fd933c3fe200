// massspring/reset.comp: once a frame, for an object that check.comp flagged
// as diverged: its velocities are zeroed (it stays frozen as it blew up), and
// once it has been frozen FL_MS_RESET_HOLD_FRAMES frames it is put back in its
// initial state (positions, zero velocities). hold.comp, the next pass, counts
// the frames, clears the flag and counts the reset.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_POS) writeonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_MS_B_VEL) writeonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_INITIAL) readonly buffer Initial { vec4 initial[]; };
layout(std430, binding = FL_MS_B_STATUS) readonly buffer Status { uint status[]; };
void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count || status[FL_MS_STATUS_DIVERGED] == 0u) return;
  vel[k] = vec4(0.0);
  if (status[FL_MS_STATUS_HOLD] >= FL_MS_RESET_HOLD_FRAMES) pos[k] = initial[k];
}
