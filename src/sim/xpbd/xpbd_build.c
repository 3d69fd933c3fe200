/* sim/xpbd/xpbd_build: builds the load-time arrays of xpbd_spec.h for every
 * cloth object of a scene: particles with pins, triangles, stretch/shear
 * distance constraints, bend constraints per interior edge, a greedy colouring
 * of each constraint family (the array reordered by colour, stably) and the
 * particle-to-constraint CSR lists of the Jacobi solver.
 *
 * Orders (the GPU uploads these arrays as they are, so only tests rely on them):
 *  - particles: object after object, k = first + j*nx + i;
 *  - triangles: cell (i,j) row by row (j outer, i inner), two per cell as listed
 *    in xpbd_spec.h;
 *  - distances before colouring, per object: stretch (i,j)-(i+1,j) row by row,
 *    stretch (i,j)-(i,j+1), shear (i,j)-(i+1,j+1), shear (i+1,j)-(i,j+1);
 *  - bends before colouring, per object: interior horizontal edges, then
 *    vertical, then cell diagonals, each row by row; x0 < x1 (global indices),
 *    x2 opposite in the lower-numbered triangle, x3 in the other;
 *  - colouring: constraints in that order, each takes the smallest colour not
 *    yet used by any of its particles; then a stable reorder by colour;
 *  - CSR: per particle, the colour-ordered constraint indices ascending. */
#include "sim/xpbd/xpbd_build.h"

#include "sim/common/grid_pins.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/sheet_grid.h"
#include "sim/xpbd/opposite_pairs.h"

#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RESOLUTION 4096u

/* One object's sizes, in 64 bits so that the totals can be checked. */
typedef struct {
  uint64_t particles, triangles, distances, bends;
} object_counts;

uint32_t fl_tear_spares(uint32_t nx, uint32_t ny) { return nx * ny / 2 + 2 * (nx + ny); }

static object_counts counts_of(const fl_cloth_desc *d)
{
  uint64_t nx = d->resolution[0], ny = d->resolution[1];
  object_counts c = {
      .particles = nx * ny + (d->tear_strain > 0 ? fl_tear_spares((uint32_t)nx, (uint32_t)ny) : 0),
      .triangles = 2 * (nx - 1) * (ny - 1),
      .distances = (nx - 1) * ny + nx * (ny - 1) + 2 * (nx - 1) * (ny - 1),
      .bends = 0,
  };
  if (d->bending != FL_BENDING_NONE)
    c.bends = (nx - 1) * (ny - 2) + (nx - 2) * (ny - 1) + (nx - 1) * (ny - 1);
  return c;
}

/* calloc of count elements of `size` bytes, NULL on overflow (never for count 0). */
static void *alloc_array(uint64_t count, size_t size)
{
  if (count > SIZE_MAX / size) return NULL;
  return calloc(count ? (size_t)count : 1, size);
}

/* Pins a particle of a cloth grid: inverse mass 0 (a grid_pins visitor; context: its first position). */
static void pin_particle(void *context, uint32_t index) { ((float(*)[4])context)[index][3] = 0; }

static bool check_desc(const fl_cloth_desc *d, const char *name)
{
  uint32_t nx = d->resolution[0], ny = d->resolution[1];
  if (nx < 2 || ny < 2 || nx > MAX_RESOLUTION || ny > MAX_RESOLUTION)
    return fl_error_set("cloth \"%s\": resolution %ux%u is outside 2..%u on an axis", name,
                        (unsigned)nx, (unsigned)ny, MAX_RESOLUTION);
  if (!(d->size[0] > 0 && d->size[1] > 0 && isfinite(d->size[0]) && isfinite(d->size[1])))
    return fl_error_set("cloth \"%s\": size [%g, %g] must be finite and > 0", name,
                        (double)d->size[0], (double)d->size[1]);
  if (!(d->sag >= 0 && d->sag <= (float)FL_SHEET_MAX_SAG * d->size[0]))
    return fl_error_set("cloth \"%s\": sag %g must be in 0..%g x size[0] (%g m)", name, (double)d->sag,
                        FL_SHEET_MAX_SAG, FL_SHEET_MAX_SAG * d->size[0]);
  if (d->tethers && d->tear_strain > 0)
    return fl_error_set("cloth \"%s\": a tearing cloth (tear_strain) cannot have tethers", name);
  if (!(d->mass > 0 && isfinite(d->mass)) || !(d->thickness > 0 && isfinite(d->thickness)))
    return fl_error_set("cloth \"%s\": mass %g and thickness %g must be finite and > 0", name,
                        (double)d->mass, (double)d->thickness);
  return fl_grid_pins_apply(d->pins, d->pin_count, nx, ny, "cloth", name, NULL, NULL);
}

/* ---- rest shapes of bend constraints, in double precision ---- */

