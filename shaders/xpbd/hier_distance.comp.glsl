// xpbd/hier_distance.comp: one colour of a coarse level's distance constraints
// (hierarchical PBD, src/sim/xpbd/hierarchy.h), Gauss-Seidel: no two constraints
// of a colour share a particle. Unilateral (the PBD survey, "Hierarchical
// solver", after Müller 2008): a coarse constraint acts only when stretched,
// C = |x_i - x_j| - rest > 0, so that it does not stop the cloth from bending.
// The XPBD update is the fine level's (constraints.glsl). pc.first, pc.count: the colour.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "constraints.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = 0) buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Constraints { fl_gpu_distance cons[]; };
layout(std430, binding = 2) buffer Lambda { float lambda[]; };

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.count) return;
  uint c = pc.first + t;
  fl_gpu_distance d = cons[c];
  vec4 xi = pos[d.i], xj = pos[d.j];
  float C;
  vec3 n;
  if (!fl_distance_eval(xi.xyz, xj.xyz, d.rest, C, n) || C <= 0.0) return;
  float dl = fl_xpbd_dlambda(C, xi.w + xj.w, d.compliance, pc.solve_h, lambda[c]);
  lambda[c] += dl;
  pos[d.i].xyz = xi.xyz + n * (xi.w * dl);
  pos[d.j].xyz = xj.xyz - n * (xj.w * dl);
}
