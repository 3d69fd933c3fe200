// xpbd/contacts.comp: step 4b, each particle's tethers (xpbd/tether.glsl), then
// step 5: particle-collider contacts through the common
// SDF interface, then the domain walls, with position-level static and kinetic
// friction (Macklin 2014; xpbd/collide.glsl). A body particle's
// friction depth also counts its contact load, the part of the volume correction
// its weight spared that pushes into the surface (softbody_spec.h, CONTACT LOAD).
// Each particle's contact flag says whether it touched anything here (softbody_spec.h).
// With triangle contacts, the last contact pass's apply (xpbd/tri_apply_colliders)
// runs the same contacts on every particle again (the colliders' priority, docs/CLOTH.md).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#define FL_COLLIDERS_BINDING FL_XPBD_B_COLLIDERS // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING FL_XPBD_B_COLLIDER_TAIL
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "sdf.glsl"
#include "collide.glsl"
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_CONTACT) writeonly buffer Contact { uint contact[]; };
layout(std430, binding = FL_XPBD_B_LOAD) readonly buffer Load { vec4 load[]; };
#include "tether.glsl"

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  vec4 p = pos[k];
  if (p.w == 0.0) {
    contact[k] = 0u;
    return;
  }
  fl_gpu_xpbd_object o = objects[object_of[k]];
  vec3 x = p.xyz;
  fl_tether(k, x);
  bool touched = fl_collide(x, prev[k].xyz, o, o.body != 0u ? load[k].xyz : vec3(0.0));
  pos[k] = vec4(x, p.w);
  contact[k] = touched ? 1u : 0u;
}
