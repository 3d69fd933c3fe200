/* sim/xpbd/tear: splitting a cloth vertex on the CPU (see tear.h).
 *
 * With r the rest positions (b->positions: a spare copies its vertex's) and
 * n = r_b - r_a, a triangle of a is on the plus side when its centroid c has
 * (c - r_a).n > 0 (the centroid summed in ascending index order, so that a
 * bend's or an area constraint's triangle gets the same answer as the
 * triangle); plus triangles take the new particle a'. A distance constraint
 * (a, x) follows x: to a' when x is only in plus triangles, it stays when x is
 * only in minus ones; when x is in both (an edge the cut opens: at most two
 * per split) it is copied, (a, x) and (a', x), so that every triangle edge
 * keeps its constraint; in neither (a shear diagonal) the plane decides, with
 * x on the plane staying. A bend
 * stencil (x0, x1; x2, x3) holding a takes a' for the triangles of it that are
 * plus; when a is on its shared edge and the two triangles disagree, the bend
 * spans the cut and is removed. An area constraint follows its triangle. */
#include "sim/xpbd/tear.h"

#include <string.h>

/* (c - r_a).n > 0 for the centroid c of triangle v (three indices). */
static bool plus_side(const fl_xpbd_build *b, const uint32_t v[3], const float ra[3], const float n[3])
{
  uint32_t s[3] = {v[0], v[1], v[2]};
  for (int i = 0; i < 2; i++) /* ascending: the same sum whatever the order it is given in */
    for (int j = 0; j < 2 - i; j++)
      if (s[j] > s[j + 1]) {
        uint32_t t = s[j];
        s[j] = s[j + 1];
        s[j + 1] = t;
      }
  float d = 0;
  for (int k = 0; k < 3; k++) {
    float c = (b->positions[s[0]][k] + b->positions[s[1]][k] + b->positions[s[2]][k]) / 3.0f;
    d += (c - ra[k]) * n[k];
  }
  return d > 0;
}

static bool in_triangle(const uint32_t *t, uint32_t p) { return t[0] == p || t[1] == p || t[2] == p; }

/* The triangles of vertex a (at most FAN_MAX: a grid vertex has 6, a split one fewer). */
#define FAN_MAX 32
typedef struct {
  uint32_t tri[FAN_MAX];
  bool plus[FAN_MAX];
  uint32_t count;
} fan;

/* Bit 1: x is in a plus triangle of a's fan; bit 2: in a minus one. */
static unsigned sides_of(const fl_xpbd_build *b, const fan *f, uint32_t x)
{
  unsigned s = 0;
  for (uint32_t k = 0; k < f->count; k++)
    if (in_triangle(&b->triangles[3 * (size_t)f->tri[k]], x)) s |= f->plus[k] ? 1u : 2u;
  return s;
}

static void replace(uint32_t *idx, uint32_t count, uint32_t from, uint32_t to)
{
  for (uint32_t k = 0; k < count; k++)
    if (idx[k] == from) idx[k] = to;
}

/* The bends holding a: re-indexed per triangle, removed across the cut (compacting the array). */
static void split_bends(fl_xpbd_build *b, uint32_t a, uint32_t dst, const float ra[3], const float n[3])
{
  uint32_t kept = 0;
  for (uint32_t c = 0; c < b->bend.count; c++) {
    fl_gpu_bend bend = b->bends[c];
    uint32_t *x = bend.idx;
    if (in_triangle(x, a) || x[3] == a) {
      uint32_t t1[3] = {x[0], x[1], x[2]}, t2[3] = {x[0], x[1], x[3]};
      bool p1 = plus_side(b, t1, ra, n), p2 = plus_side(b, t2, ra, n);
      if (x[0] == a || x[1] == a) {
        if (p1 != p2) continue; /* spans the cut */
        if (p1) replace(x, 4, a, dst);
      } else if ((x[2] == a && p1) || (x[3] == a && p2)) {
        replace(x, 4, a, dst);
      }
    }
    b->bends[kept++] = bend;
  }
  b->bend.count = kept;
}

