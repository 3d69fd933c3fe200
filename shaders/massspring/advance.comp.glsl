// massspring/advance.comp: every integrator's last step (ms_spec.h): for free
// particles v += dv, x += h v; pinned particles keep x and v = 0. An object
// whose check flagged a divergence is frozen as it blew up (v = 0, x kept)
// until its reset (reset.comp, hold.comp).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_MS_B_VEL) buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_DV) readonly buffer Dv { vec4 dv[]; };
layout(std430, binding = FL_MS_B_STATUS) readonly buffer Status { uint status[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  if (status[FL_MS_STATUS_DIVERGED] != 0u) {
    vel[k] = vec4(0.0);
    return;
  }
  vec4 p = pos[k];
  if (p.w == 0.0) return;
  vec3 v = vel[k].xyz + dv[k].xyz;
  vel[k] = vec4(v, 0.0);
  pos[k] = vec4(p.xyz + pc.h * v, p.w);
}
