// render/snow.glsl: the look of snow from its density ratio q = rho / rho0
// (rho: the MPM grid's density, rho0: the snow's rest density). Loose snow
// (spray, the edges of fragments, q well below 1) is lighter, bluish and
// scatters light further round (translucent-looking); packed snow (q ~ 1) is
// white with soft shading; compacted snow (q > 1) turns greyer and bluer, like
// trodden snow. Lighting: a cool sky, a warm sun with wrap diffuse, and a blue
// tint where the wrap carries light past the terminator (subsurface-like).
// Shared by render/snow (impostors) and render/snow_volume (ray march).
#ifndef FL_SNOW_GLSL
#define FL_SNOW_GLSL
#include "frame.glsl"

// How loose snow of density ratio q is: 1 for a lone particle (q ~ 0.07 with
// 8 particles per cell), 0 from about the edge of a packed chunk (q ~ 0.6) on.
float fl_snow_looseness(float q)
{
  return 1.0 - smoothstep(0.08, 0.6, q);
}

// Albedo of snow of density ratio q; `base` is the colour of packed snow.
vec3 fl_snow_albedo(vec3 base, float q)
{
  const vec3 loose = vec3(0.80, 0.88, 1.00);
  const vec3 compacted = vec3(0.66, 0.72, 0.84);
  vec3 a = mix(base, loose, fl_snow_looseness(q));
  return mix(a, compacted, smoothstep(1.1, 1.8, q));
}

// Radiance of snow with albedo `albedo` and density ratio q at a point of
// normal n, seen along view_dir (unit, towards the eye), where `sun` of the
// direct light arrives (1: lit, less in shadow; fl_sun). Linear colour.
vec3 fl_snow_shade(vec3 albedo, float q, vec3 n, vec3 view_dir, float sun)
{
  float looseness = fl_snow_looseness(q);
  float ndl = dot(n, frame.light_dir);
  float wrap = mix(0.35, 0.8, looseness);
  float lambert = max(ndl, 0.0);
  float wrapped = max((ndl + wrap) / (1.0 + wrap), 0.0);
  vec3 sky = mix(vec3(0.18, 0.21, 0.28), vec3(0.36, 0.43, 0.56), n.y * 0.5 + 0.5);
  vec3 sunlight = vec3(1.0, 0.96, 0.90) * 0.7 * sun;
  vec3 subsurface = vec3(0.30, 0.50, 0.85) * (wrapped - lambert) * mix(0.45, 0.9, looseness) * mix(0.4, 1.0, sun);
  float rim = pow(1.0 - max(dot(n, view_dir), 0.0), 3.0) * mix(0.06, 0.22, looseness);
  return albedo * (sky + sunlight * mix(lambert, wrapped, 0.5) + subsurface) + rim * vec3(0.75, 0.85, 1.0);
}

// PCG hash (O'Neill 2014, the RXS-M-XS output of Jarzynski & Olano 2020).
uint fl_snow_hash(uint v)
{
  uint h = v * 747796405u + 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  return (h >> 22u) ^ h;
}

// The random number (32 bits) of the cell of `grain` metres holding `world`.
uint fl_snow_grain_hash(vec3 world, float grain)
{
  uvec3 c = uvec3(ivec3(floor(world / grain)) + ivec3(1 << 20));
  return fl_snow_hash(c.x ^ fl_snow_hash(c.y ^ fl_snow_hash(c.z)));
}

// The grain of a snow surface: space is cut into cells of `grain` metres, each
// a grain of its own brightness (returned, 0.92..1) whose normal leans from n by
// a little (n_out), so the surface reads as granular, not as plaster.
float fl_snow_grain(vec3 world, float grain, vec3 n, out vec3 n_out)
{
  uint h = fl_snow_grain_hash(world, grain);
  vec3 lean = vec3(uvec3(h, h >> 8u, h >> 16u) & 255u) * (2.0 / 255.0) - 1.0;
  n_out = normalize(n + 0.12 * lean);
  return 0.92 + 0.08 * float(h >> 24u) / 255.0;
}

// Sparkle: the glints of ice grains. One cell of `grain` metres in eight holds a
// mirror facet whose normal leans from n by a random amount; it glints when it
// reflects the sun into the eye ((n'.h)^300 of the half vector h, Blinn-Phong).
// White, scaled by `sun` (no glints in shadow).
vec3 fl_snow_sparkle(vec3 world, float grain, vec3 n, vec3 view_dir, float sun)
{
  uint h = fl_snow_grain_hash(world, grain);
  if ((h & 7u) != 0u) return vec3(0.0);
  vec3 lean = vec3(uvec3(h >> 8u, h >> 16u, h >> 24u) & 255u) * (2.0 / 255.0) - 1.0;
  vec3 facet = normalize(n + 0.6 * lean);
  vec3 half_vector = normalize(frame.light_dir + view_dir);
  float glint = pow(max(dot(facet, half_vector), 0.0), 300.0) * step(0.0, dot(n, frame.light_dir));
  return vec3(3.0) * (glint * sun);
}
#endif
