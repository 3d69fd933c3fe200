/* tests/gpu/test_reduce.c: the deterministic GPU reduction (sim/common/reduce)
 * against CPU double-precision references, on a validated device:
 *   sum          counts 0, 1, 7, 255..257, 4096, 4097, 65536, 1e6+3, a block
 *                (16384) and its neighbours, and 2^24+5 (two levels, 1025
 *                partials) of positive data (relative error < 1e-5) and of
 *                mixed-sign data (error < 1e-5 x sum |x|); the same reduction
 *                twice is bitwise equal; count 0 writes 0
 *   dot          the listed counts (to 1e6+3) for sum a.xyz . b.xyz of vec4
 *                arrays (w ignored), dot(a, a) and mixed signs
 *   slots        six bindings (sums and dots, two buffers) recorded into six
 *                slots of one command buffer, then re-recorded in another
 *                order: each slot right and bitwise unchanged; rebinding and
 *                clamping to a short input
 *   bench        only with FLURRY_BENCH_PRIMITIVES=1 (no validation):
 *                timestamps of sum and dot over 1M and 4M elements, best of
 *                BENCH_REPEATS, in GB/s. */
#include "gpu_fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "app/bench.h"
#include "gpu/profiler.h"
#include "sim/common/reduce.h"

static uint32_t rng_state = 1;
static uint32_t rnd32(void)
{
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return rng_state = x;
}

/* A uniform float in [lo, hi). */
static float rnd_float(float lo, float hi) { return lo + (hi - lo) * (float)(rnd32() >> 8) * (1.0f / 16777216.0f); }

/* A device buffer of `bytes` holding `data` (NULL: uninitialized). */
/* Records one binding over `count` elements, waits, and reads its slot back. */
static bool run_one(fl_gpu *gpu, const fl_reduce *r, const fl_reduce_binding *b, uint32_t count, float *result)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(gpu, &once)) return false;
  fl_reduce_record(r, b, &once.rec, count);
  return fl_fixture_once_end(&once) &&
         fl_buffer_readback(gpu, fl_reduce_results(r), (VkDeviceSize)b->slot * 4, result, 4);
}

/* Compares a GPU result with a double reference; `scale` is sum |terms|. Prints and counts a miss. */
static void check_value(const char *what, uint32_t n, float got, double want, double scale, uint32_t *bad)
{
  double err = fabs((double)got - want), tol = 1e-5 * (scale > 0 ? scale : 1e-30);
  if (!(err <= tol)) {
    fprintf(stderr, "  %s n=%u: got %.9g, want %.9g (error %.3g, tolerance %.3g)\n", what, n, got, want, err, tol);
    (*bad)++;
  }
}

static const uint32_t counts[] = {0, 1, 7, 255, 256, 257, 4096, 4097, 65536, 1000003};

/* ---- sum ---- */

#define SUM_MAX (16777216u + 5u)

static void sum_body(fl_gpu *gpu)
{
  float *pos = malloc((size_t)SUM_MAX * 4), *mixed = malloc((size_t)SUM_MAX * 4);
  ENSURE(pos && mixed);
  rng_state = 0x9e3779b9u;
  for (uint32_t i = 0; i < SUM_MAX; i++) {
    pos[i] = rnd_float(0.0f, 2.0f);
    mixed[i] = rnd_float(-1.0f, 1.0f) * (i % 17 == 0 ? 1000.0f : 1.0f); /* some large terms that cancel */
  }
  fl_reduce r;
  fl_reduce_binding bp = {0}, bm = {0};
  fl_buffer pos_buf = {0}, mixed_buf = {0};
  bool ok = fl_reduce_create(gpu, SUM_MAX, 2, &r) &&
            fl_fixture_buffer_with(gpu, (VkDeviceSize)SUM_MAX * 4, pos, "reduce test positive", &pos_buf) &&
            fl_fixture_buffer_with(gpu, (VkDeviceSize)SUM_MAX * 4, mixed, "reduce test mixed", &mixed_buf) &&
            fl_reduce_bind_sum(&r, &pos_buf, 0, &bp) && fl_reduce_bind_sum(&r, &mixed_buf, 1, &bm);
  if (ok) fprintf(stderr, "  reduce: blocks of %u, %u levels for %u elements\n", r.block, r.level_count, SUM_MAX);
  uint32_t bad = 0, tests = 0;
  const size_t listed = sizeof counts / sizeof counts[0];
  for (size_t t = 0; ok && t < listed + 4; t++) {
    uint32_t n = t < listed ? counts[t] : t < listed + 3 ? r.block - 1 + (uint32_t)(t - listed) : SUM_MAX;
    double want_p = 0, want_m = 0, scale_m = 0;
    for (uint32_t i = 0; i < n; i++) {
      want_p += pos[i];
      want_m += mixed[i];
      scale_m += fabs(mixed[i]);
    }
    float got_p = -1, got_p2 = -1, got_m = -1, got_m2 = -1;
    ok = run_one(gpu, &r, &bp, n, &got_p) && run_one(gpu, &r, &bp, n, &got_p2) && run_one(gpu, &r, &bm, n, &got_m) &&
         run_one(gpu, &r, &bm, n, &got_m2);
    if (!ok) break;
    tests++;
    if (n == 0) {
      if (got_p != 0.0f || got_m != 0.0f) bad++, fprintf(stderr, "  sum n=0: got %g and %g\n", got_p, got_m);
      continue;
    }
    check_value("sum positive", n, got_p, want_p, want_p, &bad);
    check_value("sum mixed", n, got_m, want_m, scale_m, &bad);
    if (memcmp(&got_p, &got_p2, 4) != 0 || memcmp(&got_m, &got_m2, 4) != 0)
      bad++, fprintf(stderr, "  sum n=%u: two runs differ (%.9g %.9g, %.9g %.9g)\n", n, got_p, got_p2, got_m, got_m2);
    if (n >= 1000000)
      fprintf(stderr, "  sum n=%u: relative error %.2g (positive), %.2g of sum |x| (mixed)\n", n,
              fabs(got_p - want_p) / want_p, fabs(got_m - want_m) / scale_m);
  }
  fl_buffer_destroy(gpu, &pos_buf);
  fl_buffer_destroy(gpu, &mixed_buf);
  fl_reduce_destroy(gpu, &r);
  free(pos);
  free(mixed);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE_MSG(bad == 0, "%u wrong of %u counts", bad, tests);
}
FL_GPU_TEST(test_sum, sum_body)

