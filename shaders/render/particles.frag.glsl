// render/particles.frag: ray-traced sphere on the impostor quad, with correct
// depth, shaded by the common light and tinted by speed.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "impostor.glsl"

layout(push_constant) uniform Push { fl_draw_push pc; };
layout(location = 0) in vec2 v_corner;
layout(location = 1) in vec3 v_center_view;
layout(location = 2) in float v_speed;
layout(location = 0) out vec4 out_color;

void main()
{
  vec3 n_world, view_dir;
  float depth;
  if (!fl_impostor_hit(v_corner, v_center_view, pc.radius, n_world, view_dir, depth)) discard;
  gl_FragDepth = depth;
  vec3 base = mix(pc.color.rgb, vec3(1.0, 0.55, 0.2), clamp(v_speed / 8.0, 0.0, 1.0));
  out_color = vec4(fl_shade(base, n_world, view_dir), 1.0);
}
