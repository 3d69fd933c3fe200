// render/snow_bricks.comp: one thread per brick of the snow density grid
// (render/snow_grid.glsl): whether any of the brick's nodes (all that
// trilinear interpolation inside it reads) is denser than params.w. Writes 0
// for an occupied brick, FL_SNOW_BRICK_FAR for an empty one (the start of the
// distance passes, render/snow_brick_distance), and keeps the range of the
// occupied bricks with atomics in `bounds` (zeroed before): [0..2] the largest
// ~(min corner), [4..6] the largest (max corner + 1); all zero when the grid
// is empty. The volume pass draws only that range's box.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer Density { float density[]; };
layout(std430, binding = 1) writeonly buffer Distance { uint distance[]; };
layout(std430, binding = 2) buffer Bounds { uint bounds[8]; };
layout(push_constant) uniform Push { fl_snow_push pc; };
#include "snow_grid.glsl"

void main()
{
  uvec3 bd = fl_snow_brick_dims();
  uint index = fl_thread_index();
  if (index >= bd.x * bd.y * bd.z) return;
  uvec3 b = uvec3(index % bd.x, (index / bd.x) % bd.y, index / (bd.x * bd.y));
  uvec3 lo = b * uint(FL_SNOW_BRICK), hi = min(lo + uint(FL_SNOW_BRICK), pc.dims - 1u);
  float m = 0.0;
  for (uint k = lo.z; k <= hi.z; k++)
    for (uint j = lo.y; j <= hi.y; j++)
      for (uint i = lo.x; i <= hi.x; i++) m = max(m, density[fl_snow_node_index(uvec3(i, j, k))]);
  bool occupied = m > pc.empty_density;
  distance[index] = occupied ? 0u : uint(FL_SNOW_BRICK_FAR);
  if (occupied) {
    for (int a = 0; a < 3; a++) {
      atomicMax(bounds[a], ~b[a]);
      atomicMax(bounds[4 + a], b[a] + 1u);
    }
  }
}
