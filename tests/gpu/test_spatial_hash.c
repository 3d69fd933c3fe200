/* tests/gpu/test_spatial_hash.c: the GPU spatial hash (sim/common/spatial_hash)
 * on a validated device:
 *   functions   fl_spatial_hash_cell / _index on known values (negative cells,
 *               wrapping products), table sizes
 *   build       50k particles in [-6, 6]^3 (negative coordinates, points on
 *               cell boundaries, a dense cluster): sorted_index, cell_start and
 *               cell_end == fl_spatial_hash_cpu exactly; rebuilt with fewer
 *               particles and another cell size by the same object (the
 *               tables are cleared); profiler scopes hash/keys, hash/sort,
 *               hash/cells present with their byte counts
 *   neighbours  from the GPU tables, on the CPU: scanning the 27 cells around
 *               each particle (each table entry once) finds every pair closer
 *               than the cell size (reference: a sweep over x) and never visits
 *               a particle twice; common/hash_neighbours.comp (the GLSL loop
 *               FL_HASH_FOR_NEIGHBOURS) counts the same neighbours
 *   bench       only with FLURRY_BENCH_PRIMITIVES=1 (no validation): a 1M
 *               particle build, best of BENCH_REPEATS (docs/PERFORMANCE.md). */
#include "gpu_fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "app/bench.h"
#include "gpu/profiler.h"
#include "sim/common/spatial_hash.h"

static uint32_t rng_state = 1;
static uint32_t rnd32(void)
{
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return rng_state = x;
}
static float rnd(float lo, float hi) { return lo + (hi - lo) * (float)(rnd32() >> 8) / 16777216.0f; }

/* n particles (4 floats each): uniform in [-6, 6]^3, every 50th on a cell
 * boundary of `cell` in x, the last n/25 in a dense cluster at (-2.3, 1.1, -0.4). */
static void make_particles(float *pos, uint32_t n, float cell)
{
  uint32_t cluster = n / 25;
  for (uint32_t i = 0; i < n; i++) {
    float *p = pos + 4 * (size_t)i;
    for (int a = 0; a < 3; a++) p[a] = rnd(-6, 6);
    if (i % 50 == 7) p[0] = (float)((int)rnd(-20, 20)) * cell;
    if (i >= n - cluster) {
      p[0] = -2.3f + rnd(-0.3f, 0.3f);
      p[1] = 1.1f + rnd(-0.3f, 0.3f);
      p[2] = -0.4f + rnd(-0.3f, 0.3f);
    }
    p[3] = 1.0f;
  }
}

/* ---- the CPU functions ---- */

static void functions_body(void)
{
  int32_t c[3];
  const float x[3] = {-0.01f, 0.0f, 2.5f};
  fl_spatial_hash_cell(x, 0.5f, c);
  ENSURE(c[0] == -1 && c[1] == 0 && c[2] == 5);
  const float y[3] = {-1.0f, 0.999f, -1e-7f};
  fl_spatial_hash_cell(y, 0.25f, c);
  ENSURE(c[0] == -4 && c[1] == 3 && c[2] == -1);
  const int32_t zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, neg[3] = {-1, -2, -3};
  ENSURE(fl_spatial_hash_index(zero, 1024) == 0);
  ENSURE(fl_spatial_hash_index(one, 1u << 31) == ((73856093u ^ 19349663u ^ 83492791u) & 0x7FFFFFFFu));
  uint32_t want = ((0xFFFFFFFFu * 73856093u) ^ (0xFFFFFFFEu * 19349663u) ^ (0xFFFFFFFDu * 83492791u)) & 4095u;
  ENSURE(fl_spatial_hash_index(neg, 4096) == want);
  ENSURE(fl_spatial_hash_table_size_for(1) == 2);
  ENSURE(fl_spatial_hash_table_size_for(50000) == 131072);
  ENSURE(fl_spatial_hash_table_size_for(65536) == 131072);
  ENSURE(fl_spatial_hash_table_size_for(65537) == 262144);
}

/* ---- build ---- */

#define N_BUILD 50000u

typedef struct {
  uint32_t *sorted, *start, *end;
} tables;

static bool tables_alloc(tables *t, uint32_t n, uint32_t table_size)
{
  t->sorted = malloc((size_t)n * 4);
  t->start = malloc((size_t)table_size * 4);
  t->end = malloc((size_t)table_size * 4);
  return t->sorted && t->start && t->end;
}

static void tables_free(tables *t)
{
  free(t->sorted);
  free(t->start);
  free(t->end);
}

