/* sim/common/solid: inside tests (analytic, and the generalized winding
 * number of a mesh, per point or a lattice at a time), bounds, volumes and
 * welded render surfaces of the soft-body solids. */
#include "sim/common/solid.h"

#include "core/log.h"
#include "sim/common/vec3d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DETAIL_MAX 1024u

/* ---- inside tests ---- */

/* Signed solid angle of triangle (a, b, c) seen from the origin (Van Oosterom
 * and Strackee 1983): positive when the triangle is counter-clockwise seen from
 * outside and the origin is behind it. */
static double solid_angle(const double a[3], const double b[3], const double c[3])
{
  double la = fl_v3d_length(a), lb = fl_v3d_length(b), lc = fl_v3d_length(c);
  double num = fl_v3d_triple(a, b, c);
  double den = la * lb * lc + fl_v3d_dot(a, b) * lc + fl_v3d_dot(b, c) * la + fl_v3d_dot(c, a) * lb;
  return 2.0 * atan2(num, den);
}

/* Generalized winding number of the mesh at p (Jacobson 2013): 1 inside a closed mesh, 0 outside. */
static double mesh_winding(const fl_cpu_mesh *m, const double p[3])
{
  double sum = 0;
  for (uint32_t t = 0; t < m->triangle_count; t++) {
    double v[3][3];
    for (int k = 0; k < 3; k++) {
      const float *x = m->positions[m->indices[3 * t + k]];
      for (int i = 0; i < 3; i++) v[k][i] = (double)x[i] - p[i];
    }
    sum += solid_angle(v[0], v[1], v[2]);
  }
  return sum / (4.0 * FL_PI_D);
}

static bool inside_d(const fl_solid *s, const double p[3])
{
  double d[3] = {p[0] - s->center[0], p[1] - s->center[1], p[2] - s->center[2]};
  switch (s->kind) {
  case FL_SOLID_SPHERE: return fl_v3d_dot(d, d) < (double)s->radius * s->radius;
  case FL_SOLID_BOX:
    return fabs(d[0]) < s->half_extents[0] && fabs(d[1]) < s->half_extents[1] && fabs(d[2]) < s->half_extents[2];
  case FL_SOLID_TORUS: {
    double ring = sqrt(d[0] * d[0] + d[2] * d[2]) - s->radius;
    return ring * ring + d[1] * d[1] < (double)s->minor_radius * s->minor_radius;
  }
  case FL_SOLID_MESH: return s->mesh && mesh_winding(s->mesh, p) > 0.5;
  }
  return false;
}

bool fl_solid_inside(const fl_solid *s, const float p[3])
{
  double q[3];
  fl_v3d_from_f(p, q);
  return inside_d(s, q);
}

/* ---- the lattice inside test of a mesh ---- */

static int compare_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

typedef struct {
  float p[3];
  uint32_t index;
} vertex_key;

static int compare_vertex(const void *a, const void *b)
{
  const vertex_key *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->p[i] != y->p[i]) return x->p[i] < y->p[i] ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* weld[v]: the first vertex at v's position (meshes like fl_mesh_box repeat corners). */
static uint32_t *mesh_weld(const fl_cpu_mesh *m)
{
  vertex_key *keys = malloc(((size_t)m->vertex_count + 1) * sizeof *keys);
  uint32_t *weld = malloc(((size_t)m->vertex_count + 1) * sizeof *weld);
  if (!keys || !weld) {
    free(keys);
    free(weld);
    return NULL;
  }
  for (uint32_t v = 0; v < m->vertex_count; v++) {
    memcpy(keys[v].p, m->positions[v], sizeof keys[v].p);
    keys[v].index = v;
  }
  qsort(keys, m->vertex_count, sizeof *keys, compare_vertex);
  for (uint32_t v = 0, first = 0; v < m->vertex_count; v++) {
    const float *a = keys[v].p, *b = keys[v == 0 ? 0 : v - 1].p;
    if (v == 0 || a[0] != b[0] || a[1] != b[1] || a[2] != b[2]) first = keys[v].index;
    weld[keys[v].index] = first;
  }
  free(keys);
  return weld;
}

/* True when, vertices at equal positions welded, every edge is used as often in
 * each direction: the winding number is then an integer, 0 outside the mesh's
 * bounds, and constant between triangles. *ok false when out of memory. */
