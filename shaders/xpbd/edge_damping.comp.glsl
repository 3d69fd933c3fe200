// xpbd/edge_damping.comp: step 7, "edge" model: damps the relative velocity
// along every stretch and shear constraint, equal and opposite in momentum:
//   v_i -= k w_i/(w_i+w_j) s n,  s = (v_i - v_j).n,  k = min(damping h, 1) / 8,
// gathered per particle into delta (count 1: add_delta applies it as is).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_CONSTRAINTS) readonly buffer Constraints { fl_gpu_distance cons[]; };
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer First { uint first[]; };
layout(std430, binding = FL_XPBD_B_ITEMS) readonly buffer Items { uint items[]; };
layout(std430, binding = FL_XPBD_B_DELTA) writeonly buffer Delta { vec4 delta[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  fl_gpu_xpbd_object o = objects[object_of[k]];
  vec3 dv = vec3(0.0);
  float wk = pos[k].w;
  if (o.damping_model == FL_DAMPING_MODEL_EDGE && wk > 0.0) {
    float kd = min(o.damping * pc.h, 1.0) / 8.0;
    for (uint e = first[k]; e < first[k + 1u]; e++) {
      fl_gpu_distance d = cons[items[e]];
      uint j = d.i == k ? d.j : d.i;
      vec4 xj = pos[j];
      vec3 diff = pos[k].xyz - xj.xyz;
      float len = length(diff);
      if (len <= 1e-12) continue;
      vec3 n = diff / len;
      float s = dot(vel[k].xyz - vel[j].xyz, n);
      dv -= kd * wk / (wk + xj.w) * s * n;
    }
  }
  delta[k] = vec4(dv, 1.0);
}
