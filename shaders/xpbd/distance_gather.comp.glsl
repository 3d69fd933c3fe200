// xpbd/distance_gather.comp: Jacobi, particle pass: delta_k = sum over the
// particle's distance constraints of w_k grad_k C dlambda (dlambda already
// scaled), with w = 1 when any was nonzero; add_delta.comp (omega 1) adds it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_CONSTRAINTS) readonly buffer Constraints { fl_gpu_distance cons[]; };
layout(std430, binding = FL_XPBD_B_DLAMBDA) readonly buffer DLambda { float dlambda[]; };
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer First { uint first[]; };
layout(std430, binding = FL_XPBD_B_ITEMS) readonly buffer Items { uint items[]; };
layout(std430, binding = FL_XPBD_B_DELTA) writeonly buffer Delta { vec4 delta[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  vec4 xk = pos[k];
  vec3 sum = vec3(0.0);
  float any = 0.0;
  for (uint e = first[k]; e < first[k + 1u]; e++) {
    uint c = items[e];
    float dl = dlambda[c];
    if (dl == 0.0) continue;
    fl_gpu_distance d = cons[c];
    float C;
    vec3 n;
    fl_distance_eval(pos[d.i].xyz, pos[d.j].xyz, d.rest, C, n);
    sum += xk.w * (d.i == k ? n : -n) * dl;
    any = 1.0;
  }
  delta[k] = vec4(sum, any);
}
