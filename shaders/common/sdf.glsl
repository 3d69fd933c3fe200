// common/sdf.glsl: the one signed-distance interface every material uses for
// colliders. Negative inside the solid. A kernel that uses colliders defines
// FL_COLLIDERS_BINDING and FL_COLLIDER_TAIL_BINDING (two binding numbers, both
// given the collider block) before including this file, which then declares the
// block (records, then the tail of keyframes and mesh SDF grids) and the functions below.
//
// Each collider is a rest shape moved rigidly (flurry_shared.h, fl_gpu_collider):
// a point p is tested by taking it back to the rest frame, q = R^T (p - c(t)) + pivot
// with c(t) the pivot's place at t. fl_collider_normal is the analytic gradient
// of the built-in shapes, turned by R; fl_collider_normal_tetra is the generic
// four-point tetrahedral finite difference of the SDF note (002, NOTES.md section 1):
//   grad f(p) ~ sum_i k_i f(p + h k_i) / (4h),  k = (1,-1,-1), (-1,-1,1), (-1,1,-1), (1,1,1),
// and the only normal of a mesh, whose SDF is baked on a grid at load
// (src/sim/common/mesh_sdf.c) and read here by trilinear interpolation.
// fl_collider_velocity is the velocity of the collider's material point at p,
// v + omega x (p - c(t)), the v_co of Stomakhin 2013 Sec. 8.
// src/sim/common/sdf_cpu.c mirrors this file exactly for the CPU references.
#ifndef FL_SDF_GLSL
#define FL_SDF_GLSL
#include "flurry_shared.h"

#define FL_SDF_GRADIENT_STEP 1e-3

#ifdef FL_COLLIDERS_BINDING
// Which collider code this pipeline keeps (flurry_shared.h, FL_COLLIDER_FEATURE_*):
// set at pipeline creation from fl_gpu.collider_features, so the tests below fold
// and the dead paths vanish (llvmpipe would otherwise run every side of every
// branch for every particle and collider). 0: the translation-only path.
layout(constant_id = FL_COLLIDER_FEATURES_SPEC_ID) const uint FL_COLLIDER_FEATURES = FL_COLLIDER_FEATURES_ALL;
const bool FL_COLLIDERS_ROTATE = (FL_COLLIDER_FEATURES & FL_COLLIDER_FEATURE_ROTATION) != 0u;
const bool FL_COLLIDERS_MESH = (FL_COLLIDER_FEATURES & FL_COLLIDER_FEATURE_MESH) != 0u;

// The records through a uniform binding (every invocation reads the same record: the
// constant path on GPUs, one load per SIMD group on llvmpipe), and the same buffer
// again as a storage buffer for the tail, which only mesh and keyframed colliders read.
layout(std140, binding = FL_COLLIDERS_BINDING) uniform Colliders { fl_gpu_collider colliders[FL_MAX_COLLIDERS]; };
layout(std430, binding = FL_COLLIDER_TAIL_BINDING) readonly buffer ColliderTail
{
  fl_gpu_collider collider_records[FL_MAX_COLLIDERS]; // the records again (read through `colliders`)
  float collider_tail[]; // keyframes and mesh grids, at the offsets the records name
};

// Rotates v by the unit quaternion q (xyz, w).
vec3 fl_quat_rotate(vec4 q, vec3 v) { return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }

vec4 fl_quat_mul(vec4 a, vec4 b) { return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz)); }

// The rotation by the rotation vector w (axis * angle, radians).
vec4 fl_quat_from_rotvec(vec3 w)
{
  float angle = length(w);
  return angle > 1e-12 ? vec4(w / angle * sin(0.5 * angle), cos(0.5 * angle)) : vec4(0.0, 0.0, 0.0, 1.0);
}

// A collider's pose at time t: the pivot's displacement d, the rotation q,
// and the rigid velocity (linear v of the pivot, angular w).
struct fl_collider_pose {
  vec3 d;
  vec4 q;
  vec3 v;
  vec3 w;
};

// How long collider c has moved by time t: t, or move_until once it stopped.
float fl_collider_moved_time(fl_gpu_collider c, float t)
{
  return c.move_until > 0.0 ? min(t, c.move_until) : t;
}

float fl_keyframe_t(uint k) { return collider_tail[k]; }
vec3 fl_keyframe_position(uint k) { return vec3(collider_tail[k + 1u], collider_tail[k + 2u], collider_tail[k + 3u]); }
vec4 fl_keyframe_rotation(uint k)
{
  return vec4(collider_tail[k + 4u], collider_tail[k + 5u], collider_tail[k + 6u], collider_tail[k + 7u]);
}
vec3 fl_keyframe_turn(uint k) { return vec3(collider_tail[k + 8u], collider_tail[k + 9u], collider_tail[k + 10u]); }

