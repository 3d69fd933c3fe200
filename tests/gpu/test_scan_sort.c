/* tests/gpu/test_scan_sort.c: the GPU exclusive scan (sim/common/scan) and
 * radix sort (sim/common/radix_sort) against CPU references, on a validated
 * device:
 *   scan          lengths 0, 1, 7, 255, 256, 257, 4095..4097, 65536, 1e6+3 and
 *                 2^24+5 (three levels) from one bound scan: every element, the
 *                 total, and out[count] untouched
 *   scan_inplace  in == out, full-range values (wrapping sums), recorded twice
 *                 in one command buffer (a scan of the scan)
 *   sort          1, 1000, 100000 pairs with many duplicate keys, by 16 bits
 *                 (higher key bits set: carried, not ordered), 20 bits (an odd
 *                 pass count: the result in keys[1]) and 32 bits; from the
 *                 sorter's own input and from bound caller buffers (left
 *                 unchanged) == a CPU stable sort (qsort of (key, index))
 *   bench         only with FLURRY_BENCH_PRIMITIVES=1 (no validation):
 *                 timestamps of scan 1M / 4M and sort 1M by 16 / 32 bits, best
 *                 of BENCH_REPEATS (docs/PERFORMANCE.md, "GPU primitives"). */
#include "gpu_fixture.h"

#include <stdint.h>
#include <stdlib.h>

#include "app/bench.h"
#include "gpu/profiler.h"
#include "sim/common/radix_sort.h"
#include "sim/common/scan.h"

static uint32_t rng_state = 1;
static uint32_t rnd32(void)
{
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return rng_state = x;
}

/* A device buffer of `bytes` holding `data` (NULL: uninitialized). */
/* ---- scan ---- */

#define SCAN_MAX (16777216u + 5u)
#define SENTINEL 0xDEADBEEFu

/* Fills out with the sentinel, scans count elements, reads out[0..count] and the total. */
static bool run_scan(fl_gpu *gpu, const fl_scan *scan, const fl_buffer *in, fl_buffer *out, uint32_t count,
                     uint32_t *result, uint32_t *total)
{
  fl_fixture_once once;
  if (!fl_buffer_fill(gpu, out, SENTINEL) || !fl_fixture_once_begin(gpu, &once)) return false;
  fl_scan_record(scan, &once.rec, in, out, count);
  return fl_fixture_once_end(&once) &&
         fl_buffer_readback(gpu, out, 0, result, (VkDeviceSize)(count + (count < SCAN_MAX)) * 4) &&
         fl_buffer_readback(gpu, fl_scan_total(scan), 0, total, 4);
}

static void scan_body(fl_gpu *gpu)
{
  static const uint32_t lengths[] = {0, 1, 7, 255, 256, 257, 4095, 4096, 4097, 65536, 1000003, SCAN_MAX};
  uint32_t *in = malloc((size_t)SCAN_MAX * 4), *result = malloc((size_t)SCAN_MAX * 4 + 4);
  ENSURE(in && result);
  rng_state = 0x9e3779b9u;
  for (uint32_t i = 0; i < SCAN_MAX; i++) in[i] = rnd32() & 255u; /* 255 x (2^24 + 5) < 2^32: no wrap */
  fl_scan scan;
  fl_buffer in_buf = {0}, out_buf = {0};
  bool ok = fl_scan_create(gpu, SCAN_MAX, &scan) &&
            fl_fixture_buffer_with(gpu, (VkDeviceSize)SCAN_MAX * 4, in, "scan test in", &in_buf) &&
            fl_fixture_buffer_with(gpu, (VkDeviceSize)SCAN_MAX * 4, NULL, "scan test out", &out_buf);
  if (ok) fprintf(stderr, "  scan: blocks of %u, %u levels for %u elements\n", scan.block, scan.level_count, SCAN_MAX);
  uint32_t bad_count = 0;
  for (size_t t = 0; ok && t < sizeof lengths / sizeof lengths[0]; t++) {
    uint32_t n = lengths[t], total = 0;
    ok = run_scan(gpu, &scan, &in_buf, &out_buf, n, result, &total);
    uint32_t sum = 0, bad = 0, first_bad = 0;
    for (uint32_t i = 0; ok && i < n; i++) {
      if (result[i] != sum && bad++ == 0) first_bad = i;
      sum += in[i];
    }
    bool tail_ok = n == SCAN_MAX || result[n] == SENTINEL;
    if (ok && (bad || total != sum || !tail_ok)) {
      fprintf(stderr, "  scan %u: %u wrong elements (first %u: %u), total %u (want %u), out[count] %s\n", n, bad,
              first_bad, n ? result[first_bad] : 0, total, sum, tail_ok ? "untouched" : "WRITTEN");
      bad_count++;
    }
  }
  fl_buffer_destroy(gpu, &in_buf);
  fl_buffer_destroy(gpu, &out_buf);
  fl_scan_destroy(gpu, &scan);
  free(in);
  free(result);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE_MSG(bad_count == 0, "%u of %zu lengths wrong", bad_count, sizeof lengths / sizeof lengths[0]);
}
FL_GPU_TEST(test_scan, scan_body)

