/* tests/unit/test_tetrahedralize.c: CPU geometry of soft bodies: icospheres
 * and mesh volumes, the solids (inside tests, the lattice inside test,
 * render surfaces), and the voxel tetrahedralizer (positive tets, volume
 * against the solid's, a closed outward boundary, conformity, shared and used
 * vertices, errors). Prints the measured volume errors per shape and resolution. */
#include "test.h"

#include "core/log.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/solid.h"
#include "sim/xpbd/tetrahedralize.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define PI_D 3.14159265358979323846

static uint32_t rng_state = 2024;
static double drand(void) /* uniform in [-1, 1) */
{
  rng_state = rng_state * 1664525u + 1013904223u;
  return (double)(rng_state >> 8) / (double)(1u << 23) - 1.0;
}

static int compare_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static size_t count_u64(const uint64_t *sorted, size_t n, uint64_t key)
{
  const uint64_t *hit = bsearch(&key, sorted, n, sizeof key, compare_u64);
  if (!hit) return 0;
  const uint64_t *lo = hit, *hi = hit;
  while (lo > sorted && lo[-1] == key) lo--;
  while (hi + 1 < sorted + n && hi[1] == key) hi++;
  return (size_t)(hi - lo) + 1;
}

/* True when every directed edge (a, b) of the triangles is used once and (b, a) once too. */
static bool closed_surface(const uint32_t *tri, uint32_t count)
{
  size_t n = 3 * (size_t)count;
  uint64_t *e = malloc((n + 1) * sizeof *e);
  if (!e) return false;
  for (size_t k = 0; k < n; k++) {
    uint32_t a = tri[k], b = tri[k % 3 == 2 ? k - 2 : k + 1];
    e[k] = (uint64_t)a << 32 | b;
  }
  qsort(e, n, sizeof *e, compare_u64);
  bool ok = true;
  for (size_t k = 0; ok && k < n; k++) {
    uint64_t back = e[k] >> 32 | e[k] << 32;
    ok = count_u64(e, n, e[k]) == 1 && count_u64(e, n, back) == 1;
  }
  free(e);
  return ok;
}

/* fl_mesh_volume of a tet mesh's boundary. */
static double surface_volume(const fl_tet_mesh *m)
{
  float(*p)[4] = malloc(((size_t)m->vertex_count + 1) * sizeof *p);
  if (!p) return -1;
  for (uint32_t v = 0; v < m->vertex_count; v++) {
    for (int i = 0; i < 3; i++) p[v][i] = m->positions[v][i];
    p[v][3] = 1;
  }
  double vol = fl_mesh_volume((const float(*)[4])p, &m->surface[0][0], m->surface_count);
  free(p);
  return vol;
}

/* Each face of the tets is used once (a boundary face) or twice, by two tets in
 * opposite directions; the faces used once are exactly the surface. */
