// common/sort_rank.glsl: the workgroup rank of radix-sort digits, shared by
// common/sort_scatter.comp (one tile a workgroup) and common/sort_small.comp
// (the whole array in one workgroup). No subgroup operations.
//
// Each invocation counts the digits of its consecutive run of elements in
// registers, packed two 16-bit counters per uint (eight uints in two uvec4s:
// digits 0..7 in lo, 8..15 in hi, digit d in component (d / 2) % 4, bits
// 16 (d % 2)); fl_sort_rank_scan gives it, for each digit, the count in the
// invocations before it (an exclusive scan across the workgroup, raking:
// three barriers) and, on request, each digit's first output slot from the
// workgroup's totals. Counts and totals must fit 16 bits.
#ifndef FL_SORT_RANK_GLSL
#define FL_SORT_RANK_GLSL
#include "sort_shared.h"

shared uvec4 s_lo[FL_SORT_WORKGROUP];
shared uvec4 s_hi[FL_SORT_WORKGROUP];
#define FL_SORT_SEG 16u  // raking segment length of the workgroup scan
shared uvec4 s_seg_lo[(FL_SORT_WORKGROUP + FL_SORT_SEG - 1u) / FL_SORT_SEG];
shared uvec4 s_seg_hi[(FL_SORT_WORKGROUP + FL_SORT_SEG - 1u) / FL_SORT_SEG];
shared uint s_base[FL_SORT_DIGITS];  // each digit's first output slot (the caller's, or from the totals)

// The digit of key at bit shift in a sort by the low key_bits bits: the
// bits at and above key_bits do not order.
uint fl_sort_digit(uint key, uint shift, uint key_bits)
{
  uint bits = min(key_bits - shift, FL_SORT_RADIX_BITS);
  return (key >> shift) & ((1u << bits) - 1u);
}

// The packed increment of digit d within its uvec4.
uvec4 fl_sort_digit_one(uint d)
{
  return uvec4(equal(uvec4((d >> 1) & 3u), uvec4(0u, 1u, 2u, 3u))) << ((d & 1u) * 16u);
}

uint fl_sort_digit_count(uvec4 lo, uvec4 hi, uint d)
{
  uvec4 v = d < 8u ? lo : hi;
  return (v[(d >> 1) & 3u] >> ((d & 1u) * 16u)) & 0xFFFFu;
}

// Replaces (lo, hi), this invocation's counts, by the counts of the
// invocations before it. With bases_from_totals, s_base[d] becomes the
// exclusive sum over digits of the workgroup's totals (the whole array's
// first slot of each digit, for sort_small); else the caller fills s_base
// before the call. Call from uniform control flow (barriers).
void fl_sort_rank_scan(inout uvec4 lo, inout uvec4 hi, bool bases_from_totals)
{
  uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
  s_lo[lid] = lo;
  s_hi[lid] = hi;
  barrier();
  // Each of the first ceil(wg / SEG) invocations scans a segment of SEG
  // counts serially, one scans the segment totals, everyone adds its segment's.
  uint segs = (wg + FL_SORT_SEG - 1u) / FL_SORT_SEG;
  if (lid < segs) {
    uvec4 a = uvec4(0u), b = uvec4(0u);
    for (uint j = lid * FL_SORT_SEG; j < min(wg, lid * FL_SORT_SEG + FL_SORT_SEG); j++) {
      uvec4 ta = s_lo[j], tb = s_hi[j];
      s_lo[j] = a;
      s_hi[j] = b;
      a += ta;
      b += tb;
    }
    s_seg_lo[lid] = a;
    s_seg_hi[lid] = b;
  }
  barrier();
  if (lid == 0u) {
    uvec4 a = uvec4(0u), b = uvec4(0u);
    for (uint j = 0u; j < segs; j++) {
      uvec4 ta = s_seg_lo[j], tb = s_seg_hi[j];
      s_seg_lo[j] = a;
      s_seg_hi[j] = b;
      a += ta;
      b += tb;
    }
    for (uint d = 0u, sum = 0u; bases_from_totals && d < FL_SORT_DIGITS; d++) {
      s_base[d] = sum;
      sum += fl_sort_digit_count(a, b, d);
    }
  }
  barrier();
  lo = s_lo[lid] + s_seg_lo[lid / FL_SORT_SEG];
  hi = s_hi[lid] + s_seg_hi[lid / FL_SORT_SEG];
}

#endif