/* ---- dot ---- */

#define DOT_MAX 1000003u

static void dot_body(fl_gpu *gpu)
{
  float *a = malloc((size_t)DOT_MAX * 16), *b = malloc((size_t)DOT_MAX * 16);
  ENSURE(a && b);
  rng_state = 0x51ed270bu;
  for (uint32_t i = 0; i < DOT_MAX * 4; i++) {
    bool w = i % 4 == 3; /* w is ignored: make it loud */
    a[i] = w ? 1e6f : rnd_float(-1.0f, 1.0f);
    b[i] = w ? -3e5f : rnd_float(-2.0f, 2.0f);
  }
  fl_reduce r;
  fl_reduce_binding bab = {0}, baa = {0};
  fl_buffer a_buf = {0}, b_buf = {0};
  bool ok = fl_reduce_create(gpu, DOT_MAX, 3, &r) &&
            fl_fixture_buffer_with(gpu, (VkDeviceSize)DOT_MAX * 16, a, "reduce test a", &a_buf) &&
            fl_fixture_buffer_with(gpu, (VkDeviceSize)DOT_MAX * 16, b, "reduce test b", &b_buf) &&
            fl_reduce_bind_dot(&r, &a_buf, &b_buf, 2, &bab) &&
            fl_reduce_bind_dot(&r, &a_buf, &a_buf, 0, &baa);
  uint32_t bad = 0, tests = 0;
  for (size_t t = 0; ok && t < sizeof counts / sizeof counts[0]; t++) {
    uint32_t n = counts[t];
    double want_ab = 0, scale_ab = 0, want_aa = 0;
    for (uint32_t i = 0; i < n; i++)
      for (int c = 0; c < 3; c++) {
        double p = (double)a[i * 4 + c] * b[i * 4 + c];
        want_ab += p;
        scale_ab += fabs(p);
        want_aa += (double)a[i * 4 + c] * a[i * 4 + c];
      }
    float got_ab = -1, got_ab2 = -1, got_aa = -1;
    ok = run_one(gpu, &r, &bab, n, &got_ab) && run_one(gpu, &r, &bab, n, &got_ab2) &&
         run_one(gpu, &r, &baa, n, &got_aa);
    if (!ok) break;
    tests++;
    if (n == 0) {
      if (got_ab != 0.0f || got_aa != 0.0f) bad++, fprintf(stderr, "  dot n=0: got %g and %g\n", got_ab, got_aa);
      continue;
    }
    check_value("dot(a, b)", n, got_ab, want_ab, scale_ab, &bad);
    check_value("dot(a, a)", n, got_aa, want_aa, want_aa, &bad);
    if (memcmp(&got_ab, &got_ab2, 4) != 0)
      bad++, fprintf(stderr, "  dot n=%u: two runs differ (%.9g, %.9g)\n", n, got_ab, got_ab2);
  }
  fl_buffer_destroy(gpu, &a_buf);
  fl_buffer_destroy(gpu, &b_buf);
  fl_reduce_destroy(gpu, &r);
  free(a);
  free(b);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE_MSG(bad == 0, "%u wrong of %u counts", bad, tests);
}
FL_GPU_TEST(test_dot, dot_body)

