// coupling/sum.comp: the momentum the coupling exchanged in a frame, for the
// report: one workgroup sums impulse[p] (xyz: the impulse the snow gave XPBD
// particle p in the frame, w: its magnitude) in a fixed order (a strided loop,
// then a tree in shared memory), so the figure does not depend on timing.
// Writes sums[0] = (sum of -J, sum of |J|), sums[1].x = particles in contact.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "coupling_shared.h"
layout(push_constant) uniform Push { fl_coupling_push pc; };
layout(std430, binding = 0) readonly buffer Impulse { vec4 impulse[]; };
layout(std430, binding = 1) writeonly buffer Sums { vec4 sums[]; };

shared vec4 part[FL_COUPLING_SUM_GROUP];
shared float touching[FL_COUPLING_SUM_GROUP];

void main()
{
  uint t = gl_LocalInvocationID.x;
  vec4 acc = vec4(0.0);
  float n = 0.0;
  for (uint p = t; p < pc.particle_count; p += FL_COUPLING_SUM_GROUP) {
    vec4 j = impulse[p];
    acc += j;
    n += j.w > 0.0 ? 1.0 : 0.0;
  }
  part[t] = acc;
  touching[t] = n;
  barrier();
  for (uint half_ = FL_COUPLING_SUM_GROUP / 2u; half_ > 0u; half_ /= 2u) {
    if (t < half_) {
      part[t] += part[t + half_];
      touching[t] += touching[t + half_];
    }
    barrier();
  }
  if (t == 0u) {
    sums[0] = part[0];
    sums[1] = vec4(touching[0], 0.0, 0.0, 0.0);
  }
}
