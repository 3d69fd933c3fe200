// render/particles.vert: sphere impostors pulled straight from a simulation
// buffer: 6 vertices per particle make a camera-facing quad around it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"

layout(std430, binding = 1) readonly buffer Snapshot { vec4 snap[]; };  // xyz, w: speed
layout(push_constant) uniform Push { fl_draw_push pc; };

layout(location = 0) out vec2 v_corner;
layout(location = 1) out vec3 v_center_view;
layout(location = 2) out float v_speed;

const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main()
{
  vec4 s = snap[gl_VertexIndex / 6];
  vec2 corner = corners[gl_VertexIndex % 6];
  vec4 center = frame.view * vec4(s.xyz + pc.offset.xyz, 1.0);
  vec4 corner_view = center + vec4(corner * pc.offset.w, 0.0, 0.0);
  gl_Position = frame.proj * corner_view;
  v_corner = corner;
  v_center_view = center.xyz;
  v_speed = s.w;
}
