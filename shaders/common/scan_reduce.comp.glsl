// common/scan_reduce.comp: the first half of a level of the multi-level
// exclusive scan (src/sim/common/scan.h): each workgroup sums one block of
// workgroup_size x FL_SCAN_ITEMS elements into block_sums[block]. The block
// sums are then scanned (recursively) and common/scan_block.comp scans each
// block starting from its scanned sum. Reads coalesced; a raking reduction
// in shared memory, no subgroup operations.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "scan_shared.h"

layout(std430, binding = 0) readonly buffer Data { uint data_in[]; };
layout(std430, binding = 1) writeonly buffer BlockSums { uint block_sums[]; };
layout(push_constant) uniform Push { fl_scan_push pc; };

shared uint s_sum[FL_SCAN_WORKGROUP];
#define SEG 16u  // raking segment length
shared uint s_seg[(FL_SCAN_WORKGROUP + SEG - 1u) / SEG];

void main()
{
  uint n = pc.count, wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
  uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint base = block * wg * FL_SCAN_ITEMS;
  if (base >= n) return;  // a whole workgroup of the folded grid's tail: uniform
  uint sum = 0u;
  for (uint k = 0u; k < FL_SCAN_ITEMS; k++) {
    uint i = base + k * wg + lid;
    if (i < n) sum += data_in[i];
  }
  s_sum[lid] = sum;
  barrier();
  // Raking: the first ceil(wg / SEG) invocations sum a segment each, one sums those.
  uint segs = (wg + SEG - 1u) / SEG;
  if (lid < segs) {
    uint run = 0u;
    for (uint j = lid * SEG; j < min(wg, lid * SEG + SEG); j++) run += s_sum[j];
    s_seg[lid] = run;
  }
  barrier();
  if (lid == 0u) {
    uint run = 0u;
    for (uint j = 0u; j < segs; j++) run += s_seg[j];
    block_sums[block] = run;
  }
}
