/* sim/xpbd/tetrahedralize: the voxel tetrahedralizer (kept cells, a
 * manifold fix-up, Kuhn tets, shared vertices), tet meshes from given tets,
 * their boundary faces and volumes. */
#include "sim/xpbd/tetrahedralize.h"

#include "core/log.h"
#include "sim/common/vec3d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 4 /* per cell and axis */

double fl_tet_volume(const float a[3], const float b[3], const float c[3], const float d[3])
{
  double u[3], v[3], w[3];
  fl_v3d_subf(b, a, u);
  fl_v3d_subf(c, a, v);
  fl_v3d_subf(d, a, w);
  return fl_v3d_triple(w, u, v) / 6.0; /* (u x v) . w */
}

double fl_tet_mesh_volume(const fl_tet_mesh *m)
{
  double sum = 0;
  for (uint32_t t = 0; t < m->tet_count; t++) {
    const uint32_t *v = m->tets[t];
    sum += fl_tet_volume(m->positions[v[0]], m->positions[v[1]], m->positions[v[2]], m->positions[v[3]]);
  }
  return sum;
}

void fl_tet_mesh_free(fl_tet_mesh *m)
{
  free(m->positions);
  free(m->tets);
  free(m->surface);
  memset(m, 0, sizeof *m);
}

/* ---- boundary faces ---- */

typedef struct {
  uint32_t key[3]; /* the face's vertices, sorted */
  uint32_t face;   /* tet * 4 + which */
} face_rec;

/* The faces of a positive tet, counter-clockwise seen from outside it. */
static const int TET_FACES[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};

static int compare_face(const void *a, const void *b)
{
  const face_rec *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
  return 0;
}

static void sort3(uint32_t k[3])
{
  uint32_t t;
  if (k[0] > k[1]) t = k[0], k[0] = k[1], k[1] = t;
  if (k[1] > k[2]) t = k[1], k[1] = k[2], k[2] = t;
  if (k[0] > k[1]) t = k[0], k[0] = k[1], k[1] = t;
}

bool fl_tet_mesh_find_surface(fl_tet_mesh *m)
{
  free(m->surface);
  m->surface = NULL;
  m->surface_count = 0;
  size_t n = 4 * (size_t)m->tet_count;
  face_rec *faces = malloc((n + 1) * sizeof *faces);
  if (!faces) return fl_error_set("tet mesh: out of memory finding the surface of %u tets", m->tet_count);
  for (size_t f = 0; f < n; f++) {
    for (int i = 0; i < 3; i++) faces[f].key[i] = m->tets[f / 4][TET_FACES[f % 4][i]];
    sort3(faces[f].key);
    faces[f].face = (uint32_t)f;
  }
  qsort(faces, n, sizeof *faces, compare_face);
  size_t count = 0;
  for (size_t f = 0; f < n;) { /* compact the faces used once to the front */
    size_t end = f + 1;
    while (end < n && compare_face(&faces[f], &faces[end]) == 0) end++;
    if (end == f + 1) faces[count++] = faces[f];
    f = end;
  }
  m->surface = malloc((count + 1) * sizeof *m->surface);
  if (!m->surface) {
    free(faces);
    return fl_error_set("tet mesh: out of memory for %zu surface faces", count);
  }
  for (size_t s = 0; s < count; s++) {
    uint32_t f = faces[s].face;
    for (int i = 0; i < 3; i++) m->surface[s][i] = m->tets[f / 4][TET_FACES[f % 4][i]];
  }
  m->surface_count = (uint32_t)count;
  free(faces);
  return true;
}

/* ---- tet meshes from given tets ---- */

static double bounds_volume(const float (*p)[3], uint32_t count)
{
  float lo[3] = {p[0][0], p[0][1], p[0][2]}, hi[3] = {p[0][0], p[0][1], p[0][2]};
  for (uint32_t v = 1; v < count; v++)
    for (int i = 0; i < 3; i++) {
      lo[i] = fminf(lo[i], p[v][i]);
      hi[i] = fmaxf(hi[i], p[v][i]);
    }
  return ((double)hi[0] - lo[0]) * ((double)hi[1] - lo[1]) * ((double)hi[2] - lo[2]);
}

