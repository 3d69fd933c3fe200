// common/hash_neighbours.comp: for every particle, the number of other
// particles closer than a radius (<= the cell size), found through the spatial
// hash with FL_HASH_FOR_NEIGHBOURS: the usage example of
// common/spatial_hash.glsl, and the GPU side of tests/gpu/test_spatial_hash.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "spatial_hash.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer HashSorted { uint hash_sorted[]; };
layout(std430, binding = 2) readonly buffer HashStart { uint hash_start[]; };
layout(std430, binding = 3) readonly buffer HashEnd { uint hash_end[]; };
layout(std430, binding = 4) writeonly buffer Counts { uint neighbour_count[]; };
layout(push_constant) uniform Push { fl_hash_push pc; };  // cell.x: 1 / cell size, cell.y: radius

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.count) return;
  vec3 xi = pos[i].xyz;
  float r2 = pc.radius * pc.radius;
  uint found = 0u;
  ivec3 c = fl_hash_cell_inv(xi, pc.inv_cell_size);
  FL_HASH_FOR_NEIGHBOURS(c, pc.table_size, hash_start, hash_end, hash_sorted, j) {
    if (j == i) continue;
    vec3 d = pos[j].xyz - xi;
    if (dot(d, d) < r2) found++;
  } FL_HASH_END_NEIGHBOURS
  neighbour_count[i] = found;
}
