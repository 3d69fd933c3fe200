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

// fl_shade_lit with a material's look (FL_LOOK_*). Fabric: a thin sheet lets the
// light wrap past the terminator (wrapped Lambert, max(n.l + w, 0) / (1 + w)) and
// its fibres brighten at grazing angles (a sheen ~ (1 - n.v)^3); no highlight.
// Glossy: a Blinn-Phong highlight ((n.h)^80) and a Schlick-like rim ((1 - n.v)^5).
vec3 fl_shade_look(vec3 base, vec3 n, vec3 view_dir, float sun, uint look)
{
  vec3 c = fl_shade_lit(base, n, view_dir, sun);
  float nl = dot(n, frame.light_dir), nv = max(dot(n, view_dir), 0.0);
  if (look == FL_LOOK_FABRIC) {
    float wrap = max(nl + 0.4, 0.0) / 1.4 - max(nl, 0.0);
    c += base * (0.6 * wrap * sun) + (0.5 * pow(1.0 - nv, 3.0)) * (0.6 * base + 0.15);
  } else if (look == FL_LOOK_GLOSSY) {
    vec3 h = normalize(frame.light_dir + view_dir);
    c += vec3(0.8) * (pow(max(dot(n, h), 0.0), 80.0) * sun * step(0.0, nl)) + 0.2 * pow(1.0 - nv, 5.0);
  }
  return c;
}

// A mesh view's rotation (fl_draw_push.rotation, a unit quaternion; zero leaves v as it is).
vec3 fl_rotate_mesh(vec4 q, vec3 v) { return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }

// How much direct light reaches a point that the shadow map finds `lit` (0..1).
float fl_sun(float lit) { return mix(1.0, lit, frame.shadow_strength); }
#endif
