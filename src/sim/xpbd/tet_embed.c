/* sim/xpbd/tet_embed: barycentric embedding of render points in a tet
 * mesh: a uniform grid over the tets' bounding boxes, searched in growing
 * rings of cells until no unvisited tet can be nearer than the best found. */
#include "sim/xpbd/tet_embed.h"

#include "core/log.h"
#include "sim/common/vec3d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The barycentric frame of a tet: lambda_k = rows[k-1] . (p - x0), k = 1..3; and its bounds. */
typedef struct {
  double x0[3];
  double rows[3][3];
  double lo[3], hi[3];
} tet_frame;

typedef struct {
  double origin[3], cell;
  int32_t n[3];
  uint32_t *first, *items; /* tets overlapping cell c: items[first[c] .. first[c+1]) */
} tet_grid;

/* Everything one search needs. */
typedef struct {
  const fl_tet_mesh *m;
  const tet_frame *frames;
  const tet_grid *grid;
  uint32_t *stamp; /* per tet: the search (point + 1) that last looked at it */
} embed_ctx;

static void frame_build(const fl_tet_mesh *m, uint32_t t, tet_frame *f)
{
  const uint32_t *v = m->tets[t];
  double e[3][3];
  fl_v3d_from_f(m->positions[v[0]], f->x0);
  for (int k = 0; k < 3; k++) fl_v3d_subf(m->positions[v[k + 1]], m->positions[v[0]], e[k]);
  double det = fl_v3d_triple(e[0], e[1], e[2]);
  fl_v3d_cross(e[1], e[2], f->rows[0]);
  fl_v3d_cross(e[2], e[0], f->rows[1]);
  fl_v3d_cross(e[0], e[1], f->rows[2]);
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) f->rows[k][i] /= det;
  for (int i = 0; i < 3; i++) {
    f->lo[i] = f->hi[i] = m->positions[v[0]][i];
    for (int k = 1; k < 4; k++) {
      f->lo[i] = fmin(f->lo[i], m->positions[v[k]][i]);
      f->hi[i] = fmax(f->hi[i], m->positions[v[k]][i]);
    }
  }
}

/* Squared distance from p to the box [lo, hi] (0 inside). */
static double box_dist2(const double p[3], const double lo[3], const double hi[3])
{
  double d2 = 0;
  for (int i = 0; i < 3; i++) {
    double d = p[i] < lo[i] ? lo[i] - p[i] : p[i] > hi[i] ? p[i] - hi[i] : 0;
    d2 += d * d;
  }
  return d2;
}

static void barycentric(const tet_frame *f, const double p[3], double w[4])
{
  double d[3];
  fl_v3d_sub(p, f->x0, d);
  for (int k = 0; k < 3; k++) w[k + 1] = fl_v3d_dot(f->rows[k], d);
  w[0] = 1.0 - w[1] - w[2] - w[3];
}

/* Squared distance from p to triangle (a, b, c) (Ericson, Real-Time Collision Detection 5.1.5). */
static double triangle_dist2(const double p[3], const double a[3], const double b[3], const double c[3])
{
  double ab[3], ac[3], ap[3], bp[3], cp[3], q[3];
  fl_v3d_sub(b, a, ab);
  fl_v3d_sub(c, a, ac);
  fl_v3d_sub(p, a, ap);
  double d1 = fl_v3d_dot(ab, ap), d2 = fl_v3d_dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return fl_v3d_dot(ap, ap);
  fl_v3d_sub(p, b, bp);
  double d3 = fl_v3d_dot(ab, bp), d4 = fl_v3d_dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return fl_v3d_dot(bp, bp);
  fl_v3d_sub(p, c, cp);
  double d5 = fl_v3d_dot(ab, cp), d6 = fl_v3d_dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return fl_v3d_dot(cp, cp);
  double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4, s, t;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    s = d1 / (d1 - d3), t = 0;
  } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    s = 0, t = d2 / (d2 - d6);
  } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    s = 1 - t;
  } else {
    double denom = 1.0 / (va + vb + vc);
    s = vb * denom, t = vc * denom;
  }
  for (int i = 0; i < 3; i++) q[i] = a[i] + s * ab[i] + t * ac[i] - p[i];
  return fl_v3d_dot(q, q);
}

