// massspring/common.glsl: the push constants and the buffers every
// per-particle mass-spring kernel reads (positions, velocities, spring lists).
#ifndef FL_MS_COMMON_GLSL
#define FL_MS_COMMON_GLSL
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#include "spring.glsl"

layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_MS_B_FIRST) readonly buffer First { uint first[]; };
layout(std430, binding = FL_MS_B_LINKS) readonly buffer Links { uvec2 links[]; };

bool fl_ms_flag(uint flag) { return (pc.counts.y & flag) != 0u; }
#endif
