// massspring/hold.comp: one thread, once a frame after reset.comp: a frozen
// (diverged) object counts one more frame, or, when reset.comp has just put it
// back (FL_MS_RESET_HOLD_FRAMES reached), is unfrozen and its reset counted.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_STATUS) buffer Status { uint status[]; };
void main()
{
  if (fl_thread_index() != 0u || pc.count == 0u || status[FL_MS_STATUS_DIVERGED] == 0u) return;
  if (status[FL_MS_STATUS_HOLD] >= FL_MS_RESET_HOLD_FRAMES) {
    status[FL_MS_STATUS_HOLD] = 0u;
    status[FL_MS_STATUS_DIVERGED] = 0u;
    status[FL_MS_STATUS_RESETS] += 1u;
  } else {
    status[FL_MS_STATUS_HOLD] += 1u;
  }
}