static bool mesh_closed(const fl_cpu_mesh *m, bool *ok)
{
  size_t n = 3 * (size_t)m->triangle_count, nf = 0, nb = 0;
  uint64_t *fwd = malloc((n + 1) * sizeof *fwd), *bwd = malloc((n + 1) * sizeof *bwd);
  uint32_t *weld = mesh_weld(m);
  *ok = fwd && bwd && weld;
  bool closed = false;
  if (*ok) {
    for (size_t e = 0; e < n; e++) {
      uint32_t a = weld[m->indices[e]], b = weld[m->indices[e % 3 == 2 ? e - 2 : e + 1]];
      if (a < b) fwd[nf++] = (uint64_t)a << 32 | b;
      if (a > b) bwd[nb++] = (uint64_t)b << 32 | a;
    }
    qsort(fwd, nf, sizeof *fwd, compare_u64);
    qsort(bwd, nb, sizeof *bwd, compare_u64);
    closed = nf == nb && memcmp(fwd, bwd, nf * sizeof *fwd) == 0;
  }
  free(fwd);
  free(bwd);
  free(weld);
  return closed;
}

typedef struct {
  double x;
  int jump; /* change of the winding number on passing it along +x */
} crossing;

static int compare_crossing(const void *a, const void *b)
{
  double x = ((const crossing *)a)->x, y = ((const crossing *)b)->x;
  return x < y ? -1 : x > y;
}

enum { ROW_MISS, ROW_HIT, ROW_GRAZE };

/* Where the line {(t, y, z)} meets triangle t of m: a miss, a hit at *x with the
 * winding number changing by *jump, or a graze (through an edge or a vertex,
 * within `tol` of it), which the caller resolves point by point. */
static int row_triangle(const fl_cpu_mesh *m, uint32_t t, double y, double z, double tol, double *x, int *jump)
{
  const float *v[3] = {m->positions[m->indices[3 * t]], m->positions[m->indices[3 * t + 1]],
                       m->positions[m->indices[3 * t + 2]]};
  double e[3];
  int pos = 0, neg = 0;
  for (int k = 0; k < 3; k++) { /* edge k runs v[k] -> v[k+1]; e[k] = (edge) x (q - v[k]) in (y, z) */
    const float *a = v[k], *b = v[(k + 1) % 3];
    double ey = (double)b[1] - a[1], ez = (double)b[2] - a[2];
    e[k] = ey * (z - a[2]) - ez * (y - a[1]);
    double limit = tol * sqrt(ey * ey + ez * ez);
    pos += e[k] > limit;
    neg += e[k] < -limit;
  }
  if (pos && neg) return ROW_MISS;
  if (pos + neg < 3) return ROW_GRAZE;
  double area2 = e[0] + e[1] + e[2]; /* the x component of the triangle's normal */
  *x = (e[1] * v[0][0] + e[2] * v[1][0] + e[0] * v[2][0]) / area2;
  *jump = area2 > 0 ? -1 : 1; /* leaving through a face that looks along +x */
  return ROW_HIT;
}

/* The triangles whose (y, z) bounds touch each row of the lattice: those of row
 * r = k * n[1] + j are items[first[r] .. first[r+1]). */
typedef struct {
  uint32_t *first, *items;
} row_bins;

static void tri_row_range(const fl_cpu_mesh *m, uint32_t t, const double origin[3], double step, const uint32_t n[3],
                          uint32_t lo[2], uint32_t hi[2], bool *empty)
{
  *empty = false;
  for (int a = 0; a < 2; a++) {
    double mn = INFINITY, mx = -INFINITY;
    for (int k = 0; k < 3; k++) {
      double c = m->positions[m->indices[3 * t + k]][a + 1];
      mn = fmin(mn, c);
      mx = fmax(mx, c);
    }
    double l = ceil((mn - origin[a + 1]) / step - 1e-6), h = floor((mx - origin[a + 1]) / step + 1e-6);
    if (h < 0 || l > (double)n[a + 1] - 1 || l > h) {
      *empty = true;
      return;
    }
    lo[a] = l < 0 ? 0 : (uint32_t)l;
    hi[a] = h > (double)n[a + 1] - 1 ? n[a + 1] - 1 : (uint32_t)h;
  }
}

