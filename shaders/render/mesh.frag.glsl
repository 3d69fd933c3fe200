// render/mesh.frag: two-sided lighting: the back face is drawn darker and
// warmer so a cloth's two sides read differently; shadows from the light's map;
// each material's look (fl_shade_look: cloth fabric, soft bodies glossy).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"
#include "shadow.glsl"

layout(push_constant) uniform Push { fl_draw_push pc; };
layout(location = 0) in vec3 v_world;
layout(location = 1) in vec3 v_normal;
layout(location = 0) out vec4 out_color;

void main()
{
  vec3 n = normalize(v_normal);
  vec3 base = pc.color.rgb;
  if (!gl_FrontFacing) {
    n = -n;
    base *= vec3(0.75, 0.65, 0.6);
  }
  vec3 view_dir = normalize(frame.eye - v_world);
  float lit = fl_shadow_lit(v_world + 0.01 * n); // offset along the normal: no self-shadow acne
  out_color = vec4(fl_shade_look(base, n, view_dir, fl_sun(lit), pc.look), pc.color.a);
}