bool fl_tet_mesh_from_tets(const float (*positions)[3], uint32_t vertex_count, const uint32_t (*tets)[4],
                           uint32_t tet_count, fl_tet_mesh *out)
{
  memset(out, 0, sizeof *out);
  if (vertex_count == 0 || tet_count == 0)
    return fl_error_set("tet mesh: %u vertices and %u tets, need some of each", vertex_count, tet_count);
  for (uint32_t t = 0; t < tet_count; t++)
    for (int k = 0; k < 4; k++)
      if (tets[t][k] >= vertex_count)
        return fl_error_set("tet mesh: tet %u names vertex %u (%u vertices)", t, tets[t][k], vertex_count);
  out->positions = malloc((size_t)vertex_count * sizeof *out->positions);
  out->tets = malloc((size_t)tet_count * sizeof *out->tets);
  if (!out->positions || !out->tets) {
    fl_tet_mesh_free(out);
    return fl_error_set("tet mesh: out of memory for %u vertices and %u tets", vertex_count, tet_count);
  }
  memcpy(out->positions, positions, (size_t)vertex_count * sizeof *out->positions);
  memcpy(out->tets, tets, (size_t)tet_count * sizeof *out->tets);
  out->vertex_count = vertex_count;
  out->tet_count = tet_count;
  double floor_volume = 1e-12 * bounds_volume(positions, vertex_count);
  for (uint32_t t = 0; t < tet_count; t++) {
    uint32_t *v = out->tets[t];
    double vol = fl_tet_volume(positions[v[0]], positions[v[1]], positions[v[2]], positions[v[3]]);
    if (!(fabs(vol) > floor_volume)) {
      fl_error_set("tet mesh: tet %u is degenerate (volume %g, vertices %u %u %u %u)", t, vol, v[0], v[1], v[2],
                   v[3]);
      fl_tet_mesh_free(out);
      return false;
    }
    if (vol < 0) {
      uint32_t swap = v[2];
      v[2] = v[3];
      v[3] = swap;
    }
  }
  if (!fl_tet_mesh_find_surface(out)) {
    fl_tet_mesh_free(out);
    return false;
  }
  return true;
}

/* ---- the voxel grid ---- */

/* Grids up to this many cells try each of the 8 alignments (see grid_choose). */
#define ALIGN_SEARCH_MAX_CELLS (1u << 18)

typedef struct {
  uint32_t n[3];     /* cells per axis */
  double origin[3];  /* corner of cell (0, 0, 0) */
  double spacing;
  uint8_t *keep;     /* per cell, x fastest */
  size_t kept;       /* cells kept */
  double inside;     /* the solid's volume in cells, as its samples measure it */
} voxel_grid;

static size_t cell_index(const voxel_grid *g, uint32_t i, uint32_t j, uint32_t k)
{
  return ((size_t)k * g->n[1] + j) * g->n[0] + i;
}

static size_t grid_cells(const voxel_grid *g) { return (size_t)g->n[0] * g->n[1] * g->n[2]; }

static bool grid_fits(const double n[3])
{
  return n[0] <= FL_TETRAHEDRALIZE_MAX_CELLS_AXIS && n[1] <= FL_TETRAHEDRALIZE_MAX_CELLS_AXIS &&
         n[2] <= FL_TETRAHEDRALIZE_MAX_CELLS_AXIS && n[0] * n[1] * n[2] <= FL_TETRAHEDRALIZE_MAX_CELLS;
}

/* Keeps the cells with at least half of their samples inside, a slab of
 * layers of cells (at most about SLAB_SAMPLES samples) at a time. */
