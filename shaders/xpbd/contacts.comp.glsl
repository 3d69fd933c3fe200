// xpbd/contacts.comp: step 5: particle-collider contacts through the common
// SDF interface, then the domain walls, with position-level static and kinetic
// friction (Macklin 2014): D = (x - prev) - h v_c, D_t its tangential part,
// |D_t| < mu_s depth: cancel it; else shorten it by mu_k depth. A body particle's
// friction depth also counts its contact load, the part of the volume correction
// its weight spared that pushes into the surface (softbody_spec.h, CONTACT LOAD).
// Each particle's contact flag says whether it touched anything here (softbody_spec.h).
// With triangle contacts it runs again after them (contacts_again: it then only sets
// flags): averaged with other sheets' pushes, a sheet's vertex can end inside a
// collider, and the colliders and walls have the last word (docs/CLOTH.md).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#define FL_COLLIDERS_BINDING FL_XPBD_B_COLLIDERS // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING FL_XPBD_B_COLLIDER_TAIL
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "sdf.glsl"
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_CONTACT) writeonly buffer Contact { uint contact[]; };
layout(std430, binding = FL_XPBD_B_LOAD) readonly buffer Load { vec4 load[]; };

void resolve_contact(inout vec3 x, vec3 x_prev, vec3 n, float depth, vec3 u, vec3 v_c, float mu_s, float mu_k, float h)
{
  x += n * depth;
  depth += max(0.0, -dot(u, n));
  vec3 D = (x - x_prev) - h * v_c;
  vec3 Dt = D - dot(D, n) * n;
  float len = length(Dt);
  if (len < mu_s * depth) x -= Dt;
  else if (len > 0.0) x -= Dt * min(mu_k * depth / len, 1.0);
}

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  vec4 p = pos[k];
  if (p.w == 0.0) {
    contact[k] = 0u;
    return;
  }
  bool touched = false;
  fl_gpu_xpbd_object o = objects[object_of[k]];
  vec3 x = p.xyz, x_prev = prev[k].xyz;
  float r = 0.5 * o.thickness, h = pc.h, t = pc.time;
  vec3 u = o.body != 0u ? load[k].xyz : vec3(0.0);
  for (uint c = 0u; c < pc.collider_count; c++) {
    fl_gpu_collider col = colliders[c];
    float d = fl_collider_sdf(col, x, t) - r;
    if (d < 0.0) {
      touched = true;
      float f = col.friction;
      resolve_contact(x, x_prev, fl_collider_normal_select(col, x, t, pc.tetrahedral_normals != 0u), -d, u, fl_collider_velocity(col, x, t), sqrt(o.static_friction * f),
              sqrt(o.kinetic_friction * f), h);
    }
  }
  const vec3 axes[3] = vec3[](vec3(1, 0, 0), vec3(0, 1, 0), vec3(0, 0, 1));
  for (int a = 0; a < 3; a++) {
    vec3 n = axes[a];
    float lo = dot(x, n) - (dot(pc.domain_min, n) + r);
    if (lo < 0.0) resolve_contact(x, x_prev, n, -lo, u, vec3(0.0), sqrt(o.static_friction), sqrt(o.kinetic_friction), h);
    float hi = (dot(pc.domain_max, n) - r) - dot(x, n);
    touched = touched || lo < 0.0 || hi < 0.0;
    if (hi < 0.0) resolve_contact(x, x_prev, -n, -hi, u, vec3(0.0), sqrt(o.static_friction), sqrt(o.kinetic_friction), h);
  }
  pos[k] = vec4(x, p.w);
  if (touched || pc.contacts_again == 0u) contact[k] = touched ? 1u : 0u; /* again: keep the contacts' flags */
}
