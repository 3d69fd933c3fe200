/* sim/xpbd/hierarchy: the coarse levels of hierarchical PBD, built on the CPU at
 * load, and the CPU reference of their passes (hierarchy.h has the algorithm). */
#include "sim/xpbd/hierarchy.h"

#include "core/log.h"
#include "sim/xpbd/xpbd_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid lines (rows or columns) of level l among n: the multiples of 2^l and the last one. */
static uint32_t level_lines(uint32_t n, uint32_t level, uint32_t *out)
{
  uint32_t stride = 1u << level, m = 0;
  for (uint32_t i = 0; i < n; i += stride) out[m++] = i;
  if (out[m - 1] != n - 1) out[m++] = n - 1;
  return m;
}

/* The level-l lines around fine line i: lo <= i <= hi, and i's weight toward hi. */
static void bracket(uint32_t n, uint32_t level, uint32_t i, uint32_t *lo, uint32_t *hi, float *t)
{
  uint32_t stride = 1u << level;
  *lo = i / stride * stride;
  *hi = *lo + stride < n - 1 ? *lo + stride : n - 1;
  if (*lo == i) *hi = i;
  *t = *hi > *lo ? (float)(i - *lo) / (float)(*hi - *lo) : 0.0f;
}

static bool in_level(uint32_t n, uint32_t level, uint32_t i) { return i % (1u << level) == 0 || i == n - 1; }

/* A coarse constraint between particles p and q spanning `span` fine springs of compliance `fine`. */
static fl_gpu_distance coarse(const float (*rest)[4], uint32_t p, uint32_t q, uint32_t kind, float fine, uint32_t span)
{
  float d[3] = {rest[p][0] - rest[q][0], rest[p][1] - rest[q][1], rest[p][2] - rest[q][2]};
  return (fl_gpu_distance){.i = p, .j = q, .kind = kind, .rest = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]),
                           .compliance = fine * (float)span};
}

/* Appends (or counts, out NULL) level l's constraints of colour c of one cloth: c / 2 is the
 * direction (right, up, diagonal, antidiagonal), c % 2 the parity of b for up, of a for the others. */
static uint32_t level_colour(const fl_cloth_desc *d, uint32_t first, const float (*rest)[4], uint32_t level,
                             uint32_t c, const uint32_t *cols, uint32_t mx, const uint32_t *rows, uint32_t my,
                             fl_gpu_distance *out)
{
  uint32_t n = 0, dir = c / 2, parity = c % 2, nx = d->resolution[0];
  for (uint32_t b = 0; b < my; b++)
    for (uint32_t a = 0; a < mx; a++) {
      if ((dir == 1 ? b : a) % 2 != parity) continue; /* up: by the parity of b, the others by a's */
      bool right = a + 1 < mx, up = b + 1 < my;
      uint32_t p = 0, q = 0, span = 0, kind = FL_DISTANCE_STRETCH;
      float fine = d->stretch_compliance;
      if (dir == 0 && right) p = first + rows[b] * nx + cols[a], q = p + cols[a + 1] - cols[a], span = cols[a + 1] - cols[a];
      else if (dir == 1 && up) p = first + rows[b] * nx + cols[a], q = first + rows[b + 1] * nx + cols[a],
                               span = rows[b + 1] - rows[b];
      else if (dir >= 2 && right && up) {
        uint32_t a0 = dir == 2 ? a : a + 1, a1 = dir == 2 ? a + 1 : a;
        p = first + rows[b] * nx + cols[a0], q = first + rows[b + 1] * nx + cols[a1];
        span = cols[a + 1] - cols[a] > rows[b + 1] - rows[b] ? cols[a + 1] - cols[a] : rows[b + 1] - rows[b];
        kind = FL_DISTANCE_SHEAR, fine = d->shear_compliance;
      } else
        continue;
      if (out) out[n] = coarse(rest, p, q, kind, fine, span);
      n++;
    }
  return n;
}