#define SLAB_SAMPLES (16u << 20)
static bool grid_classify(const fl_solid *solid, voxel_grid *g)
{
  const uint32_t per_cell = SAMPLES * SAMPLES * SAMPLES;
  size_t layer_cells = (size_t)g->n[0] * g->n[1], slab = SLAB_SAMPLES / (layer_cells * per_cell);
  slab = slab < 1 ? 1 : slab > g->n[2] ? g->n[2] : slab;
  uint8_t *inside = malloc(slab * layer_cells * per_cell);
  if (!inside) return fl_error_set("tetrahedralize: out of memory for the inside samples");
  double step = g->spacing / SAMPLES;
  size_t samples_in = 0;
  bool ok = true;
  for (uint32_t k0 = 0; ok && k0 < g->n[2]; k0 += (uint32_t)slab) {
    uint32_t layers = g->n[2] - k0 < slab ? g->n[2] - k0 : (uint32_t)slab;
    const uint32_t n[3] = {SAMPLES * g->n[0], SAMPLES * g->n[1], SAMPLES * layers};
    double origin[3] = {g->origin[0] + 0.5 * step, g->origin[1] + 0.5 * step,
                        g->origin[2] + g->spacing * k0 + 0.5 * step};
    ok = fl_solid_inside_lattice(solid, origin, step, n, inside);
    uint8_t *keep = g->keep + k0 * layer_cells;
    size_t count = (size_t)n[0] * n[1] * n[2];
    for (size_t s = 0; ok && s < count; s++) { /* count the samples in in keep[], then threshold */
      size_t x = s % n[0], y = s / n[0] % n[1], z = s / ((size_t)n[0] * n[1]);
      keep[(z / SAMPLES * g->n[1] + y / SAMPLES) * g->n[0] + x / SAMPLES] += inside[s];
      samples_in += inside[s];
    }
    for (size_t c = 0; ok && c < layers * layer_cells; c++) keep[c] = 2 * keep[c] >= per_cell;
  }
  g->inside = (double)samples_in / per_cell;
  free(inside);
  return ok;
}

/* True when the cells of `set` (bits dx | dy << 1 | dz << 2 of a 2x2x2 block) are face-connected. */
static bool block_connected(uint32_t set)
{
  if (!set) return true;
  uint32_t reached = set & (~set + 1), grown = 0;
  while (grown != reached) {
    grown = reached;
    for (uint32_t c = 0; c < 8; c++)
      if (reached >> c & 1)
        for (uint32_t axis = 1; axis < 8; axis <<= 1) reached |= (1u << (c ^ axis)) & set;
  }
  return reached == set;
}

/* The boundary is a manifold at a grid vertex when both the kept and the empty
 * cells around it are face-connected (else two solid or two empty cells meet
 * only along an edge or at the vertex). */
static bool block_manifold(uint32_t kept) { return block_connected(kept) && block_connected(~kept & 0xffu); }

/* Keeps every cell around each non-manifold grid vertex, until there are none. */
static void grid_make_manifold(voxel_grid *g)
{
  bool manifold[256];
  for (uint32_t p = 0; p < 256; p++) manifold[p] = block_manifold(p);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t k = 0; k <= g->n[2]; k++)
      for (uint32_t j = 0; j <= g->n[1]; j++)
        for (uint32_t i = 0; i <= g->n[0]; i++) {
          uint32_t kept = 0, ingrid = 0;
          for (uint32_t c = 0; c < 8; c++) {
            uint32_t ci = i + (c & 1) - 1, cj = j + (c >> 1 & 1) - 1, ck = k + (c >> 2) - 1; /* wraps below 0 */
            if (ci >= g->n[0] || cj >= g->n[1] || ck >= g->n[2]) continue;
            ingrid |= 1u << c;
            kept |= (uint32_t)g->keep[cell_index(g, ci, cj, ck)] << c;
          }
          if (manifold[kept] || kept == ingrid) continue;
          for (uint32_t c = 0; c < 8; c++)
            if (ingrid >> c & 1)
              g->keep[cell_index(g, i + (c & 1) - 1, j + (c >> 1 & 1) - 1, k + (c >> 2) - 1)] = 1;
          changed = true;
        }
  }
}

