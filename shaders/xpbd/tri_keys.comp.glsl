// xpbd/tri_keys.comp: the keys of the triangle hash (docs/CLOTH.md,
// src/sim/xpbd/tri_contact_build.h). Each colliding triangle's bounding box,
// grown by tri_margin, spans at most two cells per axis; the triangle is
// entered in each cell it overlaps (up to 8 slots 8t..8t+7, in x-fastest
// order), keyed by the cell's table entry (mask tri_table_size - 1, half the
// sort's table); unused slots get the last entry of the full table, which no
// query reads. The lowest cell of the range is kept (TRI_CELL) for tri_edge's
// one-cell rule.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#include "spatial_hash.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_TRI_OWNED) readonly buffer TriOwned { uint tri_owned[]; };
layout(std430, binding = FL_XPBD_B_TRI_CELL) writeonly buffer TriCell { ivec4 tri_cell[]; };
layout(std430, binding = FL_XPBD_B_TRI_KEYS) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = FL_XPBD_B_TRI_VALUES) writeonly buffer Values { uint values[]; };

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.triangle_count) return;
  uint unused = 2u * pc.tri_table_size - 1u;
  if ((tri_owned[t] & FL_TRI_COLLIDES) == 0u) {
    for (uint k = 0u; k < 8u; k++) {
      keys[8u * t + k] = unused;
      values[8u * t + k] = t;
    }
    return;
  }
  vec3 a = pos[tri[3u * t]].xyz, b = pos[tri[3u * t + 1u]].xyz, c = pos[tri[3u * t + 2u]].xyz;
  ivec3 lo = fl_hash_cell_inv(min(min(a, b), c) - pc.tri_margin, pc.inv_tri_cell);
  ivec3 hi = min(fl_hash_cell_inv(max(max(a, b), c) + pc.tri_margin, pc.inv_tri_cell), lo + 1);
  tri_cell[t] = ivec4(lo, 0);
  for (uint k = 0u; k < 8u; k++) {
    ivec3 cell = lo + ivec3(k & 1u, (k >> 1u) & 1u, k >> 2u);
    keys[8u * t + k] = all(lessThanEqual(cell, hi)) ? fl_hash_index(cell, pc.tri_table_size) : unused;
    values[8u * t + k] = t;
  }
}
