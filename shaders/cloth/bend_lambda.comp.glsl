// cloth/bend_lambda.comp: Jacobi, constraint pass for bending constraints.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_cloth_push pc; };
#include "constraints.glsl"
layout(std430, binding = FL_CLOTH_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_CLOTH_B_CONSTRAINTS) readonly buffer Constraints { fl_gpu_bend cons[]; };
layout(std430, binding = FL_CLOTH_B_LAMBDA) buffer Lambda { float lambda[]; };
layout(std430, binding = FL_CLOTH_B_DLAMBDA) writeonly buffer DLambda { float dlambda[]; };

void main()
{
  uint c = fl_thread_index();
  if (c >= pc.range.y) return;
  fl_gpu_bend b = cons[c];
  vec4 p[4] = vec4[](pos[b.idx.x], pos[b.idx.y], pos[b.idx.z], pos[b.idx.w]);
  vec3 x[4] = vec3[](p[0].xyz, p[1].xyz, p[2].xyz, p[3].xyz);
  float C;
  vec3 g[4];
  float dl = 0.0;
  if (fl_bend_eval(b, x, C, g)) {
    float sum = p[0].w * dot(g[0], g[0]) + p[1].w * dot(g[1], g[1]) + p[2].w * dot(g[2], g[2]) + p[3].w * dot(g[3], g[3]);
    dl = fl_xpbd_dlambda(C, sum, b.params.y, pc.gravity_dt.w, lambda[c]);
  }
  lambda[c] += dl;
  dlambda[c] = dl;
}
