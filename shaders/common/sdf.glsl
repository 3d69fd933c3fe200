// common/sdf.glsl: the one signed-distance interface every material uses for
// colliders. Negative inside the solid. fl_collider_normal is the analytic
// gradient of the built-in shapes; fl_collider_normal_tetra is the generic
// four-point tetrahedral finite difference of the SDF note (002, NOTES.md
// section 1), for any SDF:
//   grad f(p) ~ sum_i k_i f(p + h k_i) / (4h),  k = (1,-1,-1), (-1,-1,1), (-1,1,-1), (1,1,1).
// src/sim/common/sdf_cpu.c mirrors this file exactly for the CPU references.
#ifndef FL_SDF_GLSL
#define FL_SDF_GLSL
#include "flurry_shared.h"

#define FL_SDF_GRADIENT_STEP 1e-3

// How long collider c has moved by time t: t, or move_until once it stopped.
float fl_collider_moved_time(fl_gpu_collider c, float t)
{
  return c.move_until > 0.0 ? min(t, c.move_until) : t;
}

// The collider's velocity at time t: zero once it stopped.
vec3 fl_collider_velocity(fl_gpu_collider c, float t)
{
  return c.move_until > 0.0 && t > c.move_until ? vec3(0.0) : c.velocity;
}

// Distance from p to collider c at time t (c moves by velocity * moved time).
float fl_collider_sdf(fl_gpu_collider c, vec3 p, float t)
{
  vec3 q = p - c.velocity * fl_collider_moved_time(c, t);
  uint shape = c.shape;
  float d;
  if (shape == FL_GPU_SHAPE_PLANE) {
    d = dot(c.a, q) - c.r;
  } else if (shape == FL_GPU_SHAPE_SPHERE) {
    d = length(q - c.a) - c.r;
  } else if (shape == FL_GPU_SHAPE_BOX) {
    vec3 e = abs(q - c.a) - c.b;
    d = length(max(e, vec3(0.0))) + min(max(e.x, max(e.y, e.z)), 0.0);
  } else {  // capsule
    vec3 pa = q - c.a, ba = c.b - c.a;
    float h = clamp(dot(pa, ba) / max(dot(ba, ba), 1e-12), 0.0, 1.0);
    d = length(pa - ba * h) - c.r;
  }
  return c.inside != 0u ? -d : d;  // a container is solid outside
}

// Unit outward normal (the SDF's analytic gradient) at p; +y where it is undefined.
vec3 fl_collider_normal(fl_gpu_collider c, vec3 p, float t)
{
  vec3 q = p - c.velocity * fl_collider_moved_time(c, t);
  uint shape = c.shape;
  vec3 g;
  if (shape == FL_GPU_SHAPE_PLANE) {
    g = c.a;
  } else if (shape == FL_GPU_SHAPE_SPHERE) {
    g = q - c.a;
  } else if (shape == FL_GPU_SHAPE_BOX) {
    vec3 d = q - c.a, e = abs(d) - c.b, s = vec3(d.x < 0.0 ? -1.0 : 1.0, d.y < 0.0 ? -1.0 : 1.0,
                                                           d.z < 0.0 ? -1.0 : 1.0);
    if (max(e.x, max(e.y, e.z)) > 0.0) {
      g = max(e, vec3(0.0)) * s;  // outside: towards the nearest point of the surface
    } else {                      // inside: the face of least penetration
      g = e.x >= e.y && e.x >= e.z ? vec3(s.x, 0.0, 0.0) : (e.y >= e.z ? vec3(0.0, s.y, 0.0) : vec3(0.0, 0.0, s.z));
    }
  } else {  // capsule
    vec3 pa = q - c.a, ba = c.b - c.a;
    float h = clamp(dot(pa, ba) / max(dot(ba, ba), 1e-12), 0.0, 1.0);
    g = pa - ba * h;
  }
  float len = length(g);
  vec3 n = len > 1e-20 ? g / len : vec3(0.0, 1.0, 0.0);
  return c.inside != 0u ? -n : n;
}

// The generic normal: tetrahedral finite difference of fl_collider_sdf, normalized.
vec3 fl_collider_normal_tetra(fl_gpu_collider c, vec3 p, float t)
{
  const float h = FL_SDF_GRADIENT_STEP;
  const vec3 k0 = vec3(1, -1, -1), k1 = vec3(-1, -1, 1), k2 = vec3(-1, 1, -1), k3 = vec3(1, 1, 1);
  vec3 g = k0 * fl_collider_sdf(c, p + h * k0, t) + k1 * fl_collider_sdf(c, p + h * k1, t) +
           k2 * fl_collider_sdf(c, p + h * k2, t) + k3 * fl_collider_sdf(c, p + h * k3, t);
  float len = length(g);
  return len > 1e-20 ? g / len : vec3(0.0, 1.0, 0.0);
}

// The normal a material uses: analytic, or the generic tetrahedral one when
// `tetrahedral` (sim.collider_normals, so CPU drivers test that path too).
vec3 fl_collider_normal_select(fl_gpu_collider c, vec3 p, float t, bool tetrahedral)
{
  return tetrahedral ? fl_collider_normal_tetra(c, p, t) : fl_collider_normal(c, p, t);
}

#endif
