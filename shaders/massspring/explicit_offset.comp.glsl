// massspring/explicit_offset.comp: E (symplectic Euler, Kang 2018 section 3;
// ms_spec.h), one step, for a cloth that is a regular grid: explicit.comp with
// the neighbours found by index offset (grid_force.glsl) instead of through the
// links, so no link offsets, no links and no rest lengths are read (64 bytes a
// particle: x, v in, x', v' out). The same float sum in the same order as
// explicit.comp; pinned particles keep x and v; a frozen object moves nothing.
// The divergence check of the state the step starts from is inside, as in
// explicit.comp (which says how a divergence freezes the object), so no check
// pass runs between steps.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"

layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_MS_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_STATUS) buffer Status { uint status[]; };
layout(std430, binding = FL_MS_B_POS_OUT) buffer PosOut { vec4 pos_out[]; };
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
  bool frozen = status[FL_MS_STATUS_DIVERGED] != 0u;
  if (frozen && status[FL_MS_STATUS_FOUND] == pc.step) x = pos_out[k].xyz;  // back to where it was found
  if (!frozen) {
    bool strained;  // check.comp's test on this particle's springs, folded in
    vec3 f = spring_force(int(k), ivec2(k % pc.nx, k / pc.nx), x, v, strained);
    frozen = strained || any(isnan(x)) || any(isinf(x));
    if (frozen) {
      atomicOr(status[FL_MS_STATUS_DIVERGED], 1u);
      atomicMax(status[FL_MS_STATUS_FOUND], pc.step + 1u);
    } else if (p.w != 0.0) {
      v += pc.h * (pc.gravity + p.w * f);
      x += pc.h * v;
    }
  }
  if (frozen) v = vec3(0.0);
  vel_out[k] = vec4(v, 0.0);
  pos_out[k] = vec4(x, p.w);
}
