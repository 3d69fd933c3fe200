// xpbd/distance_gs.comp: one colour of distance constraints, Gauss-Seidel
// (no two constraints of a colour share a particle). range.x: first constraint
// of the colour, range.y: its count.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_CONSTRAINTS) readonly buffer Constraints { fl_gpu_distance cons[]; };
layout(std430, binding = FL_XPBD_B_LAMBDA) buffer Lambda { float lambda[]; };

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.count) return;
  uint c = pc.first + t;
  fl_gpu_distance d = cons[c];
  vec4 xi = pos[d.i], xj = pos[d.j];
  float C;
  vec3 n;
  if (!fl_distance_eval(xi.xyz, xj.xyz, d.rest, C, n)) return;
  float dl = fl_xpbd_dlambda(C, xi.w + xj.w, d.compliance, pc.solve_h, lambda[c]);
  lambda[c] += dl;
  pos[d.i].xyz = xi.xyz + n * (xi.w * dl);
  pos[d.j].xyz = xj.xyz - n * (xj.w * dl);
}
