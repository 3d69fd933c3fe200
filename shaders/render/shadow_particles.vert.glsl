// render/shadow_particles.vert: particles (and snow) seen from the light as
// discs facing it: 6 vertices a particle, a square of the particle's radius in
// the light's orthographic clip space; shadow_disc.frag cuts the disc.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"

layout(std430, binding = 1) readonly buffer Snapshot { vec4 snap[]; };
layout(push_constant) uniform Push { fl_draw_push pc; };
layout(location = 0) out vec2 v_corner;

const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main()
{
  vec4 center = frame.light_view_proj * vec4(snap[gl_VertexIndex / 6].xyz + pc.offset, 1.0);
  v_corner = corners[gl_VertexIndex % 6];
  // orthographic: a metre along the light's x and y is column 0 and 1's length in clip units
  vec2 scale = vec2(length(frame.light_view_proj[0].xyz), length(frame.light_view_proj[1].xyz));
  gl_Position = center + vec4(v_corner * pc.radius * scale, 0.0, 0.0);
}