static bool conforming(const fl_tet_mesh *m)
{
  static const int F[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
  size_t n = 4 * (size_t)m->tet_count, once = 0;
  uint64_t *keys = malloc((n + 1) * sizeof *keys), *directed = malloc((n + 1) * sizeof *directed);
  bool ok = keys && directed && m->vertex_count < (1u << 21);
  for (size_t f = 0; ok && f < n; f++) {
    uint32_t v[3];
    for (int i = 0; i < 3; i++) v[i] = m->tets[f / 4][F[f % 4][i]];
    /* directed: rotated to start at the smallest vertex (keeps the winding) */
    int r = v[0] < v[1] ? (v[0] < v[2] ? 0 : 2) : (v[1] < v[2] ? 1 : 2);
    uint64_t a = v[r], b = v[(r + 1) % 3], c = v[(r + 2) % 3];
    directed[f] = a << 42 | b << 21 | c;
    keys[f] = a << 42 | (b < c ? b << 21 | c : c << 21 | b);
  }
  if (ok) {
    qsort(keys, n, sizeof *keys, compare_u64);
    qsort(directed, n, sizeof *directed, compare_u64);
  }
  for (size_t f = 0; ok && f < n; f++) {
    size_t uses = count_u64(keys, n, keys[f]);
    ok = uses <= 2;
    once += uses == 1;
  }
  for (size_t f = 0; ok && f < n; f++) ok = count_u64(directed, n, directed[f]) == 1; /* opposite when shared */
  ok = ok && once == m->surface_count;
  free(keys);
  free(directed);
  return ok;
}

/* Every property a voxel tetrahedralization must have; prints its figures. */
static void check_tet_mesh(const char *shape, const fl_solid *solid, uint32_t cells_across)
{
  float lo[3], hi[3];
  fl_solid_bounds(solid, lo, hi);
  float extent = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
  float spacing = extent / (float)cells_across;
  fl_tet_mesh m;
  ENSURE_MSG(fl_tetrahedralize(solid, spacing, &m), "%s: %s", shape, fl_error_message());
  double cell_volume = (double)spacing * spacing * spacing, total = 0;
  for (uint32_t t = 0; t < m.tet_count; t++) {
    const uint32_t *v = m.tets[t];
    double vol = fl_tet_volume(m.positions[v[0]], m.positions[v[1]], m.positions[v[2]], m.positions[v[3]]);
    ENSURE_MSG(vol > 0, "%s: tet %u has volume %g", shape, t, vol);
    ENSURE_NEAR(vol, cell_volume / 6, 1e-4 * cell_volume);
    total += vol;
  }
  ENSURE_NEAR(fl_tet_mesh_volume(&m), total, 1e-9 * total);
  double want = fl_solid_volume(solid), err = 100.0 * (total - want) / want;
  printf("  %-10s %3u cells across: %6u tets, %5u vertices, %5u boundary faces, volume %.5f vs %.5f: %+.2f %%\n",
         shape, cells_across, m.tet_count, m.vertex_count, m.surface_count, total, want, err);
  fflush(stdout);
  ENSURE_MSG(fabs(err) < 5.0, "%s at %u cells: volume error %.2f %%", shape, cells_across, err);
  ENSURE_MSG(closed_surface(&m.surface[0][0], m.surface_count), "%s: boundary not closed", shape);
  double sv = surface_volume(&m);
  ENSURE_MSG(fabs(sv - total) <= 1e-6 * total, "%s: boundary volume %.9g, tets %.9g", shape, sv, total);
  ENSURE_MSG(conforming(&m), "%s: a face is used by more than two tets, or twice the same way", shape);
  uint8_t *used = calloc(m.vertex_count, 1);
  ENSURE(used);
  for (uint32_t t = 0; t < m.tet_count; t++)
    for (int k = 0; k < 4; k++) used[m.tets[t][k]] = 1;
  uint32_t unused = 0;
  for (uint32_t v = 0; v < m.vertex_count; v++) unused += !used[v];
  free(used);
  ENSURE_MSG(unused == 0, "%s: %u unused vertices", shape, unused);
  fl_tet_mesh_free(&m);
}

/* ---- meshes ---- */

static void test_icosphere(void)
{
  const float c[3] = {0.5f, -1.0f, 2.0f};
  for (uint32_t s = 0; s <= 5; s++) {
    fl_cpu_mesh m;
    ENSURE_MSG(fl_mesh_icosphere(c, 2.0f, s, &m), "%s", fl_error_message());
    ENSURE(m.vertex_count == 10u * (1u << 2 * s) + 2 && m.triangle_count == 20u * (1u << 2 * s));
    for (uint32_t v = 0; v < m.vertex_count; v++) {
      float d[3] = {m.positions[v][0] - c[0], m.positions[v][1] - c[1], m.positions[v][2] - c[2]};
      ENSURE_NEAR(sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), 2.0, 1e-5);
      ENSURE(m.positions[v][3] == 1.0f);
    }
    /* Welded: each directed edge once, its reverse once; no two vertices at one place. */
    ENSURE_MSG(closed_surface(m.indices, m.triangle_count), "s = %u", s);
    if (s <= 3)
      for (uint32_t a = 0; a < m.vertex_count; a++)
        for (uint32_t b = a + 1; b < m.vertex_count; b++)
          ENSURE(memcmp(m.positions[a], m.positions[b], sizeof m.positions[a]) != 0);
    double vol = fl_mesh_volume((const float(*)[4])m.positions, m.indices, m.triangle_count);
    double err = 1.0 - vol / (4.0 / 3.0 * PI_D * 8.0);
    printf("  icosphere s=%u: %6u vertices, volume deficit %.3f %%\n", s, m.vertex_count, 100 * err);
    fflush(stdout);
    ENSURE(err > 0); /* inscribed, counter-clockwise from outside */
    if (s >= 3) ENSURE_MSG(err < 0.02, "s = %u: volume deficit %g", s, err);
    fl_cpu_mesh_free(&m);
  }
  fl_cpu_mesh m;
  ENSURE(!fl_mesh_icosphere(c, 1.0f, 8, &m));
  ENSURE(strstr(fl_error_message(), "subdivisions"));
  fl_error_clear();
}

