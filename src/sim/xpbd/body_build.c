/* sim/xpbd/body_build: builds one soft body or balloon at load
 * (softbody_spec.h, BUILD): shape -> tets or triangles -> particles, edges,
 * tet records, bends, the closed surface, the volume record and the skinned
 * drawing surface. */
#include "sim/xpbd/body_build.h"

#include "core/log.h"
#include "core/obj_file.h"
#include "core/tetgen_file.h"
#include "sim/xpbd/xpbd_build.h"
#include "sim/common/solid.h"
#include "sim/xpbd/tet_embed.h"
#include "sim/xpbd/tetrahedralize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BODY_PARTICLES (1u << 22)

/* ---- small helpers ---- */

static void *alloc_array(uint64_t count, size_t size)
{
  if (count > SIZE_MAX / size || count > (1ull << 32)) return NULL;
  return calloc(count ? (size_t)count : 1, size);
}

static int compare_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t edge_key(uint32_t a, uint32_t b)
{
  return a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
}

/* The unique undirected edges among `count` candidate keys (sorted in place). */
static bool unique_edges(uint64_t *keys, uint64_t count, fl_body_build *out)
{
  qsort(keys, (size_t)count, sizeof *keys, compare_u64);
  uint64_t n = 0;
  for (uint64_t i = 0; i < count; i++)
    if (i == 0 || keys[i] != keys[i - 1]) keys[n++] = keys[i];
  out->edges = alloc_array(n, sizeof *out->edges);
  if (!out->edges) return fl_error_set("out of memory for %llu edges", (unsigned long long)n);
  for (uint64_t i = 0; i < n; i++) {
    out->edges[i][0] = (uint32_t)(keys[i] >> 32);
    out->edges[i][1] = (uint32_t)keys[i];
  }
  out->edge_count = (uint32_t)n;
  return true;
}