/* Appends (or counts) the prolongation records after level l of one cloth. */
static uint32_t level_prolong(const fl_cloth_desc *d, uint32_t first, uint32_t level, fl_gpu_prolong *out)
{
  uint32_t nx = d->resolution[0], ny = d->resolution[1], n = 0;
  for (uint32_t j = 0; j < ny; j++)
    for (uint32_t i = 0; i < nx; i++) {
      bool finer = in_level(nx, level - 1, i) && in_level(ny, level - 1, j);
      if (!finer || (in_level(nx, level, i) && in_level(ny, level, j))) continue;
      if (out) {
        uint32_t i0, i1, j0, j1;
        float ti, tj;
        bracket(nx, level, i, &i0, &i1, &ti);
        bracket(ny, level, j, &j0, &j1, &tj);
        fl_gpu_prolong *r = &out[n];
        *r = (fl_gpu_prolong){.target = first + j * nx + i};
        uint32_t p[4] = {j0 * nx + i0, j0 * nx + i1, j1 * nx + i0, j1 * nx + i1};
        float w[4] = {(1 - ti) * (1 - tj), ti * (1 - tj), (1 - ti) * tj, ti * tj};
        for (int k = 0; k < 4; k++) r->parent[k] = first + p[k], r->weight[k] = w[k];
      }
      n++;
    }
  return n;
}

/* Counts (out NULL) or fills every record: constraints and offsets, prolongations and offsets. */
static bool fill(const fl_cloth_desc *descs, uint32_t count, const uint32_t *first, const float (*rest)[4],
                 fl_hierarchy *h, bool write)
{
  uint32_t nc = 0, np = 0;
  for (uint32_t l = 1; l < h->levels; l++) {
    for (uint32_t c = 0; c < FL_HIER_COLORS; c++) {
      h->color_offsets[(l - 1) * FL_HIER_COLORS + c] = nc;
      for (uint32_t o = 0; o < count; o++) {
        const fl_cloth_desc *d = &descs[o];
        if (d->hierarchy_levels <= l) continue;
        uint32_t cols[4097], rows[4097];
        uint32_t mx = level_lines(d->resolution[0], l, cols), my = level_lines(d->resolution[1], l, rows);
        nc += level_colour(d, first[o], rest, l, c, cols, mx, rows, my, write ? h->constraints + nc : NULL);
      }
    }
    h->prolong_first[l] = np;
    for (uint32_t o = 0; o < count; o++)
      if (descs[o].hierarchy_levels > l) np += level_prolong(&descs[o], first[o], l, write ? h->prolong + np : NULL);
  }
  h->color_offsets[(h->levels - 1) * FL_HIER_COLORS] = nc;
  h->prolong_first[h->levels] = np;
  h->constraint_count = nc;
  h->prolong_count = np;
  return true;
}

/* The fine distance constraint between particles p and q (UINT32_MAX when none). */
static uint32_t fine_between(const fl_hierarchy_fine *fine, uint32_t p, uint32_t q)
{
  for (uint32_t k = fine->particle_first[p]; k < fine->particle_first[p + 1]; k++) {
    const fl_gpu_distance *d = &fine->constraints[fine->particle_items[k]];
    if ((d->i == p && d->j == q) || (d->i == q && d->j == p)) return fine->particle_items[k];
  }
  return UINT32_MAX;
}

/* Appends (or counts, out NULL) the carry pairs of coarse constraint c: the fine springs on the
 * straight or 45-degree grid path between its particles (none for a coarse diagonal of a cell that
 * is not square: the kept last row or column). */
static uint32_t coarse_carry(const fl_cloth_desc *descs, uint32_t count, const uint32_t *first,
                             const fl_hierarchy_fine *fine, const fl_gpu_distance *d, uint32_t c, uint32_t (*out)[2])
{
  uint32_t o = 0;
  while (o + 1 < count && d->i >= first[o + 1]) o++;
  uint32_t nx = descs[o].resolution[0], a = d->i - first[o], b = d->j - first[o];
  int x = (int)(a % nx), y = (int)(a / nx), dx = (int)(b % nx) - x, dy = (int)(b / nx) - y;
  if (dx != 0 && dy != 0 && abs(dx) != abs(dy)) return 0;
  int steps = abs(dx) > abs(dy) ? abs(dx) : abs(dy), sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0), n = 0;
  for (int k = 0; k < steps; k++, x += sx, y += sy) {
    uint32_t f = fine_between(fine, first[o] + (uint32_t)(y * (int)nx + x), first[o] + (uint32_t)((y + sy) * (int)nx + x + sx));
    if (f == UINT32_MAX) continue;
    if (out) out[n][0] = f, out[n][1] = c;
    n++;
  }
  return (uint32_t)n;
}

