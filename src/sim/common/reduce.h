/* sim/common/reduce: deterministic GPU reductions of float data into a small
 * device buffer of result slots, for the conjugate-gradient solver's dot
 * products and for volumes: the sum of a float array, and the dot product of
 * two vec4 arrays over xyz (sum of a[i].xyz . b[i].xyz). Results stay on the
 * GPU: fl_reduce_results(r) holds one float per slot, read by later kernels
 * (results[slot]) or copied out by the caller.
 *
 * Usage: create once with the largest count and the number of slots; bind
 * each reduction the loop needs once ("dot(r, r) into slot 1": a checked
 * description of its inputs and slot); then record bindings as often as
 * wanted (every CG iteration): recording reads nothing back.
 *
 * Algorithm: a multi-level tree reduction. A block is workgroup_size x
 * FL_REDUCE_ITEMS elements (16384). Level 0 (common/reduce_sum.comp or
 * common/reduce_dot.comp) sums each block of the input into the slot's
 * partials in a scratch buffer; each higher level (common/reduce_sum.comp)
 * sums blocks of the level below, until a level of one block writes
 * results[slot]. Up to 2^28 elements take two levels (one dispatch each),
 * more three. Within a block, each invocation adds its 64 elements (strided
 * by the workgroup size: coalesced) pairwise, and the workgroup adds the
 * invocation sums pairwise by raking through shared memory (two barriers).
 * 64 elements per invocation made the sum about 1.3x faster than 16 on
 * lavapipe, which pays per invocation and per barrier and loads buffers one
 * lane and one component at a time (docs/PERFORMANCE.md).
 *
 * Precision and determinism: float accumulation throughout (the gpu layer
 * does not probe shaderFloat64, and most GPUs run it slowly); the order is
 * fixed and pairwise, every operation `precise` (no reassociation, no fused
 * multiply-add), so the rounding error grows like log2(n) ulps of sum |x| and
 * the result is bitwise the same on every run with the same device and
 * count. No subgroup operations, no atomics.
 *
 * Barriers: fl_reduce_record inserts those between its own levels. The caller
 * puts one before (input written) and one after (result read; count 0 is a
 * transfer fill, which fl_cmd_compute_barrier also covers); and one
 * between two records, even into different slots: every record writes the
 * shared scratch and results buffers (results of other slots are kept). */
#pragma once
#include "gpu/rec.h"
#include "reduce_shared.h"

#define FL_REDUCE_WORKGROUP 256 /* requested workgroup size: the kernels' shared arrays are sized for it */
#define FL_REDUCE_ITEMS 64      /* elements per invocation (the kernels' FL_REDUCE_ITEMS) */
#define FL_REDUCE_MAX_LEVELS 4  /* blocks of at least 128 x 64 elements: 2^32 takes 3 */

typedef struct {
  uint32_t max_count, result_slots;
  uint32_t workgroup;             /* the kernels' workgroup size */
  uint32_t block;                 /* elements per workgroup: workgroup size x FL_REDUCE_ITEMS */
  uint32_t level_count;           /* levels max_count needs; 1 = a single block */
  uint32_t level_offset[FL_REDUCE_MAX_LEVELS]; /* [k >= 1]: level k's first float in a slot's partials */
  uint32_t slot_stride;           /* partials floats per slot */
  fl_buffer partials;             /* scratch: slot_stride floats per slot */
  fl_buffer results;              /* result_slots floats (at least 16 bytes allocated) */
} fl_reduce;

/* One bound reduction: its input(s) and its slot. */
typedef struct {
  const fl_buffer *a, *b;         /* sum: a; dot: a . b */
  uint32_t slot;
  uint32_t capacity;              /* elements the bound input holds */
  bool dot;                       /* dot product of two vec4 arrays, else sum of floats */
} fl_reduce_binding;

/* Creates the scratch and results: up to max_count elements, result_slots slots (each >= 1). */
bool fl_reduce_create(fl_gpu *gpu, uint32_t max_count, uint32_t result_slots, fl_reduce *out);
/* Frees everything; accepts a zeroed reduce. */
void fl_reduce_destroy(fl_gpu *gpu, fl_reduce *r);
/* Binds the sum of the floats of `in` into `slot`. */
bool fl_reduce_bind_sum(const fl_reduce *r, const fl_buffer *in, uint32_t slot, fl_reduce_binding *out);
/* Binds sum_i a[i].xyz . b[i].xyz (vec4 arrays; a may be b) into `slot`. */
bool fl_reduce_bind_dot(const fl_reduce *r, const fl_buffer *a, const fl_buffer *b, uint32_t slot,
                        fl_reduce_binding *out);
/* Records the reduction of the first `count` elements (clamped to max_count and the bound
 * input) into results[slot]; count 0 writes 0 (a transfer fill). */
void fl_reduce_record(const fl_reduce *r, const fl_reduce_binding *binding, fl_rec *rec, uint32_t count);
/* The results buffer: one float per slot, results[slot]. */
const fl_buffer *fl_reduce_results(const fl_reduce *r);
/* Bytes a record of `count` elements moves (input: 4 B a float, 32 B a vec4 pair; partials; result), for GB/s. */
uint64_t fl_reduce_bytes(const fl_reduce *r, const fl_reduce_binding *binding, uint32_t count);
