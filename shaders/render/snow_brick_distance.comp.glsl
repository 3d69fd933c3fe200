// render/snow_brick_distance.comp: one pass, along axis dims.w, of the
// separable Chebyshev distance transform of the occupied bricks: run along x,
// then y, then z from render/snow_bricks' 0 / FL_SNOW_BRICK_FAR, it leaves
// each brick's distance to the nearest occupied brick, max(|dx|, |dy|, |dz|)
// in bricks, capped at FL_SNOW_BRICK_FAR:
//   out(b) = min over b' on b's line of max(|b_axis - b'_axis|, in(b')).
// A brick at distance d has only empty bricks within d - 1 of it, so the ray
// march can jump over that whole cube.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer In { uint distance_in[]; };
layout(std430, binding = 1) writeonly buffer Out { uint distance_out[]; };
layout(push_constant) uniform Push { fl_snow_push pc; };
#include "snow_grid.glsl"

void main()
{
  uvec3 bd = fl_snow_brick_dims();
  uint index = fl_thread_index();
  if (index >= bd.x * bd.y * bd.z) return;
  uvec3 b = uvec3(index % bd.x, (index / bd.x) % bd.y, index / (bd.x * bd.y));
  uint axis = pc.axis;
  int c = int(b[axis]), far = FL_SNOW_BRICK_FAR;
  uint best = uint(far);
  for (int o = max(c - far + 1, 0); o <= min(c + far - 1, int(bd[axis]) - 1); o++) {
    uvec3 ob = b;
    ob[axis] = uint(o);
    best = min(best, max(uint(abs(o - c)), distance_in[fl_snow_brick_index(ob)]));
  }
  distance_out[index] = best;
}