fl_collider_pose fl_collider_pose_at(fl_gpu_collider c, float t)
{
  fl_collider_pose s;
  if (!FL_COLLIDERS_ROTATE) { // translation only: no rotation, no keyframes
    s.d = c.velocity * fl_collider_moved_time(c, t);
    s.q = vec4(0.0, 0.0, 0.0, 1.0);
    s.v = c.move_until > 0.0 && t > c.move_until ? vec3(0.0) : c.velocity;
    s.w = vec3(0.0);
    return s;
  }
  if (c.keyframe_count == 0u) {
    bool moving = !(c.move_until > 0.0 && t > c.move_until);
    float m = fl_collider_moved_time(c, t);
    s.d = c.velocity * m;
    s.q = fl_quat_from_rotvec(c.angular_velocity * m);
    s.v = moving ? c.velocity : vec3(0.0);
    s.w = moving ? c.angular_velocity : vec3(0.0);
    return s;
  }
  // Keyframes are sorted by t (checked at load); outside them the pose holds still.
  uint first = c.keyframe_offset, last = first + (c.keyframe_count - 1u) * FL_COLLIDER_KEYFRAME_FLOATS;
  uint k = first;
  while (k < last && fl_keyframe_t(k + FL_COLLIDER_KEYFRAME_FLOATS) <= t) k += FL_COLLIDER_KEYFRAME_FLOATS;
  s.v = vec3(0.0);
  s.w = vec3(0.0);
  s.d = fl_keyframe_position(k) - c.pivot;
  s.q = fl_keyframe_rotation(k);
  if (k == last || t <= fl_keyframe_t(k)) return s;
  uint n = k + FL_COLLIDER_KEYFRAME_FLOATS;
  float span = fl_keyframe_t(n) - fl_keyframe_t(k), a = (t - fl_keyframe_t(k)) / span;
  vec3 delta = fl_keyframe_position(n) - fl_keyframe_position(k), turn = fl_keyframe_turn(k);
  s.d += a * delta;
  s.q = fl_quat_mul(fl_quat_from_rotvec(a * turn), s.q); // slerp: q_k turned by the part a of the segment's turn
  s.v = delta / span;
  s.w = turn / span;
  return s;
}

// p taken back into c's rest frame at pose s: p - d turned back about the pivot.
// Written so that a pose without rotation (q exactly the identity) gives exactly
// p - d, as the translation-only path does: a pipeline's feature set does not
// change the result.
vec3 fl_collider_rest_point(fl_gpu_collider c, fl_collider_pose s, vec3 p)
{
  vec3 r = p - s.d;
  if (!FL_COLLIDERS_ROTATE) return r;
  vec3 arm = r - c.pivot;
  return r + (fl_quat_rotate(vec4(-s.q.xyz, s.q.w), arm) - arm);
}

// n (a rest-frame direction) turned to the world by pose s.
vec3 fl_collider_turn(fl_collider_pose s, vec3 n) { return FL_COLLIDERS_ROTATE ? fl_quat_rotate(s.q, n) : n; }

// The baked SDF of a mesh collider at rest point q: trilinear inside the grid;
// outside it, the value at the nearest grid point plus the distance to it.
float fl_mesh_sdf(fl_gpu_collider c, vec3 q)
{
  vec3 top = vec3(c.grid_dims - uvec3(1u));
  vec3 g = (q - c.grid_min) / c.grid_cell, gc = clamp(g, vec3(0.0), top);
  vec3 i0 = min(floor(gc), max(top - 1.0, vec3(0.0))), f = gc - i0;
  uint nx = c.grid_dims.x, nxy = c.grid_dims.x * c.grid_dims.y;
  uint base = c.grid_offset + uint(i0.x) + nx * uint(i0.y) + nxy * uint(i0.z);
  float v000 = collider_tail[base], v100 = collider_tail[base + 1u];
  float v010 = collider_tail[base + nx], v110 = collider_tail[base + nx + 1u];
  float v001 = collider_tail[base + nxy], v101 = collider_tail[base + nxy + 1u];
  float v011 = collider_tail[base + nxy + nx], v111 = collider_tail[base + nxy + nx + 1u];
  float y0 = mix(mix(v000, v100, f.x), mix(v010, v110, f.x), f.y);
  float y1 = mix(mix(v001, v101, f.x), mix(v011, v111, f.x), f.y);
  return mix(y0, y1, f.z) + length(g - gc) * c.grid_cell;
}

// The shape's own signed distance at rest point q (before `inside` flips it).
float fl_collider_shape_sdf(fl_gpu_collider c, vec3 q)
{
  uint shape = c.shape;
  if (shape == FL_GPU_SHAPE_PLANE) return dot(c.a, q) - c.r;
  if (shape == FL_GPU_SHAPE_SPHERE) return length(q - c.a) - c.r;
  if (shape == FL_GPU_SHAPE_BOX) {
    vec3 e = abs(q - c.a) - c.b;
    return length(max(e, vec3(0.0))) + min(max(e.x, max(e.y, e.z)), 0.0);
  }
  if (FL_COLLIDERS_MESH && shape == FL_GPU_SHAPE_MESH) return fl_mesh_sdf(c, q);
  vec3 pa = q - c.a, ba = c.b - c.a; // capsule
  float h = clamp(dot(pa, ba) / max(dot(ba, ba), 1e-12), 0.0, 1.0);
  return length(pa - ba * h) - c.r;
}

