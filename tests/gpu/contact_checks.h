/* tests/gpu/contact_checks.h: the CPU checks of triangle contacts (docs/CLOTH.md)
 * on meshes read back from a world, all with the exact segment-triangle test
 * (fl_segment_hits_triangle, in double): edges of one mesh through triangles of
 * another (or of itself), vertices on the wrong side of a sheet, vertices
 * inside a closed surface (ray parity), and the smallest vertex-triangle
 * distance. Header-only, as every tests/gpu/test_*.c is built alone; include
 * it after gpu_fixture.h and world_fixture.h. */
#pragma once
#include <math.h>
#include <stdlib.h>

#include "sim/common/mesh_cpu.h"
#include "sim/xpbd/body_build.h"
#include "sim/xpbd/tri_contact_cpu.h"

/* A mesh read back from a world: a cloth grid (nx x ny) or a body's closed surface. */
typedef struct {
  uint32_t nx, ny, count, tri_count; /* nx, ny: a cloth grid (0 for a body) */
  float (*pos)[4];
  uint32_t (*tri)[3];
} sheet;

/* Reads cloth object `index` (an nx x ny grid) and builds its triangles. */
static inline bool sheet_read(fl_world *w, uint32_t index, uint32_t nx, uint32_t ny, sheet *s)
{
  float(*vel)[4] = NULL;
  memset(s, 0, sizeof *s);
  s->nx = nx, s->ny = ny;
  if (!fl_world_read_state(w, index, &s->pos, &vel, &s->count)) return false;
  free(vel);
  s->tri = malloc((size_t)2 * (nx - 1) * (ny - 1) * sizeof *s->tri);
  if (!s->tri || s->count != nx * ny) return false;
  for (uint32_t j = 0; j + 1 < ny; j++)
    for (uint32_t i = 0; i + 1 < nx; i++)
      for (int h = 0; h < 2; h++) fl_grid_cell_triangle(nx, i, j, h, s->tri[s->tri_count++]);
  return true;
}

/* Reads body object `index` and copies the closed surface of its build `b`. */
static inline bool body_read(fl_world *w, uint32_t index, const fl_body_build *b, sheet *s)
{
  float(*vel)[4] = NULL;
  memset(s, 0, sizeof *s);
  if (!fl_world_read_state(w, index, &s->pos, &vel, &s->count)) return false;
  free(vel);
  s->tri = malloc((size_t)b->triangle_count * sizeof *s->tri);
  if (!s->tri || s->count != b->particle_count) return false;
  memcpy(s->tri, b->triangles, (size_t)b->triangle_count * sizeof *s->tri);
  s->tri_count = b->triangle_count;
  return true;
}

static inline void sheet_free(sheet *s)
{
  free(s->pos);
  free(s->tri);
  memset(s, 0, sizeof *s);
}

static inline void to_d(const float *f, double *d)
{
  for (int a = 0; a < 3; a++) d[a] = f[a];
}

static inline bool shares(const uint32_t *t, uint32_t a, uint32_t b)
{
  return t[0] == a || t[1] == a || t[2] == a || t[0] == b || t[1] == b || t[2] == b;
}

/* Edges of `e` (each triangle's three; shared ones twice) through triangles of `t`;
 * same: the same sheet (triangles touching the edge are skipped). */
static inline uint32_t crossings(const sheet *e, const sheet *t, bool same)
{
  uint32_t hits = 0;
  for (uint32_t a = 0; a < e->tri_count; a++)
    for (int k = 0; k < 3; k++) {
      uint32_t i = e->tri[a][k], j = e->tri[a][(k + 1) % 3];
      double p[3], q[3];
      to_d(e->pos[i], p);
      to_d(e->pos[j], q);
      double lo[3], hi[3];
      for (int c = 0; c < 3; c++) lo[c] = fmin(p[c], q[c]), hi[c] = fmax(p[c], q[c]);
      for (uint32_t b = 0; b < t->tri_count; b++) {
        if (same && shares(t->tri[b], i, j)) continue;
        double x[3][3];
        bool out = false;
        for (int v = 0; v < 3; v++) to_d(t->pos[t->tri[b][v]], x[v]);
        for (int c = 0; c < 3 && !out; c++)
          out = fmax(fmax(x[0][c], x[1][c]), x[2][c]) < lo[c] || fmin(fmin(x[0][c], x[1][c]), x[2][c]) > hi[c];
        if (!out && fl_segment_hits_triangle(p, q, x[0], x[1], x[2])) {
          if (!hits) /* the first one, to see where it is */
            fprintf(stderr, "  crossing: edge %u-%u (%.4f %.4f %.4f)-(%.4f %.4f %.4f), triangle %u at y %.4f %.4f %.4f\n", i, j,
                    p[0], p[1], p[2], q[0], q[1], q[2], b, x[0][1], x[1][1], x[2][1]);
          hits++;
        }
      }
    }
  return hits;
}

/* Vertices of `of` with a triangle of `other` on the side `dir` (+1 above, -1
 * below): a vertical segment of 10 m from the vertex that way meets it. */
static inline uint32_t out_of_order(const sheet *of, const sheet *other, double dir)
{
  uint32_t bad = 0;
  for (uint32_t v = 0; v < of->count; v++) {
    double p[3], q[3];
    to_d(of->pos[v], p);
    memcpy(q, p, sizeof q);
    q[1] += 10.0 * dir;
    for (uint32_t b = 0; b < other->tri_count; b++) {
      double x[3][3];
      for (int k = 0; k < 3; k++) to_d(other->pos[other->tri[b][k]], x[k]);
      if (fl_segment_hits_triangle(p, q, x[0], x[1], x[2])) {
        bad++;
        break;
      }
    }
  }
  return bad;
}

/* Vertices of `of` inside the closed surface `body`: a segment of 10 m from the
 * vertex in a direction no mesh is aligned with crosses it an odd number of times. */
static inline uint32_t inside_count(const sheet *of, const sheet *body)
{
  static const double dir[3] = {0.5773, 0.6412, 0.5057};
  uint32_t inside = 0;
  for (uint32_t v = 0; v < of->count; v++) {
    double p[3], q[3];
    to_d(of->pos[v], p);
    for (int c = 0; c < 3; c++) q[c] = p[c] + 10.0 * dir[c];
    uint32_t hits = 0;
    for (uint32_t b = 0; b < body->tri_count; b++) {
      double x[3][3];
      for (int k = 0; k < 3; k++) to_d(body->pos[body->tri[b][k]], x[k]);
      hits += fl_segment_hits_triangle(p, q, x[0], x[1], x[2]);
    }
    inside += hits & 1u;
  }
  return inside;
}

/* The smallest distance from a vertex of `a` to a triangle of `b`. */
static inline float min_distance(const sheet *a, const sheet *b)
{
  float best = INFINITY;
  for (uint32_t v = 0; v < a->count; v++)
    for (uint32_t t = 0; t < b->tri_count; t++) {
      const float *x0 = b->pos[b->tri[t][0]], *x1 = b->pos[b->tri[t][1]], *x2 = b->pos[b->tri[t][2]];
      float bary[3], d2 = 0;
      fl_tri_closest_on_triangle(a->pos[v], x0, x1, x2, bary);
      for (int c = 0; c < 3; c++) {
        float d = a->pos[v][c] - (bary[0] * x0[c] + bary[1] * x1[c] + bary[2] * x2[c]);
        d2 += d * d;
      }
      best = fminf(best, sqrtf(d2));
    }
  return best;
}
