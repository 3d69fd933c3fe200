// xpbd/tri_pairs.comp: the candidate pairs of the triangle contacts, found once
// a substep right after the triangle hash is built, appended to the pair list
// (tri_list.glsl) with an atomic counter each (docs/CLOTH.md "The guarantee",
// "Broad phase"). One thread per particle (threads 0..n-1, the dispatch
// xpbd/tri_pairs_vertex), then one per unique edge (n..n+e-1,
// xpbd/tri_pairs_edge), over the triangles of the hash that its query meets
// (each triangle once a row), their boxes first (TRI_BOX, from the same
// positions):
//   particle p of a triangle-colliding object or body: the one table entry of
//     its cell (reach = (thickness_p + thickness_t) / 2 <= margin / 2: the
//     cell holds every t within reach); t is kept when p lies in t's box grown
//     by reach, then within reach of t, t does not contain p and not both are
//     bodies.
//   edge (a, b): the entries of the (at most 8) cells its box overlaps, each
//     once; a triangle whose box grown by reach meets the edge's is kept only
//     in the entry of the cell max(edge's lowest cell, triangle's lowest
//     cell), which both cover; of it each owned edge (c, d) (bits 0-2 of the
//     box's meta word: every edge has one owner) with (a, b) < (c, d), no
//     shared particle and closer than reach, as 4 t + k.
// The list is the contacts at the positions the first contact pass reads; the
// later passes of the substep solve its pairs again (those the averaging
// left: docs/CLOTH.md "The guarantee"; the CPU reference keeps the same rule).
// With the contact guard (pc.tri_guard > 0) the positions bound as POS are the
// substep's start (prev) and "within reach" is within FL_TRI_GUARD_LIST reach
// (fl_tri_list_radius; the hash margin covers it): the pairs the guard bounds.
// A list with more pairs than room keeps its first ones; tri_pair_args sets the
// head's overflow word and the health watch reports it (never silent).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#include "spatial_hash.glsl"
#include "tri_contact.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_TRI_SORTED) readonly buffer HashSorted { uint hash_sorted[]; };
layout(std430, binding = FL_XPBD_B_TRI_START) readonly buffer HashStart { uint hash_start[]; };
layout(std430, binding = FL_XPBD_B_TRI_END) readonly buffer HashEnd { uint hash_end[]; };
layout(std430, binding = FL_XPBD_B_TRI_BOX) readonly buffer TriBox { vec4 tri_box[]; };
layout(std430, binding = FL_XPBD_B_EDGES) readonly buffer Edges { uvec2 edges[]; };
#include "tri_list.glsl"

void keep_vertex(uint i, uint t)
{
  uint k = atomicAdd(list.head[FL_TRI_LIST_VERTEX_COUNT], 1u);
  if (k < fl_tri_vertex_room()) list.pairs[k] = uvec2(i, t);
}

// The owned edge (c0, d0) of a triangle, item 4 t + k, for edge e = (a, b) when (a, b) < (c, d), they share no
// particle and they are closer than reach (at the positions the edge pass reads).
void keep_edge(uint e, uvec2 ab, vec3 a, vec3 b, uint c0, uint d0, uint item, float reach)
{
  uvec2 cd = uvec2(min(c0, d0), max(c0, d0));
  if (!(ab.x < cd.x || (ab.x == cd.x && ab.y < cd.y))) return;
  if (cd.x == ab.x || cd.x == ab.y || cd.y == ab.x || cd.y == ab.y) return;
  vec3 c = pos[cd.x].xyz, d = pos[cd.y].xyz;
  vec2 st = fl_closest_on_segments(a, b, c, d);
  vec3 sep = mix(a, b, st.x) - mix(c, d, st.y);
  if (!(dot(sep, sep) < reach * reach)) return;
  uint k = atomicAdd(list.head[FL_TRI_LIST_EDGE_COUNT], 1u);
  if (k < fl_tri_edge_room()) list.pairs[fl_tri_vertex_room() + k] = uvec2(e, item);
}