/* Records one build of n particles (with a profiler) and reads the three tables back. */
static bool gpu_build(fl_gpu *gpu, const fl_spatial_hash *hash, const fl_buffer *positions, fl_profiler *prof,
                      uint32_t n, float cell, tables *out)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(gpu, &once)) return false;
  once.rec.prof = prof;
  fl_profiler_reset(prof, 0, FL_QUEUE_COMPUTE, once.rec.cmd);
  fl_spatial_hash_record(hash, &once.rec, positions, n, cell);
  if (!fl_fixture_once_end(&once)) return false;
  fl_profiler_collect(prof, 0);
  VkDeviceSize table_bytes = (VkDeviceSize)hash->table_size * 4;
  return fl_buffer_readback(gpu, fl_spatial_hash_sorted_index(hash), 0, out->sorted, (VkDeviceSize)n * 4) &&
         fl_buffer_readback(gpu, fl_spatial_hash_cell_start(hash), 0, out->start, table_bytes) &&
         fl_buffer_readback(gpu, fl_spatial_hash_cell_end(hash), 0, out->end, table_bytes);
}

/* Counts the entries where the GPU and CPU tables differ; prints the first. */
static uint32_t compare_tables(const tables *g, const tables *c, uint32_t n, uint32_t table_size, const char *what)
{
  uint32_t bad = 0;
  for (uint32_t i = 0; i < n; i++)
    if (g->sorted[i] != c->sorted[i] && bad++ == 0)
      fprintf(stderr, "  %s: sorted_index[%u] = %u, want %u\n", what, i, g->sorted[i], c->sorted[i]);
  for (uint32_t h = 0; h < table_size; h++)
    if ((g->start[h] != c->start[h] || g->end[h] != c->end[h]) && bad++ == 0)
      fprintf(stderr, "  %s: entry %u: [%u, %u), want [%u, %u)\n", what, h, g->start[h], g->end[h], c->start[h],
              c->end[h]);
  return bad;
}

static void build_body(fl_gpu *gpu)
{
  float *pos = malloc((size_t)N_BUILD * 16);
  ENSURE(pos);
  rng_state = 0x51ed2701u;
  make_particles(pos, N_BUILD, 0.25f);
  fl_spatial_hash hash;
  fl_buffer positions = {0};
  fl_profiler prof = {0};
  tables g = {0}, c = {0};
  bool ok = fl_spatial_hash_create(gpu, N_BUILD, &hash) && fl_profiler_create(gpu, &prof) &&
            fl_buffer_create(gpu, (VkDeviceSize)N_BUILD * 16, FL_MEMORY_DEVICE, "hash test positions", &positions) &&
            fl_buffer_upload(gpu, &positions, 0, pos, (VkDeviceSize)N_BUILD * 16);
  uint32_t table = ok ? fl_spatial_hash_table_size(&hash) : 0, bad = 0, used = 0;
  ok = ok && tables_alloc(&g, N_BUILD, table) && tables_alloc(&c, N_BUILD, table);
  /* Builds by the same object: each must not see the one before's entries. The
   * second is small enough for the one-workgroup sort (FL_SORT_SMALL_MAX). */
  const struct {
    uint32_t n;
    float cell;
  } runs[] = {{N_BUILD, 0.25f}, {3000, 0.05f}, {N_BUILD * 3 / 5, 0.61f}};
  _Static_assert(3000 <= FL_SORT_SMALL_MAX && N_BUILD * 3 / 5 > FL_SORT_SMALL_MAX, "one build of each sort");
  for (int r = 0; ok && r < 3; r++) {
    ok = gpu_build(gpu, &hash, &positions, &prof, runs[r].n, runs[r].cell, &g) &&
         fl_spatial_hash_cpu(pos, runs[r].n, runs[r].cell, table, c.sorted, c.start, c.end);
    if (ok) bad += compare_tables(&g, &c, runs[r].n, table, r ? "rebuild" : "build");
    for (uint32_t h = 0; ok && r == 0 && h < table; h++) used += c.start[h] != FL_HASH_EMPTY;
  }
  uint64_t bytes[3];
  fl_spatial_hash_bytes(&hash, N_BUILD * 3 / 5, bytes);
  bool timed = !prof.can_time[FL_QUEUE_COMPUTE];
  if (ok && !timed) {
    const char *names[3] = {"hash/keys", "hash/sort", "hash/cells"};
    timed = true;
    for (int s = 0; s < 3; s++) {
      const fl_profile_stat *st = fl_profiler_find(&prof, names[s]);
      timed &= st && st->count == 3 && st->bytes == bytes[s] && bytes[s] > 0;
      if (st) fprintf(stderr, "  %s: %.2f ms (last build)\n", names[s], st->last_ms);
    }
  }
  tables_free(&g);
  tables_free(&c);
  fl_profiler_destroy(&prof);
  fl_buffer_destroy(gpu, &positions);
  fl_spatial_hash_destroy(gpu, &hash);
  free(pos);
  ENSURE_MSG(ok, "%s", fl_error_message());
  fprintf(stderr, "  build: table %u entries, %u used by %u particles; %u differences from the CPU\n", table, used,
          N_BUILD, bad);
  ENSURE(table == 131072);
  ENSURE(used > N_BUILD / 4); /* the particles spread over many entries */
  ENSURE(bad == 0);
  ENSURE(timed);
}
FL_GPU_TEST(test_build, build_body)