bool fl_tear_split_vertex(fl_xpbd_build *b, uint32_t a, uint32_t other, fl_tear_split *out)
{
  uint32_t o = b->particle_object[a];
  fl_gpu_xpbd_object *ob = &b->objects[o];
  if (b->tear_strain[o] <= 0 || ob->count >= b->capacity[o]) return false;
  float wa = b->positions[a][3];
  if (wa <= 0) return false; /* a pin stays whole */
  float ra[3], n[3];
  memcpy(ra, b->positions[a], sizeof ra);
  for (int k = 0; k < 3; k++) n[k] = b->positions[other][k] - ra[k];
  fan f = {.count = 0};
  uint32_t plus = 0;
  for (uint32_t t = 0; t < b->triangle_count; t++) {
    const uint32_t *v = &b->triangles[3 * (size_t)t];
    if (b->triangle_object[t] != o || !in_triangle(v, a)) continue;
    if (f.count == FAN_MAX) return false; /* not a cloth grid's vertex */
    f.tri[f.count] = t;
    f.plus[f.count] = plus_side(b, v, ra, n);
    plus += f.plus[f.count++];
  }
  if (!plus || plus == f.count || b->distance.count + 2 > b->distance_capacity) return false;
  uint32_t dst = ob->first + ob->count++;
  /* Constraints first: they ask which triangles x shares with a before those change. */
  for (uint32_t c = 0, count = b->distance.count; c < count; c++) {
    fl_gpu_distance *d = &b->distances[c];
    if (d->i != a && d->j != a) continue;
    uint32_t x = d->i == a ? d->j : d->i;
    unsigned s = sides_of(b, &f, x);
    float dot = 0;
    for (int k = 0; k < 3; k++) dot += (b->positions[x][k] - ra[k]) * n[k];
    fl_gpu_distance *moved = d;
    if (s == 3u) { /* an edge the cut opens: each side keeps one */
      moved = &b->distances[b->distance.count++];
      *moved = *d;
    } else if (!(s == 1u || (s != 2u && dot > 0))) {
      continue;
    }
    if (moved->i == a) moved->i = dst;
    else moved->j = dst;
  }
  split_bends(b, a, dst, ra, n);
  for (uint32_t c = 0; c < b->area.count; c++) {
    uint32_t *x = b->areas[c].idx;
    if (in_triangle(x, a) && plus_side(b, x, ra, n)) replace(x, 4, a, dst);
  }
  for (uint32_t k = 0; k < f.count; k++)
    if (f.plus[k]) replace(&b->triangles[3 * (size_t)f.tri[k]], 3, a, dst);
  float w = 2.0f * wa; /* each half keeps half the mass */
  memcpy(b->positions[dst], b->positions[a], sizeof b->positions[0]);
  b->positions[a][3] = w;
  b->positions[dst][3] = w;
  memcpy(b->velocities[dst], b->velocities[a], sizeof b->velocities[0]);
  b->opposite[dst] = dst;
  if (o >= b->cloth_count) { /* a torn balloon: the air escapes, its volume is held no more */
    fl_gpu_body *body = &b->bodies[o - b->cloth_count];
    body->overpressure = 0;
    body->conservation = FL_CONSERVE_NONE;
    body->velocity_correction = 0;
  }
  *out = (fl_tear_split){.src = a, .dst = dst, .w = w};
  return true;
}

bool fl_tear_constraint(fl_xpbd_build *b, uint32_t i, uint32_t j, fl_tear_split *out)
{
  return fl_tear_split_vertex(b, i, j, out) || fl_tear_split_vertex(b, j, i, out);
}

bool fl_tear_has_distance(const fl_xpbd_build *b, uint32_t i, uint32_t j)
{
  for (uint32_t c = 0; c < b->distance.count; c++) {
    const fl_gpu_distance *d = &b->distances[c];
    if ((d->i == i && d->j == j) || (d->i == j && d->j == i)) return true;
  }
  return false;
}