/* A grid of base[a] cells along each axis, one more on the axes of `extra`
 * (bits 0..2), centred on [lo, hi]; classified and made manifold. */
static bool grid_try(const fl_solid *solid, const float lo[3], const float hi[3], double spacing,
                     const double base[3], uint32_t extra, voxel_grid *g)
{
  memset(g, 0, sizeof *g);
  g->spacing = spacing;
  for (int a = 0; a < 3; a++) {
    g->n[a] = (uint32_t)base[a] + (extra >> a & 1);
    g->origin[a] = 0.5 * ((double)lo[a] + hi[a]) - 0.5 * g->n[a] * spacing;
  }
  g->keep = calloc(grid_cells(g), 1);
  if (!g->keep) return fl_error_set("tetrahedralize: out of memory for %ux%ux%u cells", g->n[0], g->n[1], g->n[2]);
  if (!grid_classify(solid, g)) return false;
  grid_make_manifold(g);
  for (size_t c = 0; c < grid_cells(g); c++) g->kept += g->keep[c];
  return true;
}

/* Sizes the grid: centred on the solid's bounds with ceil(extent / spacing) cells
 * per axis, or one more (which shifts the cell faces by half a cell). Of those 8
 * grids, the one whose kept cells' volume is nearest the solid's volume
 * (fl_solid_volume; where that is not positive, as the samples measure it); over
 * ALIGN_SEARCH_MAX_CELLS cells, where alignment matters little, only the grid
 * whose per-axis count has the parity of round(extent / spacing) (boxes then
 * keep round(extent / spacing) cells per axis). */
static bool grid_choose(const fl_solid *solid, float spacing, voxel_grid *g)
{
  memset(g, 0, sizeof *g);
  if (!(spacing > 0) || !isfinite(spacing))
    return fl_error_set("tetrahedralize: cell spacing %g is not a positive number", (double)spacing);
  float lo[3], hi[3];
  fl_solid_bounds(solid, lo, hi);
  double base[3], plus_one[3];
  uint32_t parity = 0;
  for (int a = 0; a < 3; a++) {
    double cells = ((double)hi[a] - lo[a]) / spacing;
    base[a] = fmax(1.0, ceil(cells - 1e-6));
    plus_one[a] = base[a] + 1;
    if (fmod(base[a] - fmax(1.0, round(cells)), 2.0) != 0) parity |= 1u << a;
  }
  double with_parity[3] = {base[0] + (parity & 1), base[1] + (parity >> 1 & 1), base[2] + (parity >> 2 & 1)};
  if (!grid_fits(with_parity)) parity = 0;
  if (!grid_fits(base))
    return fl_error_set("tetrahedralize: a grid of %.0f x %.0f x %.0f cells (spacing %g m) is over the limit "
                        "(%u per axis, %u in all): lower the resolution",
                        base[0], base[1], base[2], (double)spacing, FL_TETRAHEDRALIZE_MAX_CELLS_AXIS,
                        FL_TETRAHEDRALIZE_MAX_CELLS);
  bool search = grid_fits(plus_one) && plus_one[0] * plus_one[1] * plus_one[2] <= ALIGN_SEARCH_MAX_CELLS;
  double target = fl_solid_volume(solid) / ((double)spacing * spacing * spacing), best_error = INFINITY;
  for (uint32_t extra = 0; extra < 8; extra++) {
    double n[3] = {base[0] + (extra & 1), base[1] + (extra >> 1 & 1), base[2] + (extra >> 2 & 1)};
    if (!grid_fits(n) || (!search && extra != parity)) continue;
    voxel_grid trial;
    if (!grid_try(solid, lo, hi, spacing, base, extra, &trial)) {
      free(trial.keep);
      free(g->keep);
      return false;
    }
    /* A mesh's signed volume can be meaningless (open, inside out): then the samples'.
     * A grid with cells beats one without. */
    double error = fabs((double)trial.kept - (target > 0 && isfinite(target) ? target : trial.inside));
    if (trial.kept == 0) error = 1e300;
    if (error < best_error - 1e-9) {
      free(g->keep);
      *g = trial;
      best_error = error;
    } else {
      free(trial.keep);
    }
  }
  return true;
}

