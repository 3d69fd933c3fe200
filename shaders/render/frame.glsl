// render/frame.glsl: the per-frame uniforms every render pass reads (binding 0),
// and the shared lighting.
#ifndef FL_FRAME_GLSL
#define FL_FRAME_GLSL
#include "flurry_shared.h"

layout(std140, binding = 0) uniform Frame { fl_frame_uniforms frame; };

// Lambert + a little ambient and rim, in linear colour; `sun` scales the direct
// light (1: lit, less in shadow).
vec3 fl_shade_lit(vec3 base, vec3 n, vec3 view_dir, float sun)
{
  float diffuse = max(dot(n, frame.light_dir), 0.0) * sun;
  float rim = pow(1.0 - max(dot(n, view_dir), 0.0), 3.0);
  vec3 sky = mix(vec3(0.25, 0.22, 0.2), vec3(0.35, 0.4, 0.5), n.y * 0.5 + 0.5);
  return base * (sky + diffuse * vec3(1.0, 0.96, 0.9)) + 0.15 * rim;
}

vec3 fl_shade(vec3 base, vec3 n, vec3 view_dir) { return fl_shade_lit(base, n, view_dir, 1.0); }

// A mesh view's rotation (fl_draw_push.rotation, a unit quaternion; zero leaves v as it is).
vec3 fl_rotate_mesh(vec4 q, vec3 v) { return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }

// How much direct light reaches a point that the shadow map finds `lit` (0..1).
float fl_sun(float lit) { return mix(1.0, lit, frame.shadow_strength); }
#endif