/* ---- several slots in one command buffer ---- */

#define SLOTS_N 300001u
#define SLOTS 6u

/* Records bindings[order[i]] for i < SLOTS into one command buffer (a barrier between records), reads all slots. */
static bool run_slots(fl_gpu *gpu, const fl_reduce *r, const fl_reduce_binding *bindings, const uint32_t *order,
                      float *results)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(gpu, &once)) return false;
  for (uint32_t i = 0; i < SLOTS; i++) {
    if (i > 0) fl_rec_barrier(&once.rec);
    fl_reduce_record(r, &bindings[order[i]], &once.rec, SLOTS_N);
  }
  return fl_fixture_once_end(&once) && fl_buffer_readback(gpu, fl_reduce_results(r), 0, results, SLOTS * 4);
}

static void slots_body(fl_gpu *gpu)
{
  static float x[SLOTS_N * 4], y[SLOTS_N * 4];
  rng_state = 0xabcdef01u;
  for (uint32_t i = 0; i < SLOTS_N * 4; i++) {
    x[i] = rnd_float(-1.0f, 1.0f);
    y[i] = rnd_float(0.0f, 1.0f);
  }
  /* Slots 0..5: sum x (as floats: 4 N of them), sum y, dot(x, x), dot(x, y), dot(y, y), sum y over N/2. */
  double want[SLOTS] = {0}, scale[SLOTS] = {0};
  for (uint32_t i = 0; i < SLOTS_N; i++) {
    want[0] += x[i], scale[0] += fabs(x[i]);
    want[1] += y[i], scale[1] += y[i];
    if (i < SLOTS_N / 2) want[5] += y[i], scale[5] += y[i];
    for (int c = 0; c < 3; c++) {
      double xx = (double)x[i * 4 + c] * x[i * 4 + c], xy = (double)x[i * 4 + c] * y[i * 4 + c];
      want[2] += xx, scale[2] += xx;
      want[3] += xy, scale[3] += fabs(xy);
      want[4] += (double)y[i * 4 + c] * y[i * 4 + c];
    }
  }
  scale[4] = want[4];
  fl_reduce r;
  fl_reduce_binding b[SLOTS] = {{0}};
  fl_buffer xb = {0}, yb = {0}, y_half = {0};
  bool ok = fl_reduce_create(gpu, SLOTS_N, SLOTS, &r) && fl_fixture_buffer_with(gpu, sizeof x, x, "reduce test x", &xb) &&
            fl_fixture_buffer_with(gpu, sizeof y, y, "reduce test y", &yb) &&
            fl_fixture_buffer_with(gpu, (SLOTS_N / 2) * 4, y, "reduce test y half", &y_half) &&
            fl_reduce_bind_dot(&r, &xb, &xb, 0, &b[0]) && /* replaced by the sum next: a rebind */
            fl_reduce_bind_sum(&r, &xb, 0, &b[0]) && fl_reduce_bind_sum(&r, &yb, 1, &b[1]) &&
            fl_reduce_bind_dot(&r, &xb, &xb, 2, &b[2]) && fl_reduce_bind_dot(&r, &xb, &yb, 3, &b[3]) &&
            fl_reduce_bind_dot(&r, &yb, &yb, 4, &b[4]) &&
            fl_reduce_bind_sum(&r, &y_half, 5, &b[5]); /* records clamp to its N/2 floats */
  uint32_t bad = 0;
  if (ok) { /* a slot out of range fails and keeps the binding */
    if (fl_reduce_bind_sum(&r, &yb, SLOTS, &b[5]) || !fl_fixture_error_has("slot 6 of 6") ||
        b[5].capacity != SLOTS_N / 2)
      bad++, fprintf(stderr, "  binding slot %u of %u did not fail cleanly\n", SLOTS, SLOTS);
    fl_error_clear();
  }
  static const uint32_t forward[SLOTS] = {0, 1, 2, 3, 4, 5}, shuffled[SLOTS] = {4, 1, 5, 0, 3, 2};
  float first[SLOTS], again[SLOTS];
  ok = ok && run_slots(gpu, &r, b, forward, first) && run_slots(gpu, &r, b, shuffled, again);
  for (uint32_t s = 0; ok && s < SLOTS; s++) {
    char what[32];
    snprintf(what, sizeof what, "slot %u", s);
    check_value(what, s == 5 ? SLOTS_N / 2 : SLOTS_N, first[s], want[s], scale[s], &bad);
    if (memcmp(&first[s], &again[s], 4) != 0)
      bad++, fprintf(stderr, "  slot %u: %.9g, then %.9g in another order\n", s, first[s], again[s]);
  }
  fl_buffer_destroy(gpu, &xb);
  fl_buffer_destroy(gpu, &yb);
  fl_buffer_destroy(gpu, &y_half);
  fl_reduce_destroy(gpu, &r);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE_MSG(bad == 0, "%u of %u slots wrong", bad, SLOTS);
}
FL_GPU_TEST(test_slots, slots_body)