void vertex_pairs(uint i)
{
  fl_gpu_xpbd_object obi = objects[object_of[i]];
  if (obi.body == 0u && obi.self_collision != FL_SELF_TRIANGLES) return;
  vec3 pi = pos[i].xyz;
  uint h = fl_hash_index(fl_hash_cell_inv(pi, pc.inv_tri_cell), pc.tri_table_size);
  uint last = 0xFFFFFFFFu, end = hash_end[h];
  for (uint en = hash_start[h]; en < end; en++) {
    uint t = hash_sorted[en];
    if (t == last) continue;
    last = t;
    vec4 blo = tri_box[2u * t], bhi = tri_box[2u * t + 1u];
    float reach = fl_tri_list_radius(0.5 * (obi.thickness + blo.w));
    vec3 g = vec3(reach);
    if (any(lessThan(pi, blo.xyz - g)) || any(greaterThan(pi, bhi.xyz + g))) continue;
    if (obi.body != 0u && uint(bhi.w) >= FL_TRI_BODY) continue;  // two bodies: particles only (fl_tri_pair)
    uint v0 = tri[3u * t], v1 = tri[3u * t + 1u], v2 = tri[3u * t + 2u];
    if (v0 == i || v1 == i || v2 == i) continue;
    vec3 a = pos[v0].xyz, b = pos[v1].xyz, c = pos[v2].xyz;
    vec3 bary = fl_closest_on_triangle(pi, a, b, c);
    vec3 d = pi - (bary.x * a + bary.y * b + bary.z * c);
    if (dot(d, d) < reach * reach) keep_vertex(i, t);
  }
}

void edge_pairs(uint e)
{
  uvec2 ab = edges[e];
  fl_gpu_xpbd_object obi = objects[object_of[ab.x]];
  bool body_i = obi.body != 0u;
  vec3 a = pos[ab.x].xyz, b = pos[ab.y].xyz;
  vec3 emin = min(a, b), emax = max(a, b);
  ivec3 lo = fl_hash_cell_inv(emin, pc.inv_tri_cell);
  ivec3 span = min(fl_hash_cell_inv(emax, pc.inv_tri_cell), lo + 1) - lo;  // 0 or 1 per axis
  for (uint q = 0u; q < 8u; q++) {
    ivec3 off = ivec3(q & 1u, (q >> 1u) & 1u, q >> 2u);
    if (any(greaterThan(off, span))) continue;
    uint h = fl_hash_index(lo + off, pc.tri_table_size);
    bool repeat = false;  // an earlier cell of the box with the same table entry
    for (uint m = 0u; m < q; m++) {
      ivec3 om = ivec3(m & 1u, (m >> 1u) & 1u, m >> 2u);
      repeat = repeat || (all(lessThanEqual(om, span)) && fl_hash_index(lo + om, pc.tri_table_size) == h);
    }
    if (repeat) continue;
    uint last = 0xFFFFFFFFu, end = hash_end[h];
    for (uint en = hash_start[h]; en < end; en++) {
      uint t = hash_sorted[en];
      if (t == last) continue;
      last = t;
      vec4 blo = tri_box[2u * t], bhi = tri_box[2u * t + 1u];
      float reach = fl_tri_list_radius(0.5 * (obi.thickness + blo.w));
      if (any(greaterThan(emin - reach, bhi.xyz)) || any(lessThan(emax + reach, blo.xyz))) continue;
      uint meta = uint(bhi.w), owned = meta & 7u;
      if (owned == 0u || (body_i && meta >= FL_TRI_BODY)) continue;  // no edge; two bodies (fl_tri_pair)
      ivec3 tlo = fl_hash_cell_inv(blo.xyz - pc.tri_margin, pc.inv_tri_cell);  // tri_keys' lowest cell
      if (fl_hash_index(max(lo, tlo), pc.tri_table_size) != h) continue;      // the pair's one cell
      uint v0 = tri[3u * t], v1 = tri[3u * t + 1u], v2 = tri[3u * t + 2u];
      if ((owned & 1u) != 0u) keep_edge(e, ab, a, b, v0, v1, 4u * t, reach);
      if ((owned & 2u) != 0u) keep_edge(e, ab, a, b, v1, v2, 4u * t + 1u, reach);
      if ((owned & 4u) != 0u) keep_edge(e, ab, a, b, v2, v0, 4u * t + 2u, reach);
    }
  }
}

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.count) return;  // a dispatch's last group
  uint p = pc.first + i;      // two dispatches (profiled apart): particles (first 0), then edges (first n)
  if (p < pc.particle_count)
    vertex_pairs(p);
  else if (p < pc.particle_count + pc.edge_count)
    edge_pairs(p - pc.particle_count);
}
