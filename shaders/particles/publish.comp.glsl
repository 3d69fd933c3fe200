// particles/publish.comp: writes the render snapshot of one frame slot:
// position and speed (for colour), so drawing frame N never races with the
// simulation of frame N+1 (docs/ARCHITECTURE.md, "Frame loop").
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 vel[]; };
layout(std430, binding = 2) writeonly buffer Snapshot { vec4 snap[]; };
layout(push_constant) uniform Push { fl_count_push pc; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.count) return;
  snap[i] = vec4(pos[i].xyz, length(vel[i].xyz));
}
