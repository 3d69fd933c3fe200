// render/particles.frag: ray-traced sphere on the impostor quad, with correct
// depth, shaded by the common light and tinted by speed.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"

layout(push_constant) uniform Push { fl_draw_push pc; };
layout(location = 0) in vec2 v_corner;
layout(location = 1) in vec3 v_center_view;
layout(location = 2) in float v_speed;
layout(location = 0) out vec4 out_color;

void main()
{
  float r2 = dot(v_corner, v_corner);
  if (r2 > 1.0) discard;
  vec3 n_view = vec3(v_corner, sqrt(1.0 - r2));
  vec3 p_view = v_center_view + n_view * pc.offset.w;
  vec4 clip = frame.proj * vec4(p_view, 1.0);
  gl_FragDepth = clip.z / clip.w;
  vec3 n_world = normalize((transpose(frame.view) * vec4(n_view, 0.0)).xyz);
  vec3 base = mix(pc.color.rgb, vec3(1.0, 0.55, 0.2), clamp(v_speed / 8.0, 0.0, 1.0));
  vec3 view_dir = normalize(frame.eye.xyz - (inverse(frame.view) * vec4(p_view, 1.0)).xyz);
  out_color = vec4(fl_shade(base, n_world, view_dir), 1.0);
}
