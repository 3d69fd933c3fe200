// render/ground.frag: an anti-aliased checkerboard that fades with distance,
// shadowed by what stands on it (render/shadow.h).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"
#include "shadow.glsl"

layout(location = 0) in vec3 v_world;
layout(location = 0) out vec4 out_color;

void main()
{
  vec2 uv = v_world.xz * 2.0;
  vec2 w = fwidth(uv) + 1e-4;
  vec2 g = clamp(abs(fract(uv * 0.5) - 0.5) * 2.0 / w - 0.5 / w + 0.5, 0.0, 1.0);  // smoothed tiles
  float checker = mix(g.x, 1.0 - g.x, g.y);
  vec3 base = mix(vec3(0.32, 0.33, 0.35), vec3(0.42, 0.43, 0.45), checker);
  float fade = exp(-length(v_world.xz - frame.eye.xz) * 0.03);
  vec3 color = fl_shade_lit(base, vec3(0, 1, 0), normalize(frame.eye - v_world), fl_sun(fl_shadow_lit(v_world)));
  out_color = vec4(mix(vec3(0.55, 0.6, 0.68), color, fade), 1.0);
}