static void test_mesh_volume(void)
{
  const float c[3] = {3, -2, 1}, h[3] = {1, 1, 1}, h2[3] = {0.5f, 1, 2};
  fl_cpu_mesh m;
  ENSURE(fl_mesh_box(c, h, &m));
  ENSURE_NEAR(fl_mesh_volume((const float(*)[4])m.positions, m.indices, m.triangle_count), 8.0, 1e-9);
  fl_cpu_mesh_free(&m);
  ENSURE(fl_mesh_box(c, h2, &m));
  ENSURE_NEAR(fl_mesh_volume((const float(*)[4])m.positions, m.indices, m.triangle_count), 8.0, 1e-9);
  /* Reversed winding: negative. */
  for (uint32_t t = 0; t < m.triangle_count; t++) {
    uint32_t swap = m.indices[3 * t + 1];
    m.indices[3 * t + 1] = m.indices[3 * t + 2];
    m.indices[3 * t + 2] = swap;
  }
  ENSURE_NEAR(fl_mesh_volume((const float(*)[4])m.positions, m.indices, m.triangle_count), -8.0, 1e-9);
  fl_cpu_mesh_free(&m);
}

/* ---- solids ---- */

static void test_solid_surfaces(void)
{
  fl_cpu_mesh ico;
  const float c[3] = {0.2f, 1.0f, -0.3f};
  ENSURE(fl_mesh_icosphere(c, 0.7f, 2, &ico));
  const fl_solid solids[4] = {
      {.kind = FL_SOLID_SPHERE, .center = {0.2f, 1.0f, -0.3f}, .radius = 0.7f},
      {.kind = FL_SOLID_BOX, .center = {0.2f, 1.0f, -0.3f}, .half_extents = {0.5f, 0.3f, 0.8f}},
      {.kind = FL_SOLID_TORUS, .center = {0.2f, 1.0f, -0.3f}, .radius = 0.8f, .minor_radius = 0.3f},
      {.kind = FL_SOLID_MESH, .mesh = &ico},
  };
  const uint32_t details[3] = {4, 12, 32};
  for (int s = 0; s < 4; s++)
    for (int d = 0; d < 3; d++) {
      fl_cpu_mesh m;
      ENSURE_MSG(fl_solid_surface(&solids[s], details[d], &m), "%s", fl_error_message());
      ENSURE_MSG(closed_surface(m.indices, m.triangle_count), "solid %d detail %u: not closed and welded", s,
                 details[d]);
      double vol = fl_mesh_volume((const float(*)[4])m.positions, m.indices, m.triangle_count);
      double want = fl_solid_volume(&solids[s]);
      uint32_t n = details[d];
      if (s == 1) { /* the box: exact, 6 n^2 + 2 shared vertices */
        ENSURE(m.vertex_count == 6 * n * n + 2 && m.triangle_count == 12 * n * n);
        ENSURE_NEAR(vol, want, 1e-6);
      }
      if (s == 2) ENSURE(m.vertex_count == n * (n / 2 < 3 ? 3 : n / 2));
      if (s == 0) { /* about `detail` edges around a great circle */
        double sum = 0;
        for (uint32_t t = 0; t < m.triangle_count; t++)
          for (int k = 0; k < 3; k++) {
            const float *a = m.positions[m.indices[3 * t + k]], *b = m.positions[m.indices[3 * t + (k + 1) % 3]];
            sum += sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
          }
        double around = 2 * PI_D * 0.7 / (sum / (3.0 * m.triangle_count));
        ENSURE_MSG(around > n / 1.6 && around < n * 1.6, "detail %u: %.1f edges around", n, around);
      }
      ENSURE_MSG(vol > 0.2 * want && vol <= want * (1 + 1e-6), "solid %d detail %u: volume %g of %g", s, n, vol,
                 want);
      if (n == 32 && s != 3) ENSURE_MSG(vol > 0.95 * want, "solid %d: volume %g of %g", s, vol, want);
      for (uint32_t v = 0; v < m.vertex_count; v++) ENSURE(m.positions[v][3] == 1.0f);
      fl_cpu_mesh_free(&m);
    }
  fl_cpu_mesh m;
  ENSURE(!fl_solid_surface(&solids[0], 3, &m));
  ENSURE(strstr(fl_error_message(), "detail"));
  fl_error_clear();
  fl_cpu_mesh_free(&ico);
}