static bool row_bins_build(const fl_cpu_mesh *m, const double origin[3], double step, const uint32_t n[3],
                           row_bins *b)
{
  size_t rows = (size_t)n[1] * n[2], total = 0;
  b->items = NULL;
  b->first = calloc(rows + 1, sizeof *b->first);
  if (!b->first) return false;
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t t = 0; t < m->triangle_count; t++) {
      uint32_t lo[2], hi[2];
      bool empty;
      tri_row_range(m, t, origin, step, n, lo, hi, &empty);
      if (empty) continue;
      for (uint32_t k = lo[1]; k <= hi[1]; k++)
        for (uint32_t j = lo[0]; j <= hi[0]; j++) {
          size_t r = (size_t)k * n[1] + j;
          if (pass == 0) {
            b->first[r + 1]++;
            total++;
          } else {
            b->items[b->first[r]++] = t;
          }
        }
    }
    if (pass == 0) {
      if (total > UINT32_MAX) return false;
      for (size_t r = 0; r < rows; r++) b->first[r + 1] += b->first[r];
      b->items = malloc((total + 1) * sizeof *b->items);
      if (!b->items) return false;
    } else { /* filling advanced first[r] to first[r+1]: shift back */
      memmove(b->first + 1, b->first, rows * sizeof *b->first);
      b->first[0] = 0;
    }
  }
  return true;
}

/* One row of points p0 + i * step along +x through a closed mesh, from winding
 * number 0 before the first crossing; false when the row grazes an edge (the
 * caller then tests each point). `hits` has room for every triangle of the row. */
static bool mesh_row(const fl_cpu_mesh *m, const row_bins *b, size_t r, const double p0[3], double step,
                     uint32_t count, crossing *hits, uint8_t *out)
{
  uint32_t nh = 0;
  double tol = 1e-9 * step;
  for (uint32_t it = b->first[r]; it < b->first[r + 1]; it++) {
    int kind = row_triangle(m, b->items[it], p0[1], p0[2], tol, &hits[nh].x, &hits[nh].jump);
    if (kind == ROW_GRAZE) return false;
    nh += kind == ROW_HIT;
  }
  qsort(hits, nh, sizeof *hits, compare_crossing);
  int w = 0;
  uint32_t h = 0;
  for (uint32_t i = 0; i < count; i++) {
    double x = p0[0] + step * i;
    while (h < nh && hits[h].x < x) w += hits[h++].jump;
    out[i] = w > 0;
  }
  return true;
}

static bool mesh_lattice(const fl_cpu_mesh *m, const double origin[3], double step, const uint32_t n[3],
                         uint8_t *inside)
{
  bool ok;
  bool closed = mesh_closed(m, &ok);
  row_bins b = {0};
  crossing *hits = malloc(((size_t)m->triangle_count + 1) * sizeof *hits);
  ok = ok && hits && (!closed || row_bins_build(m, origin, step, n, &b));
  for (uint32_t k = 0; ok && k < n[2]; k++)
    for (uint32_t j = 0; j < n[1]; j++) {
      size_t r = (size_t)k * n[1] + j;
      double p[3] = {origin[0], origin[1] + step * j, origin[2] + step * k};
      uint8_t *out = inside + r * n[0];
      if (closed && mesh_row(m, &b, r, p, step, n[0], hits, out)) continue;
      for (uint32_t i = 0; i < n[0]; i++, p[0] += step) out[i] = mesh_winding(m, p) > 0.5;
    }
  free(hits);
  free(b.first);
  free(b.items);
  return ok ? true : fl_error_set("solid: out of memory for the inside test of a %ux%ux%u lattice", n[0], n[1], n[2]);
}

bool fl_solid_inside_lattice(const fl_solid *s, const double origin[3], double step, const uint32_t n[3],
                             uint8_t *inside)
{
  if (s->kind == FL_SOLID_MESH && s->mesh) return mesh_lattice(s->mesh, origin, step, n, inside);
  size_t i = 0;
  for (uint32_t k = 0; k < n[2]; k++)
    for (uint32_t j = 0; j < n[1]; j++)
      for (uint32_t a = 0; a < n[0]; a++, i++) {
        double p[3] = {origin[0] + step * a, origin[1] + step * j, origin[2] + step * k};
        inside[i] = inside_d(s, p);
      }
  return true;
}

/* ---- bounds and volume ---- */