/* ---- bench (opt-in) ---- */

#define BENCH_REPEATS 9 /* the fastest counts: lavapipe shares its cores with whatever else runs */

/* Times BENCH_REPEATS command buffers of one binding over `count` (after one to warm up); prints the fastest. */
static bool bench_best(fl_gpu *gpu, fl_profiler *prof, const char *name, const fl_reduce *r,
                       const fl_reduce_binding *b, uint32_t count)
{
  double best = 0;
  uint64_t bytes = fl_reduce_bytes(r, b, count);
  for (int rep = 0; rep <= BENCH_REPEATS; rep++) { /* rep = 0 warms up */
    fl_fixture_once once;
    if (!fl_fixture_once_begin(gpu, &once)) return false;
    once.rec.prof = prof;
    fl_profiler_reset(prof, 0, FL_QUEUE_COMPUTE, once.rec.cmd);
    fl_rec_begin(&once.rec, name, bytes);
    fl_reduce_record(r, b, &once.rec, count);
    fl_rec_end(&once.rec);
    if (!fl_fixture_once_end(&once)) return false;
    fl_profiler_collect(prof, 0);
    const fl_profile_stat *st = fl_profiler_find(prof, name);
    if (!st || !st->count) return fl_error_set("bench %s: no timestamps", name);
    if (rep > 0 && (best == 0 || st->last_ms < best)) best = st->last_ms;
  }
  fprintf(stderr, "  %-8s %9u elements  %8.3f ms  %7.1f M elements/s  %6.2f GB/s (%llu bytes)\n", name, count, best,
          count / (best * 1e3), (double)bytes / (best * 1e6), (unsigned long long)bytes);
  return true;
}

static void bench_body(void)
{
  fl_gpu gpu;
  if (!fl_fixture_bench_gpu("reduction", &gpu)) return;
  const uint32_t big = 4u << 20, mega = 1u << 20;
  float *data = malloc((size_t)big * 16);
  fl_reduce r = {0};
  fl_reduce_binding bs = {0}, bd = {0};
  fl_buffer floats = {0}, a = {0}, b = {0};
  fl_profiler prof = {0};
  double ceiling = 0;
  bool ok = data != NULL && fl_profiler_create(&gpu, &prof) &&
            fl_bench_copy_ceiling(&gpu, (uint64_t)big * 4, 16, &ceiling);
  if (ok) fprintf(stderr, "  copy ceiling (16 MiB buffers): %.2f GB/s\n", ceiling);
  rng_state = 0xbe7c4u;
  for (uint32_t i = 0; data && i < big * 4; i++) data[i] = rnd_float(-1.0f, 1.0f);
  ok = ok && fl_reduce_create(&gpu, big, 2, &r) &&
       fl_fixture_buffer_with(&gpu, (VkDeviceSize)big * 4, data, "bench reduce floats", &floats) &&
       fl_fixture_buffer_with(&gpu, (VkDeviceSize)big * 16, data, "bench reduce a", &a) &&
       fl_fixture_buffer_with(&gpu, (VkDeviceSize)big * 16, data, "bench reduce b", &b) &&
       fl_reduce_bind_sum(&r, &floats, 0, &bs) && fl_reduce_bind_dot(&r, &a, &b, 1, &bd);
  ok = ok && bench_best(&gpu, &prof, "sum 1M", &r, &bs, mega) && bench_best(&gpu, &prof, "sum 4M", &r, &bs, big) &&
       bench_best(&gpu, &prof, "dot 1M", &r, &bd, mega) && bench_best(&gpu, &prof, "dot 4M", &r, &bd, big);
  fl_buffer_destroy(&gpu, &floats);
  fl_buffer_destroy(&gpu, &a);
  fl_buffer_destroy(&gpu, &b);
  fl_reduce_destroy(&gpu, &r);
  fl_profiler_destroy(&prof);
  free(data);
  fl_gpu_destroy(&gpu);
  ENSURE_MSG(ok, "%s", fl_error_message());
}

static void test_bench(void) { bench_body(); }

static const fl_test_case cases[] = {
    {"sum", test_sum},
    {"dot", test_dot},
    {"slots", test_slots},
    {"bench", test_bench},
};
FL_TEST_MAIN(cases)