/* ---- neighbours ---- */

#define N_NEIGH 50000u
#define CELL 0.3f

static const float *sweep_pos;
static int compare_x(const void *a, const void *b)
{
  float x = sweep_pos[4 * (size_t) * (const uint32_t *)a], y = sweep_pos[4 * (size_t) * (const uint32_t *)b];
  return (x > y) - (x < y);
}

static double dist2(const float *a, const float *b)
{
  double d = 0;
  for (int k = 0; k < 3; k++) d += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
  return d;
}

/* Per particle, the neighbours closer than r (both orders) by a sweep over x:
 * list[first[i]] .. list[first[i + 1] - 1]. Returns the pair count, or -1 when
 * out of host memory. */
static long reference_pairs(const float *pos, uint32_t n, float r, uint32_t **first_out, uint32_t **list_out)
{
  uint32_t *order = malloc((size_t)n * 4), *first = calloc((size_t)n + 1, 4), *list = NULL;
  size_t cap = 1 << 20, used = 0;
  uint32_t(*pairs)[2] = malloc(cap * sizeof *pairs);
  bool ok = order && first && pairs;
  for (uint32_t i = 0; ok && i < n; i++) order[i] = i;
  sweep_pos = pos;
  if (ok) qsort(order, n, 4, compare_x);
  for (uint32_t a = 0; ok && a < n; a++) {
    const float *pa = pos + 4 * (size_t)order[a];
    for (uint32_t b = a + 1; ok && b < n && pos[4 * (size_t)order[b]] - pa[0] < r; b++) {
      if (dist2(pa, pos + 4 * (size_t)order[b]) >= (double)r * r) continue;
      if (used == cap) {
        void *grown = realloc(pairs, 2 * cap * sizeof *pairs);
        ok = grown != NULL;
        if (!ok) break;
        pairs = grown;
        cap *= 2;
      }
      pairs[used][0] = order[a];
      pairs[used][1] = order[b];
      used++;
    }
  }
  ok = ok && (list = malloc(2 * used * 4 + 4)) != NULL;
  if (ok) {
    for (size_t p = 0; p < used; p++) first[pairs[p][0] + 1]++, first[pairs[p][1] + 1]++;
    for (uint32_t i = 0; i < n; i++) first[i + 1] += first[i];
    memcpy(order, first, (size_t)n * 4); /* fill cursors */
    for (size_t p = 0; p < used; p++) {
      list[order[pairs[p][0]]++] = pairs[p][1];
      list[order[pairs[p][1]]++] = pairs[p][0];
    }
  }
  free(order);
  free(pairs);
  if (!ok) {
    free(first);
    return -1;
  }
  *first_out = first;
  *list_out = list;
  return (long)used;
}

/* The GPU neighbour counts of common/hash_neighbours.comp for radius r. */
static bool gpu_neighbour_counts(fl_gpu *gpu, const fl_spatial_hash *hash, const fl_buffer *positions, uint32_t n,
                                 float cell, float r, uint32_t *counts)
{
  fl_buffer out = {0};
  fl_fixture_once once;
  bool ok = fl_buffer_create(gpu, (VkDeviceSize)n * 4, FL_MEMORY_DEVICE, "neighbour counts", &out) &&
            fl_fixture_once_begin(gpu, &once);
  if (ok) {
    fl_hash_push push = {.inv_cell_size = 1.0f / cell, .radius = r, .count = n, .table_size = hash->table_size};
    fl_rec_pass(&once.rec, &(fl_pass){.kernel = "common/hash_neighbours", FL_PUSH(push), .threads = n,
                                      FL_BUFFERS(positions, fl_spatial_hash_sorted_index(hash),
                                                 fl_spatial_hash_cell_start(hash), fl_spatial_hash_cell_end(hash),
                                                 &out)});
    ok = fl_fixture_once_end(&once) && fl_buffer_readback(gpu, &out, 0, counts, (VkDeviceSize)n * 4);
  }
  fl_buffer_destroy(gpu, &out);
  return ok;
}

