// xpbd/hier_carry.comp: the carry of hierarchical PBD (src/sim/xpbd/hierarchy.h, docs/HIERARCHY.md):
// each fine distance constraint that a coarse constraint of this level covers adds
// the coarse multiplier to its own, lambda_f += lambda_c (springs in series carry
// the same tension). A fine constraint is covered once per level at most, so the
// threads of one dispatch write distinct lambdas. pc.first, pc.count: the level's pairs.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = 0) readonly buffer Pairs { uvec2 pair[]; };  // (fine, coarse)
layout(std430, binding = 1) readonly buffer Coarse { float coarse_lambda[]; };
layout(std430, binding = 2) buffer Fine { float fine_lambda[]; };

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.count) return;
  uvec2 p = pair[pc.first + t];
  fine_lambda[p.x] += coarse_lambda[p.y];
}
