// render/snow_volume.vert: the box of the snow grid's occupied bricks (from
// render/snow_bricks), 36 vertices from the vertex index; nothing when no
// brick holds snow. The pipeline culls front faces, so each pixel the box
// covers gets one fragment (its back face), with the camera outside or inside.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"

layout(std430, binding = 3) readonly buffer Bounds { uint bounds[8]; };
layout(push_constant) uniform Push { fl_snow_push pc; };
layout(location = 0) out vec3 v_world;
layout(location = 1) flat out vec3 v_box_min;
layout(location = 2) flat out vec3 v_box_max;

// Corners (bit 0: x, 1: y, 2: z) of the 12 triangles, counter-clockwise seen from outside.
const int corners[36] = int[](4, 6, 2, 4, 2, 0, 1, 3, 7, 1, 7, 5, 1, 5, 4, 1, 4, 0,
                              2, 6, 7, 2, 7, 3, 2, 3, 1, 2, 1, 0, 4, 5, 7, 4, 7, 6);

void main()
{
  if (bounds[4] == 0u) { // an empty grid: a degenerate, clipped triangle
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
  uvec3 lo = uvec3(~bounds[0], ~bounds[1], ~bounds[2]) * uint(FL_SNOW_BRICK);
  uvec3 hi = min(uvec3(bounds[4], bounds[5], bounds[6]) * uint(FL_SNOW_BRICK), pc.dims - 1u);
  v_box_min = pc.grid_origin + vec3(lo) * pc.h;
  v_box_max = pc.grid_origin + vec3(hi) * pc.h;
  int c = corners[gl_VertexIndex];
  v_world = mix(v_box_min, v_box_max, vec3(c & 1, (c >> 1) & 1, (c >> 2) & 1));
  gl_Position = frame.view_proj * vec4(v_world, 1.0);
}
