// massspring/explicit_offset.comp: E (symplectic Euler, Kang 2018 section 3;
// ms_spec.h), one step, for a cloth that is a regular grid: explicit.comp with
// the neighbours found by index offset (grid_force.glsl) instead of through the
// links, so no link offsets, no links and no rest lengths are read (64 bytes a
// particle: x, v in, x', v' out). The same float sum in the same order as
// explicit.comp; pinned particles keep x and v; a frozen object moves nothing.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"

layout(push_constant) uniform Push { fl_ms_grid_push pc; };
layout(std430, binding = FL_MS_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_MS_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_STATUS) readonly buffer Status { uint status[]; };
layout(std430, binding = FL_MS_B_POS_OUT) writeonly buffer PosOut { vec4 pos_out[]; };
layout(std430, binding = FL_MS_B_VEL_OUT) writeonly buffer VelOut { vec4 vel_out[]; };

vec3 x_at(int c) { return pos[c].xyz; }
vec3 v_at(int c) { return vel[c].xyz; }
#define FL_MS_GRID_STRIDE pc.nx
#include "grid_force.glsl"

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.nx * pc.ny) return;
  vec4 p = pos[k];
  vec3 x = p.xyz, v = vel[k].xyz;
  if (status[FL_MS_STATUS_DIVERGED] != 0u) {
    v = vec3(0.0);
  } else if (p.w != 0.0) {
    bool strained;  // unused: the watch checks after the step
    vec3 f = spring_force(int(k), ivec2(k % pc.nx, k / pc.nx), x, v, strained);
    v += pc.h * (pc.gravity + p.w * f);
    x += pc.h * v;
  }
  vel_out[k] = vec4(v, 0.0);
  pos_out[k] = vec4(x, p.w);
}