#define INPLACE_N 300001u

static void scan_inplace_body(fl_gpu *gpu)
{
  static uint32_t data[INPLACE_N], once[INPLACE_N], twice[INPLACE_N], got[INPLACE_N];
  rng_state = 0x1234567u;
  for (uint32_t i = 0; i < INPLACE_N; i++) data[i] = rnd32(); /* full range: the sums wrap */
  uint32_t total_once = 0, total_twice = 0;
  for (uint32_t i = 0; i < INPLACE_N; i++) {
    once[i] = total_once;
    total_once += data[i];
  }
  for (uint32_t i = 0; i < INPLACE_N; i++) {
    twice[i] = total_twice;
    total_twice += once[i];
  }
  fl_scan scan;
  fl_buffer buf = {0};
  uint32_t total = 0;
  fl_fixture_once rec;
  bool ok = fl_scan_create(gpu, INPLACE_N, &scan) &&
            fl_fixture_buffer_with(gpu, sizeof data, data, "scan test in place", &buf) &&
            fl_fixture_once_begin(gpu, &rec);
  if (ok) {
    fl_scan_record(&scan, &rec.rec, &buf, &buf, INPLACE_N);
    fl_rec_barrier(&rec.rec); /* the caller's barrier between a scan and what reads it */
    fl_scan_record(&scan, &rec.rec, &buf, &buf, INPLACE_N);
    ok = fl_fixture_once_end(&rec) && fl_buffer_readback(gpu, &buf, 0, got, sizeof got) &&
         fl_buffer_readback(gpu, fl_scan_total(&scan), 0, &total, 4);
  }
  fl_buffer_destroy(gpu, &buf);
  fl_scan_destroy(gpu, &scan);
  ENSURE_MSG(ok, "%s", fl_error_message());
  uint32_t bad = 0;
  for (uint32_t i = 0; i < INPLACE_N; i++) bad += got[i] != twice[i];
  ENSURE_MSG(bad == 0, "%u of %u elements differ from the CPU's scan of the scan", bad, INPLACE_N);
  ENSURE(total == total_twice);
}
FL_GPU_TEST(test_scan_inplace, scan_inplace_body)

/* ---- radix sort ---- */

#define SORT_MAX 100000u

typedef struct {
  uint32_t key, index;
} keyed;

