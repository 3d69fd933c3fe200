// xpbd/distance_lambda.comp: Jacobi, constraint pass: dlambda of every
// distance constraint from the same positions with mass splitting (each w
// times the particle's CSR degree), times omega; lambda += dlambda (xpbd_spec.h, SOLVERS).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_CONSTRAINTS) readonly buffer Constraints { fl_gpu_distance cons[]; };
layout(std430, binding = FL_XPBD_B_LAMBDA) buffer Lambda { float lambda[]; };
layout(std430, binding = FL_XPBD_B_DLAMBDA) writeonly buffer DLambda { float dlambda[]; };
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer First { uint first[]; };

void main()
{
  uint c = fl_thread_index();
  if (c >= pc.count) return;
  fl_gpu_distance d = cons[c];
  vec4 xi = pos[d.i], xj = pos[d.j];
  float C;
  vec3 n;
  float dl = 0.0;
  if (fl_distance_eval(xi.xyz, xj.xyz, d.rest, C, n))
    dl = pc.omega * fl_xpbd_dlambda(C, xi.w * float(max(first[d.i + 1u] - first[d.i], 1u)) +
                                           xj.w * float(max(first[d.j + 1u] - first[d.j], 1u)),
                                    d.compliance, pc.solve_h, lambda[c]);
  lambda[c] += dl;
  dlambda[c] = dl;
}