void fl_solid_bounds(const fl_solid *s, float lo[3], float hi[3])
{
  float ext[3] = {0, 0, 0};
  switch (s->kind) {
  case FL_SOLID_SPHERE: ext[0] = ext[1] = ext[2] = s->radius; break;
  case FL_SOLID_BOX: memcpy(ext, s->half_extents, sizeof ext); break;
  case FL_SOLID_TORUS:
    ext[0] = ext[2] = s->radius + s->minor_radius;
    ext[1] = s->minor_radius;
    break;
  case FL_SOLID_MESH: {
    const fl_cpu_mesh *m = s->mesh;
    if (!m || m->vertex_count == 0) break;
    for (int i = 0; i < 3; i++) lo[i] = hi[i] = m->positions[0][i];
    for (uint32_t v = 1; v < m->vertex_count; v++)
      for (int i = 0; i < 3; i++) {
        lo[i] = fminf(lo[i], m->positions[v][i]);
        hi[i] = fmaxf(hi[i], m->positions[v][i]);
      }
    return;
  }
  }
  for (int i = 0; i < 3; i++) {
    lo[i] = s->center[i] - ext[i];
    hi[i] = s->center[i] + ext[i];
  }
}

double fl_solid_volume(const fl_solid *s)
{
  switch (s->kind) {
  case FL_SOLID_SPHERE: return 4.0 / 3.0 * FL_PI_D * pow(s->radius, 3);
  case FL_SOLID_BOX: return 8.0 * (double)s->half_extents[0] * s->half_extents[1] * s->half_extents[2];
  case FL_SOLID_TORUS: return 2.0 * FL_PI_D * FL_PI_D * s->radius * (double)s->minor_radius * s->minor_radius;
  case FL_SOLID_MESH: {
    const fl_cpu_mesh *m = s->mesh;
    return m ? fl_mesh_volume((const float(*)[4])m->positions, m->indices, m->triangle_count) : 0;
  }
  }
  return 0;
}

/* ---- render surfaces ---- */

static bool surface_alloc(fl_cpu_mesh *m, size_t vertices, size_t triangles)
{
  memset(m, 0, sizeof *m);
  m->positions = calloc(vertices, sizeof *m->positions);
  m->indices = calloc(3 * triangles, sizeof *m->indices);
  if (!m->positions || !m->indices) {
    fl_cpu_mesh_free(m);
    return fl_error_set("solid surface: out of memory for %zu vertices", vertices);
  }
  m->vertex_count = (uint32_t)vertices;
  m->triangle_count = (uint32_t)triangles;
  return true;
}

static void put_quad(uint32_t *ix, uint32_t a, uint32_t b, uint32_t c, uint32_t d) /* a b c d counter-clockwise */
{
  const uint32_t q[6] = {a, b, c, a, c, d};
  memcpy(ix, q, sizeof q);
}

static bool sphere_surface(const fl_solid *s, uint32_t detail, fl_cpu_mesh *out)
{
  /* An icosphere of s subdivisions has about 5.2 * 2^s edges around a great
   * circle (2 pi / its mean edge: 6.0, 10.8, 21.0, 41.7, 83.2 for s = 0..4). */
  double level = round(log2(detail / 5.2));
  uint32_t sub = level < 0 ? 0 : level > 7 ? 7 : (uint32_t)level;
  return fl_mesh_icosphere(s->center, s->radius, sub, out);
}

/* The vertex slot of lattice point L (on the surface of the [0,n]^3 cube): in the
 * first face (-x, +x, -y, +y, -z, +z) that holds it, so shared points get one slot. */
static size_t box_slot(const uint32_t L[3], uint32_t n)
{
  for (uint32_t f = 0; f < 6; f++) {
    uint32_t a = f / 2, t1 = (a + 1) % 3, t2 = (a + 2) % 3;
    if (L[a] == (f % 2 ? n : 0)) return ((size_t)f * (n + 1) + L[t1]) * (n + 1) + L[t2];
  }
  return 0; /* not on the surface: not reached */
}

