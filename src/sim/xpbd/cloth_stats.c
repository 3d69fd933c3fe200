/* sim/xpbd/cloth_stats: strain and closest non-neighbour distance of a cloth object. */
#include "sim/xpbd/cloth_stats.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool fl_cloth_mesh_neighbors(const fl_xpbd_build *b, uint32_t p, uint32_t q)
{
  uint32_t op = b->particle_object[p], oq = b->particle_object[q];
  if (op != oq) return false;
  const fl_gpu_xpbd_object *o = &b->objects[op];
  uint32_t lp = p - o->first, lq = q - o->first, nx = o->nx;
  int di = (int)(lp % nx) - (int)(lq % nx), dj = (int)(lp / nx) - (int)(lq / nx);
  return abs(di) <= 2 && abs(dj) <= 2;
}

typedef struct {
  uint64_t key;
  uint32_t index;
} cell_entry;

static int compare_entries(const void *a, const void *b)
{
  const cell_entry *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static uint64_t cell_key(int64_t cx, int64_t cy, int64_t cz)
{
  return ((uint64_t)(cx & 0x1FFFFF) << 42) | ((uint64_t)(cy & 0x1FFFFF) << 21) | (uint64_t)(cz & 0x1FFFFF);
}

static int64_t cell_of(float v, float size) { return (int64_t)floorf(v / size); }

/* First entry with key >= k (binary search). */
static size_t lower_bound(const cell_entry *e, size_t n, uint64_t k)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (e[mid].key < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

bool fl_cloth_stats_compute(const fl_xpbd_build *b, const float (*x)[4], uint32_t object, float r,
                            fl_cloth_stats *out)
{
  memset(out, 0, sizeof *out);
  const fl_gpu_xpbd_object *o = &b->objects[object];
  for (uint32_t c = 0; c < b->distance.count; c++) {
    const fl_gpu_distance *d = &b->distances[c];
    if (d->kind != FL_DISTANCE_STRETCH || b->particle_object[d->i] != object) continue;
    const float *p = x[d->i], *q = x[d->j];
    double len = sqrt((double)(p[0] - q[0]) * (p[0] - q[0]) + (double)(p[1] - q[1]) * (p[1] - q[1]) +
                      (double)(p[2] - q[2]) * (p[2] - q[2]));
    double strain = fabs(len / d->rest - 1.0);
    if (strain > out->max_strain) out->max_strain = strain;
    out->mean_strain += strain;
    out->stretch_count++;
  }
  if (out->stretch_count) out->mean_strain /= out->stretch_count;

  out->min_distance_nonneighbor = r;
  size_t n = b->particle_count;
  cell_entry *cells = malloc(n * sizeof *cells);
  if (!cells) return fl_error_set("out of host memory for cloth stats");
  for (size_t i = 0; i < n; i++)
    cells[i] = (cell_entry){cell_key(cell_of(x[i][0], r), cell_of(x[i][1], r), cell_of(x[i][2], r)), (uint32_t)i};
  qsort(cells, n, sizeof *cells, compare_entries);
  for (uint32_t p = o->first; p < o->first + o->count; p++) {
    int64_t cx = cell_of(x[p][0], r), cy = cell_of(x[p][1], r), cz = cell_of(x[p][2], r);
    for (int dz = -1; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          uint64_t k = cell_key(cx + dx, cy + dy, cz + dz);
          for (size_t e = lower_bound(cells, n, k); e < n && cells[e].key == k; e++) {
            uint32_t q = cells[e].index;
            if (q == p || fl_cloth_mesh_neighbors(b, p, q)) continue;
            double d = sqrt((double)(x[p][0] - x[q][0]) * (x[p][0] - x[q][0]) +
                            (double)(x[p][1] - x[q][1]) * (x[p][1] - x[q][1]) +
                            (double)(x[p][2] - x[q][2]) * (x[p][2] - x[q][2]));
            if (d < out->min_distance_nonneighbor) out->min_distance_nonneighbor = d;
          }
        }
  }
  free(cells);
  return true;
}
