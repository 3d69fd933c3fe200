// render/snow_volume.frag: the snow grid's density ray-marched through the
// box of its occupied bricks (render/snow_bricks), the translucent look (key V).
// render/snow_march.glsl reads and interpolates the density, clips the ray to
// the box and the ground and skips the empty bricks. Absorption is
// Beer-Lambert with an extinction growing with density (pc.extinction at the
// rest density). What the ray sees is shaded once, as snow of its
// opacity-weighted density (render/snow.glsl), with the outward normal
// -grad(rho) by the tetrahedral four-point gradient where the ray turns opaque
// (else the weighted trilinear gradient), plus, for loose snow, a
// Henyey-Greenstein forward-scattering term of the sun. The march takes at most
// pc.max_steps steps of pc.step and stops once the ray is opaque. The
// fragment's depth is where the transmittance falls below one half (else the
// mean depth of what was seen), so the depth test against the scene (ground,
// meshes, particles, drawn before) hides snow behind them.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "snow.glsl"
#include "snow_march.glsl"

layout(location = 0) out vec4 out_color;

// Henyey-Greenstein phase function; cos_theta between the light's travel and the scattered ray.
float henyey_greenstein(float cos_theta, float g)
{
  float d = 1.0 + g * g - 2.0 * g * cos_theta;
  return (1.0 - g * g) / (4.0 * 3.14159265 * d * sqrt(d));
}

void main()
{
  vec3 rd = normalize(v_world - frame.eye);
  fl_snow_ray ray;
  if (!fl_snow_ray_begin(rd, v_box_min, v_box_max, ray)) discard;
  float t0 = ray.t0, t1 = ray.t1;

  float rho0 = pc.rest_density, empty = pc.empty_density;
  float dt = max(pc.step, (t1 - t0) / float(pc.max_steps));
  int steps = min(int(ceil((t1 - t0) / dt)), int(pc.max_steps));
  // interleaved gradient noise: a per-pixel start offset turns banding into fine grain
  float jitter = fract(52.9829189 * fract(dot(gl_FragCoord.xy, vec2(0.06711056, 0.00583715))));
  float sigma = pc.extinction / rho0 * dt;           // optical depth of one step per kg/m^3
  float forward = henyey_greenstein(dot(rd, frame.light_dir), 0.6);  // looking towards the sun

  // Front-to-back compositing of the samples' opacity; what they show is
  // shaded once per ray, from their weighted albedo, density and gradient.
  vec3 albedo = vec3(0.0), grad_sum = vec3(0.0);
  float transmittance = 1.0, t_surface = -1.0, weight_sum = 0.0, weighted_t = 0.0, weighted_q = 0.0;
  for (int s = 0; s < steps && transmittance > 0.01; s++) {
    float t = t0 + dt * (float(s) + jitter);
    vec3 g = fl_snow_ray_at(ray, t);
    float t_exit = fl_snow_empty_until(ray, g);
    if (t_exit >= 0.0) { // jump to the first sample past the empty bricks
      s = max(s, int(ceil((t_exit - t0) / dt - jitter)) - 1);
      continue;
    }
    vec3 grad;
    float rho = fl_snow_density(g, grad);
    if (rho <= empty) continue;
    float q = rho / rho0;
    // a sharper edge than density alone: loose snow thins out faster than linearly
    float a = 1.0 - exp(-sigma * rho * mix(0.3, 1.0, smoothstep(0.15, 0.7, q)));
    float w = transmittance * a;
    albedo += w * fl_snow_albedo(pc.color.rgb, q);
    weighted_q += w * q;
    grad_sum += w * grad;
    weight_sum += w;
    weighted_t += w * t;
    transmittance *= 1.0 - a;
    if (t_surface < 0.0 && transmittance < 0.5) t_surface = t; // where the ray turns opaque
  }
  float alpha = 1.0 - transmittance;
  if (alpha < 0.004) discard;
  vec3 surface_grad = grad_sum;
  if (t_surface >= 0.0) { // a smooth normal there, a cell apart
    surface_grad = fl_snow_smooth_gradient(fl_snow_ray_at(ray, t_surface), 1.0);
  } else {
    t_surface = weighted_t / weight_sum;
  }
  float q = weighted_q / weight_sum;
  float glen = length(surface_grad);
  vec3 n = glen > 1e-6 * rho0 ? -surface_grad / glen : -rd;
  vec3 color = fl_snow_shade(albedo / weight_sum, q, n, -rd, 1.0);
  color += vec3(1.0, 0.96, 0.9) * forward * 0.8 * fl_snow_looseness(q);
  vec4 clip = frame.view_proj * vec4(frame.eye + rd * t_surface, 1.0);
  gl_FragDepth = clamp(clip.z / clip.w, 0.0, 1.0);
  out_color = vec4(color, alpha);
}
