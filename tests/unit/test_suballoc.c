/* tests/unit/test_suballoc.c: the sub-allocator's range bookkeeping: alignment,
 * exact fit, best fit, out-of-space and bad-argument handling, coalescing back to
 * one free range, and a fixed-seed random alloc/free stress checked against a
 * shadow byte map. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "gpu/suballoc.h"
#include "test.h"

/* xorshift64*: a fixed-seed generator so failures reproduce. */
static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint32_t rng(void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* Checks the free list's invariants and that free + used covers the block;
 * returns a description of the first violation, or NULL. */
static const char *check_invariants(const fl_suballoc *a)
{
  uint64_t free_total = 0, used_total = 0;
  for (uint32_t i = 0; i < a->free_count; i++) {
    const fl_suballoc_range *r = &a->free_ranges[i];
    if (r->size == 0) return "empty free range";
    if (r->offset + r->size > a->size) return "free range past the end";
    if (i > 0) {
      const fl_suballoc_range *p = &a->free_ranges[i - 1];
      if (p->offset + p->size > r->offset) return "free ranges overlap or are unsorted";
      if (p->offset + p->size == r->offset) return "adjacent free ranges not coalesced";
    }
    free_total += r->size;
  }
  for (uint32_t i = 0; i < a->alloc_count; i++) {
    used_total += a->allocs[i].size;
    if (i > 0 && a->allocs[i - 1].offset + a->allocs[i - 1].size > a->allocs[i].offset)
      return "allocations overlap or are unsorted";
  }
  if (used_total != fl_suballoc_used(a)) return "used does not match the allocations";
  if (free_total + used_total != a->size) return "free + used != block size";
  return NULL;
}

static void test_init_destroy(void)
{
  fl_suballoc a;
  memset(&a, 0, sizeof a);
  fl_suballoc_destroy(&a); /* a zeroed allocator is fine */
  ENSURE(!fl_suballoc_init(&a, 0));
  ENSURE(fl_suballoc_init(&a, 4096));
  ENSURE(fl_suballoc_used(&a) == 0 && fl_suballoc_largest_free(&a) == 4096);
  fl_suballoc_destroy(&a);
  ENSURE(a.size == 0 && a.free_ranges == NULL && a.allocs == NULL);
  fl_suballoc_destroy(&a); /* twice is fine */
}

static void test_alignment_honoured(void)
{
  fl_suballoc a;
  ENSURE(fl_suballoc_init(&a, 1 << 20));
  uint64_t off;
  ENSURE(fl_suballoc_alloc(&a, 3, 1, &off) && off == 0); /* misalign the next free offset */
  for (int shift = 0; shift <= 12; shift++) {
    uint64_t align = 1ull << shift;
    for (int k = 0; k < 4; k++) {
      ENSURE(fl_suballoc_alloc(&a, 1 + rng() % 300, align, &off));
      ENSURE_MSG(off % align == 0, "offset %llu, alignment %llu", (unsigned long long)off,
                 (unsigned long long)align);
    }
  }
  /* Padding stays free: a 1-byte allocation fits into the gap before an aligned one. */
  fl_suballoc b;
  ENSURE(fl_suballoc_init(&b, 256));
  ENSURE(fl_suballoc_alloc(&b, 1, 1, &off) && off == 0);
  ENSURE(fl_suballoc_alloc(&b, 64, 64, &off) && off == 64);
  ENSURE(fl_suballoc_used(&b) == 65);
  ENSURE(fl_suballoc_alloc(&b, 63, 1, &off) && off == 1);
  ENSURE(check_invariants(&b) == NULL);
  ENSURE(check_invariants(&a) == NULL);
  fl_suballoc_destroy(&a);
  fl_suballoc_destroy(&b);
}

static void test_exact_fit_and_out_of_space(void)
{
  fl_suballoc a;
  uint64_t off = 12345;
  ENSURE(fl_suballoc_init(&a, 1024));
  fl_error_clear();
  ENSURE(!fl_suballoc_alloc(&a, 1025, 1, &off));
  ENSURE(off == 12345);
  ENSURE(fl_error_message()[0] == '\0'); /* running out is not an error */
  ENSURE(fl_suballoc_alloc(&a, 1024, 1024, &off) && off == 0);
  ENSURE(a.free_count == 0 && fl_suballoc_largest_free(&a) == 0 && fl_suballoc_used(&a) == 1024);
  ENSURE(!fl_suballoc_alloc(&a, 1, 1, &off));
  fl_suballoc_free(&a, 0);
  ENSURE(fl_suballoc_used(&a) == 0 && fl_suballoc_largest_free(&a) == 1024);
  uint64_t o1 = 0, o2 = 0;
  ENSURE(fl_suballoc_alloc(&a, 512, 256, &o1) && fl_suballoc_alloc(&a, 512, 256, &o2));
  ENSURE(o1 != o2 && (o1 == 512 || o2 == 512));
  ENSURE(!fl_suballoc_alloc(&a, 1, 1, &off));
  ENSURE(check_invariants(&a) == NULL);
  fl_suballoc_destroy(&a);
}

static void test_best_fit(void)
{
  /* Holes of 300, 100 and 50 bytes: a 50-byte request takes the 50 hole exactly,
   * a 90-byte one the 100 hole, leaving the 300 hole whole. */
  fl_suballoc a;
  ENSURE(fl_suballoc_init(&a, 1000));
  uint64_t o[7], off;
  const uint64_t sizes[7] = {300, 10, 100, 10, 50, 10, 520};
  for (int i = 0; i < 7; i++) ENSURE(fl_suballoc_alloc(&a, sizes[i], 1, &o[i]));
  ENSURE(fl_suballoc_largest_free(&a) == 0);
  fl_suballoc_free(&a, o[0]);
  fl_suballoc_free(&a, o[2]);
  fl_suballoc_free(&a, o[4]);
  ENSURE(a.free_count == 3);
  ENSURE(fl_suballoc_alloc(&a, 50, 1, &off) && off == o[4]);
  ENSURE(fl_suballoc_alloc(&a, 90, 1, &off) && off == o[2]);
  ENSURE(fl_suballoc_largest_free(&a) == 300);
  ENSURE(check_invariants(&a) == NULL);
  fl_suballoc_destroy(&a);
}

static void test_bad_arguments(void)
{
  fl_suballoc a;
  uint64_t off;
  ENSURE(fl_suballoc_init(&a, 4096));
  fl_error_clear();
  ENSURE(!fl_suballoc_alloc(&a, 0, 16, &off));
  ENSURE(strstr(fl_error_message(), "zero"));
  const uint64_t bad[] = {0, 3, 6, 12, 48, (1ull << 40) + 1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fl_error_clear();
    ENSURE(!fl_suballoc_alloc(&a, 16, bad[i], &off));
    ENSURE(strstr(fl_error_message(), "power of two"));
  }
  ENSURE(fl_suballoc_used(&a) == 0 && a.alloc_count == 0);
  /* Freeing an unknown offset (or twice) changes nothing. */
  ENSURE(fl_suballoc_alloc(&a, 16, 16, &off));
  fl_suballoc_free(&a, off + 1);
  ENSURE(fl_suballoc_used(&a) == 16);
  fl_suballoc_free(&a, off);
  fl_suballoc_free(&a, off);
  ENSURE(fl_suballoc_used(&a) == 0 && a.free_count == 1);
  fl_suballoc_destroy(&a);
}

static void test_huge_block_no_overflow(void)
{
  fl_suballoc a;
  uint64_t off;
  ENSURE(fl_suballoc_init(&a, UINT64_MAX));
  ENSURE(fl_suballoc_alloc(&a, 1, 1, &off) && off == 0);
  ENSURE(fl_suballoc_alloc(&a, 1, 1ull << 63, &off) && off == 1ull << 63);
  /* Free: [1, 2^63) and [2^63 + 1, 2^64 - 1); neither holds another 2^63-aligned byte,
   * and aligning the second would overflow. */
  ENSURE(!fl_suballoc_alloc(&a, 1, 1ull << 63, &off));
  ENSURE(fl_suballoc_alloc(&a, (1ull << 63) - 2, 1, &off) && off == (1ull << 63) + 1);
  ENSURE(check_invariants(&a) == NULL);
  fl_suballoc_destroy(&a);
}

static void test_coalesce_after_random_frees(void)
{
  enum { N = 2000 };
  fl_suballoc a;
  ENSURE(fl_suballoc_init(&a, 1 << 20));
  uint64_t *offs = malloc(N * sizeof *offs);
  ENSURE(offs);
  int n = 0;
  for (; n < N; n++) {
    uint64_t off;
    if (!fl_suballoc_alloc(&a, 1 + rng() % 1000, 1ull << (rng() % 7), &off)) break;
    offs[n] = off;
  }
  ENSURE(n > 100);
  for (int i = n - 1; i > 0; i--) { /* Fisher-Yates shuffle */
    int j = (int)(rng() % (uint32_t)(i + 1));
    uint64_t t = offs[i];
    offs[i] = offs[j];
    offs[j] = t;
  }
  for (int i = 0; i < n; i++) {
    fl_suballoc_free(&a, offs[i]);
    const char *bad = check_invariants(&a);
    ENSURE_MSG(bad == NULL, "after %d frees: %s", i + 1, bad);
  }
  free(offs);
  ENSURE(a.free_count == 1 && a.free_ranges[0].offset == 0 && a.free_ranges[0].size == 1 << 20);
  ENSURE(fl_suballoc_used(&a) == 0 && fl_suballoc_largest_free(&a) == 1 << 20);
  ENSURE(a.alloc_count == 0);
  fl_suballoc_destroy(&a);
}

static void test_random_stress_against_shadow(void)
{
  enum { SIZE = 1 << 18, OPS = 10000, MAX_LIVE = 4096 };
  fl_suballoc a;
  ENSURE(fl_suballoc_init(&a, SIZE));
  unsigned char *shadow = calloc(SIZE, 1);
  uint64_t *live_off = malloc(MAX_LIVE * sizeof *live_off);
  uint64_t *live_size = malloc(MAX_LIVE * sizeof *live_size);
  ENSURE(shadow && live_off && live_size);
  int live = 0, allocs = 0, fails = 0;
  uint64_t live_bytes = 0;
  for (int op = 0; op < OPS; op++) {
    bool do_alloc = live == 0 || (live < MAX_LIVE && rng() % 100 < 55);
    if (do_alloc) {
      uint64_t size = rng() % 8 == 0 ? 1 + rng() % 16384 : 1 + rng() % 512;
      uint64_t align = 1ull << (rng() % 9);
      uint64_t largest = fl_suballoc_largest_free(&a), off;
      if (!fl_suballoc_alloc(&a, size, align, &off)) {
        /* With no alignment to honour, anything up to the largest range must fit. */
        ENSURE_MSG(!(align == 1 && size <= largest), "op %d: %llu bytes refused, largest free %llu",
                   op, (unsigned long long)size, (unsigned long long)largest);
        fails++;
        continue;
      }
      ENSURE(off % align == 0 && off + size <= SIZE);
      for (uint64_t i = off; i < off + size; i++) {
        ENSURE_MSG(!shadow[i], "op %d: byte %llu handed out twice", op, (unsigned long long)i);
        shadow[i] = 1;
      }
      live_off[live] = off;
      live_size[live] = size;
      live++;
      live_bytes += size;
      allocs++;
    } else {
      int k = (int)(rng() % (uint32_t)live);
      for (uint64_t i = live_off[k]; i < live_off[k] + live_size[k]; i++) shadow[i] = 0;
      fl_suballoc_free(&a, live_off[k]);
      live_bytes -= live_size[k];
      live--;
      live_off[k] = live_off[live];
      live_size[k] = live_size[live];
    }
    ENSURE(fl_suballoc_used(&a) == live_bytes);
    if (op % 97 == 0) {
      const char *bad = check_invariants(&a);
      ENSURE_MSG(bad == NULL, "op %d: %s", op, bad);
      /* Free ranges in the allocator are free in the shadow. */
      for (uint32_t r = 0; r < a.free_count; r++)
        for (uint64_t i = a.free_ranges[r].offset; i < a.free_ranges[r].offset + a.free_ranges[r].size; i++)
          ENSURE(!shadow[i]);
    }
  }
  ENSURE(allocs > 3000 && fails > 0);
  while (live > 0) fl_suballoc_free(&a, live_off[--live]);
  ENSURE(a.free_count == 1 && fl_suballoc_largest_free(&a) == SIZE && fl_suballoc_used(&a) == 0);
  free(shadow);
  free(live_off);
  free(live_size);
  fl_suballoc_destroy(&a);
}

static const fl_test_case TESTS[] = {
    {"init_destroy", test_init_destroy},
    {"alignment_honoured", test_alignment_honoured},
    {"exact_fit_and_out_of_space", test_exact_fit_and_out_of_space},
    {"best_fit", test_best_fit},
    {"bad_arguments", test_bad_arguments},
    {"huge_block_no_overflow", test_huge_block_no_overflow},
    {"coalesce_after_random_frees", test_coalesce_after_random_frees},
    {"random_stress_against_shadow", test_random_stress_against_shadow},
};
FL_TEST_MAIN(TESTS)