static bool box_surface(const fl_solid *s, uint32_t n, fl_cpu_mesh *out)
{
  size_t side = (size_t)n + 1;
  uint32_t *slot = malloc(6 * side * side * sizeof *slot);
  if (!slot || !surface_alloc(out, 6 * (size_t)n * n + 2, 12 * (size_t)n * n)) {
    free(slot);
    return fl_error_set("solid surface: out of memory for a box of detail %u", n);
  }
  memset(slot, 0xff, 6 * side * side * sizeof *slot);
  uint32_t nv = 0, *ix = out->indices, *grid = malloc(side * side * sizeof *grid);
  if (!grid) {
    free(slot);
    fl_cpu_mesh_free(out);
    return fl_error_set("solid surface: out of memory for a box of detail %u", n);
  }
  for (uint32_t f = 0; f < 6; f++) {
    /* (u, v) axes with u x v along the outward normal. */
    uint32_t a = f / 2, t1 = (a + 1) % 3, t2 = (a + 2) % 3, ua = f % 2 ? t1 : t2, va = f % 2 ? t2 : t1;
    for (uint32_t v = 0; v <= n; v++)
      for (uint32_t u = 0; u <= n; u++) {
        uint32_t L[3];
        L[a] = f % 2 ? n : 0;
        L[ua] = u;
        L[va] = v;
        uint32_t *sl = &slot[box_slot(L, n)];
        if (*sl == UINT32_MAX) {
          *sl = nv++;
          for (int i = 0; i < 3; i++)
            out->positions[*sl][i] = s->center[i] + s->half_extents[i] * (2.0f * (float)L[i] / (float)n - 1.0f);
          out->positions[*sl][3] = 1.0f;
        }
        grid[v * side + u] = *sl;
      }
    for (uint32_t v = 0; v < n; v++)
      for (uint32_t u = 0; u < n; u++, ix += 6)
        put_quad(ix, grid[v * side + u], grid[v * side + u + 1], grid[(v + 1) * side + u + 1],
                 grid[(v + 1) * side + u]);
  }
  free(grid);
  free(slot);
  return true;
}

static bool torus_surface(const fl_solid *s, uint32_t detail, fl_cpu_mesh *out)
{
  uint32_t nu = detail, nv = detail / 2 < 3 ? 3 : detail / 2;
  if (!surface_alloc(out, (size_t)nu * nv, 2 * (size_t)nu * nv)) return false;
  for (uint32_t u = 0; u < nu; u++)
    for (uint32_t v = 0; v < nv; v++) {
      double th = 2.0 * FL_PI_D * u / nu, ph = 2.0 * FL_PI_D * v / nv, ring = s->radius + s->minor_radius * cos(ph);
      float *p = out->positions[u * nv + v];
      p[0] = (float)(s->center[0] + ring * cos(th));
      p[1] = (float)(s->center[1] + s->minor_radius * sin(ph));
      p[2] = (float)(s->center[2] + ring * sin(th));
      p[3] = 1.0f;
    }
  for (uint32_t u = 0; u < nu; u++)
    for (uint32_t v = 0; v < nv; v++) {
      uint32_t u1 = (u + 1) % nu, v1 = (v + 1) % nv;
      /* (v, then u) turns outward: d/dphi x d/dtheta is the outward normal. */
      put_quad(&out->indices[6 * ((size_t)u * nv + v)], u * nv + v, u * nv + v1, u1 * nv + v1, u1 * nv + v);
    }
  return true;
}

static bool mesh_copy(const fl_cpu_mesh *m, fl_cpu_mesh *out)
{
  if (!surface_alloc(out, m->vertex_count, m->triangle_count)) return false;
  memcpy(out->positions, m->positions, (size_t)m->vertex_count * sizeof *m->positions);
  memcpy(out->indices, m->indices, 3 * (size_t)m->triangle_count * sizeof *m->indices);
  for (uint32_t v = 0; v < m->vertex_count; v++) out->positions[v][3] = 1.0f;
  return true;
}

bool fl_solid_surface(const fl_solid *s, uint32_t detail, fl_cpu_mesh *out)
{
  memset(out, 0, sizeof *out);
  if (detail < 4 || detail > DETAIL_MAX)
    return fl_error_set("solid surface: detail %u is outside 4..%u", detail, DETAIL_MAX);
  switch (s->kind) {
  case FL_SOLID_SPHERE: return sphere_surface(s, detail, out);
  case FL_SOLID_BOX: return box_surface(s, detail, out);
  case FL_SOLID_TORUS: return torus_surface(s, detail, out);
  case FL_SOLID_MESH:
    if (!s->mesh) return fl_error_set("solid surface: a mesh solid without a mesh");
    return mesh_copy(s->mesh, out);
  }
  return fl_error_set("solid surface: unknown solid kind %d", (int)s->kind);
}
