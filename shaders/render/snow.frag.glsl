// render/snow.frag: a snow particle: the impostor sphere shaded as snow of
// its local density (render/snow.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "impostor.glsl"
#include "snow.glsl"

layout(push_constant) uniform Push { fl_snow_push pc; };
layout(location = 0) in vec2 v_corner;
layout(location = 1) in vec3 v_center_view;
layout(location = 2) in float v_q;
layout(location = 3) in float v_radius;
layout(location = 4) in float v_grain;
layout(location = 0) out vec4 out_color;

void main()
{
  vec3 n, view_dir;
  float depth;
  if (!fl_impostor_hit(v_corner, v_center_view, v_radius, n, view_dir, depth)) discard;
  gl_FragDepth = depth;
  vec3 albedo = fl_snow_albedo(pc.color.rgb, v_q) * (0.95 + 0.05 * v_grain);
  out_color = vec4(fl_snow_shade(albedo, v_q, n, view_dir, 1.0), 1.0);
}
