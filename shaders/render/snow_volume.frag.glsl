// render/snow_volume.frag: the snow grid's density ray-marched through the
// box of its occupied bricks (render/snow_bricks). Density is read from the
// storage buffer (render/snow_grid.glsl) and interpolated trilinearly by hand.
// Absorption is Beer-Lambert with an extinction growing with density (params.y
// at the rest density). What the ray sees is shaded once, as snow of its
// opacity-weighted density (render/snow.glsl), with the outward normal
// -grad(rho) by the tetrahedral four-point gradient where the ray turns opaque
// (else the weighted trilinear gradient), plus, for loose snow, a
// Henyey-Greenstein forward-scattering term of the sun. The march runs in grid
// units from the eye or the box to the box's far side or the ground plane, at
// most dims.w steps of params.z, jumps over the empty bricks around it (their
// Chebyshev distance, render/snow_brick_distance), and stops once the ray is
// opaque. The fragment's depth is where the transmittance falls below
// one half (else the mean depth of what was seen), so the depth test against
// the scene (ground, meshes, particles, drawn before) hides snow behind them.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "snow.glsl"

layout(std430, binding = 1) readonly buffer Density { float density[]; };  // kg/m^3 per node
layout(std430, binding = 2) readonly buffer Bricks { uint brick_distance[]; };  // render/snow_brick_distance
layout(push_constant) uniform Push { fl_snow_push pc; };
#include "snow_grid.glsl"
layout(location = 0) in vec3 v_world;
layout(location = 1) flat in vec3 v_box_min;
layout(location = 2) flat in vec3 v_box_max;
layout(location = 0) out vec4 out_color;

// Trilinear density at grid position g (node units); `grad` its gradient in
// kg/m^3 per node (discontinuous across cell faces: surfaces use a smoother one).
float density_at(vec3 g, out vec3 grad)
{
  uvec3 dims = pc.dims;
  g = clamp(g, vec3(0.0), vec3(dims - 1u));
  uvec3 i = min(uvec3(g), dims - 2u);
  vec3 f = g - vec3(i);
  uint sy = dims.x, sz = dims.x * dims.y, b = fl_snow_node_index(i);
  float c000 = density[b], c100 = density[b + 1u];
  float c010 = density[b + sy], c110 = density[b + sy + 1u];
  float c001 = density[b + sz], c101 = density[b + sz + 1u];
  float c011 = density[b + sz + sy], c111 = density[b + sz + sy + 1u];
  float c00 = mix(c000, c100, f.x), c10 = mix(c010, c110, f.x);
  float c01 = mix(c001, c101, f.x), c11 = mix(c011, c111, f.x);
  float c0 = mix(c00, c10, f.y), c1 = mix(c01, c11, f.y);
  grad = vec3(mix(mix(c100 - c000, c110 - c010, f.y), mix(c101 - c001, c111 - c011, f.y), f.z),
              mix(c10 - c00, c11 - c01, f.z), c1 - c0);
  return mix(c0, c1, f.z);
}

float density_at(vec3 g)
{
  vec3 unused;
  return density_at(g, unused);
}

// Henyey-Greenstein phase function; cos_theta between the light's travel and the scattered ray.
float henyey_greenstein(float cos_theta, float g)
{
  float d = 1.0 + g * g - 2.0 * g * cos_theta;
  return (1.0 - g * g) / (4.0 * 3.14159265 * d * sqrt(d));
}

void main()
{
  float h = pc.h;
  vec3 rd = normalize(v_world - frame.eye);
  vec3 ro = (frame.eye - pc.grid_origin) / h;     // grid units; t stays in metres
  vec3 rd_g = rd / h;
  vec3 safe = mix(vec3(1e-8), rd_g, greaterThan(abs(rd_g), vec3(1e-8)));
  vec3 ta = ((v_box_min - pc.grid_origin) / h - ro) / safe, tb = ((v_box_max - pc.grid_origin) / h - ro) / safe;
  vec3 tn = min(ta, tb), tf = max(ta, tb);
  float t0 = max(max(max(tn.x, tn.y), tn.z), 0.0);
  float t1 = min(min(tf.x, tf.y), tf.z);
  float ground = frame.ground_height;
  if (rd.y < 0.0 && frame.eye.y > ground) t1 = min(t1, (ground - frame.eye.y) / rd.y);
  if (t1 <= t0) discard;

  float rho0 = pc.rest_density, empty = pc.empty_density;
  float dt = max(pc.step, (t1 - t0) / float(pc.max_steps));
  int steps = min(int(ceil((t1 - t0) / dt)), int(pc.max_steps));
  // interleaved gradient noise: a per-pixel start offset turns banding into fine grain
  float jitter = fract(52.9829189 * fract(dot(gl_FragCoord.xy, vec2(0.06711056, 0.00583715))));
  float sigma = pc.extinction / rho0 * dt;           // optical depth of one step per kg/m^3
  float forward = henyey_greenstein(dot(rd, frame.light_dir), 0.6);  // looking towards the sun
  uvec3 last_brick = fl_snow_brick_dims() - 1u;
  vec3 exit_side = vec3(greaterThan(rd, vec3(0.0)));  // 1 where the ray leaves a brick by its upper face
  const float B = float(FL_SNOW_BRICK);

  // Front-to-back compositing of the samples' opacity; what they show is
  // shaded once per ray, from their weighted albedo, density and gradient.
  vec3 albedo = vec3(0.0), grad_sum = vec3(0.0);
  float transmittance = 1.0, t_surface = -1.0, weight_sum = 0.0, weighted_t = 0.0, weighted_q = 0.0;
  for (int s = 0; s < steps && transmittance > 0.01; s++) {
    float t = t0 + dt * (float(s) + jitter);
    vec3 g = ro + rd_g * t;
    uvec3 b = min(uvec3(max(g / B, vec3(0.0))), last_brick);
    float d = float(brick_distance[fl_snow_brick_index(b)]);
    if (d > 0.0) { // the bricks within d - 1 of b are empty: jump to the first sample past them
      vec3 tb = ((vec3(b) + mix(vec3(1.0 - d), vec3(d), exit_side)) * B - ro) / safe;
      float t_exit = min(min(tb.x, tb.y), tb.z);
      s = max(s, int(ceil((t_exit - t0) / dt - jitter)) - 1);
      continue;
    }
    vec3 grad;
    float rho = density_at(g, grad);
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
  if (t_surface >= 0.0) { // a smooth normal there: the tetrahedral four-point gradient, a cell apart
    vec3 g = ro + rd_g * t_surface;
    const vec2 k = vec2(1.0, -1.0);
    surface_grad = k.xyy * density_at(g + k.xyy) + k.yyx * density_at(g + k.yyx) +
                   k.yxy * density_at(g + k.yxy) + k.xxx * density_at(g + k.xxx);
  } else {
    t_surface = weighted_t / weight_sum;
  }
  float q = weighted_q / weight_sum;
  float glen = length(surface_grad);
  vec3 n = glen > 1e-6 * rho0 ? -surface_grad / glen : -rd;
  vec3 color = fl_snow_shade(albedo / weight_sum, q, n, -rd);
  color += vec3(1.0, 0.96, 0.9) * forward * 0.8 * fl_snow_looseness(q);
  vec4 clip = frame.view_proj * vec4(frame.eye + rd * t_surface, 1.0);
  gl_FragDepth = clamp(clip.z / clip.w, 0.0, 1.0);
  out_color = vec4(color, alpha);
}
