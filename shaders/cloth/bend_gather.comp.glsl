// cloth/bend_gather.comp: Jacobi, particle pass for bending constraints.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_cloth_push pc; };
#include "constraints.glsl"
layout(std430, binding = FL_CLOTH_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_CLOTH_B_CONSTRAINTS) readonly buffer Constraints { fl_gpu_bend cons[]; };
layout(std430, binding = FL_CLOTH_B_DLAMBDA) readonly buffer DLambda { float dlambda[]; };
layout(std430, binding = FL_CLOTH_B_FIRST) readonly buffer First { uint first[]; };
layout(std430, binding = FL_CLOTH_B_ITEMS) readonly buffer Items { uint items[]; };
layout(std430, binding = FL_CLOTH_B_DELTA) writeonly buffer Delta { vec4 delta[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.range.w) return;
  float wk = pos[k].w;
  vec3 sum = vec3(0.0);
  float count = 0.0;
  for (uint e = first[k]; e < first[k + 1u]; e++) {
    uint c = items[e];
    float dl = dlambda[c];
    if (dl == 0.0) continue;
    fl_gpu_bend b = cons[c];
    vec3 x[4] = vec3[](pos[b.idx.x].xyz, pos[b.idx.y].xyz, pos[b.idx.z].xyz, pos[b.idx.w].xyz);
    float C;
    vec3 g[4];
    fl_bend_eval(b, x, C, g);
    vec3 gk = b.idx.x == k ? g[0] : b.idx.y == k ? g[1] : b.idx.z == k ? g[2] : g[3];
    sum += wk * gk * dl;
    count += 1.0;
  }
  delta[k] = vec4(sum, count);
}
