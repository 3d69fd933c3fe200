// common/reduce_sum.comp: one level of the deterministic float sum
// (src/sim/common/reduce.h): each workgroup sums one block of
// workgroup_size x FL_REDUCE_ITEMS consecutive floats of data_in (from
// in_offset) and writes the block sum to partials[out_offset + block], or,
// on the final level (a single block), to results[out_offset] (the slot).
// Level 0 of a sum reads the caller's buffer; every higher level (of sums and
// of dot products, common/reduce_dot.comp) reads the partials of the level
// below. Invocation t takes elements t, t + wg, ... of the block (coalesced),
// adds them pairwise in registers, then the workgroup adds its values
// pairwise by raking through shared memory (two barriers: llvmpipe pays per
// barrier, docs/PERFORMANCE.md). Every addition is `precise`, in a fixed
// order: the result is bitwise the same on every run on a given device, and
// the rounding error grows like log2(n) ulps. No subgroup operations.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "reduce_shared.h"

layout(std430, binding = 0) readonly buffer DataIn { float data_in[]; };
layout(std430, binding = 1) writeonly buffer Partials { float partials[]; };
layout(std430, binding = 2) writeonly buffer Results { float results[]; };
layout(push_constant) uniform Push { fl_reduce_push pc; };

float fl_reduce_load(uint i) { return data_in[pc.in_offset + i]; }

#include "reduce_block.glsl"