// Distance from p to collider c at time t.
float fl_collider_sdf(fl_gpu_collider c, vec3 p, float t)
{
  float d = fl_collider_shape_sdf(c, fl_collider_rest_point(c, fl_collider_pose_at(c, t), p));
  return c.inside != 0u ? -d : d; // a container is solid outside
}

// The velocity of the collider's material point at p at time t (v_co): v + w x (p - pivot(t)).
vec3 fl_collider_velocity(fl_gpu_collider c, vec3 p, float t)
{
  fl_collider_pose s = fl_collider_pose_at(c, t);
  if (!FL_COLLIDERS_ROTATE) return s.v;
  return s.v + cross(s.w, p - (c.pivot + s.d));
}

// The generic normal: tetrahedral finite difference of the SDF, normalized. It is
// taken in the collider's rest frame (one pose, and the four samples not each
// rounded through it: that rounding, ~1e-7 m, would be 1e-4 of the gradient at
// this step) and turned to the world; a rigid motion keeps distances, so it is
// the same gradient.
vec3 fl_collider_normal_tetra(fl_gpu_collider c, vec3 p, float t)
{
  const float h = FL_SDF_GRADIENT_STEP;
  const vec3 k0 = vec3(1, -1, -1), k1 = vec3(-1, -1, 1), k2 = vec3(-1, 1, -1), k3 = vec3(1, 1, 1);
  fl_collider_pose s = fl_collider_pose_at(c, t);
  vec3 q = fl_collider_rest_point(c, s, p);
  vec3 g = k0 * fl_collider_shape_sdf(c, q + h * k0) + k1 * fl_collider_shape_sdf(c, q + h * k1) +
           k2 * fl_collider_shape_sdf(c, q + h * k2) + k3 * fl_collider_shape_sdf(c, q + h * k3);
  float len = length(g);
  if (!(len > 1e-20)) return vec3(0.0, 1.0, 0.0);
  vec3 n = fl_collider_turn(s, g / len);
  return c.inside != 0u ? -n : n;
}

// Unit outward normal (the SDF's analytic gradient) at p; +y where it is undefined.
// Meshes have no analytic gradient: theirs is the tetrahedral one.
vec3 fl_collider_normal(fl_gpu_collider c, vec3 p, float t)
{
  uint shape = c.shape;
  if (FL_COLLIDERS_MESH && shape == FL_GPU_SHAPE_MESH) return fl_collider_normal_tetra(c, p, t);
  fl_collider_pose s = fl_collider_pose_at(c, t);
  vec3 q = fl_collider_rest_point(c, s, p);
  vec3 g;
  if (shape == FL_GPU_SHAPE_PLANE) {
    g = c.a;
  } else if (shape == FL_GPU_SHAPE_SPHERE) {
    g = q - c.a;
  } else if (shape == FL_GPU_SHAPE_BOX) {
    vec3 d = q - c.a, e = abs(d) - c.b, sg = vec3(d.x < 0.0 ? -1.0 : 1.0, d.y < 0.0 ? -1.0 : 1.0,
                                                            d.z < 0.0 ? -1.0 : 1.0);
    if (max(e.x, max(e.y, e.z)) > 0.0) {
      g = max(e, vec3(0.0)) * sg; // outside: towards the nearest point of the surface
    } else {                      // inside: the face of least penetration
      g = e.x >= e.y && e.x >= e.z ? vec3(sg.x, 0.0, 0.0) : (e.y >= e.z ? vec3(0.0, sg.y, 0.0) : vec3(0.0, 0.0, sg.z));
    }
  } else { // capsule
    vec3 pa = q - c.a, ba = c.b - c.a;
    float h = clamp(dot(pa, ba) / max(dot(ba, ba), 1e-12), 0.0, 1.0);
    g = pa - ba * h;
  }
  float len = length(g);
  vec3 n = fl_collider_turn(s, len > 1e-20 ? g / len : vec3(0.0, 1.0, 0.0));
  return c.inside != 0u ? -n : n;
}

// The normal a material uses: analytic, or the generic tetrahedral one when
// `tetrahedral` (sim.collider_normals, so CPU drivers test that path too).
vec3 fl_collider_normal_select(fl_gpu_collider c, vec3 p, float t, bool tetrahedral)
{
  return tetrahedral ? fl_collider_normal_tetra(c, p, t) : fl_collider_normal(c, p, t);
}
#endif

#endif