static void sub3d(const float a[3], const float b[3], double out[3])
{
  for (int k = 0; k < 3; k++) out[k] = (double)a[k] - (double)b[k];
}
static void cross3d(const double a[3], const double b[3], double out[3])
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}
static double dot3d(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double len3d(const double a[3]) { return sqrt(dot3d(a, a)); }
/* cot of the angle between u and v: (u.v)/|u x v| (0 when they are parallel). */
static double cot3d(const double u[3], const double v[3])
{
  double c[3];
  cross3d(u, v, c);
  double l = len3d(c);
  return l > 1e-300 ? dot3d(u, v) / l : 0.0;
}

void fl_xpbd_bend_rest(fl_gpu_bend *b, const float x[12])
{
  memset(b->k, 0, sizeof b->k);
  b->rest_s = 0.0f;
  if (b->model == FL_BEND_DIHEDRAL) {
    double p1[3], p2[3], p3[3], c12[3], c13[3];
    sub3d(x + 3, x, p1), sub3d(x + 6, x, p2), sub3d(x + 9, x, p3);
    cross3d(p1, p2, c12), cross3d(p1, p3, c13);
    double l12 = len3d(c12), l13 = len3d(c13);
    double d = l12 > 0 && l13 > 0 ? dot3d(c12, c13) / (l12 * l13) : 1.0;
    b->rest = (float)acos(d < -1 ? -1 : d > 1 ? 1 : d);
    return;
  }
  double e0[3], e1[3], e2[3], e3[3], e4[3], m0[3], c[3];
  sub3d(x + 3, x, e0), sub3d(x + 6, x, e1), sub3d(x + 9, x, e2);
  sub3d(x + 6, x + 3, e3), sub3d(x + 9, x + 3, e4);
  for (int k = 0; k < 3; k++) m0[k] = -e0[k];
  double c01 = cot3d(e0, e1), c02 = cot3d(e0, e2), c03 = cot3d(m0, e3), c04 = cot3d(m0, e4);
  b->k[0] = (float)(c03 + c04);
  b->k[1] = (float)(c01 + c02);
  b->k[2] = (float)(-c01 - c03);
  b->k[3] = (float)(-c02 - c04);
  cross3d(e0, e1, c);
  double a0 = len3d(c) / 2;
  cross3d(e0, e2, c);
  double a1 = len3d(c) / 2;
  b->rest = a0 + a1 > 0 ? (float)(3.0 / (a0 + a1)) : 0.0f;
  /* The rest curvature |s0| = |sum K_k x_k| = |e0| 2 sin(theta0 / 2), theta0 the angle between the
   * rest normals (xpbd_spec.h); from the float K the solver uses, relative to x0 (sum K_k = 0).
   * 0 below a bend of 1e-4 rad, so that a flat sheet keeps the flat-rest constraint exactly (the
   * rounding of float coordinates far from the origin bends a flat stencil by up to ~1e-5 rad). */
  double s0[3];
  for (int a = 0; a < 3; a++) s0[a] = (double)b->k[1] * e0[a] + (double)b->k[2] * e1[a] + (double)b->k[3] * e2[a];
  double rest_s = len3d(s0);
  b->rest_s = rest_s > 1e-4 * len3d(e0) ? (float)rest_s : 0.0f;
}

/* ---- per object generation ---- */

/* The spares of a tearing balloon: half its vertices (a tear opens a slit, then the pressure is gone). */
static uint32_t body_spares(const fl_body_build *body)
{
  return body->tear_strain > 0 ? body->particle_count / 2 + 8 : 0;
}

/* Spares [first, first + count) of object o: inert (w = 0, no constraint, no triangle) and far apart
 * below the scene, so that no contact finds them, until a split takes one (sim/xpbd/tear.h). */
static void make_spares(fl_xpbd_build *b, uint32_t o, uint32_t first, uint32_t count)
{
  for (uint32_t k = 0; k < count; k++) {
    float *p = b->positions[first + k];
    p[0] = 1.0e4f - (float)(first + k);
    p[1] = -1.0e4f;
    p[2] = 1.0e4f;
    p[3] = 0.0f;
    b->particle_object[first + k] = o;
  }
}

/* Fills positions, inverse masses, pins and the object record of object `o`. */
static void make_particles(const fl_cloth_desc *d, uint32_t o, uint32_t first, fl_xpbd_build *b)
{
  uint32_t nx = d->resolution[0], ny = d->resolution[1], n = nx * ny;
  float w = (float)((double)n / (double)d->mass);
  fl_sheet_grid g = fl_sheet_grid_of_cloth(d);
  for (uint32_t j = 0; j < ny; j++)
    for (uint32_t i = 0; i < nx; i++) {
      uint32_t k = first + j * nx + i;
      double x[3];
      fl_sheet_grid_point(&g, i, j, x);
      float *p = b->positions[k];
      for (int a = 0; a < 3; a++) p[a] = (float)x[a];
      p[3] = w;
      b->particle_object[k] = o;
    }
  fl_grid_pins_apply(d->pins, d->pin_count, nx, ny, "cloth", "", pin_particle, b->positions + first);
  uint32_t spares = d->tear_strain > 0 ? fl_tear_spares(nx, ny) : 0;
  make_spares(b, o, first + n, spares);
  b->capacity[o] = n + spares;
  b->tear_strain[o] = d->tear_strain;
  fl_gpu_xpbd_object *ob = &b->objects[o];
  memset(ob, 0, sizeof *ob);
  ob->static_friction = d->friction[0];
  ob->kinetic_friction = d->friction[1];
  ob->thickness = d->thickness;
  ob->damping = d->damping;
  memcpy(ob->wind, d->wind, sizeof d->wind);
  ob->drag = d->drag;
  ob->lift = d->lift;
  ob->gust = d->gust;
  /* 0 for a steady wind, and for a desc made without the parser's defaults */
  ob->gust_inv_period = d->gust > 0.0f && d->gust_period > 0.0f ? 1.0f / d->gust_period : 0.0f;
  ob->gust_inv_length = d->gust > 0.0f && d->gust_length > 0.0f ? 1.0f / d->gust_length : 0.0f;
  ob->damping_model = d->damping_model == FL_DAMPING_EDGE     ? FL_DAMPING_MODEL_EDGE
                      : d->damping_model == FL_DAMPING_GLOBAL ? FL_DAMPING_MODEL_GLOBAL
                                                              : FL_DAMPING_MODEL_POINT;
  ob->self_collision = !d->self_collision ? 0u : d->triangle_contacts ? FL_SELF_TRIANGLES : FL_SELF_PARTICLES;
  ob->contact_guard = d->contact_guard ? 1u : 0u;
  ob->first = first;
  ob->count = n;
  ob->nx = nx;
  ob->ny = ny;
}

/* A pinned particle of a cloth and its distance and direction from a particle k across the flat sheet at rest. */
typedef struct {
  uint32_t pin;
  double dist, di, dj; /* the distance and the direction (metres) from k to the pin */
} nearest_pin;

/* The nearest of the cloth's pinned particles pins[0..count) (local indices) to its particle k (grid nx wide,
 * spacings dx, dy); with `opposite`, the nearest of those whose direction from k makes a negative dot product
 * with its direction. pin FL_TETHER_NONE when there is none, else the local index. */
static nearest_pin find_pin(const uint32_t *pins, uint32_t count, uint32_t nx, uint32_t k, double dx, double dy,
                            const nearest_pin *opposite)
{
  nearest_pin best = {.pin = FL_TETHER_NONE, .dist = INFINITY};
  for (uint32_t c = 0; c < count; c++) {
    uint32_t q = pins[c];
    double di = ((double)(q % nx) - (double)(k % nx)) * dx, dj = ((double)(q / nx) - (double)(k / nx)) * dy;
    if (opposite && di * opposite->di + dj * opposite->dj >= 0.0) continue;
    double dist = sqrt(di * di + dj * dj);
    if (dist < best.dist) best = (nearest_pin){q, dist, di, dj};
  }
  return best;
}

/* The long range attachments of a cloth with "tethers" (docs/CLOTH.md "Tethers"; Kim, Chentanez and
 * Mueller 2012): each free particle's nearest pinned particle across the sheet at rest, and the nearest one
 * on its other side (more than 90 degrees away), with those distances (the sheet's rest metric is its flat
 * grid, also when it starts with a sag). Pinned particles have none. O(particles x pins). False: out of memory. */
static bool make_tethers(const fl_cloth_desc *d, uint32_t first, fl_xpbd_build *b)
{
  uint32_t nx = d->resolution[0], ny = d->resolution[1], n = nx * ny, count = 0;
  if (!d->tethers) return true;
  uint32_t *pins = malloc((size_t)n * sizeof *pins);
  if (!pins) return false;
  for (uint32_t q = 0; q < n; q++)
    if (b->positions[first + q][3] == 0.0f) pins[count++] = q;
  double dx = d->size[0] / (double)(nx - 1), dy = d->size[1] / (double)(ny - 1);
  for (uint32_t k = 0; count && k < n; k++) {
    if (b->positions[first + k][3] == 0.0f) continue;
    nearest_pin a = find_pin(pins, count, nx, k, dx, dy, NULL), o = find_pin(pins, count, nx, k, dx, dy, &a);
    b->tethers[first + k] = (fl_gpu_tether){.pin0 = first + a.pin,
                                            .pin1 = o.pin == FL_TETHER_NONE ? FL_TETHER_NONE : first + o.pin,
                                            .rest0 = (float)a.dist,
                                            .rest1 = o.pin == FL_TETHER_NONE ? 0.0f : (float)o.dist};
    b->any_tether = true;
  }
  free(pins);
  return true;
}

static void make_triangles(const fl_cloth_desc *d, uint32_t o, uint32_t first, uint32_t tri_first,
                           fl_xpbd_build *b)
{
  uint32_t nx = d->resolution[0], ny = d->resolution[1], t = tri_first;
  for (uint32_t j = 0; j + 1 < ny; j++)
    for (uint32_t i = 0; i + 1 < nx; i++)
      for (int h = 0; h < 2; h++, t++) {
        uint32_t v[3];
        fl_grid_cell_triangle(nx, i, j, h, v);
        for (int k = 0; k < 3; k++) b->triangles[3 * (size_t)t + k] = first + v[k];
        b->triangle_object[t] = o;
      }
}

/* One area constraint per triangle of the object (triangles [tri_first, tri_first + count)), A0 from the
 * rest positions (docs/AREA.md). */
static void make_areas(const fl_cloth_desc *d, uint32_t tri_first, uint32_t count, fl_xpbd_build *b, fl_gpu_area *out)
{
  for (uint32_t t = 0; t < count; t++) {
    const uint32_t *v = &b->triangles[3 * (size_t)(tri_first + t)];
    double e1[3], e2[3];
    sub3d(b->positions[v[1]], b->positions[v[0]], e1);
    sub3d(b->positions[v[2]], b->positions[v[0]], e2);
    double c[3];
    cross3d(e1, e2, c);
    memset(&out[t], 0, sizeof out[t]);
    for (int k = 0; k < 3; k++) out[t].idx[k] = v[k];
    out[t].idx[3] = v[0]; /* unused: the family has three particles */
    out[t].rest = (float)(0.5 * len3d(c));
    out[t].compliance = d->area_compliance;
  }
}

static void add_distance(fl_gpu_distance *out, const fl_xpbd_build *b, uint32_t i, uint32_t j,
                         uint32_t kind, float compliance)
{
  double dx[3];
  sub3d(b->positions[i], b->positions[j], dx);
  memset(out, 0, sizeof *out);
  out->i = i;
  out->j = j;
  out->kind = kind;
  out->rest = (float)len3d(dx);
  out->compliance = compliance;
}

/* Appends the object's distance constraints at `out`; returns how many. */
static uint32_t make_distances(const fl_cloth_desc *d, uint32_t first, const fl_xpbd_build *b,
                               fl_gpu_distance *out)
{
  uint32_t nx = d->resolution[0], ny = d->resolution[1], n = 0;
  float st = d->stretch_compliance, sh = d->shear_compliance;
  for (uint32_t j = 0; j < ny; j++)
    for (uint32_t i = 0; i + 1 < nx; i++)
      add_distance(&out[n++], b, first + j * nx + i, first + j * nx + i + 1, FL_DISTANCE_STRETCH, st);
  for (uint32_t j = 0; j + 1 < ny; j++)
    for (uint32_t i = 0; i < nx; i++)
      add_distance(&out[n++], b, first + j * nx + i, first + (j + 1) * nx + i, FL_DISTANCE_STRETCH, st);
  for (uint32_t j = 0; j + 1 < ny; j++)
    for (uint32_t i = 0; i + 1 < nx; i++)
      add_distance(&out[n++], b, first + j * nx + i, first + (j + 1) * nx + i + 1, FL_DISTANCE_SHEAR, sh);
  for (uint32_t j = 0; j + 1 < ny; j++)
    for (uint32_t i = 0; i + 1 < nx; i++)
      add_distance(&out[n++], b, first + j * nx + i + 1, first + (j + 1) * nx + i, FL_DISTANCE_SHEAR, sh);
  return n;
}

/* The slot of the grid edge between local particles p and q: horizontal edges
 * first, then vertical, then cell diagonals, each row by row. */
static uint32_t edge_slot(uint32_t nx, uint32_t ny, uint32_t p, uint32_t q)
{
  uint32_t pi = p % nx, pj = p / nx, qi = q % nx, qj = q / nx;
  uint32_t i = pi < qi ? pi : qi, j = pj < qj ? pj : qj;
  uint32_t horizontal = (nx - 1) * ny, vertical = nx * (ny - 1);
  if (pj == qj) return j * (nx - 1) + i;
  if (pi == qi) return horizontal + j * nx + i;
  return horizontal + vertical + j * (nx - 1) + i;
}

/* Appends the object's bend constraints at `out` (none for bending "none");
 * returns how many, or UINT32_MAX when out of memory. */
static uint32_t make_bends(const fl_cloth_desc *d, uint32_t first, const fl_xpbd_build *b,
                           fl_gpu_bend *out)
{
  if (d->bending == FL_BENDING_NONE) return 0;
  uint32_t nx = d->resolution[0], ny = d->resolution[1];
  uint64_t slots = (uint64_t)(nx - 1) * ny + (uint64_t)nx * (ny - 1) + (uint64_t)(nx - 1) * (ny - 1);
  uint32_t(*edge)[4] = alloc_array(slots, sizeof *edge); /* x0, x1, x2, x3 (local); x2 = x3 = "unset" */
  if (!edge) return UINT32_MAX;
  const uint32_t unset = UINT32_MAX;
  for (uint64_t s = 0; s < slots; s++) edge[s][2] = edge[s][3] = unset;
  for (uint32_t j = 0; j + 1 < ny; j++)
    for (uint32_t i = 0; i + 1 < nx; i++)
      for (int h = 0; h < 2; h++) {
        uint32_t v[3];
        fl_grid_cell_triangle(nx, i, j, h, v);
        for (int e = 0; e < 3; e++) {
          uint32_t p = v[e], q = v[(e + 1) % 3], opposite = v[(e + 2) % 3];
          uint32_t *slot = edge[edge_slot(nx, ny, p, q)];
          if (slot[2] == unset) {
            slot[0] = p < q ? p : q;
            slot[1] = p < q ? q : p;
            slot[2] = opposite;
          } else {
            slot[3] = opposite;
          }
        }
      }
  uint32_t n = 0;
  uint32_t model = d->bending == FL_BENDING_DIHEDRAL ? FL_BEND_DIHEDRAL : FL_BEND_ISOMETRIC;
  for (uint64_t s = 0; s < slots; s++) {
    if (edge[s][3] == unset) continue; /* a boundary edge */
    fl_gpu_bend *bend = &out[n++];
    memset(bend, 0, sizeof *bend);
    float x[12];
    for (int k = 0; k < 4; k++) {
      bend->idx[k] = first + edge[s][k];
      memcpy(x + 3 * k, b->positions[bend->idx[k]], 3 * sizeof x[0]);
    }
    bend->compliance = d->bend_compliance;
    bend->model = model;
    fl_xpbd_bend_rest(bend, x);
  }
  free(edge);
  return n;
}

/* ---- colouring and CSR ---- */

/* Colours `count` constraints of `arity` particles (indices `idx`, arity per
 * constraint) greedily, reorders `items` (of `item_size` bytes) by colour and fills
 * the family's colour offsets and CSR. */
static bool colour_family(void *items, size_t item_size, const uint32_t *idx, uint32_t arity,
                          uint32_t count, uint32_t particles, fl_constraint_family *f, const char *what)
{
  f->count = count;
  uint64_t *used = alloc_array(particles, sizeof *used);
  uint8_t *colour = alloc_array(count, sizeof *colour);
  uint32_t *order = alloc_array(count, sizeof *order);
  uint32_t *new_idx = alloc_array((uint64_t)count * arity, sizeof *new_idx);
  unsigned char *sorted = alloc_array(count, item_size);
  f->particle_first = alloc_array((uint64_t)particles + 1, sizeof *f->particle_first);
  f->particle_items = alloc_array((uint64_t)count * arity, sizeof *f->particle_items);
  f->color_offsets = alloc_array(FL_XPBD_MAX_COLOURS + 1, sizeof *f->color_offsets);
  bool ok = used && colour && order && new_idx && sorted && f->particle_first && f->particle_items &&
            f->color_offsets;
  if (!ok) fl_error_set("cloth: out of memory colouring %u %s constraints", (unsigned)count, what);
  uint32_t colours = 0;
  for (uint32_t c = 0; ok && c < count; c++) {
    uint64_t mask = 0;
    for (uint32_t k = 0; k < arity; k++) mask |= used[idx[(size_t)c * arity + k]];
    if (mask == UINT64_MAX) {
      ok = fl_error_set("cloth: %s constraint %u needs more than %d colours", what, (unsigned)c, FL_XPBD_MAX_COLOURS);
      break;
    }
    uint32_t col = 0;
    while (mask & ((uint64_t)1 << col)) col++;
    colour[c] = (uint8_t)col;
    if (col + 1 > colours) colours = col + 1;
    for (uint32_t k = 0; k < arity; k++) used[idx[(size_t)c * arity + k]] |= (uint64_t)1 << col;
  }
  if (ok) {
    /* Stable counting sort by colour. */
    f->color_count = colours;
    uint32_t *off = f->color_offsets;
    memset(off, 0, (FL_XPBD_MAX_COLOURS + 1) * sizeof *off);
    for (uint32_t c = 0; c < count; c++) off[colour[c] + 1]++;
    for (uint32_t col = 0; col < colours; col++) off[col + 1] += off[col];
    uint32_t fill[FL_XPBD_MAX_COLOURS];
    memcpy(fill, off, sizeof fill);
    for (uint32_t c = 0; c < count; c++) order[fill[colour[c]]++] = c;
    for (uint32_t n = 0; n < count; n++) {
      memcpy(sorted + (size_t)n * item_size, (unsigned char *)items + (size_t)order[n] * item_size, item_size);
      memcpy(new_idx + (size_t)n * arity, idx + (size_t)order[n] * arity, arity * sizeof *idx);
    }
    memcpy(items, sorted, (size_t)count * item_size);
    /* CSR over particles, constraint indices ascending. */
    uint32_t *pf = f->particle_first;
    for (size_t e = 0; e < (size_t)count * arity; e++) pf[new_idx[e] + 1]++;
    for (uint32_t p = 0; p < particles; p++) pf[p + 1] += pf[p];
    uint32_t *cursor = alloc_array(particles, sizeof *cursor);
    if (!cursor) ok = fl_error_set("cloth: out of memory for the %s CSR", what);
    for (uint32_t p = 0; ok && p < particles; p++) cursor[p] = pf[p];
    for (uint32_t n = 0; ok && n < count; n++)
      for (uint32_t k = 0; k < arity; k++) {
        uint32_t p = new_idx[(size_t)n * arity + k];
        f->particle_items[cursor[p]++] = n;
      }
    free(cursor);
  }
  free(used);
  free(colour);
  free(order);
  free(new_idx);
  free(sorted);
  return ok;
}

/* Colours one family whose records hold `arity` particle indices, read by `index_of`. */
static bool colour_records(void *records, size_t record_size, uint32_t count, uint32_t arity,
                           uint32_t (*index_of)(const void *record, uint32_t k), uint32_t particles,
                           fl_constraint_family *f, const char *what)
{
  uint32_t *idx = alloc_array((uint64_t)count * arity, sizeof *idx);
  if (!idx) return fl_error_set("cloth: out of memory for %u %s constraints", (unsigned)count, what);
  for (uint32_t c = 0; c < count; c++)
    for (uint32_t k = 0; k < arity; k++)
      idx[(size_t)c * arity + k] = index_of((const unsigned char *)records + (size_t)c * record_size, k);
  bool ok = colour_family(records, record_size, idx, arity, count, particles, f, what);
  free(idx);
  return ok;
}

static uint32_t distance_index(const void *r, uint32_t k)
{
  const fl_gpu_distance *d = r;
  return k == 0 ? d->i : d->j;
}
static uint32_t bend_index(const void *r, uint32_t k) { return ((const fl_gpu_bend *)r)->idx[k]; }
static uint32_t tet_index(const void *r, uint32_t k) { return ((const fl_gpu_tet *)r)->idx[k]; }
static uint32_t area_index(const void *r, uint32_t k) { return ((const fl_gpu_area *)r)->idx[k]; }

static bool build_families(fl_xpbd_build *b)
{
  return colour_records(b->distances, sizeof *b->distances, b->distance.count, 2, distance_index, b->particle_count,
                        &b->distance, "distance") &&
         colour_records(b->bends, sizeof *b->bends, b->bend.count, 4, bend_index, b->particle_count, &b->bend,
                        "bend") &&
         colour_records(b->tets, sizeof *b->tets, b->tet.count, 4, tet_index, b->particle_count, &b->tet, "tet") &&
         colour_records(b->areas, sizeof *b->areas, b->area.count, 3, area_index, b->particle_count, &b->area, "area");
}

bool fl_xpbd_build_recolour(fl_xpbd_build *b)
{
  fl_constraint_family *families[4] = {&b->distance, &b->bend, &b->tet, &b->area};
  for (int f = 0; f < 4; f++) {
    free(families[f]->color_offsets);
    free(families[f]->particle_first);
    free(families[f]->particle_items);
    *families[f] = (fl_constraint_family){.count = families[f]->count};
  }
  return build_families(b);
}

/* Appends body `k` (object o) at particle `first`, triangle `tri`, and the
 * given constraint offsets; advances them. */
static void append_body(const fl_body_build *body, uint32_t k, uint32_t o, fl_xpbd_build *b, uint32_t *first,
                        uint32_t *tri, uint32_t *dist, uint32_t *bend, uint32_t *tet)
{
  uint32_t f = *first, n = body->particle_count;
  for (uint32_t p = 0; p < n; p++) {
    memcpy(b->positions[f + p], body->positions[p], sizeof b->positions[0]);
    memcpy(b->velocities[f + p], body->velocity, sizeof body->velocity);
    b->particle_object[f + p] = o;
  }
  b->objects[o] = body->object;
  b->objects[o].first = f;
  uint32_t spares = body_spares(body);
  make_spares(b, o, f + n, spares);
  b->objects[o].count = n;
  b->capacity[o] = n + spares;
  b->tear_strain[o] = body->tear_strain;
  b->self_collision[o] = 1;
  for (uint32_t t = 0; t < body->triangle_count; t++) {
    for (int c = 0; c < 3; c++) b->triangles[3 * (size_t)(*tri + t) + c] = f + body->triangles[t][c];
    b->triangle_object[*tri + t] = o;
  }
  for (uint32_t e = 0; e < body->edge_count; e++)
    add_distance(&b->distances[(*dist)++], b, f + body->edges[e][0], f + body->edges[e][1], body->edge_kind,
                 body->edge_compliance);
  for (uint32_t c = 0; c < body->bend_count; c++) {
    fl_gpu_bend *out = &b->bends[(*bend)++];
    *out = body->bends[c];
    for (int q = 0; q < 4; q++) out->idx[q] += f;
  }
  for (uint32_t c = 0; c < body->tet_count; c++) {
    fl_gpu_tet *out = &b->tets[(*tet)++];
    *out = body->tets[c];
    for (int q = 0; q < 4; q++) out->idx[q] += f;
  }
  fl_gpu_body *rec = &b->bodies[k];
  *rec = body->body;
  rec->first_particle = f;
  rec->particle_count = n + spares; /* the particles a tear adds are the body's too */
  rec->first_triangle = *tri;
  rec->triangle_count = body->triangle_count;
  b->body_measure_after[k] = body->measure_after;
  if (rec->conservation == FL_CONSERVE_LOCAL && rec->pair_beta > 0.0f) { /* the pairs only local weights read */
    fl_opposite_pairs((const float(*)[4])body->positions, n, (const uint32_t(*)[3])body->triangles,
                      body->triangle_count, &b->opposite[f]);
    for (uint32_t p = 0; p < n; p++) b->opposite[f + p] += f;
  }
  *first += n + spares;
  *tri += body->triangle_count;
}

bool fl_cloth_build_create(const fl_cloth_desc *descs, const char (*names)[FL_SCENE_NAME_MAX], uint32_t count,
                           fl_xpbd_build *out)
{
  return fl_xpbd_build_create(descs, names, count, NULL, 0, out);
}

bool fl_xpbd_build_create(const fl_cloth_desc *descs, const char (*names)[FL_SCENE_NAME_MAX], uint32_t count,
                          const fl_body_build *bodies, uint32_t body_count, fl_xpbd_build *out)
{
  memset(out, 0, sizeof *out);
  object_counts total = {0, 0, 0, 0};
  uint64_t tets = 0, areas = 0;
  for (uint32_t o = 0; o < count + body_count; o++) {
    char fallback[32];
    snprintf(fallback, sizeof fallback, o < count ? "cloth%u" : "body%u", (unsigned)(o < count ? o : o - count));
    const char *name = names && o < count ? names[o] : fallback;
    object_counts c;
    if (o < count) {
      if (!check_desc(&descs[o], name)) return false;
      c = counts_of(&descs[o]);
      if (descs[o].area) areas += c.triangles; /* one per triangle: as many as triangles, so they fit too */
    } else {
      const fl_body_build *body = &bodies[o - count];
      c = (object_counts){body->particle_count + body_spares(body), body->triangle_count, body->edge_count,
                          body->bend_count};
      tets += body->tet_count;
    }
    total.particles += c.particles, total.triangles += c.triangles;
    total.distances += c.distances, total.bends += c.bends;
    /* Every index, and every CSR item count (2 per distance, 4 per bend or tet), fits in 32 bits. */
    if (total.particles >= UINT32_MAX || total.triangles * 3 >= UINT32_MAX ||
        (total.distances + 2 * total.particles) * 2 >= UINT32_MAX || total.bends * 4 >= UINT32_MAX || tets * 4 >= UINT32_MAX)
      return fl_error_set("cloth \"%s\": the XPBD objects together are too large (%llu particles, "
                          "%llu distance, %llu bend and %llu tet constraints)",
                          name, (unsigned long long)total.particles, (unsigned long long)total.distances,
                          (unsigned long long)total.bends, (unsigned long long)tets);
  }
  uint32_t objects = count + body_count;
  out->object_count = objects;
  out->cloth_count = count;
  out->body_count = body_count;
  out->particle_count = (uint32_t)total.particles;
  out->triangle_count = (uint32_t)total.triangles;
  out->distance.count = (uint32_t)total.distances;
  out->bend.count = (uint32_t)total.bends;
  out->tet.count = (uint32_t)tets;
  out->area.count = (uint32_t)areas;
  out->positions = alloc_array(total.particles, sizeof *out->positions);
  out->velocities = alloc_array(total.particles, sizeof *out->velocities);
  out->particle_object = alloc_array(total.particles, sizeof *out->particle_object);
  out->objects = alloc_array(objects, sizeof *out->objects);
  out->self_collision = alloc_array(objects, sizeof *out->self_collision);
  out->triangles = alloc_array(total.triangles * 3, sizeof *out->triangles);
  out->triangle_object = alloc_array(total.triangles, sizeof *out->triangle_object);
  uint64_t spares = 0;
  for (uint32_t o = 0; o < count; o++)
    if (descs[o].tear_strain > 0) spares += fl_tear_spares(descs[o].resolution[0], descs[o].resolution[1]);
  for (uint32_t k = 0; k < body_count; k++) spares += body_spares(&bodies[k]);
  out->distance_capacity = (uint32_t)(total.distances + 2 * spares);
  out->distances = alloc_array(out->distance_capacity, sizeof *out->distances);
  out->bends = alloc_array(total.bends, sizeof *out->bends);
  out->tets = alloc_array(tets, sizeof *out->tets);
  out->areas = alloc_array(areas, sizeof *out->areas);
  out->bodies = alloc_array(body_count, sizeof *out->bodies);
  out->body_measure_after = alloc_array(body_count, sizeof *out->body_measure_after);
  out->opposite = alloc_array(total.particles, sizeof *out->opposite);
  out->capacity = alloc_array(objects, sizeof *out->capacity);
  out->tear_strain = alloc_array(objects, sizeof *out->tear_strain);
  out->tethers = alloc_array(total.particles, sizeof *out->tethers);
  if (!out->tethers || !out->capacity || !out->tear_strain ||!out->positions || !out->velocities || !out->particle_object || !out->objects || !out->self_collision ||
      !out->triangles || !out->triangle_object || !out->distances || !out->bends || !out->tets || !out->bodies ||
      !out->body_measure_after || !out->opposite || !out->areas) {
    fl_xpbd_build_destroy(out);
    return fl_error_set("cloth: out of memory for %llu particles", (unsigned long long)total.particles);
  }
  for (uint32_t p = 0; p < out->particle_count; p++) {
    out->opposite[p] = p;
    out->tethers[p] = (fl_gpu_tether){.pin0 = FL_TETHER_NONE, .pin1 = FL_TETHER_NONE};
  }
  uint32_t first = 0, tri = 0, dist = 0, bend = 0, tet = 0, area = 0;
  for (uint32_t o = 0; o < count; o++) {
    const fl_cloth_desc *d = &descs[o];
    object_counts c = counts_of(d);
    make_particles(d, o, first, out);
    if (!make_tethers(d, first, out)) {
      fl_xpbd_build_destroy(out);
      return fl_error_set("cloth \"%s\": out of memory for its tethers", names ? names[o] : "cloth");
    }
    out->self_collision[o] = d->self_collision ? 1 : 0;
    make_triangles(d, o, first, tri, out);
    if (d->area) {
      make_areas(d, tri, (uint32_t)c.triangles, out, out->areas + area);
      area += (uint32_t)c.triangles;
    }
    dist += make_distances(d, first, out, out->distances + dist);
    uint32_t made = make_bends(d, first, out, out->bends + bend);
    if (made == UINT32_MAX) {
      fl_xpbd_build_destroy(out);
      return fl_error_set("cloth \"%s\": out of memory for its bend constraints", names ? names[o] : "cloth");
    }
    bend += made;
    first += (uint32_t)c.particles;
    tri += (uint32_t)c.triangles;
  }
  for (uint32_t k = 0; k < body_count; k++) append_body(&bodies[k], k, count + k, out, &first, &tri, &dist, &bend, &tet);
  uint32_t cloth_first[FL_SCENE_MAX_OBJECTS];
  for (uint32_t o = 0; o < count; o++) cloth_first[o] = out->objects[o].first;
  if (!build_families(out) ||
      !fl_hierarchy_create(descs, count, cloth_first, (const float(*)[4])out->positions, &FL_HIERARCHY_FINE(out),
                           &out->hier)) {
    fl_xpbd_build_destroy(out);
    return false;
  }
  return true;
}

void fl_xpbd_build_destroy(fl_xpbd_build *b)
{
  if (!b) return;
  void *arrays[] = {b->positions, b->velocities, b->particle_object, b->objects, b->self_collision, b->triangles,
                    b->triangle_object, b->distances, b->bends, b->tets, b->bodies, b->body_measure_after,
                    b->opposite, b->areas, b->capacity, b->tear_strain, b->tethers};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
  fl_constraint_family *families[4] = {&b->distance, &b->bend, &b->tet, &b->area};
  for (int f = 0; f < 4; f++) {
    free(families[f]->color_offsets);
    free(families[f]->particle_first);
    free(families[f]->particle_items);
  }
  fl_hierarchy_destroy(&b->hier);
  memset(b, 0, sizeof *b);
}

/* True when family f's colours cover [0, count) in order and no colour touches a
 * particle twice; `stamp` is scratch of particle_count entries. */
static bool family_valid(const fl_constraint_family *f, const uint32_t *idx, uint32_t arity, uint32_t particles,
                         uint32_t *stamp)
{
  if (f->count == 0) return true;
  if (!f->color_offsets || f->color_offsets[0] != 0 || f->color_offsets[f->color_count] != f->count)
    return false;
  for (uint32_t p = 0; p < particles; p++) stamp[p] = UINT32_MAX;
  for (uint32_t col = 0; col < f->color_count; col++) {
    if (f->color_offsets[col + 1] < f->color_offsets[col]) return false;
    for (uint32_t c = f->color_offsets[col]; c < f->color_offsets[col + 1]; c++)
      for (uint32_t k = 0; k < arity; k++) {
        uint32_t p = idx[(size_t)c * arity + k];
        if (p >= particles || stamp[p] == col) return false;
        stamp[p] = col;
      }
  }
  return true;
}

bool fl_xpbd_colouring_valid(const fl_xpbd_build *b)
{
  uint64_t most = b->distance.count * 2ull;
  if (b->bend.count * 4ull > most) most = b->bend.count * 4ull;
  if (b->tet.count * 4ull > most) most = b->tet.count * 4ull;
  if (b->area.count * 3ull > most) most = b->area.count * 3ull;
  uint32_t *stamp = alloc_array(b->particle_count, sizeof *stamp);
  uint32_t *idx = alloc_array(most, sizeof *idx);
  bool ok = stamp && idx;
  struct {
    const fl_constraint_family *f;
    const void *records;
    size_t size;
    uint32_t arity;
    uint32_t (*index_of)(const void *, uint32_t);
  } fams[4] = {{&b->distance, b->distances, sizeof *b->distances, 2, distance_index},
               {&b->bend, b->bends, sizeof *b->bends, 4, bend_index},
               {&b->tet, b->tets, sizeof *b->tets, 4, tet_index},
               {&b->area, b->areas, sizeof *b->areas, 3, area_index}};
  for (int f = 0; f < 4 && ok; f++) {
    for (uint32_t c = 0; c < fams[f].f->count; c++)
      for (uint32_t k = 0; k < fams[f].arity; k++)
        idx[(size_t)c * fams[f].arity + k] =
            fams[f].index_of((const unsigned char *)fams[f].records + (size_t)c * fams[f].size, k);
    ok = family_valid(fams[f].f, idx, fams[f].arity, b->particle_count, stamp);
  }
  free(stamp);
  free(idx);
  return ok;
}
