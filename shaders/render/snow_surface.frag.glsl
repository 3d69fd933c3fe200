// render/snow_surface.frag: snow as the lit, opaque iso-surface of the grid
// density, rho = pc.iso * rho0, the default look. The ray runs through the box
// of the occupied bricks (render/snow_volume.vert, render/snow_march.glsl) a
// step of pc.step at a time, skipping empty bricks; at the first step that
// crosses the iso-value the crossing is refined by bisection (the density is
// continuous along the ray), so the edge is sharp: no halo, no dithering. The
// normal is -grad(rho) by the tetrahedral difference a cell apart (smooth
// across cell faces, render/snow_march.glsl). Shading (render/snow.glsl): the
// albedo of the density a cell inside the surface (packed or compacted snow),
// the scene's shadow map at the surface point (render/shadow.glsl, offset
// half a cell along the normal), a cavity term from the density a cell and a
// half outside (snow in front of the surface occludes the sky), the grain of
// 4 mm cells (brightness and a slight lean of the normal) and the sparkle of
// ice grains. Writes the surface's depth, like any opaque pass.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "shadow.glsl"
#include "snow.glsl"
#include "snow_march.glsl"

layout(location = 0) out vec4 out_color;

const float SNOW_GRAIN = 0.004; // metres: the size of a grain (grain and sparkle, render/snow.glsl)

void main()
{
  vec3 rd = normalize(v_world - frame.eye);
  fl_snow_ray ray;
  if (!fl_snow_ray_begin(rd, v_box_min, v_box_max, ray)) discard;
  float rho0 = pc.rest_density, iso = pc.iso * rho0;
  float dt = max(pc.step, (ray.t1 - ray.t0) / float(pc.max_steps));
  int steps = min(int(ceil((ray.t1 - ray.t0) / dt)), int(pc.max_steps));

  // the first sample at or above the iso-value, and the sample before it
  float t_in = -1.0, t_out = ray.t0;
  for (int s = 0; s <= steps; s++) {
    float t = min(ray.t0 + dt * float(s), ray.t1);
    vec3 g = fl_snow_ray_at(ray, t);
    float t_exit = fl_snow_empty_until(ray, g);
    if (t_exit >= 0.0) { // empty bricks: below the iso-value up to t_exit
      s = max(s, int(floor((t_exit - ray.t0) / dt)));
      t_out = min(max(t, t_exit), ray.t1);
      continue;
    }
    if (fl_snow_density(g) >= iso) {
      t_in = t;
      break;
    }
    t_out = t;
  }
  if (t_in < 0.0) discard;
  if (t_in > t_out) { // bisection between the last sample outside and the first inside
    for (int i = 0; i < 6; i++) {
      float t = 0.5 * (t_out + t_in);
      if (fl_snow_density(fl_snow_ray_at(ray, t)) >= iso) t_in = t;
      else t_out = t;
    }
  }
  vec3 g = fl_snow_ray_at(ray, t_in), world = frame.eye + rd * t_in;
  vec3 grad = fl_snow_smooth_gradient(g, 1.0);
  float glen = length(grad);
  vec3 n = glen > 1e-6 * rho0 ? -grad / glen : -rd;
  vec3 view_dir = -rd;
  float q_inside = fl_snow_density(g - n) / rho0;
  float cavity = 1.0 - 0.45 * smoothstep(0.1, 0.8, fl_snow_density(g + 1.5 * n) / rho0);
  float sun = fl_sun(fl_shadow_lit(world + n * (0.5 * pc.h)));
  vec3 n_grain;
  float grain = fl_snow_grain(world, SNOW_GRAIN, n, n_grain);
  vec3 albedo = fl_snow_albedo(pc.color.rgb, max(q_inside, 0.6)) * grain;
  vec3 color = fl_snow_shade(albedo, max(q_inside, 0.6), n_grain, view_dir, sun) * cavity;
  color += fl_snow_sparkle(world, SNOW_GRAIN, n, view_dir, sun);
  vec4 clip = frame.view_proj * vec4(world, 1.0);
  gl_FragDepth = clamp(clip.z / clip.w, 0.0, 1.0);
  out_color = vec4(color, 1.0);
}
