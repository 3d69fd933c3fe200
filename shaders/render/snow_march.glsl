// render/snow_march.glsl: a view ray through the snow density grid, shared by
// render/snow_volume (translucent march) and render/snow_surface (iso-surface).
// The density is read from the storage buffer and interpolated trilinearly by
// hand; the ray runs in grid units (t in metres) from the eye or the box of the
// occupied bricks (render/snow_volume.vert) to the box's far side or the ground
// plane, and jumps over the empty bricks around a sample (their Chebyshev
// distance, render/snow_brick_distance). Declares the fragment stage's
// buffers (density, brick distances), push constants and inputs.
#ifndef FL_SNOW_MARCH_GLSL
#define FL_SNOW_MARCH_GLSL
#include "flurry_shared.h"
#include "frame.glsl"

layout(std430, binding = 1) readonly buffer Density { float density[]; };  // kg/m^3 per node
layout(std430, binding = 2) readonly buffer Bricks { uint brick_distance[]; };  // render/snow_brick_distance
layout(push_constant) uniform Push { fl_snow_push pc; };
layout(location = 0) in vec3 v_world;        // a point of the box's back face (render/snow_volume.vert)
layout(location = 1) flat in vec3 v_box_min; // the box of the occupied bricks
layout(location = 2) flat in vec3 v_box_max;
#include "snow_grid.glsl"

// Trilinear density at grid position g (node units); `grad` its gradient in
// kg/m^3 per node (discontinuous across cell faces: surfaces use a smoother one).
float fl_snow_density(vec3 g, out vec3 grad)
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

float fl_snow_density(vec3 g)
{
  vec3 unused;
  return fl_snow_density(g, unused);
}

// A smooth gradient of the density at g: the tetrahedral four-point difference,
// `r` nodes apart (it spans the cell faces where the trilinear one jumps).
vec3 fl_snow_smooth_gradient(vec3 g, float r)
{
  const vec2 k = vec2(1.0, -1.0);
  return k.xyy * fl_snow_density(g + r * k.xyy) + k.yyx * fl_snow_density(g + r * k.yyx) +
         k.yxy * fl_snow_density(g + r * k.yxy) + k.xxx * fl_snow_density(g + r * k.xxx);
}

struct fl_snow_ray {
  vec3 ro;     // the eye, in grid units
  vec3 rd_g;   // the direction, in grid units per metre
  vec3 safe;   // rd_g with no zero component (for divisions)
  vec3 exit_side; // 1 where the ray leaves a brick by its upper face
  float t0, t1; // metres along the ray: where it enters and leaves the box (or meets the ground)
};

// The ray from the eye along unit `rd` through the box [box_min, box_max]
// (world); false when it misses the box or the box lies below the ground.
bool fl_snow_ray_begin(vec3 rd, vec3 box_min, vec3 box_max, out fl_snow_ray r)
{
  float h = pc.h;
  r.ro = (frame.eye - pc.grid_origin) / h;
  r.rd_g = rd / h;
  r.safe = mix(vec3(1e-8), r.rd_g, greaterThan(abs(r.rd_g), vec3(1e-8)));
  r.exit_side = vec3(greaterThan(rd, vec3(0.0)));
  vec3 ta = ((box_min - pc.grid_origin) / h - r.ro) / r.safe, tb = ((box_max - pc.grid_origin) / h - r.ro) / r.safe;
  vec3 tn = min(ta, tb), tf = max(ta, tb);
  r.t0 = max(max(max(tn.x, tn.y), tn.z), 0.0);
  r.t1 = min(min(tf.x, tf.y), tf.z);
  float ground = frame.ground_height;
  if (rd.y < 0.0 && frame.eye.y > ground) r.t1 = min(r.t1, (ground - frame.eye.y) / rd.y);
  return r.t1 > r.t0;
}

// Grid position of the ray at t (metres).
vec3 fl_snow_ray_at(fl_snow_ray r, float t) { return r.ro + r.rd_g * t; }

// Where the empty bricks around grid position g end along the ray (metres), or
// -1 when g's brick holds snow.
float fl_snow_empty_until(fl_snow_ray r, vec3 g)
{
  const float B = float(FL_SNOW_BRICK);
  uvec3 b = min(uvec3(max(g / B, vec3(0.0))), fl_snow_brick_dims() - 1u);
  float d = float(brick_distance[fl_snow_brick_index(b)]);
  if (d <= 0.0) return -1.0;
  // the bricks within d - 1 of b are empty: the ray leaves that cube first
  vec3 tb = ((vec3(b) + mix(vec3(1.0 - d), vec3(d), r.exit_side)) * B - r.ro) / r.safe;
  return min(min(tb.x, tb.y), tb.z);
}
#endif