static double distance3(const float a[4], const float b[4])
{
  double d[3] = {(double)a[0] - b[0], (double)a[1] - b[1], (double)a[2] - b[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static double mean_edge_length(const fl_body_build *b)
{
  double sum = 0;
  for (uint32_t e = 0; e < b->edge_count; e++) sum += distance3(b->positions[b->edges[e][0]], b->positions[b->edges[e][1]]);
  return b->edge_count ? sum / b->edge_count : 0.0;
}

/* The parts of the object and body records both kinds share. */
static void fill_common(const fl_body_common_desc *c, fl_body_build *b)
{
  memset(&b->object, 0, sizeof b->object);
  b->object.static_friction = c->friction[0];
  b->object.kinetic_friction = c->friction[1];
  b->object.thickness = c->thickness > 0 ? c->thickness : (float)mean_edge_length(b);
  b->object.damping = c->damping;
  b->object.self_collision = 1u; /* collides with particles */
  b->object.body = 1u;
  memset(&b->body, 0, sizeof b->body);
  b->body.rest_volume = (float)fl_mesh_volume((const float(*)[4])b->positions, &b->triangles[0][0], b->triangle_count);
  b->body.pressure = 1.0f;
  b->body.conservation = c->volume_conservation == FL_VOLUME_CONSERVE_GLOBAL  ? FL_CONSERVE_GLOBAL
                          : c->volume_conservation == FL_VOLUME_CONSERVE_LOCAL ? FL_CONSERVE_LOCAL
                                                                               : FL_CONSERVE_NONE;
  b->body.local_alpha = c->volume_alpha;
  b->body.pair_beta = c->volume_beta;
  b->body.pair_stiffness = c->volume_pair_stiffness;
  b->body.velocity_correction = c->volume_velocity ? 1u : 0u;
  b->body.measure_after = c->measure_after;
  b->body.contact_radius = 0.5f * b->object.thickness;
  memcpy(b->velocity, c->velocity, sizeof b->velocity);
  b->measure_after = c->measure_after;
}

/* ---- soft bodies ---- */

static bool make_tet_mesh(const fl_softbody_desc *d, const fl_solid *solid, fl_tet_mesh *out, float *spacing)
{
  *spacing = 0;
  if (d->shape == FL_BODY_TETGEN) {
    fl_tetgen_mesh t;
    if (!fl_tetgen_load(d->common.path, &t)) return false;
    for (uint32_t p = 0; p < t.point_count; p++)
      for (int a = 0; a < 3; a++) t.positions[p][a] = t.positions[p][a] * d->common.scale + d->common.center[a];
    bool ok = fl_tet_mesh_from_tets((const float(*)[3])t.positions, t.point_count, (const uint32_t(*)[4])t.tets,
                                    t.tet_count, out); /* which also finds the boundary */
    fl_tetgen_mesh_free(&t);
    return ok;
  }
  float lo[3], hi[3];
  fl_solid_bounds(solid, lo, hi);
  float longest = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
  *spacing = longest / (float)d->resolution;
  return fl_tetrahedralize(solid, *spacing, out);
}

/* Fills particles (masses from density), edges, tet records and the surface from a tet mesh. */
static bool from_tets(const fl_softbody_desc *d, const fl_tet_mesh *m, fl_body_build *b)
{
  if (m->vertex_count > MAX_BODY_PARTICLES)
    return fl_error_set("%u particles, more than the %u a body may have: lower the resolution",
                        (unsigned)m->vertex_count, MAX_BODY_PARTICLES);
  bool neo = d->model == FL_SOFT_MODEL_NEOHOOKEAN;
  b->particle_count = m->vertex_count;
  b->tet_volume_count = m->tet_count;
  b->tet_count = m->tet_count;
  b->triangle_count = m->surface_count;
  b->positions = alloc_array(m->vertex_count, sizeof *b->positions);
  b->tets = alloc_array(b->tet_count, sizeof *b->tets);
  b->triangles = alloc_array(m->surface_count, sizeof *b->triangles);
  double *mass = alloc_array(m->vertex_count, sizeof *mass);
  uint64_t *keys = alloc_array((uint64_t)m->tet_count * 6, sizeof *keys);
  bool ok = b->positions && b->tets && b->triangles && mass && keys;
  if (!ok) fl_error_set("out of memory for %u tets", (unsigned)m->tet_count);
  double lambda_l = d->youngs_modulus * d->poisson_ratio / ((1 + d->poisson_ratio) * (1 - 2 * d->poisson_ratio));
  double mu = d->youngs_modulus / (2 * (1 + d->poisson_ratio));
  for (uint32_t t = 0; ok && t < m->tet_count; t++) {
    const uint32_t *v = m->tets[t];
    const float *x0 = m->positions[v[0]];
    double v0 = fl_tet_volume(x0, m->positions[v[1]], m->positions[v[2]], m->positions[v[3]]);
    for (int k = 0; k < 4; k++) mass[v[k]] += d->density * v0 / 4;
    static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    for (int e = 0; e < 6; e++) keys[(size_t)t * 6 + e] = edge_key(v[pairs[e][0]], v[pairs[e][1]]);
    fl_gpu_tet rec;
    memset(&rec, 0, sizeof rec);
    memcpy(rec.idx, v, sizeof rec.idx);
    rec.rest = (float)v0;
    if (!neo) {
      rec.compliance = d->volume_compliance;
      rec.model = FL_TET_VOLUME;
      b->tets[t] = rec;
      continue;
    }
    /* Dm^-1 by the adjugate, in double. */
    double dm[3][3]; /* dm[r][c]: row r of the matrix with columns X_c - X_0 */
    for (int c = 0; c < 3; c++)
      for (int r = 0; r < 3; r++) dm[r][c] = (double)m->positions[v[c + 1]][r] - x0[r];
    double det = dm[0][0] * (dm[1][1] * dm[2][2] - dm[1][2] * dm[2][1]) -
                 dm[0][1] * (dm[1][0] * dm[2][2] - dm[1][2] * dm[2][0]) +
                 dm[0][2] * (dm[1][0] * dm[2][1] - dm[1][1] * dm[2][0]);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
        rec.dm_inv[r][c] = (float)((dm[r1][c1] * dm[r2][c2] - dm[r1][c2] * dm[r2][c1]) / det);
      }
    rec.gamma = (float)(1 + mu / lambda_l);
    rec.compliance = (float)(1 / (mu * v0));         /* deviatoric */
    rec.dm_inv[0][3] = (float)(1 / (lambda_l * v0)); /* hydrostatic */
    rec.model = FL_TET_NEOHOOKEAN;
    b->tets[t] = rec;
  }
  for (uint32_t p = 0; ok && p < m->vertex_count; p++) {
    memcpy(b->positions[p], m->positions[p], 3 * sizeof(float));
    b->positions[p][3] = mass[p] > 0 ? (float)(1.0 / mass[p]) : 0.0f;
  }
  if (ok) memcpy(b->triangles, m->surface, (size_t)m->surface_count * sizeof *b->triangles);
  ok = ok && unique_edges(keys, (uint64_t)m->tet_count * 6, b);
  if (ok && neo) b->edge_count = 0; /* the Neo-Hookean constraints replace the edges */
  b->edge_kind = FL_DISTANCE_EDGE;
  b->edge_compliance = d->edge_compliance;
  free(mass);
  free(keys);
  return ok;
}

/* The drawn surface and its skinning weights. */
static bool make_render_surface(const fl_softbody_desc *d, const fl_solid *solid, const fl_tet_mesh *m,
                                fl_body_build *b)
{
  bool ok;
  if (d->shape == FL_BODY_TETGEN) { /* no finer surface than the boundary */
    fl_cpu_mesh *r = &b->render;
    r->positions = alloc_array(m->vertex_count, sizeof *r->positions);
    r->indices = alloc_array((uint64_t)m->surface_count * 3, sizeof *r->indices);
    ok = r->positions && r->indices;
    if (!ok) return fl_error_set("out of memory for the drawn surface");
    for (uint32_t v = 0; v < m->vertex_count; v++) {
      memcpy(r->positions[v], m->positions[v], 3 * sizeof(float));
      r->positions[v][3] = 1.0f;
    }
    memcpy(r->indices, m->surface, (size_t)m->surface_count * 3 * sizeof *r->indices);
    r->vertex_count = m->vertex_count;
    r->triangle_count = m->surface_count;
  } else {
    ok = fl_solid_surface(solid, d->render_detail, &b->render);
    if (!ok) return false;
  }
  b->skin = alloc_array(b->render.vertex_count, sizeof *b->skin);
  if (!b->skin) return fl_error_set("out of memory for %u skinned vertices", (unsigned)b->render.vertex_count);
  return fl_tet_embed(m, (const float(*)[4])b->render.positions, b->render.vertex_count, b->skin);
}

bool fl_softbody_build(const fl_softbody_desc *d, const char *name, fl_body_build *out)
{
  memset(out, 0, sizeof *out);
  fl_solid solid = {.radius = d->common.radius, .minor_radius = d->minor_radius};
  memcpy(solid.center, d->common.center, sizeof solid.center);
  memcpy(solid.half_extents, d->half_extents, sizeof solid.half_extents);
  fl_cpu_mesh surface = {0};
  bool ok = true;
  switch (d->shape) {
  case FL_BODY_BOX: solid.kind = FL_SOLID_BOX; break;
  case FL_BODY_TORUS: solid.kind = FL_SOLID_TORUS; break;
  case FL_BODY_MESH:
    solid.kind = FL_SOLID_MESH;
    ok = fl_obj_load_placed(d->common.path, d->common.scale, d->common.center, &surface);
    solid.mesh = &surface;
    break;
  default: solid.kind = FL_SOLID_SPHERE; break;
  }
  fl_tet_mesh tets = {0};
  ok = ok && make_tet_mesh(d, &solid, &tets, &out->spacing) && from_tets(d, &tets, out) &&
       make_render_surface(d, &solid, &tets, out);
  if (ok) fill_common(&d->common, out);
  fl_tet_mesh_free(&tets);
  fl_cpu_mesh_free(&surface);
  if (!ok) {
    fl_body_build_free(out);
    return fl_error_wrap("softbody \"%s\"", name);
  }
  return true;
}

/* ---- balloons ---- */

/* A half-edge: its undirected key, its triangle and the triangle's third vertex. */
typedef struct {
  uint64_t key;
  uint32_t from, opposite;
} half_edge;

static int compare_half_edges(const void *a, const void *b)
{
  const half_edge *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->from > y->from) - (x->from < y->from);
}

/* Edges and bend stencils of a closed triangle mesh; fails when an edge does
 * not have exactly two triangles that run it in opposite directions. */
static bool edges_and_bends(const fl_balloon_desc *d, fl_body_build *b)
{
  uint64_t n = (uint64_t)b->triangle_count * 3;
  half_edge *h = alloc_array(n, sizeof *h);
  uint64_t *keys = alloc_array(n, sizeof *keys);
  b->bends = alloc_array(n / 2, sizeof *b->bends);
  bool ok = h && keys && b->bends;
  if (!ok) fl_error_set("out of memory for %u triangles", (unsigned)b->triangle_count);
  for (uint32_t t = 0; ok && t < b->triangle_count; t++)
    for (int e = 0; e < 3; e++) {
      uint32_t p = b->triangles[t][e], q = b->triangles[t][(e + 1) % 3];
      h[(size_t)t * 3 + e] = (half_edge){edge_key(p, q), p, b->triangles[t][(e + 2) % 3]};
      keys[(size_t)t * 3 + e] = edge_key(p, q);
    }
  if (ok) qsort(h, (size_t)n, sizeof *h, compare_half_edges);
  for (uint64_t i = 0; ok && i < n; i += 2) {
    if (i + 1 >= n || h[i + 1].key != h[i].key || (i + 2 < n && h[i + 2].key == h[i].key) ||
        h[i].from == h[i + 1].from) {
      ok = fl_error_set("the mesh is not closed: edge %u-%u does not have exactly two triangles running it in "
                        "opposite directions",
                        (unsigned)(h[i].key >> 32), (unsigned)(uint32_t)h[i].key);
      break;
    }
    if (d->bending == FL_BENDING_NONE) continue;
    uint32_t x0 = (uint32_t)(h[i].key >> 32), x1 = (uint32_t)h[i].key;
    /* x2: opposite in the triangle that runs x0 -> x1. */
    const half_edge *forward = h[i].from == x0 ? &h[i] : &h[i + 1], *back = forward == &h[i] ? &h[i + 1] : &h[i];
    fl_gpu_bend *bend = &b->bends[b->bend_count++];
    memset(bend, 0, sizeof *bend);
    uint32_t idx[4] = {x0, x1, forward->opposite, back->opposite};
    float x[12];
    for (int k = 0; k < 4; k++) {
      bend->idx[k] = idx[k];
      memcpy(x + 3 * k, b->positions[idx[k]], 3 * sizeof(float));
    }
    bend->compliance = d->bend_compliance;
    bend->model = d->bending == FL_BENDING_DIHEDRAL ? FL_BEND_DIHEDRAL : FL_BEND_ISOMETRIC;
    fl_xpbd_bend_rest(bend, x);
  }
  ok = ok && unique_edges(keys, n, b);
  b->edge_kind = FL_DISTANCE_STRETCH;
  b->edge_compliance = d->stretch_compliance;
  free(h);
  free(keys);
  return ok;
}

bool fl_balloon_build(const fl_balloon_desc *d, const char *name, fl_body_build *out)
{
  memset(out, 0, sizeof *out);
  fl_cpu_mesh mesh = {0};
  bool ok = d->shape == FL_BODY_MESH ? fl_obj_load_placed(d->common.path, d->common.scale, d->common.center, &mesh)
                                     : fl_mesh_icosphere(d->common.center, d->common.radius, d->subdivisions, &mesh);
  if (ok && mesh.vertex_count > MAX_BODY_PARTICLES)
    ok = fl_error_set("%u vertices, more than the %u a body may have", (unsigned)mesh.vertex_count,
                      MAX_BODY_PARTICLES);
  if (ok) {
    out->particle_count = mesh.vertex_count;
    out->triangle_count = mesh.triangle_count;
    out->positions = mesh.positions; /* take the arrays over */
    out->triangles = (uint32_t(*)[3])mesh.indices;
    mesh.positions = NULL;
    mesh.indices = NULL;
    float w = (float)(mesh.vertex_count / (double)d->mass);
    for (uint32_t p = 0; p < out->particle_count; p++) out->positions[p][3] = w;
  }
  ok = ok && edges_and_bends(d, out);
  if (ok) {
    fill_common(&d->common, out);
    out->body.pressure = d->pressure;
    out->body.pressure_compliance = d->pressure_compliance;
    out->body.overpressure = 1u;
    out->tear_strain = d->tear_strain;
  }
  fl_cpu_mesh_free(&mesh);
  if (!ok) {
    fl_body_build_free(out);
    return fl_error_wrap("balloon \"%s\"", name);
  }
  return true;
}

double fl_body_build_mass(const fl_body_build *b)
{
  double m = 0;
  for (uint32_t p = 0; p < b->particle_count; p++) m += b->positions[p][3] > 0 ? 1.0 / b->positions[p][3] : 0.0;
  return m;
}

void fl_body_build_free(fl_body_build *b)
{
  if (!b) return;
  free(b->positions);
  free(b->edges);
  free(b->tets);
  free(b->triangles);
  free(b->bends);
  free(b->skin);
  fl_cpu_mesh_free(&b->render);
  memset(b, 0, sizeof *b);
}
