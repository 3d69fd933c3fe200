// xpbd/distance_gs.glsl: distance constraints, Gauss-Seidel (no two constraints
// of a colour share a particle), one colour a dispatch (distance_gs.comp) or
// every colour in one workgroup (distance_sweep.comp; xpbd/gs_sweep.glsl).
// pc.distance_mode (flurry_shared.h):
//   FL_DISTANCE_SOLVE      the XPBD update (Macklin 2016, NOTES.md Eq. 18) of the fine solve;
//   FL_DISTANCE_STRETCHED  the same only where C > 0: hierarchical PBD's unilateral coarse
//                          constraints (the PBD survey, "Hierarchical solver", after Müller
//                          2008; src/sim/xpbd/hierarchy.h), bound to their own buffers;
//   FL_DISTANCE_APPLY      x_i += w_i n lambda, x_j -= w_j n lambda with the stored lambda,
//                          which stays: the hierarchy's carried multipliers (hierarchy.h).
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
#include "gs_sweep.glsl"
layout(std430, binding = FL_XPBD_B_POS) FL_GS_COHERENT buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_CONSTRAINTS) readonly buffer Constraints { fl_gpu_distance cons[]; };
layout(std430, binding = FL_XPBD_B_LAMBDA) buffer Lambda { float lambda[]; };

void fl_gs_solve(uint c)
{
  fl_gpu_distance d = cons[c];
  vec4 xi = pos[d.i], xj = pos[d.j];
  float C;
  vec3 n;
  if (!fl_distance_eval(xi.xyz, xj.xyz, d.rest, C, n)) return;
  float dl;
  if (pc.distance_mode == FL_DISTANCE_APPLY) {
    dl = lambda[c];
  } else {
    if (pc.distance_mode == FL_DISTANCE_STRETCHED && C <= 0.0) return;
    dl = fl_xpbd_dlambda(C, xi.w + xj.w, d.compliance, pc.solve_h, lambda[c]);
    lambda[c] += dl;
  }
  pos[d.i].xyz = xi.xyz + n * (xi.w * dl);
  pos[d.j].xyz = xj.xyz - n * (xj.w * dl);
}