/* The six Kuhn tets of a cell as corner bits (x | y << 1 | z << 2): one per axis
 * order, along the edges 0 -> e_a -> e_a + e_b -> (1,1,1); positively oriented. */
static void kuhn_tets(uint32_t out[6][4])
{
  static const uint32_t order[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  for (int t = 0; t < 6; t++) {
    uint32_t c1 = 1u << order[t][0], c2 = c1 | 1u << order[t][1];
    bool even = t < 3; /* det [e_a, e_b, e_c] is the sign of the axis order */
    out[t][0] = 0;
    out[t][1] = c1;
    out[t][2] = even ? c2 : 7;
    out[t][3] = even ? 7 : c2;
  }
}

/* Numbers the grid vertices the kept cells use, writes the positions and the tets. */
static bool grid_emit(const voxel_grid *g, fl_tet_mesh *out)
{
  const uint32_t vn[3] = {g->n[0] + 1, g->n[1] + 1, g->n[2] + 1};
  size_t nverts = (size_t)vn[0] * vn[1] * vn[2], kept = g->kept;
  if (kept == 0)
    return fl_error_set("tetrahedralize: no cell is inside the solid (spacing %g m): the shape is thinner than "
                        "one cell: raise the resolution",
                        g->spacing);
  uint32_t *index = malloc(nverts * sizeof *index);
  out->tets = malloc(6 * kept * sizeof *out->tets);
  if (!index || !out->tets) {
    free(index);
    return fl_error_set("tetrahedralize: out of memory for %zu tets", 6 * kept);
  }
  memset(index, 0xff, nverts * sizeof *index);
  uint32_t kuhn[6][4], count = 0, tets = 0;
  kuhn_tets(kuhn);
  for (uint32_t k = 0; k < g->n[2]; k++)
    for (uint32_t j = 0; j < g->n[1]; j++)
      for (uint32_t i = 0; i < g->n[0]; i++) {
        if (!g->keep[cell_index(g, i, j, k)]) continue;
        uint32_t corner[8];
        for (uint32_t c = 0; c < 8; c++) {
          size_t v = ((size_t)(k + (c >> 2)) * vn[1] + j + (c >> 1 & 1)) * vn[0] + i + (c & 1);
          if (index[v] == UINT32_MAX) index[v] = count++;
          corner[c] = index[v];
        }
        for (int t = 0; t < 6; t++, tets++)
          for (int q = 0; q < 4; q++) out->tets[tets][q] = corner[kuhn[t][q]];
      }
  out->positions = malloc((size_t)count * sizeof *out->positions);
  if (!out->positions) {
    free(index);
    return fl_error_set("tetrahedralize: out of memory for %u vertices", count);
  }
  for (size_t v = 0; v < nverts; v++) {
    if (index[v] == UINT32_MAX) continue;
    size_t xyz[3] = {v % vn[0], v / vn[0] % vn[1], v / ((size_t)vn[0] * vn[1])};
    for (int a = 0; a < 3; a++) out->positions[index[v]][a] = (float)(g->origin[a] + g->spacing * (double)xyz[a]);
  }
  free(index);
  out->vertex_count = count;
  out->tet_count = tets;
  return true;
}

bool fl_tetrahedralize(const fl_solid *solid, float spacing, fl_tet_mesh *out)
{
  memset(out, 0, sizeof *out);
  voxel_grid g;
  bool ok = grid_choose(solid, spacing, &g) && grid_emit(&g, out) && fl_tet_mesh_find_surface(out);
  free(g.keep);
  if (!ok) fl_tet_mesh_free(out);
  return ok;
}
