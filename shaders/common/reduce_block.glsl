// common/reduce_block.glsl: the body shared by common/reduce_sum.comp and
// common/reduce_dot.comp: each workgroup adds one block of workgroup_size x
// FL_REDUCE_ITEMS elements in a fixed pairwise order (registers, then raking
// through shared memory with two barriers) and writes the block sum to
// partials[pc.out_offset + block], or to results[pc.out_offset] on the final
// level. The kernel
// that includes it declares pc (fl_reduce_push: count, out_offset, flags), the
// partials and results buffers, and `float fl_reduce_load(uint i)`, which
// returns element i (called only for i < count).
#ifndef FL_REDUCE_BLOCK_GLSL
#define FL_REDUCE_BLOCK_GLSL
#define FL_REDUCE_WORKGROUP 256u // requested workgroup size: FL_REDUCE_WORKGROUP in src/sim/common/reduce.h
#define FL_REDUCE_ITEMS 64u      // elements per invocation: FL_REDUCE_ITEMS in src/sim/common/reduce.h
#define CHUNK 16u                // elements added pairwise in registers at a time

#define SEG 16u // raking segment length: <= CHUNK (v holds a segment), >= FL_REDUCE_WORKGROUP / SEG
shared float s_sum[FL_REDUCE_WORKGROUP];
shared float s_seg[FL_REDUCE_WORKGROUP / SEG];

void main()
{
  uint n = pc.count, wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
  uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint base = block * wg * FL_REDUCE_ITEMS;
  if (base >= n) return; // a whole workgroup of the folded grid's tail: uniform

  // FL_REDUCE_ITEMS / CHUNK chunks of CHUNK elements, each added pairwise in
  // registers, then the chunk sums pairwise: a pairwise tree of all of them.
  precise float v[CHUNK];
  precise float chunk[FL_REDUCE_ITEMS / CHUNK];
  for (uint c = 0u; c < FL_REDUCE_ITEMS / CHUNK; c++) {
    for (uint k = 0u; k < CHUNK; k++) {
      uint i = base + (c * CHUNK + k) * wg + lid;
      v[k] = i < n ? fl_reduce_load(i) : 0.0;
    }
    for (uint s = CHUNK / 2u; s > 0u; s >>= 1u)
      for (uint k = 0u; k < s; k++) v[k] = v[k] + v[k + s];
    chunk[c] = v[0];
  }
  for (uint s = FL_REDUCE_ITEMS / CHUNK / 2u; s > 0u; s >>= 1u)
    for (uint k = 0u; k < s; k++) chunk[k] = chunk[k] + chunk[k + s];
  v[0] = chunk[0];
  s_sum[lid] = v[0];
  barrier();
  // Raking, two barriers: each of the first ceil(wg / SEG) invocations adds a
  // segment of SEG invocation sums pairwise, then one adds the segment sums
  // pairwise (zeros past the end): a pairwise tree over the whole block.
  if (lid < (wg + SEG - 1u) / SEG) {
    for (uint k = 0u; k < SEG; k++) v[k] = lid * SEG + k < wg ? s_sum[lid * SEG + k] : 0.0;
    for (uint s = SEG / 2u; s > 0u; s >>= 1u)
      for (uint k = 0u; k < s; k++) v[k] = v[k] + v[k + s];
    s_seg[lid] = v[0];
  }
  barrier();
  if (lid == 0u) {
    for (uint k = 0u; k < SEG; k++) v[k] = k < (wg + SEG - 1u) / SEG ? s_seg[k] : 0.0;
    for (uint s = SEG / 2u; s > 0u; s >>= 1u)
      for (uint k = 0u; k < s; k++) v[k] = v[k] + v[k + s];
    if ((pc.flags & FL_REDUCE_FINAL) != 0u)
      results[pc.out_offset] = v[0];
    else
      partials[pc.out_offset + block] = v[0];
  }
}
#endif