/* Squared distance from p to tet t (0 inside), given p's barycentric weights w:
 * the nearest point lies on a face whose opposite weight is negative. */
static double tet_dist2(const fl_tet_mesh *m, uint32_t t, const double p[3], const double w[4])
{
  if (w[0] >= 0 && w[1] >= 0 && w[2] >= 0 && w[3] >= 0) return 0;
  double x[4][3], best = INFINITY;
  for (int k = 0; k < 4; k++) fl_v3d_from_f(m->positions[m->tets[t][k]], x[k]);
  for (int k = 0; k < 4; k++)
    if (w[k] < 0) best = fmin(best, triangle_dist2(p, x[(k + 1) % 4], x[(k + 2) % 4], x[(k + 3) % 4]));
  return best;
}

/* ---- the grid ---- */

static double mean_edge(const fl_tet_mesh *m)
{
  static const int E[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  double sum = 0;
  for (uint32_t t = 0; t < m->tet_count; t++)
    for (int e = 0; e < 6; e++) {
      double d[3];
      fl_v3d_subf(m->positions[m->tets[t][E[e][0]]], m->positions[m->tets[t][E[e][1]]], d);
      sum += fl_v3d_length(d);
    }
  return sum / (6.0 * m->tet_count);
}

static int32_t grid_coord(const tet_grid *g, int a, double x)
{
  double c = floor((x - g->origin[a]) / g->cell);
  return !(c >= 0) ? 0 : c > g->n[a] - 1 ? g->n[a] - 1 : (int32_t)c; /* NaN: cell 0 */
}

static size_t grid_cell(const tet_grid *g, int32_t i, int32_t j, int32_t k)
{
  return ((size_t)k * (size_t)g->n[1] + (size_t)j) * (size_t)g->n[0] + (size_t)i;
}

/* The cell range [lo, hi] of tet t's bounding box. */
static void tet_cells(const fl_tet_mesh *m, const tet_grid *g, uint32_t t, int32_t lo[3], int32_t hi[3])
{
  for (int a = 0; a < 3; a++) {
    float mn = INFINITY, mx = -INFINITY;
    for (int k = 0; k < 4; k++) {
      mn = fminf(mn, m->positions[m->tets[t][k]][a]);
      mx = fmaxf(mx, m->positions[m->tets[t][k]][a]);
    }
    lo[a] = grid_coord(g, a, mn);
    hi[a] = grid_coord(g, a, mx);
  }
}

/* Cells of about the mean tet edge (fewer where that would make over 8 cells a tet). */
static bool grid_build(const fl_tet_mesh *m, tet_grid *g)
{
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t v = 0; v < m->vertex_count; v++)
    for (int a = 0; a < 3; a++) {
      lo[a] = fmin(lo[a], m->positions[v][a]);
      hi[a] = fmax(hi[a], m->positions[v][a]);
    }
  double limit = 8.0 * m->tet_count + 64, cells = 0;
  g->cell = mean_edge(m);
  for (int tries = 0; tries < 64; tries++) {
    cells = 1;
    for (int a = 0; a < 3; a++) cells *= fmax(1.0, ceil((hi[a] - lo[a]) / g->cell));
    if (cells <= limit) break;
    g->cell *= cbrt(cells / limit) * 1.01;
  }
  if (!(cells <= limit) || !(g->cell > 0))
    return fl_error_set("tet embed: cannot grid a tet mesh of extent %g m", fmax(hi[0] - lo[0], hi[1] - lo[1]));
  for (int a = 0; a < 3; a++) {
    g->n[a] = (int32_t)fmax(1.0, ceil((hi[a] - lo[a]) / g->cell));
    g->origin[a] = lo[a];
  }
  size_t ncells = (size_t)g->n[0] * g->n[1] * g->n[2], total = 0;
  g->first = calloc(ncells + 1, sizeof *g->first);
  if (!g->first) return fl_error_set("tet embed: out of memory for a grid of %zu cells", ncells);
  for (uint32_t t = 0; t < m->tet_count; t++) {
    int32_t l[3], h[3];
    tet_cells(m, g, t, l, h);
    for (int32_t k = l[2]; k <= h[2]; k++)
      for (int32_t j = l[1]; j <= h[1]; j++)
        for (int32_t i = l[0]; i <= h[0]; i++, total++) g->first[grid_cell(g, i, j, k) + 1]++;
  }
  if (total > UINT32_MAX) return fl_error_set("tet embed: %zu tet-cell pairs, too many", total);
  for (size_t c = 0; c < ncells; c++) g->first[c + 1] += g->first[c];
  g->items = malloc((total + 1) * sizeof *g->items);
  if (!g->items) return fl_error_set("tet embed: out of memory for %zu tet-cell pairs", total);
  for (uint32_t t = 0; t < m->tet_count; t++) {
    int32_t l[3], h[3];
    tet_cells(m, g, t, l, h);
    for (int32_t k = l[2]; k <= h[2]; k++)
      for (int32_t j = l[1]; j <= h[1]; j++)
        for (int32_t i = l[0]; i <= h[0]; i++) g->items[g->first[grid_cell(g, i, j, k)]++] = t;
  }
  memmove(g->first + 1, g->first, ncells * sizeof *g->first); /* filling advanced each start to its end */
  g->first[0] = 0;
  return true;
}

