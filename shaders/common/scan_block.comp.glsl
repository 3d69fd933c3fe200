// common/scan_block.comp: exclusive scan of each block of workgroup_size x
// FL_SCAN_ITEMS elements (src/sim/common/scan.h). With FL_SCAN_ADD_OFFSETS
// every element also gets block_offsets[block], the exclusive scan of the
// block sums (common/scan_reduce.comp); with FL_SCAN_WRITE_TOTAL the last
// block writes the sum of all elements to total[0].
//
// Invocation t owns the FL_SCAN_ITEMS consecutive elements from
// t x FL_SCAN_ITEMS (a blocked arrangement) and scans them serially in
// registers; the invocation totals are scanned across the workgroup by
// raking (three barriers, no subgroup operations); each invocation then
// writes its elements plus its prefix. Blocked loads beat staging the block
// through shared memory on lavapipe by 2x (docs/PERFORMANCE.md); GPUs serve
// the 32-byte stride from L1.
// data_in and data_out may be the same buffer: an invocation reads all of its
// elements before the first barrier and writes only those, after the last.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "scan_shared.h"

layout(std430, binding = 0) readonly buffer DataIn { uint data_in[]; };
layout(std430, binding = 1) writeonly buffer DataOut { uint data_out[]; };
layout(std430, binding = 2) readonly buffer BlockOffsets { uint block_offsets[]; };
layout(std430, binding = 3) writeonly buffer Total { uint total[]; };
layout(push_constant) uniform Push { fl_scan_push pc; };

#define SEG 16u  // raking segment length of the workgroup scan
shared uint s_scan[FL_SCAN_WORKGROUP];
shared uint s_seg[(FL_SCAN_WORKGROUP + SEG - 1u) / SEG];
shared uint s_block_sum;

void main()
{
  uint n = pc.count, flags = pc.flags, wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
  uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint base = block * wg * FL_SCAN_ITEMS;
  if (base >= n) return;  // a whole workgroup of the folded grid's tail: uniform

  // This invocation's run: exclusive serial scan, its total to s_scan.
  uint first = base + lid * FL_SCAN_ITEMS, sum = 0u;
  uint items[FL_SCAN_ITEMS];
  for (uint k = 0u; k < FL_SCAN_ITEMS; k++) {
    uint i = first + k;
    uint v = i < n ? data_in[i] : 0u;
    items[k] = sum;
    sum += v;
  }
  s_scan[lid] = sum;
  barrier();

  // Exclusive scan of the invocation totals: each of the first ceil(wg / SEG)
  // invocations scans a segment serially, one scans the segment totals.
  uint segs = (wg + SEG - 1u) / SEG;
  if (lid < segs) {
    uint run = 0u;
    for (uint j = lid * SEG; j < min(wg, lid * SEG + SEG); j++) {
      uint t = s_scan[j];
      s_scan[j] = run;
      run += t;
    }
    s_seg[lid] = run;
  }
  barrier();
  if (lid == 0u) {
    uint run = 0u;
    for (uint j = 0u; j < segs; j++) {
      uint t = s_seg[j];
      s_seg[j] = run;
      run += t;
    }
    s_block_sum = run;
  }
  barrier();

  uint offset = (flags & FL_SCAN_ADD_OFFSETS) != 0u ? block_offsets[block] : 0u;
  uint prefix = offset + s_scan[lid] + s_seg[lid / SEG];
  for (uint k = 0u; k < FL_SCAN_ITEMS; k++) {
    uint i = first + k;
    if (i < n) data_out[i] = items[k] + prefix;
  }
  uint last_block = (n - 1u) / (wg * FL_SCAN_ITEMS);
  if ((flags & FL_SCAN_WRITE_TOTAL) != 0u && block == last_block && lid == 0u) total[0] = offset + s_block_sum;
}
