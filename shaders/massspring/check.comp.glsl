// massspring/check.comp: divergence detection. A particle whose position is
// not finite, or one of whose springs is strained beyond the divergence strain
// (|l - l0| / l0 > params.z), sets the object's diverged flag, which freezes
// it (advance.comp) until its reset (reset.comp, hold.comp).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(std430, binding = FL_MS_B_STATUS) buffer Status { uint status[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  vec3 x = pos[k].xyz;
  bool bad = any(isnan(x)) || any(isinf(x));
  for (uint e = first[k]; e < first[k + 1] && !bad; e++) {
    fl_ms_spring_view s;
    fl_ms_spring_at(e, x, s);
    bad = !(abs(s.len - s.rest) <= pc.divergence_strain * s.rest);  // also catches a NaN length
  }
  if (bad) atomicOr(status[FL_MS_STATUS_DIVERGED], 1u);
}