static void test_solid_volume_bounds(void)
{
  fl_solid s = {.kind = FL_SOLID_TORUS, .center = {1, 2, 3}, .radius = 1.0f, .minor_radius = 0.25f};
  ENSURE_NEAR(fl_solid_volume(&s), 2 * PI_D * PI_D * 0.0625, 1e-9);
  float lo[3], hi[3];
  fl_solid_bounds(&s, lo, hi);
  ENSURE(lo[0] == -0.25f && hi[0] == 2.25f && lo[1] == 1.75f && hi[1] == 2.25f && lo[2] == 1.75f && hi[2] == 4.25f);
  /* Monte Carlo over the bounds agrees with the analytic volumes. */
  const fl_solid solids[3] = {s, {.kind = FL_SOLID_SPHERE, .center = {0, 1, 0}, .radius = 0.5f},
                              {.kind = FL_SOLID_BOX, .center = {0, 1, 0}, .half_extents = {0.5f, 0.2f, 0.1f}}};
  for (int k = 0; k < 3; k++) {
    fl_solid_bounds(&solids[k], lo, hi);
    uint32_t in = 0, n = 200000;
    for (uint32_t i = 0; i < n; i++) {
      float p[3];
      for (int a = 0; a < 3; a++) p[a] = lo[a] + (hi[a] - lo[a]) * (float)(0.5 + 0.5 * drand());
      in += fl_solid_inside(&solids[k], p);
    }
    double box = (double)(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    ENSURE_NEAR(box * in / n, fl_solid_volume(&solids[k]), 0.01 * box);
  }
}

/* The winding-number inside test of an icosphere agrees with the sphere's away from the surface. */
static void test_winding_inside(void)
{
  const float c[3] = {0.1f, 0.2f, 0.3f};
  fl_cpu_mesh ico;
  ENSURE(fl_mesh_icosphere(c, 1.0f, 3, &ico));
  fl_solid mesh = {.kind = FL_SOLID_MESH, .mesh = &ico};
  fl_solid sphere = {.kind = FL_SOLID_SPHERE, .center = {0.1f, 0.2f, 0.3f}, .radius = 1.0f};
  uint32_t tested = 0, in = 0;
  for (int i = 0; i < 4000; i++) {
    float p[3] = {c[0] + 1.5f * (float)drand(), c[1] + 1.5f * (float)drand(), c[2] + 1.5f * (float)drand()};
    float d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    float r = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (fabsf(r - 1.0f) < 0.03f) continue; /* the facets lie within 0.012 of the sphere at s = 3 */
    tested++;
    bool want = fl_solid_inside(&sphere, p);
    in += want;
    ENSURE_MSG(fl_solid_inside(&mesh, p) == want, "point (%g %g %g) at r %g", (double)p[0], (double)p[1],
               (double)p[2], (double)r);
  }
  ENSURE(tested > 3000 && in > 500);
  /* Flipped patches or a hole keep an inside: the centre of a sphere with 10 triangles removed. */
  ico.triangle_count -= 10;
  ENSURE(fl_solid_inside(&mesh, c));
  fl_cpu_mesh_free(&ico);
}

/* The lattice test agrees with the per-point one: a closed mesh (crossings only),
 * an unwelded box mesh (open by indices: a full winding number per row; rows
 * through its diagonals graze edges) and an icosphere with a hole. */
static void test_inside_lattice(void)
{
  const float c[3] = {0, 0, 0}, h[3] = {1, 1, 1};
  fl_cpu_mesh ico, box, holed;
  ENSURE(fl_mesh_icosphere(c, 1.0f, 2, &ico));
  ENSURE(fl_mesh_box(c, h, &box));
  ENSURE(fl_mesh_icosphere(c, 1.0f, 2, &holed));
  holed.triangle_count -= 12;
  const fl_solid solids[5] = {{.kind = FL_SOLID_MESH, .mesh = &ico},
                              {.kind = FL_SOLID_MESH, .mesh = &box},
                              {.kind = FL_SOLID_MESH, .mesh = &holed},
                              {.kind = FL_SOLID_TORUS, .radius = 0.8f, .minor_radius = 0.3f},
                              {.kind = FL_SOLID_BOX, .half_extents = {1, 1, 1}}};
  const uint32_t n[3] = {13, 13, 13};
  const double origin[3] = {-1.55, -1.5, -1.5}, step = 0.25;
  uint8_t inside[13 * 13 * 13];
  for (int s = 0; s < 5; s++) {
    ENSURE(fl_solid_inside_lattice(&solids[s], origin, step, n, inside));
    uint32_t in = 0;
    for (uint32_t k = 0; k < n[2]; k++)
      for (uint32_t j = 0; j < n[1]; j++)
        for (uint32_t i = 0; i < n[0]; i++) {
          float p[3] = {(float)(origin[0] + step * i), (float)(origin[1] + step * j), (float)(origin[2] + step * k)};
          if (fabsf(fabsf(p[1]) - 1) < 1e-6f || fabsf(fabsf(p[2]) - 1) < 1e-6f) continue; /* on the box */
          bool got = inside[(k * n[1] + j) * n[0] + i];
          in += got;
          ENSURE_MSG(got == fl_solid_inside(&solids[s], p), "solid %d at (%g %g %g)", s, (double)p[0],
                     (double)p[1], (double)p[2]);
        }
    ENSURE(in > 20);
  }
  fl_cpu_mesh_free(&ico);
  fl_cpu_mesh_free(&box);
  fl_cpu_mesh_free(&holed);
}

/* ---- the tetrahedralizer ---- */

static void test_analytic_solids(void)
{
  const fl_solid sphere = {.kind = FL_SOLID_SPHERE, .center = {0.3f, 1.2f, -0.5f}, .radius = 1.0f};
  const fl_solid box = {.kind = FL_SOLID_BOX, .center = {-1, 0.5f, 2}, .half_extents = {1.0f, 0.6f, 0.8f}};
  const fl_solid torus = {.kind = FL_SOLID_TORUS, .center = {0, 1, 0}, .radius = 1.0f, .minor_radius = 0.45f};
  for (uint32_t r = 8; r <= 16 && !fl_test_failed_current; r++) check_tet_mesh("sphere", &sphere, r);
  for (uint32_t r = 8; r <= 16 && !fl_test_failed_current; r++) check_tet_mesh("box", &box, r);
  for (uint32_t r = 8; r <= 16 && !fl_test_failed_current; r++) check_tet_mesh("torus", &torus, r);
}

static void test_mesh_solids(void)
{
  const float c[3] = {0.5f, 0.5f, 0.5f}, h[3] = {0.9f, 0.5f, 0.7f};
  fl_cpu_mesh ico, box;
  ENSURE(fl_mesh_icosphere(c, 1.0f, 3, &ico));
  ENSURE(fl_mesh_box(c, h, &box));
  const fl_solid ico_solid = {.kind = FL_SOLID_MESH, .mesh = &ico};
  const fl_solid box_solid = {.kind = FL_SOLID_MESH, .mesh = &box};
  for (uint32_t r = 8; r <= 16 && !fl_test_failed_current; r++) check_tet_mesh("icosphere", &ico_solid, r);
  for (uint32_t r = 8; r <= 16 && !fl_test_failed_current; r++) check_tet_mesh("box mesh", &box_solid, r);
  fl_cpu_mesh_free(&ico);
  fl_cpu_mesh_free(&box);
}

/* A box whose faces fall on cell faces is filled exactly; and the grid is centred. */
static void test_exact_box(void)
{
  const fl_solid box = {.kind = FL_SOLID_BOX, .center = {0.1f, 0.2f, 0.3f}, .half_extents = {0.5f, 0.25f, 0.75f}};
  fl_tet_mesh m;
  ENSURE(fl_tetrahedralize(&box, 0.25f, &m));
  ENSURE(m.tet_count == 6 * 4 * 2 * 6 && m.vertex_count == 5 * 3 * 7);
  ENSURE_NEAR(fl_tet_mesh_volume(&m), 0.75, 1e-6);
  float lo[3] = {1e9f, 1e9f, 1e9f}, hi[3] = {-1e9f, -1e9f, -1e9f};
  for (uint32_t v = 0; v < m.vertex_count; v++)
    for (int a = 0; a < 3; a++) {
      lo[a] = fminf(lo[a], m.positions[v][a]);
      hi[a] = fmaxf(hi[a], m.positions[v][a]);
    }
  for (int a = 0; a < 3; a++) ENSURE_NEAR(0.5f * (lo[a] + hi[a]), box.center[a], 1e-6);
  /* Two triangles per boundary cell face: 2 (4 x 2 + 2 x 6 + 4 x 6) cell faces. */
  ENSURE(m.surface_count == 2 * 2 * (4 * 2 + 2 * 6 + 4 * 6));
  fl_tet_mesh_free(&m);
}

/* Where cells would meet only along an edge, the boundary is still a manifold:
 * two cubes touching along an edge (a mesh of two boxes) become one connected piece. */
static void test_manifold_fixup(void)
{
  fl_cpu_mesh a, b, both;
  const float ca[3] = {-0.5f, -0.5f, 0}, cb[3] = {0.5f, 0.5f, 0}, h[3] = {0.5f, 0.5f, 1.0f};
  ENSURE(fl_mesh_box(ca, h, &a));
  ENSURE(fl_mesh_box(cb, h, &b));
  both.vertex_count = a.vertex_count + b.vertex_count;
  both.triangle_count = a.triangle_count + b.triangle_count;
  both.positions = malloc(both.vertex_count * sizeof *both.positions);
  both.indices = malloc(3 * both.triangle_count * sizeof *both.indices);
  ENSURE(both.positions && both.indices);
  memcpy(both.positions, a.positions, a.vertex_count * sizeof *a.positions);
  memcpy(both.positions + a.vertex_count, b.positions, b.vertex_count * sizeof *b.positions);
  memcpy(both.indices, a.indices, 3 * a.triangle_count * sizeof *a.indices);
  for (uint32_t k = 0; k < 3 * b.triangle_count; k++)
    both.indices[3 * a.triangle_count + k] = b.indices[k] + a.vertex_count;
  const fl_solid s = {.kind = FL_SOLID_MESH, .mesh = &both};
  fl_tet_mesh m;
  ENSURE_MSG(fl_tetrahedralize(&s, 0.5f, &m), "%s", fl_error_message());
  ENSURE(closed_surface(&m.surface[0][0], m.surface_count));
  /* 2 x 2 x 4 cells per cube, plus the cells added around the shared edge. */
  ENSURE(m.tet_count > 6 * 32);
  ENSURE(conforming(&m));
  fl_tet_mesh_free(&m);
  fl_cpu_mesh_free(&a);
  fl_cpu_mesh_free(&b);
  fl_cpu_mesh_free(&both);
}

static void test_from_tets(void)
{
  const float p[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}};
  const uint32_t tets[2][4] = {{0, 1, 2, 3}, {1, 3, 2, 4}}; /* the second is negative */
  fl_tet_mesh m;
  ENSURE(fl_tet_volume(p[1], p[3], p[2], p[4]) < 0);
  ENSURE_MSG(fl_tet_mesh_from_tets(p, 5, tets, 2, &m), "%s", fl_error_message());
  ENSURE(m.tet_count == 2 && m.vertex_count == 5);
  for (uint32_t t = 0; t < 2; t++) {
    const uint32_t *v = m.tets[t];
    ENSURE(fl_tet_volume(m.positions[v[0]], m.positions[v[1]], m.positions[v[2]], m.positions[v[3]]) > 0);
  }
  ENSURE_NEAR(fl_tet_mesh_volume(&m), 1.0 / 6 + 1.0 / 6, 1e-9);
  ENSURE(m.surface_count == 6); /* two tets glued on face (1, 2, 3) */
  ENSURE(closed_surface(&m.surface[0][0], m.surface_count));
  ENSURE_NEAR(surface_volume(&m), 1.0 / 3, 1e-9);
  fl_tet_mesh_free(&m);

  const float flat[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}};
  const uint32_t bad[2][4] = {{0, 1, 2, 3}, {0, 1, 2, 4}}; /* the second lies in z = 0 */
  fl_error_clear();
  ENSURE(!fl_tet_mesh_from_tets(flat, 5, bad, 2, &m));
  ENSURE_MSG(strstr(fl_error_message(), "tet 1 is degenerate"), "%s", fl_error_message());
  ENSURE(m.tets == NULL && m.positions == NULL);
  fl_error_clear();
  const uint32_t out_of_range[1][4] = {{0, 1, 2, 7}};
  ENSURE(!fl_tet_mesh_from_tets(p, 5, out_of_range, 1, &m));
  ENSURE_MSG(strstr(fl_error_message(), "vertex 7"), "%s", fl_error_message());
  fl_error_clear();
}

