// common/drag.comp: the mouse drag constraint, one thread: an XPBD attachment
// of particle `index` to the kinematic target point (Macklin 2016):
//   C = |x - target|, dlambda = -C / (w + alpha/h^2) (one iteration, lambda 0),
//   x += w n dlambda  (n = (x - target)/|x - target|).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) buffer Positions { vec4 pos[]; };
layout(push_constant) uniform Push { fl_pick_push pc; };

void main()
{
  if (fl_thread_index() != 0u) return;
  uint k = pc.first + pc.index;
  vec4 p = pos[k];
  vec3 d = p.xyz - pc.target;
  float C = length(d);
  if (p.w == 0.0 || C < 1e-9) return;
  float h = pc.h;
  float dl = -C / (p.w + pc.compliance / (h * h));
  pos[k].xyz = p.xyz + p.w * (d / C) * dl;
}