/* ---- the search ---- */

typedef struct {
  uint32_t tet;
  double dist2, w[4];
} embed_best;

static double min_weight(const double w[4]) { return fmin(fmin(w[0], w[1]), fmin(w[2], w[3])); }

/* How much farther than the best a tet may be and still tie with it. */
static double tie_slack(double d2, double cell) { return 1e-12 * cell * cell + 1e-9 * d2; }

/* Nearer, or as near (a shared face, edge or vertex) with milder extrapolation. */
static bool better(double d2, const double w[4], const embed_best *best, double cell)
{
  double tie = tie_slack(d2, cell);
  if (d2 < best->dist2 - tie) return true;
  return d2 <= best->dist2 + tie && min_weight(w) > min_weight(best->w);
}

/* Looks at the tets of cell (i, j, k) that may be nearer than the best; true when p is inside one. */
static bool visit_cell(const embed_ctx *x, const int32_t ijk[3], const double p[3], uint32_t stamp,
                       embed_best *best)
{
  const tet_grid *g = x->grid;
  double lo[3], hi[3];
  for (int a = 0; a < 3; a++) {
    lo[a] = g->origin[a] + g->cell * ijk[a];
    hi[a] = lo[a] + g->cell;
  }
  double slack = tie_slack(best->dist2, g->cell);
  if (box_dist2(p, lo, hi) > best->dist2 + slack) return false;
  size_t cell = grid_cell(g, ijk[0], ijk[1], ijk[2]);
  for (uint32_t it = g->first[cell]; it < g->first[cell + 1]; it++) {
    uint32_t t = g->items[it];
    if (x->stamp[t] == stamp) continue;
    x->stamp[t] = stamp;
    if (box_dist2(p, x->frames[t].lo, x->frames[t].hi) > best->dist2 + slack) continue;
    double w[4];
    barycentric(&x->frames[t], p, w);
    double d2 = tet_dist2(x->m, t, p, w);
    if (better(d2, w, best, x->grid->cell)) {
      best->tet = t;
      best->dist2 = d2;
      memcpy(best->w, w, sizeof w);
      if (d2 == 0) return true;
      slack = tie_slack(d2, g->cell);
    }
  }
  return false;
}

