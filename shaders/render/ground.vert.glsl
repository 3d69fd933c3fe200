// render/ground.vert: a large quad at the ground height, generated from the vertex index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"

layout(location = 0) out vec3 v_world;

const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main()
{
  vec2 c = corners[gl_VertexIndex] * 60.0;
  v_world = vec3(c.x, frame.ground_height, c.y);
  gl_Position = frame.view_proj * vec4(v_world, 1.0);
}
