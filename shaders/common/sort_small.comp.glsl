// common/sort_small.comp: a whole radix sort (src/sim/common/radix_sort.h) of
// at most FL_SORT_SMALL_MAX pairs in one workgroup and one dispatch: every
// pass of FL_SORT_RADIX_BITS bits, from bit 0, in a loop. The output is the
// multi-workgroup sort's, bit for bit: the same buffers (pass p reads the
// input, then keys/values[p % 2], and writes [(p + 1) % 2]), the same stable
// order.
//
// A pass: invocation t owns a run of ceil(count / workgroup size) consecutive
// elements and counts its digits in registers; the workgroup scan of those
// counts (common/sort_rank.glsl) gives each digit's count in earlier runs and
// the array's digit totals, whose exclusive sum is each digit's first output
// slot (computed inside the scan: four barriers a pass); then every element goes to its digit's slot + its rank. Passes are
// separated by a buffer memory barrier and a workgroup barrier (the buffers
// are coherent). With the whole array in one workgroup the sort needs no
// histogram buffer, no scan dispatch and no barrier between dispatches, which
// is what a small sort costs on lavapipe (about 0.1 ms a dispatch).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "sort_rank.glsl"

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) coherent buffer Keys0 { uint keys0[]; };
layout(std430, binding = 3) coherent buffer Values0 { uint values0[]; };
layout(std430, binding = 4) coherent buffer Keys1 { uint keys1[]; };
layout(std430, binding = 5) coherent buffer Values1 { uint values1[]; };
layout(push_constant) uniform Push { fl_sort_push pc; };

// Pass p's source (uniform branches).
uint src_key(uint p, uint i) { return p == 0u ? keys_in[i] : (p % 2u == 1u ? keys1[i] : keys0[i]); }
uint src_value(uint p, uint i) { return p == 0u ? values_in[i] : (p % 2u == 1u ? values1[i] : values0[i]); }

void main()
{
  uint n = pc.count, passes = (pc.key_bits + FL_SORT_RADIX_BITS - 1u) / FL_SORT_RADIX_BITS;
  uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
  if (gl_WorkGroupID.x != 0u || gl_WorkGroupID.y != 0u) return;  // one workgroup: uniform
  uint run = (n + wg - 1u) / wg;
  uint first = min(lid * run, n), end = min(first + run, n);
  for (uint p = 0u; p < passes; p++) {
    uint shift = p * FL_SORT_RADIX_BITS;
    uvec4 lo = uvec4(0u), hi = uvec4(0u);
    for (uint i = first; i < end; i++) {
      uint d = fl_sort_digit(src_key(p, i), shift, pc.key_bits);
      if (d < 8u) lo += fl_sort_digit_one(d); else hi += fl_sort_digit_one(d);
    }
    fl_sort_rank_scan(lo, hi, true);  // counts of the runs before this one; s_base from the array's totals
    for (uint i = first; i < end; i++) {
      uint key = src_key(p, i), value = src_value(p, i);
      uint d = fl_sort_digit(key, shift, pc.key_bits);
      uint dst = s_base[d] + fl_sort_digit_count(lo, hi, d);
      if (d < 8u) lo += fl_sort_digit_one(d); else hi += fl_sort_digit_one(d);
      if (p % 2u == 0u) {
        keys1[dst] = key;
        values1[dst] = value;
      } else {
        keys0[dst] = key;
        values0[dst] = value;
      }
    }
    // This pass's writes are the next pass's reads; s_base is rewritten next pass.
    memoryBarrierBuffer();
    barrier();
  }
}
