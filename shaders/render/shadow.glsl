// render/shadow.glsl: the shadow lookup of the receivers (ground, meshes). The
// shadow map is the light's depth image copied into a storage buffer (binding 6,
// one float a texel, row-major; render/shadow.h): bilinear percentage-closer
// filtering (four texels) of the comparison depth <= stored + bias.
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
  // 2x2 texels around the point, weighted by where it falls between them (bilinear PCF)
  vec2 f = uv * float(size) - 0.5;
  ivec2 texel = ivec2(floor(f));
  vec2 w = fract(f);
  float t[4];
  for (int k = 0; k < 4; k++) {
    ivec2 c = clamp(texel + ivec2(k & 1, k >> 1), ivec2(0), ivec2(int(size) - 1));
    t[k] = p.z <= shadow_depth[uint(c.y) * size + uint(c.x)] + frame.shadow_bias ? 1.0 : 0.0;
  }
  return mix(mix(t[0], t[1], w.x), mix(t[2], t[3], w.x), w.y);
}
#endif
