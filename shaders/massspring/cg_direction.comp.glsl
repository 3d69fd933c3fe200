// massspring/cg_direction.comp: the next CG direction p = r + beta p,
// beta = r.r (new) / r.r (old). Invocation 0 flags a breakdown (p.Ap <= 0 while
// not converged), which stops the following updates of this step.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_CG_R) readonly buffer CgR { vec4 cg_r[]; };
layout(std430, binding = FL_MS_B_CG_P) buffer CgP { vec4 cg_p[]; };
layout(std430, binding = FL_MS_B_RESULTS) buffer Results { float results[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  float rr_old = results[pc.cg_rr_old], rr_new = results[pc.cg_rr_new];
  if (k == 0u && !(results[FL_MS_SLOT_PQ] > 0.0) && rr_old > pc.cg_tolerance2 * results[FL_MS_SLOT_BB])
    results[FL_MS_SLOT_STOP] = 1.0;
  float beta = rr_old > 0.0 ? rr_new / rr_old : 0.0;
  cg_p[k] = cg_r[k] + beta * cg_p[k];
}