/* Counts (out NULL) or fills the carry pairs, by level. */
static uint32_t fill_carry(const fl_cloth_desc *descs, uint32_t count, const uint32_t *first,
                           const fl_hierarchy_fine *fine, fl_hierarchy *h, uint32_t (*out)[2])
{
  uint32_t n = 0;
  for (uint32_t l = 1; l < h->levels; l++) {
    h->carry_first[l] = n;
    for (uint32_t c = h->color_offsets[(l - 1) * FL_HIER_COLORS]; c < h->color_offsets[l * FL_HIER_COLORS]; c++)
      n += coarse_carry(descs, count, first, fine, &h->constraints[c], c, out ? out + n : NULL);
  }
  h->carry_first[h->levels] = n;
  return n;
}

/* The largest compliance / (w_i + w_j) of the fine distance constraints between particles of
 * hierarchical cloths (pins alone: none; the soft bodies' and balloons' after the cloths: none). */
static float compliance_per_w(const fl_cloth_desc *descs, uint32_t count, const uint32_t *first,
                              const float (*rest)[4], const fl_hierarchy_fine *fine)
{
  float worst = 0.0f;
  for (uint32_t c = 0; c < fine->color_offsets[fine->color_count]; c++) {
    const fl_gpu_distance *d = &fine->constraints[c];
    uint32_t o = 0;
    while (o + 1 < count && d->i >= first[o + 1]) o++;
    float w = rest[d->i][3] + rest[d->j][3];
    bool in_cloth = d->i >= first[o] && d->i - first[o] < descs[o].resolution[0] * descs[o].resolution[1]; /* not a body's */
    if (in_cloth && descs[o].hierarchy_levels > 1 && w > 0.0f && d->compliance / w > worst) worst = d->compliance / w;
  }
  return worst;
}

bool fl_hierarchy_carries(const fl_hierarchy *h, float solve_h)
{
  return h->levels > 1 && h->compliance_per_w >= FL_HIER_CARRY_RATIO * solve_h * solve_h;
}

bool fl_hierarchy_create(const fl_cloth_desc *descs, uint32_t count, const uint32_t *first, const float (*rest)[4],
                         const fl_hierarchy_fine *fine, fl_hierarchy *out)
{
  memset(out, 0, sizeof *out);
  out->levels = 1;
  for (uint32_t o = 0; o < count; o++) { /* 0 (a desc made in code) is off, as 1 */
    if (descs[o].hierarchy_levels > FL_HIER_MAX_LEVELS ||
        (descs[o].hierarchy_levels > 1 && !fl_cloth_hierarchy_fits(descs[o].resolution, descs[o].hierarchy_levels)))
      return fl_error_set("cloth %u: hierarchy_levels %u does not fit its %ux%u grid", (unsigned)o,
                          (unsigned)descs[o].hierarchy_levels, (unsigned)descs[o].resolution[0],
                          (unsigned)descs[o].resolution[1]);
    if (descs[o].hierarchy_levels > out->levels) out->levels = descs[o].hierarchy_levels;
  }
  if (out->levels == 1) return true;
  fill(descs, count, first, rest, out, false);
  out->constraints = calloc(out->constraint_count ? out->constraint_count : 1, sizeof *out->constraints);
  out->prolong = calloc(out->prolong_count ? out->prolong_count : 1, sizeof *out->prolong);
  if (!out->constraints || !out->prolong) {
    fl_hierarchy_destroy(out);
    return fl_error_set("out of host memory for the cloth's coarse levels");
  }
  fill(descs, count, first, rest, out, true);
  out->carry_count = fill_carry(descs, count, first, fine, out, NULL);
  out->carry = calloc(out->carry_count ? out->carry_count : 1, sizeof *out->carry);
  if (!out->carry) {
    fl_hierarchy_destroy(out);
    return fl_error_set("out of host memory for the cloth's coarse levels");
  }
  fill_carry(descs, count, first, fine, out, out->carry);
  out->compliance_per_w = compliance_per_w(descs, count, first, rest, fine);
  return true;
}

