// xpbd/tri_pair_args.comp: after tri_pairs, the indirect dispatches of the
// contact passes over the pair list (tri_list.glsl): one thread a pair, at
// most the room, in workgroups of this kernel's size (the contact kernels'),
// folded into y past 65535 groups as fl_thread_index() expects; a list that
// found more pairs than its room sets the sticky overflow word (the health
// watch, xpbd/tri_health). tri_keys zeroes the counts at the next build.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "tri_list.glsl"

// The dispatch of `threads` invocations at the three words from `at`.
void dispatch_args(uint at, uint threads)
{
  uint groups = (threads + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
  uint gx = min(groups, 65535u);
  list.head[at] = gx;
  list.head[at + 1u] = gx == 0u ? 0u : (groups + gx - 1u) / gx;
  list.head[at + 2u] = 1u;
}

void main()
{
  if (fl_thread_index() != 0u) return;
  uint nv = list.head[FL_TRI_LIST_VERTEX_COUNT], ne = list.head[FL_TRI_LIST_EDGE_COUNT];
  if (nv > fl_tri_vertex_room() || ne > fl_tri_edge_room()) list.head[FL_TRI_LIST_OVERFLOW] = 1u;
  dispatch_args(FL_TRI_LIST_VERTEX_ARGS, min(nv, fl_tri_vertex_room()));
  dispatch_args(FL_TRI_LIST_EDGE_ARGS, min(ne, fl_tri_edge_room()));
}
