// render/shadow.glsl: the shadow lookup of the receivers (ground, meshes). The
// shadow map is the light's depth image copied into a storage buffer (binding 6,
// one float a texel, row-major; render/shadow.h): 3x3 percentage-closer
// filtering of the comparison depth <= stored + bias.
#ifndef FL_SHADOW_GLSL
#define FL_SHADOW_GLSL
#include "frame.glsl"

layout(std430, binding = 6) readonly buffer ShadowMap { float shadow_depth[]; };

// 1 where `world` sees the light, 0 in full shadow, softened over a texel.
float fl_shadow_lit(vec3 world)
{
  uint size = frame.shadow_size;
  if (size == 0u) return 1.0;
  vec4 clip = frame.light_view_proj * vec4(world, 1.0);
  vec3 p = clip.xyz / clip.w;
  vec2 uv = p.xy * 0.5 + 0.5;
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || p.z > 1.0) return 1.0;
  ivec2 texel = ivec2(uv * float(size));
  float lit = 0.0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      ivec2 t = clamp(texel + ivec2(dx, dy), ivec2(0), ivec2(int(size) - 1));
      lit += p.z <= shadow_depth[uint(t.y) * size + uint(t.x)] + frame.shadow_bias ? 1.0 : 0.0;
    }
  return lit / 9.0;
}
#endif