static void test_errors(void)
{
  fl_tet_mesh m;
  const fl_solid sphere = {.kind = FL_SOLID_SPHERE, .radius = 1.0f};
  fl_error_clear();
  ENSURE(!fl_tetrahedralize(&sphere, 2.0f / 300.0f, &m)); /* 300 cells across */
  ENSURE_MSG(strstr(fl_error_message(), "over the limit"), "%s", fl_error_message());
  fl_error_clear();
  ENSURE(!fl_tetrahedralize(&sphere, 2.0f / 200.0f, &m)); /* 200^3 cells: over 2^21 */
  ENSURE_MSG(strstr(fl_error_message(), "over the limit"), "%s", fl_error_message());
  fl_error_clear();
  ENSURE(!fl_tetrahedralize(&sphere, 0.0f, &m));
  ENSURE_MSG(strstr(fl_error_message(), "spacing"), "%s", fl_error_message());
  fl_error_clear();
  const fl_solid sheet = {.kind = FL_SOLID_BOX, .half_extents = {1, 0.01f, 1}};
  ENSURE(!fl_tetrahedralize(&sheet, 0.2f, &m));
  ENSURE_MSG(strstr(fl_error_message(), "raise the resolution"), "%s", fl_error_message());
  ENSURE(m.tets == NULL && m.positions == NULL && m.surface == NULL);
  fl_error_clear();
}

static const fl_test_case TESTS[] = {
    {"icosphere", test_icosphere},
    {"mesh_volume", test_mesh_volume},
    {"solid_surfaces", test_solid_surfaces},
    {"solid_volume_bounds", test_solid_volume_bounds},
    {"winding_inside", test_winding_inside},
    {"inside_lattice", test_inside_lattice},
    {"analytic_solids", test_analytic_solids},
    {"mesh_solids", test_mesh_solids},
    {"exact_box", test_exact_box},
    {"manifold_fixup", test_manifold_fixup},
    {"from_tets", test_from_tets},
    {"errors", test_errors},
};
FL_TEST_MAIN(TESTS)
