// massspring/cg_step.comp: a CG update, alpha = r.r / p.Ap, dv += alpha p,
// r -= alpha q. Converged (r.r <= tol^2 b.b), broken down (p.Ap <= 0, flagged
// by cg_direction) or not finite: alpha = 0, so the remaining iterations of the
// fixed count recorded per step change nothing. Invocation 0 records the
// iteration count that last changed dv.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_DV) buffer Dv { vec4 dv[]; };
layout(std430, binding = FL_MS_B_CG_R) buffer CgR { vec4 cg_r[]; };
layout(std430, binding = FL_MS_B_CG_P) readonly buffer CgP { vec4 cg_p[]; };
layout(std430, binding = FL_MS_B_CG_Q) readonly buffer CgQ { vec4 cg_q[]; };
layout(std430, binding = FL_MS_B_RESULTS) buffer Results { float results[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  float rr = results[pc.cg_rr_old], pq = results[FL_MS_SLOT_PQ];
  bool running = results[FL_MS_SLOT_STOP] == 0.0 && rr > pc.cg_tolerance2 * results[FL_MS_SLOT_BB] && pq > 0.0;
  float alpha = running ? rr / pq : 0.0;
  if (isinf(alpha) || isnan(alpha)) alpha = 0.0;
  if (alpha == 0.0) return;
  dv[k] += alpha * cg_p[k];
  cg_r[k] -= alpha * cg_q[k];
  if (k == 0u) results[FL_MS_SLOT_ITERATIONS] = float(pc.cg_iteration + 1u);
}
