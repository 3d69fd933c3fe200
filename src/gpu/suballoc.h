/* gpu/suballoc: the CPU-side bookkeeping of a memory sub-allocator, no Vulkan.
 * One block of `size` bytes; allocations are carved best-fit from a list of free
 * ranges (kept sorted by offset, split on allocation, coalesced on free), and
 * each live allocation's size is remembered so freeing needs only its offset.
 * Alignment padding stays free, so `used` counts requested bytes only. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

typedef struct {
  uint64_t offset, size;
} fl_suballoc_range;

typedef struct fl_suballoc {
  uint64_t size; /* the block's size */
  uint64_t used; /* bytes in live allocations */
  fl_suballoc_range *free_ranges; /* sorted by offset, never adjacent, never empty */
  uint32_t free_count, free_cap;
  fl_suballoc_range *allocs; /* live allocations, sorted by offset */
  uint32_t alloc_count, alloc_cap;
} fl_suballoc;

/* Starts managing `size` bytes (all free); false (with an error) when size is 0 or out of memory. */
bool fl_suballoc_init(fl_suballoc *a, uint64_t size);
/* Frees the bookkeeping and zeroes *a; accepts a zeroed or already destroyed allocator. */
void fl_suballoc_destroy(fl_suballoc *a);
/* Carves `size` bytes at an `alignment` (a power of two) multiple; false when it
 * does not fit (no error recorded) or on a zero size / bad alignment (error recorded). */
bool fl_suballoc_alloc(fl_suballoc *a, uint64_t size, uint64_t alignment, uint64_t *offset_out);
/* Returns the allocation at `offset` to the free list; an unknown offset is ignored with a warning. */
void fl_suballoc_free(fl_suballoc *a, uint64_t offset);
/* Bytes in live allocations. */
uint64_t fl_suballoc_used(const fl_suballoc *a);
/* The size of the largest free range (an upper bound on what one alloc can get). */
uint64_t fl_suballoc_largest_free(const fl_suballoc *a);