/* Distance from p to the nearest cell outside the block of rings <= r around c
 * (INFINITY when the block covers the grid: every tet has been seen). */
static double ring_clearance(const tet_grid *g, const int32_t c[3], int32_t r, const double p[3])
{
  double clear = INFINITY;
  for (int a = 0; a < 3; a++) {
    if (c[a] - r > 0) clear = fmin(clear, p[a] - (g->origin[a] + (c[a] - r) * g->cell));
    if (c[a] + r < g->n[a] - 1) clear = fmin(clear, g->origin[a] + (c[a] + r + 1) * g->cell - p[a]);
  }
  return clear;
}

/* Visits the cells at Chebyshev distance exactly r from c; true when p is inside a tet. */
static bool visit_ring(const embed_ctx *x, const int32_t c[3], int32_t r, const double p[3], uint32_t stamp,
                       embed_best *best)
{
  const tet_grid *g = x->grid;
  int32_t lo[3], hi[3];
  for (int a = 0; a < 3; a++) {
    lo[a] = c[a] - r < 0 ? 0 : c[a] - r;
    hi[a] = c[a] + r > g->n[a] - 1 ? g->n[a] - 1 : c[a] + r;
  }
  for (int32_t k = lo[2]; k <= hi[2]; k++)
    for (int32_t j = lo[1]; j <= hi[1]; j++) {
      bool shell = abs(k - c[2]) == r || abs(j - c[1]) == r;
      /* Inside the shell's y-z extent only the two x ends are on the ring. */
      int32_t step = shell ? 1 : 2 * r;
      for (int32_t i = c[0] - r; i <= c[0] + r; i += step > 0 ? step : 1) {
        if (i < lo[0] || i > hi[0]) continue;
        const int32_t ijk[3] = {i, j, k};
        if (visit_cell(x, ijk, p, stamp, best)) return true;
      }
    }
  return false;
}

static embed_best embed_point(const embed_ctx *x, const double p[3], uint32_t stamp)
{
  const tet_grid *g = x->grid;
  embed_best best = {.tet = 0, .dist2 = INFINITY, .w = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}};
  int32_t c[3] = {grid_coord(g, 0, p[0]), grid_coord(g, 1, p[1]), grid_coord(g, 2, p[2])};
  for (int32_t r = 0;; r++) {
    if (visit_ring(x, c, r, p, stamp, &best)) break;
    double clear = ring_clearance(g, c, r, p);
    if (clear == INFINITY || (clear > 0 && best.dist2 <= clear * clear)) break;
  }
  return best;
}

bool fl_tet_embed(const fl_tet_mesh *m, const float (*points)[4], uint32_t count, fl_gpu_skin *out)
{
  if (count == 0) return true;
  if (m->tet_count == 0) return fl_error_set("tet embed: no tets to embed %u points in", count);
  tet_grid g = {0};
  tet_frame *frames = malloc((size_t)m->tet_count * sizeof *frames);
  uint32_t *stamp = calloc(m->tet_count, sizeof *stamp);
  bool ok = frames && stamp;
  if (!ok) fl_error_set("tet embed: out of memory for %u tets", m->tet_count);
  ok = ok && grid_build(m, &g);
  if (ok) {
    for (uint32_t t = 0; t < m->tet_count; t++) frame_build(m, t, &frames[t]);
    embed_ctx x = {m, frames, &g, stamp};
    for (uint32_t i = 0; i < count; i++) {
      double p[3];
      fl_v3d_from_f(points[i], p);
      embed_best b = embed_point(&x, p, i + 1);
      memset(&out[i], 0, sizeof out[i]);
      for (int k = 0; k < 4; k++) {
        out[i].idx[k] = m->tets[b.tet][k];
        out[i].weights[k] = (float)b.w[k];
      }
    }
  }
  free(frames);
  free(stamp);
  free(g.first);
  free(g.items);
  return ok;
}