static void neighbours_body(fl_gpu *gpu)
{
  float *pos = malloc((size_t)N_NEIGH * 16);
  uint32_t *gpu_counts = malloc((size_t)N_NEIGH * 4), *stamp = calloc(N_NEIGH, 4);
  ENSURE(pos && gpu_counts && stamp);
  rng_state = 0xa11ce5u;
  make_particles(pos, N_NEIGH, CELL);
  fl_spatial_hash hash;
  fl_buffer positions = {0};
  fl_profiler prof = {0};
  tables g = {0};
  bool ok = fl_spatial_hash_create(gpu, N_NEIGH, &hash) && fl_profiler_create(gpu, &prof) &&
            fl_buffer_create(gpu, (VkDeviceSize)N_NEIGH * 16, FL_MEMORY_DEVICE, "hash test positions", &positions) &&
            fl_buffer_upload(gpu, &positions, 0, pos, (VkDeviceSize)N_NEIGH * 16);
  uint32_t table = ok ? hash.table_size : 0;
  ok = ok && tables_alloc(&g, N_NEIGH, table) && gpu_build(gpu, &hash, &positions, &prof, N_NEIGH, CELL, &g);
  /* The GLSL loop with radius = the cell size. */
  ok = ok && gpu_neighbour_counts(gpu, &hash, &positions, N_NEIGH, CELL, CELL, gpu_counts);
  fl_profiler_destroy(&prof);
  fl_buffer_destroy(gpu, &positions);
  fl_spatial_hash_destroy(gpu, &hash);
  /* Pairs a little beyond the cell size too: the GPU kernel compares in float. */
  const double r2 = (double)CELL * CELL, lo2 = r2 * (1 - 1e-5), hi2 = r2 * (1 + 1e-5);
  uint32_t *first = NULL, *list = NULL;
  long pairs = ok ? reference_pairs(pos, N_NEIGH, CELL * 1.00001f, &first, &list) : 0;
  if (!ok || pairs < 0) {
    tables_free(&g);
    free(pos), free(gpu_counts), free(stamp);
    ENSURE_MSG(false, "%s", ok ? "out of host memory" : fl_error_message());
  }

  /* The CPU walk over the GPU tables: every table entry of the 27 cells once. */
  uint32_t missed = 0, twice = 0, count_bad = 0, shared_entries = 0;
  uint64_t visits = 0, closer = 0;
  for (uint32_t i = 0; i < N_NEIGH; i++) {
    const float *pi = pos + 4 * (size_t)i;
    int32_t c[3];
    fl_spatial_hash_cell(pi, CELL, c);
    uint32_t seen[27], seen_count = 0;
    for (int dz = -1; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int32_t nc[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
          uint32_t h = fl_spatial_hash_index(nc, table);
          bool dup = false;
          for (uint32_t m = 0; m < seen_count; m++) dup |= seen[m] == h;
          shared_entries += dup && g.start[h] != FL_HASH_EMPTY;
          if (dup) continue;
          seen[seen_count++] = h;
          for (uint32_t k = g.start[h]; k < g.end[h]; k++) {
            uint32_t j = g.sorted[k];
            twice += stamp[j] == i + 1;
            stamp[j] = i + 1;
            visits++;
          }
        }
    /* Every pair closer than the cell size was visited; the GPU count lies
     * between the pairs surely inside r and those within 1e-5 beyond it. */
    uint32_t surely = 0, maybe = 0;
    for (uint32_t k = first[i]; k < first[i + 1]; k++) {
      double d2 = dist2(pi, pos + 4 * (size_t)list[k]);
      if (d2 < r2) {
        closer++;
        missed += stamp[list[k]] != i + 1;
      }
      surely += d2 < lo2;
      maybe += d2 < hi2;
    }
    if ((gpu_counts[i] < surely || gpu_counts[i] > maybe) && count_bad++ == 0)
      fprintf(stderr, "  neighbours: particle %u: the GPU counts %u, want %u..%u\n", i, gpu_counts[i], surely, maybe);
  }
  tables_free(&g);
  free(first);
  free(list);
  free(pos);
  free(gpu_counts);
  free(stamp);
  fprintf(stderr,
          "  neighbours: %llu ordered pairs closer than the cell size; %llu candidates visited (%.1f per particle); "
          "%u missed, %u visited twice; %u wrong GPU counts; %u occupied entries shared by two of the 27 cells\n",
          (unsigned long long)closer, (unsigned long long)visits, (double)visits / N_NEIGH, missed, twice, count_bad,
          shared_entries);
  ENSURE(closer > N_NEIGH);   /* the test has pairs to find */
  ENSURE(shared_entries > 0); /* and hash collisions within a neighbourhood to skip */
  ENSURE(missed == 0);
  ENSURE(twice == 0);
  ENSURE(count_bad == 0);
}
FL_GPU_TEST(test_neighbours, neighbours_body)

/* ---- bench (opt-in) ---- */

#define BENCH_REPEATS 9 /* the fastest counts: lavapipe shares its cores with whatever else runs */

static void bench_body(void)
{
  fl_gpu gpu;
  if (!fl_fixture_bench_gpu("spatial hash", &gpu)) return;
  const uint32_t n = 1u << 20;
  const float cell = 0.05f; /* 40^3 cells in [-1, 1]^3: about 16 particles per cell */
  float *pos = malloc((size_t)n * 16);
  rng_state = 0xbe7c4u;
  for (uint32_t i = 0; pos && i < n; i++) {
    for (int a = 0; a < 3; a++) pos[4 * (size_t)i + a] = rnd(-1, 1);
    pos[4 * (size_t)i + 3] = 1;
  }
  fl_spatial_hash hash = {0};
  fl_buffer positions = {0};
  fl_profiler prof = {0};
  double ceiling = 0;
  bool ok = pos && fl_profiler_create(&gpu, &prof) && fl_bench_copy_ceiling(&gpu, (uint64_t)n * 16, 16, &ceiling) &&
            fl_spatial_hash_create(&gpu, n, &hash) &&
            fl_buffer_create(&gpu, (VkDeviceSize)n * 16, FL_MEMORY_DEVICE, "bench positions", &positions) &&
            fl_buffer_upload(&gpu, &positions, 0, pos, (VkDeviceSize)n * 16);
  if (ok) fprintf(stderr, "  copy ceiling (16 MiB buffers): %.2f GB/s\n", ceiling);
  const char *names[4] = {"hash/keys", "hash/sort", "hash/cells", "hash build"};
  double best[4] = {0, 0, 0, 0};
  uint64_t bytes[4];
  if (ok) fl_spatial_hash_bytes(&hash, n, bytes);
  bytes[3] = bytes[0] + bytes[1] + bytes[2];
  for (int r = 0; ok && r <= BENCH_REPEATS; r++) { /* r = 0 warms up */
    fl_fixture_once once;
    ok = fl_fixture_once_begin(&gpu, &once);
    if (!ok) break;
    once.rec.prof = &prof;
    fl_profiler_reset(&prof, 0, FL_QUEUE_COMPUTE, once.rec.cmd);
    fl_rec_begin(&once.rec, names[3], bytes[3]);
    fl_spatial_hash_record(&hash, &once.rec, &positions, n, cell);
    fl_rec_end(&once.rec);
    ok = fl_fixture_once_end(&once);
    fl_profiler_collect(&prof, 0);
    for (int s = 0; ok && r > 0 && s < 4; s++) {
      const fl_profile_stat *st = fl_profiler_find(&prof, names[s]);
      if (!st) ok = fl_error_set("bench: no timestamps for %s", names[s]);
      else if (best[s] == 0 || st->last_ms < best[s]) best[s] = st->last_ms;
    }
  }
  for (int s = 0; ok && s < 4; s++)
    fprintf(stderr, "  %-11s %8u particles  %8.2f ms  %7.1f M particles/s  %6.2f GB/s (%llu bytes)\n", names[s], n,
            best[s], n / (best[s] * 1e3), (double)bytes[s] / (best[s] * 1e6), (unsigned long long)bytes[s]);
  if (ok) fprintf(stderr, "  table %u entries, sort by %u bits\n", hash.table_size, hash.key_bits);
  fl_spatial_hash_destroy(&gpu, &hash);
  fl_buffer_destroy(&gpu, &positions);
  fl_profiler_destroy(&prof);
  free(pos);
  fl_gpu_destroy(&gpu);
  ENSURE_MSG(ok, "%s", fl_error_message());
}

static void test_functions(void) { functions_body(); }
static void test_bench(void) { bench_body(); }

static const fl_test_case cases[] = {
    {"functions", test_functions},
    {"build", test_build},
    {"neighbours", test_neighbours},
    {"bench", test_bench},
};
FL_TEST_MAIN(cases)