static int compare_keyed(const void *a, const void *b)
{
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Sorts n pairs by key_bits bits on the GPU (from the sorter's input, or from
 * bound caller buffers) and compares with qsort of (masked key, index). */
static bool check_sort(fl_gpu *gpu, fl_radix_sort *sort, uint32_t n, uint32_t key_bits, uint32_t distinct,
                       bool external, uint32_t *mismatches)
{
  static uint32_t keys[SORT_MAX], values[SORT_MAX], got_keys[SORT_MAX], got_values[SORT_MAX], back[SORT_MAX];
  static keyed ref[SORT_MAX];
  uint32_t pool[1024];
  for (uint32_t d = 0; d < distinct; d++) pool[d] = rnd32();
  uint32_t mask = key_bits >= 32 ? 0xFFFFFFFFu : (1u << key_bits) - 1;
  for (uint32_t i = 0; i < n; i++) {
    keys[i] = pool[rnd32() % distinct];
    if (key_bits < 32 && i % 3 == 0) keys[i] ^= rnd32() & ~mask; /* bits above key_bits: carried, not sorted by */
    values[i] = i * 2654435761u ^ 0x5bd1e995u;                   /* a permutation: names each pair's origin */
    ref[i] = (keyed){keys[i] & mask, i};
  }
  qsort(ref, n, sizeof ref[0], compare_keyed);

  fl_buffer in_keys = {0}, in_values = {0};
  bool ok = true;
  if (external) {
    ok = fl_fixture_buffer_with(gpu, (VkDeviceSize)sort->max_count * 4, NULL, "sort test keys", &in_keys) &&
         fl_fixture_buffer_with(gpu, (VkDeviceSize)sort->max_count * 4, NULL, "sort test values", &in_values) &&
         fl_buffer_upload(gpu, &in_keys, 0, keys, (VkDeviceSize)n * 4) &&
         fl_buffer_upload(gpu, &in_values, 0, values, (VkDeviceSize)n * 4);
  } else {
    ok = fl_buffer_upload(gpu, &sort->keys[0], 0, keys, (VkDeviceSize)n * 4) &&
         fl_buffer_upload(gpu, &sort->values[0], 0, values, (VkDeviceSize)n * 4);
  }
  fl_fixture_once once;
  if (ok && (ok = fl_fixture_once_begin(gpu, &once))) {
    fl_radix_sort_record(sort, &once.rec, external ? &in_keys : NULL, external ? &in_values : NULL, n, key_bits);
    ok = fl_fixture_once_end(&once);
  }
  ok = ok && fl_buffer_readback(gpu, fl_radix_sort_keys(sort, key_bits), 0, got_keys, (VkDeviceSize)n * 4) &&
       fl_buffer_readback(gpu, fl_radix_sort_values(sort, key_bits), 0, got_values, (VkDeviceSize)n * 4);
  uint32_t bad = 0, first = 0;
  for (uint32_t i = 0; ok && i < n; i++) {
    uint32_t src = ref[i].index;
    if ((got_keys[i] != keys[src] || got_values[i] != values[src]) && bad++ == 0) first = i;
  }
  if (bad)
    fprintf(stderr, "  sort n=%u bits=%u %s: %u mismatches, first at %u: (%08x, %08x) want (%08x, %08x)\n", n,
            key_bits, external ? "bound" : "own", bad, first, got_keys[first], got_values[first],
            keys[ref[first].index], values[ref[first].index]);
  if (ok && external) { /* the caller's input is only read */
    ok = fl_buffer_readback(gpu, &in_keys, 0, back, (VkDeviceSize)n * 4);
    if (ok && memcmp(back, keys, (size_t)n * 4) != 0) bad++, fprintf(stderr, "  sort: input keys changed\n");
    ok = ok && fl_buffer_readback(gpu, &in_values, 0, back, (VkDeviceSize)n * 4);
    if (ok && memcmp(back, values, (size_t)n * 4) != 0) bad++, fprintf(stderr, "  sort: input values changed\n");
  }
  fl_buffer_destroy(gpu, &in_keys);
  fl_buffer_destroy(gpu, &in_values);
  *mismatches += bad;
  return ok;
}

static void sort_body(fl_gpu *gpu)
{
  /* 1 to FL_SORT_SMALL_MAX: one workgroup (sort_small); one more: the tiled passes */
  static const uint32_t sizes[] = {1, 1000, FL_SORT_SMALL_MAX, FL_SORT_SMALL_MAX + 1, SORT_MAX};
  static const uint32_t bits[] = {16, 20, 32};
  rng_state = 0xc0ffee11u;
  fl_radix_sort sort;
  ENSURE(fl_radix_sort_create(gpu, SORT_MAX, &sort));
  ENSURE(fl_radix_sort_passes(16) == 4 && fl_radix_sort_passes(20) == 5 && fl_radix_sort_passes(32) == 8);
  ENSURE(fl_radix_sort_keys(&sort, 20) == &sort.keys[1] && fl_radix_sort_values(&sort, 32) == &sort.values[0]);
  uint32_t mismatches = 0, runs = 0;
  bool ok = true;
  for (size_t s = 0; ok && s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t b = 0; ok && b < sizeof bits / sizeof bits[0]; b++) {
      uint32_t distinct = sizes[s] < 100 ? 1 : sizes[s] / 100; /* about 100 copies of each key */
      ok = check_sort(gpu, &sort, sizes[s], bits[b], distinct > 1000 ? 1000 : distinct, (s + b) % 2 == 1,
                      &mismatches);
      runs++;
    }
  /* A full-range key set with few duplicates, from the sorter's own input. */
  ok = ok && check_sort(gpu, &sort, SORT_MAX, 32, 1024, false, &mismatches);
  /* Key bits that are not a multiple of the digit (bits above them must not
   * order), by one workgroup and by the tiled passes (small_max 0). */
  for (int tiled = 0; ok && tiled < 2; tiled++) {
    sort.small_max = tiled ? 0 : FL_SORT_SMALL_MAX;
    ok = check_sort(gpu, &sort, 1000, 13, 10, false, &mismatches) &&
         check_sort(gpu, &sort, 3000, 17, 30, true, &mismatches);
    runs += 2;
  }
  fl_radix_sort_destroy(gpu, &sort);
  ENSURE_MSG(ok, "%s", fl_error_message());
  fprintf(stderr, "  sort: %u runs, %u mismatches\n", runs + 1, mismatches);
  ENSURE(mismatches == 0);
}
FL_GPU_TEST(test_sort, sort_body)

/* ---- bench (opt-in) ---- */

#define BENCH_REPEATS 9 /* the fastest counts: lavapipe shares its cores with whatever else runs */

typedef struct {
  double ms, gbps, elements_per_s;
} bench_result;

/* Times BENCH_REPEATS command buffers of one recorded operation (after one to warm up); keeps the fastest. */
/* What a bench records: a scan of in (in place), or a sort from keys/values by key_bits. */
typedef struct {
  const fl_scan *scan;
  const fl_radix_sort *sort;
  const fl_buffer *in, *keys, *values;
  uint32_t key_bits;
} bench_op;

static void record_op(const bench_op *op, fl_rec *r, uint32_t count)
{
  if (op->scan) fl_scan_record(op->scan, r, op->in, op->in, count);
  else fl_radix_sort_record(op->sort, r, op->keys, op->values, count, op->key_bits);
}

static bool bench_best(fl_gpu *gpu, fl_profiler *prof, const char *name, uint64_t bytes, uint32_t elements,
                       const bench_op *op, bench_result *out)
{
  double best = 0;
  for (int r = 0; r <= BENCH_REPEATS; r++) { /* r = 0 warms up */
    fl_fixture_once once;
    if (!fl_fixture_once_begin(gpu, &once)) return false;
    once.rec.prof = prof;
    fl_profiler_reset(prof, 0, FL_QUEUE_COMPUTE, once.rec.cmd);
    fl_rec_begin(&once.rec, name, bytes);
    record_op(op, &once.rec, elements);
    fl_rec_end(&once.rec);
    if (!fl_fixture_once_end(&once)) return false;
    fl_profiler_collect(prof, 0);
    const fl_profile_stat *st = fl_profiler_find(prof, name);
    if (!st || !st->count) return fl_error_set("bench %s: no timestamps", name);
    if (r > 0 && (best == 0 || st->last_ms < best)) best = st->last_ms;
  }
  out->ms = best;
  out->gbps = (double)bytes / (best * 1e6);
  out->elements_per_s = elements / (best * 1e-3);
  fprintf(stderr, "  %-20s %9u elements  %8.2f ms  %7.1f M elements/s  %6.2f GB/s (%llu bytes)\n", name, elements,
          best, out->elements_per_s * 1e-6, out->gbps, (unsigned long long)bytes);
  return true;
}

static void bench_body(void)
{
  fl_gpu gpu;
  if (!fl_fixture_bench_gpu("scan and sort", &gpu)) return;
  const uint32_t big = 4u << 20, mega = 1u << 20;
  uint32_t *data = malloc((size_t)big * 4);
  fl_scan scan = {0};
  fl_radix_sort sort = {0};
  fl_buffer buf = {0};
  fl_profiler prof = {0};
  double ceiling = 0;
  bool ok = data != NULL && fl_profiler_create(&gpu, &prof) && fl_bench_copy_ceiling(&gpu, (uint64_t)big * 4, 16, &ceiling);
  if (ok) fprintf(stderr, "  copy ceiling (16 MiB buffers): %.2f GB/s\n", ceiling);
  rng_state = 0xbe7c4u;
  for (uint32_t i = 0; data && i < big; i++) data[i] = rnd32() & 255u;
  ok = ok && fl_scan_create(&gpu, big, &scan) &&
       fl_fixture_buffer_with(&gpu, (VkDeviceSize)big * 4, data, "bench scan", &buf);
  bench_result r;
  bench_op scan_op = {.scan = &scan, .in = &buf};
  ok = ok && bench_best(&gpu, &prof, "scan 1M", fl_scan_bytes(&scan, mega), mega, &scan_op, &r) &&
       bench_best(&gpu, &prof, "scan 4M", fl_scan_bytes(&scan, big), big, &scan_op, &r);
  for (uint32_t i = 0; data && i < mega; i++) data[i] = rnd32();
  /* Caller buffers as the input, so every repeat sorts the same random keys. */
  fl_buffer keys = {0}, values = {0};
  ok = ok && fl_radix_sort_create(&gpu, mega, &sort) && fl_fixture_buffer_with(&gpu, (VkDeviceSize)mega * 4, data, "bench sort keys", &keys) &&
       fl_fixture_buffer_with(&gpu, (VkDeviceSize)mega * 4, data, "bench sort values", &values);
  bench_op sort16 = {.sort = &sort, .keys = &keys, .values = &values, .key_bits = 16}, sort32 = sort16;
  sort32.key_bits = 32;
  ok = ok && bench_best(&gpu, &prof, "sort 1M/16", fl_radix_sort_bytes(&sort, mega, 16), mega, &sort16, &r) &&
       bench_best(&gpu, &prof, "sort 1M/32", fl_radix_sort_bytes(&sort, mega, 32), mega, &sort32, &r);
  /* Small sorts: one workgroup (sort_small) against the tiled passes, same keys. */
  static const uint32_t small_n[] = {2304, 8192, 16384};
  static const uint32_t small_bits[] = {13, 16};
  for (size_t k = 0; ok && k < sizeof small_n / sizeof small_n[0]; k++)
    for (size_t b = 0; ok && b < 2; b++)
      for (int tiled = 0; ok && tiled < 2; tiled++) {
        char name[48];
        snprintf(name, sizeof name, "sort %u/%u %s", small_n[k], small_bits[b], tiled ? "tiled" : "one wg");
        sort.small_max = tiled ? 0 : FL_SORT_SMALL_MAX;
        bench_op op = sort16;
        op.key_bits = small_bits[b];
        ok = bench_best(&gpu, &prof, name, fl_radix_sort_bytes(&sort, small_n[k], small_bits[b]), small_n[k], &op, &r);
      }
  fl_buffer_destroy(&gpu, &keys);
  fl_buffer_destroy(&gpu, &values);
  fl_radix_sort_destroy(&gpu, &sort);
  fl_scan_destroy(&gpu, &scan);
  fl_buffer_destroy(&gpu, &buf);
  fl_profiler_destroy(&prof);
  free(data);
  fl_gpu_destroy(&gpu);
  ENSURE_MSG(ok, "%s", fl_error_message());
}

static void test_bench(void) { bench_body(); }

static const fl_test_case cases[] = {
    {"scan", test_scan},
    {"scan_inplace", test_scan_inplace},
    {"sort", test_sort},
    {"bench", test_bench},
};
FL_TEST_MAIN(cases)
