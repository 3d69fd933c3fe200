// xpbd/tri_list.glsl: the candidate pair list of the triangle contacts
// (flurry_shared.h FL_TRI_LIST_*; written by tri_pairs, sized by
// tri_pair_args, read by tri_vertex and tri_edge): a head (the two dispatches,
// the two counts, the sticky overflow word), then pc.tri_pairs_per vertex
// pairs (particle, triangle) per particle, then as many edge pairs (edge,
// 4 triangle + owned edge) per unique edge. Define FL_TRI_LIST_READONLY
// before including it in a kernel that only reads the list.
#ifndef FL_XPBD_TRI_LIST_GLSL
#define FL_XPBD_TRI_LIST_GLSL
#ifdef FL_TRI_LIST_READONLY
layout(std430, binding = FL_XPBD_B_TRI_LIST) readonly buffer TriList
#else
layout(std430, binding = FL_XPBD_B_TRI_LIST) buffer TriList
#endif
{
  uint head[FL_TRI_LIST_HEAD];
  uvec2 pairs[];
} list;

// The room of each part of the list (pairs).
uint fl_tri_vertex_room() { return pc.particle_count * pc.tri_pairs_per; }
uint fl_tri_edge_room() { return pc.edge_count * pc.tri_pairs_per; }
// How far apart a pair with contact distance `reach` is listed: reach, or with
// the contact guard FL_TRI_GUARD_LIST reach at the substep's start (docs/CLOTH.md).
float fl_tri_list_radius(float reach) { return pc.tri_guard > 0.0 ? FL_TRI_GUARD_LIST * reach : reach; }
#endif
