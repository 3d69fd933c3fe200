// mpm/p2g_list.comp: the gathered P2G's particle list (issue 14), one thread
// per particle: particle p goes to list[starts[bin] + rank], where starts is
// the exclusive scan of mpm/p2g_bin's counts, so the particles of bin i are
// list[starts[i] .. starts[i + 1] - 1].
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"

layout(std430, binding = 0) readonly buffer Bins { uvec2 bins[]; };
layout(std430, binding = 1) readonly buffer Starts { uint starts[]; };
layout(std430, binding = 2) writeonly buffer List { uint list[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  uvec2 b = bins[p];
  if (b.x != FL_SNOW_NO_NODE) list[starts[b.x] + b.y] = p;
}
