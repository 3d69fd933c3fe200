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
// normal n, seen along view_dir (unit, towards the eye). Linear colour.
vec3 fl_snow_shade(vec3 albedo, float q, vec3 n, vec3 view_dir)
{
  float looseness = fl_snow_looseness(q);
  float ndl = dot(n, frame.light_dir);
  float wrap = mix(0.35, 0.8, looseness);
  float lambert = max(ndl, 0.0);
  float wrapped = max((ndl + wrap) / (1.0 + wrap), 0.0);
  vec3 sky = mix(vec3(0.18, 0.21, 0.28), vec3(0.36, 0.43, 0.56), n.y * 0.5 + 0.5);
  vec3 sun = vec3(1.0, 0.96, 0.90) * 0.7;
  vec3 subsurface = vec3(0.30, 0.50, 0.85) * (wrapped - lambert) * mix(0.45, 0.9, looseness);
  float rim = pow(1.0 - max(dot(n, view_dir), 0.0), 3.0) * mix(0.06, 0.22, looseness);
  return albedo * (sky + sun * mix(lambert, wrapped, 0.5) + subsurface) + rim * vec3(0.75, 0.85, 1.0);
}
#endif