void fl_hierarchy_destroy(fl_hierarchy *h)
{
  free(h->constraints);
  free(h->prolong);
  free(h->carry);
  memset(h, 0, sizeof *h);
  h->levels = 1;
}

void fl_hierarchy_cpu_sweep(const fl_hierarchy *h, uint32_t level, float (*x)[4], float *lambda, float solve_h)
{
  uint32_t c0 = h->color_offsets[(level - 1) * FL_HIER_COLORS], c1 = h->color_offsets[level * FL_HIER_COLORS];
  for (uint32_t c = c0; c < c1; c++) { /* colour order = array order; a colour's constraints share no particle */
    const fl_gpu_distance *d = &h->constraints[c];
    float C, n[3];
    if (!fl_xpbd_distance_eval(d, x[d->i], x[d->j], &C, n) || C <= 0.0f) continue;
    float alpha = d->compliance / (solve_h * solve_h), denom = x[d->i][3] + x[d->j][3] + alpha;
    float dl = denom < 1e-12f ? 0.0f : (-C - alpha * lambda[c]) / denom;
    lambda[c] += dl;
    for (int a = 0; a < 3; a++) {
      x[d->i][a] += n[a] * (x[d->i][3] * dl);
      x[d->j][a] -= n[a] * (x[d->j][3] * dl);
    }
  }
}

void fl_hierarchy_cpu_prolong(const fl_hierarchy *h, uint32_t level, float (*x)[4], const float (*x0)[4])
{
  for (uint32_t k = h->prolong_first[level]; k < h->prolong_first[level + 1]; k++) {
    const fl_gpu_prolong *p = &h->prolong[k];
    if (x[p->target][3] == 0.0f) continue;
    float dx[3] = {0, 0, 0};
    for (int q = 0; q < 4; q++)
      for (int a = 0; a < 3; a++) dx[a] += p->weight[q] * (x[p->parent[q]][a] - x0[p->parent[q]][a]);
    for (int a = 0; a < 3; a++) x[p->target][a] += dx[a];
  }
}

void fl_hierarchy_cpu_carry(const fl_hierarchy *h, const fl_hierarchy_fine *fine, uint32_t particle_count,
                            float (*x)[4], const float (*x0)[4], const float *lambda, float *fine_lambda)
{
  for (uint32_t l = 1; l < h->levels; l++)
    for (uint32_t k = h->carry_first[l]; k < h->carry_first[l + 1]; k++) fine_lambda[h->carry[k][0]] += lambda[h->carry[k][1]];
  memcpy(x, x0, (size_t)particle_count * sizeof *x);
  for (uint32_t c = 0; c < fine->color_offsets[fine->color_count]; c++) { /* xpbd/distance_gs, FL_DISTANCE_APPLY */
    const fl_gpu_distance *d = &fine->constraints[c];
    float C, n[3], dl = fine_lambda[c];
    if (!fl_xpbd_distance_eval(d, x[d->i], x[d->j], &C, n)) continue;
    for (int a = 0; a < 3; a++) {
      x[d->i][a] += n[a] * (x[d->i][3] * dl);
      x[d->j][a] -= n[a] * (x[d->j][3] * dl);
    }
  }
}

void fl_hierarchy_cpu_substep(const fl_hierarchy *h, const fl_hierarchy_fine *fine, uint32_t particle_count,
                              float (*x)[4], float (*scratch_x0)[4], float *lambda, float *fine_lambda,
                              uint32_t iterations, float solve_h)
{
  if (h->levels < 2) return;
  memset(lambda, 0, h->constraint_count * sizeof *lambda);
  memcpy(scratch_x0, x, (size_t)particle_count * sizeof *x);
  for (uint32_t l = h->levels - 1; l >= 1; l--) {
    for (uint32_t it = 0; it < iterations; it++) fl_hierarchy_cpu_sweep(h, l, x, lambda, solve_h);
    fl_hierarchy_cpu_prolong(h, l, x, (const float (*)[4])scratch_x0);
  }
  if (fl_hierarchy_carries(h, solve_h))
    fl_hierarchy_cpu_carry(h, fine, particle_count, x, (const float (*)[4])scratch_x0, lambda, fine_lambda);
}
