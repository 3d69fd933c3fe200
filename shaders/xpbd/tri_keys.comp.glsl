// xpbd/tri_keys.comp: the keys of the triangle hash (docs/CLOTH.md,
// src/sim/xpbd/tri_contact_build.h). Each colliding triangle's bounding box,
// grown by tri_margin, spans at most two cells per axis; the triangle is
// entered in each cell it overlaps (up to 8 slots 8t..8t+7, in x-fastest
// order), keyed by the cell's table entry (mask tri_table_size - 1, half the
// sort's table); unused slots get the last entry of the full table, which no
// query reads. The box itself is kept (TRI_BOX: min and the object's
// thickness, max and the owned edges plus FL_TRI_BODY for a body's triangle),
// so that the queries test a candidate with one 32-byte read and load its
// indices and positions only when the boxes meet. Thread 0 also zeroes the
// pair list's counts (tri_list.glsl) for tri_pairs, which runs after the build.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#include "spatial_hash.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_TRI_OBJECT) readonly buffer TriObject { uint tri_object[]; };
layout(std430, binding = FL_XPBD_B_TRI_OWNED) readonly buffer TriOwned { uint tri_owned[]; };
layout(std430, binding = FL_XPBD_B_TRI_BOX) writeonly buffer TriBox { vec4 tri_box[]; };
layout(std430, binding = FL_XPBD_B_TRI_KEYS) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = FL_XPBD_B_TRI_VALUES) writeonly buffer Values { uint values[]; };
#include "tri_list.glsl"

void main()
{
  uint t = fl_thread_index();
  if (t == 0u) {
    list.head[FL_TRI_LIST_VERTEX_COUNT] = 0u;
    list.head[FL_TRI_LIST_EDGE_COUNT] = 0u;
  }
  if (t >= pc.triangle_count) return;
  uint unused = 2u * pc.tri_table_size - 1u, owned = tri_owned[t];
  if ((owned & FL_TRI_COLLIDES) == 0u) {
    for (uint k = 0u; k < 8u; k++) {
      keys[8u * t + k] = unused;
      values[8u * t + k] = t;
    }
    return;
  }
  vec3 a = pos[tri[3u * t]].xyz, b = pos[tri[3u * t + 1u]].xyz, c = pos[tri[3u * t + 2u]].xyz;
  vec3 lo_x = min(min(a, b), c), hi_x = max(max(a, b), c);
  uint ot = tri_object[t];
  uint meta = (owned & 7u) | (objects[ot].body != 0u ? FL_TRI_BODY : 0u);
  tri_box[2u * t] = vec4(lo_x, objects[ot].thickness);
  tri_box[2u * t + 1u] = vec4(hi_x, float(meta));
  ivec3 lo = fl_hash_cell_inv(lo_x - pc.tri_margin, pc.inv_tri_cell);
  ivec3 hi = min(fl_hash_cell_inv(hi_x + pc.tri_margin, pc.inv_tri_cell), lo + 1);
  for (uint k = 0u; k < 8u; k++) {
    ivec3 cell = lo + ivec3(k & 1u, (k >> 1u) & 1u, k >> 2u);
    keys[8u * t + k] = all(lessThanEqual(cell, hi)) ? fl_hash_index(cell, pc.tri_table_size) : unused;
    values[8u * t + k] = t;
  }
}
