// render/particles.vert: sphere impostors pulled straight from a simulation
// buffer: 6 vertices per particle make a camera-facing quad around it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "impostor.glsl"

layout(std430, binding = 1) readonly buffer Snapshot { vec4 snap[]; };  // xyz, w: speed
layout(push_constant) uniform Push { fl_draw_push pc; };

layout(location = 0) out vec2 v_corner;
layout(location = 1) out vec3 v_center_view;
layout(location = 2) out float v_speed;

void main()
{
  vec4 s = snap[gl_VertexIndex / 6];
  gl_Position = fl_impostor_vertex(gl_VertexIndex, s.xyz + pc.offset, pc.radius, v_corner, v_center_view);
  v_speed = s.w;
}
