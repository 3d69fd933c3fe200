/* gpu/suballoc: best-fit range allocator over one block (see suballoc.h).
 * Two arrays sorted by offset: free ranges and live allocations. Allocation
 * scans the free list for the smallest range that holds the aligned request
 * (ties go to the lowest offset), leaving the alignment padding and the tail as
 * free ranges; freeing binary-searches the allocation and merges the returned
 * range with its free neighbours. Arrays grow with realloc, reserved before any
 * change so a failed growth leaves the allocator as it was. */
#include "gpu/suballoc.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* Makes room for `need` ranges in *arr (capacity *cap), doubling. */
static bool reserve(fl_suballoc_range **arr, uint32_t *cap, uint64_t need)
{
  if (need <= *cap) return true;
  if (need > UINT32_MAX / 2) return fl_error_set("suballoc: too many ranges");
  uint32_t new_cap = *cap ? *cap : 16;
  while (new_cap < need) new_cap *= 2;
  fl_suballoc_range *grown = realloc(*arr, (size_t)new_cap * sizeof *grown);
  if (!grown) return fl_error_set("suballoc: out of memory for %u ranges", new_cap);
  *arr = grown;
  *cap = new_cap;
  return true;
}

/* Inserts r at index i of an array holding *count ranges (capacity already reserved). */
static void insert_at(fl_suballoc_range *arr, uint32_t *count, uint32_t i, fl_suballoc_range r)
{
  memmove(&arr[i + 1], &arr[i], (size_t)(*count - i) * sizeof *arr);
  arr[i] = r;
  (*count)++;
}

/* Removes index i of an array holding *count ranges. */
static void remove_at(fl_suballoc_range *arr, uint32_t *count, uint32_t i)
{
  memmove(&arr[i], &arr[i + 1], (size_t)(*count - i - 1) * sizeof *arr);
  (*count)--;
}

/* The first index whose offset is >= `offset` (count when none). */
static uint32_t lower_bound(const fl_suballoc_range *arr, uint32_t count, uint64_t offset)
{
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (arr[mid].offset < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

bool fl_suballoc_init(fl_suballoc *a, uint64_t size)
{
  memset(a, 0, sizeof *a);
  if (size == 0) return fl_error_set("suballoc: block size is 0");
  if (!reserve(&a->free_ranges, &a->free_cap, 1)) return false;
  a->size = size;
  a->free_ranges[0] = (fl_suballoc_range){0, size};
  a->free_count = 1;
  return true;
}

void fl_suballoc_destroy(fl_suballoc *a)
{
  if (!a) return;
  free(a->free_ranges);
  free(a->allocs);
  memset(a, 0, sizeof *a);
}

bool fl_suballoc_alloc(fl_suballoc *a, uint64_t size, uint64_t alignment, uint64_t *offset_out)
{
  if (size == 0) return fl_error_set("suballoc: zero-size allocation");
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return fl_error_set("suballoc: alignment %llu is not a power of two",
                        (unsigned long long)alignment);
  uint32_t best = UINT32_MAX;
  uint64_t best_aligned = 0;
  for (uint32_t i = 0; i < a->free_count; i++) {
    const fl_suballoc_range *r = &a->free_ranges[i];
    if (best != UINT32_MAX && r->size >= a->free_ranges[best].size) continue;
    if (r->offset > UINT64_MAX - (alignment - 1)) continue; /* aligning would overflow */
    uint64_t aligned = (r->offset + alignment - 1) & ~(alignment - 1);
    uint64_t pad = aligned - r->offset;
    if (pad > r->size || r->size - pad < size) continue;
    best = i;
    best_aligned = aligned;
  }
  if (best == UINT32_MAX) return false;
  /* Reserve first: a split adds one free range, the allocation one record. */
  if (!reserve(&a->free_ranges, &a->free_cap, (uint64_t)a->free_count + 1) ||
      !reserve(&a->allocs, &a->alloc_cap, (uint64_t)a->alloc_count + 1))
    return false;

  fl_suballoc_range r = a->free_ranges[best];
  fl_suballoc_range head = {r.offset, best_aligned - r.offset};
  fl_suballoc_range tail = {best_aligned + size, r.offset + r.size - (best_aligned + size)};
  if (head.size && tail.size) {
    a->free_ranges[best] = head;
    insert_at(a->free_ranges, &a->free_count, best + 1, tail);
  } else if (head.size) {
    a->free_ranges[best] = head;
  } else if (tail.size) {
    a->free_ranges[best] = tail;
  } else {
    remove_at(a->free_ranges, &a->free_count, best);
  }
  uint32_t at = lower_bound(a->allocs, a->alloc_count, best_aligned);
  insert_at(a->allocs, &a->alloc_count, at, (fl_suballoc_range){best_aligned, size});
  a->used += size;
  *offset_out = best_aligned;
  return true;
}

void fl_suballoc_free(fl_suballoc *a, uint64_t offset)
{
  uint32_t at = lower_bound(a->allocs, a->alloc_count, offset);
  if (at == a->alloc_count || a->allocs[at].offset != offset) {
    fl_warn("suballoc: free of offset %llu, which is not allocated", (unsigned long long)offset);
    return;
  }
  if (!reserve(&a->free_ranges, &a->free_cap, (uint64_t)a->free_count + 1)) {
    fl_warn("suballoc: %s; leaking %llu bytes", fl_error_message(),
            (unsigned long long)a->allocs[at].size);
    return;
  }
  fl_suballoc_range r = a->allocs[at];
  remove_at(a->allocs, &a->alloc_count, at);
  a->used -= r.size;

  uint32_t next = lower_bound(a->free_ranges, a->free_count, r.offset);
  bool merge_prev = next > 0 &&
      a->free_ranges[next - 1].offset + a->free_ranges[next - 1].size == r.offset;
  bool merge_next = next < a->free_count && r.offset + r.size == a->free_ranges[next].offset;
  if (merge_prev && merge_next) {
    a->free_ranges[next - 1].size += r.size + a->free_ranges[next].size;
    remove_at(a->free_ranges, &a->free_count, next);
  } else if (merge_prev) {
    a->free_ranges[next - 1].size += r.size;
  } else if (merge_next) {
    a->free_ranges[next].offset = r.offset;
    a->free_ranges[next].size += r.size;
  } else {
    insert_at(a->free_ranges, &a->free_count, next, r);
  }
}

uint64_t fl_suballoc_used(const fl_suballoc *a)
{
  return a->used;
}

uint64_t fl_suballoc_largest_free(const fl_suballoc *a)
{
  uint64_t largest = 0;
  for (uint32_t i = 0; i < a->free_count; i++)
    if (a->free_ranges[i].size > largest) largest = a->free_ranges[i].size;
  return largest;
}
