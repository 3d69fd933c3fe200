/* tests/gpu/test_mesh_normals.c: the GPU vertex normals (common/face_normals.comp
 * + vertex_normals.comp) of the procedural sphere, box and capsule meshes match
 * the CPU reference fl_mesh_normals_cpu, are unit length and point outward at
 * every vertex; and the vertex-to-face CSR adjacency (fl_mesh_vertex_faces) is
 * right on a two-triangle quad and rejects an out-of-range index. */
#include "gpu_fixture.h"

#include <math.h>
#include <stdlib.h>

#include "sim/common/gpu_mesh.h"
#include "sim/common/mesh_cpu.h"

/* Computes the normals of `mesh` on the GPU into `out` (vertex_count vec4s). */
static bool gpu_normals(fl_gpu *gpu, const fl_cpu_mesh *mesh, float (*out)[4])
{
  fl_gpu_mesh gm = {0};
  bool ok = fl_gpu_mesh_create(gpu, mesh, "test mesh", &gm);
  /* Poison the output so an unwritten normal cannot pass. */
  if (ok) ok = fl_buffer_fill(gpu, &gm.normals, 0x7fc00000u); /* NaN */
  fl_fixture_once once;
  if (ok && (ok = fl_fixture_once_begin(gpu, &once))) {
    fl_mesh_normals_record(&once.rec, &gm);
    ok = fl_fixture_once_end(&once);
  }
  ok = ok && fl_buffer_readback(gpu, &gm.normals, 0, out, (VkDeviceSize)mesh->vertex_count * 16);
  if (!ok) fprintf(stderr, "  GPU normals failed: %s\n", fl_error_message());
  fl_gpu_mesh_destroy(gpu, &gm);
  return ok;
}

/* Largest |gpu - cpu| over the normals' xyz. */
/* The largest component difference over the vertices, leaving out those whose `skip` is set. */
static double max_diff(const float (*a)[4], const float (*b)[4], uint32_t n, const bool *skip)
{
  double worst = 0;
  for (uint32_t v = 0; v < n; v++)
    for (int i = 0; i < 3 && !(skip && skip[v]); i++) {
      double d = fabs((double)a[v][i] - (double)b[v][i]);
      if (!(d <= worst)) worst = d; /* NaN propagates */
    }
  return worst;
}

/* The closest point to p on segment ab. */
static void closest_on_segment(const float a[3], const float b[3], const float p[3], float out[3])
{
  float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  float ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  float bb = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
  float t = bb > 0 ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / bb : 0.0f;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  for (int i = 0; i < 3; i++) out[i] = a[i] + t * ab[i];
}

/* Twice the largest area of a triangle that uses each vertex. */
static float *vertex_max_area(const fl_cpu_mesh *m)
{
  float *area = calloc(m->vertex_count, sizeof *area);
  if (!area) return NULL;
  for (uint32_t t = 0; t < m->triangle_count; t++) {
    const uint32_t *ix = &m->indices[3 * t];
    const float *a = m->positions[ix[0]], *b = m->positions[ix[1]], *c = m->positions[ix[2]];
    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    float x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2], z = e1[0] * e2[1] - e1[1] * e2[0];
    float twice = sqrtf(x * x + y * y + z * z);
    for (int k = 0; k < 3; k++)
      if (twice > area[ix[k]]) area[ix[k]] = twice;
  }
  return area;
}

/* Checks GPU == CPU, unit length at every vertex and, for a round shape around
 * segment ab (a == b: a sphere), dot(n, p - closest axis point) > 0 at every
 * vertex of a triangle with real area. The UV grid's pole rows hold copies of
 * the pole; a copy whose only triangles have zero area has no defined normal,
 * so it is left out of the direction check and the GPU-CPU comparison (and
 * counted in the log): its normal is the direction of a sum of cross products
 * of rounding size, which FMA contraction and denormal flushing decide (on an
 * H100 such a vertex differed by 1 in a component). */
static void check_round(fl_gpu *gpu, const fl_cpu_mesh *mesh, const float a[3], const float b[3],
                        float radius, const char *what)
{
  uint32_t n = mesh->vertex_count;
  float (*g)[4] = malloc(n * sizeof *g), (*c)[4] = malloc(n * sizeof *c);
  float *area = vertex_max_area(mesh);
  ENSURE(g && c && area);
  bool ok = gpu_normals(gpu, mesh, g);
  fl_mesh_normals_cpu(mesh, c);
  bool *degenerate = malloc(n);
  ENSURE(degenerate);
  for (uint32_t v = 0; v < n; v++) degenerate[v] = area[v] <= 1e-6f * radius * radius;
  double diff = max_diff((const float (*)[4])g, (const float (*)[4])c, n, degenerate);
  uint32_t bad_len = 0, inward = 0, skipped = 0;
  for (uint32_t v = 0; v < n && ok; v++) {
    double len = sqrt((double)g[v][0] * g[v][0] + (double)g[v][1] * g[v][1] + (double)g[v][2] * g[v][2]);
    if (!(fabs(len - 1.0) <= 1e-5)) bad_len++;
    if (degenerate[v]) {
      skipped++;
      continue;
    }
    float q[3];
    closest_on_segment(a, b, mesh->positions[v], q);
    double dot = 0;
    for (int i = 0; i < 3; i++) dot += (double)g[v][i] * (mesh->positions[v][i] - q[i]);
    if (!(dot > 0) && inward++ < 3)
      fprintf(stderr, "  %s: vertex %u of %u at (%g %g %g) has inward normal (%g %g %g)\n", what, v, n,
              mesh->positions[v][0], mesh->positions[v][1], mesh->positions[v][2], g[v][0], g[v][1], g[v][2]);
  }
  if (skipped) fprintf(stderr, "  %s: %u pole vertices only in zero-area triangles\n", what, skipped);
  free(g);
  free(c);
  free(area);
  free(degenerate);
  ENSURE(ok);
  ENSURE_MSG(diff <= 1e-5, "%s: max |gpu - cpu| = %g", what, diff);
  ENSURE_MSG(bad_len == 0, "%s: %u normals are not unit length", what, bad_len);
  ENSURE_MSG(inward == 0, "%s: %u of %u normals point inward", what, inward, n);
  ENSURE_MSG(skipped <= 2, "%s: %u vertices without a real triangle", what, skipped);
}

static void sphere_body(fl_gpu *gpu)
{
  const float center[3] = {0.5f, 1.25f, -2.0f};
  fl_cpu_mesh mesh;
  ENSURE(fl_mesh_sphere(center, 0.75f, 12, 24, &mesh));
  check_round(gpu, &mesh, center, center, 0.75f, "sphere");
  fl_cpu_mesh_free(&mesh);
}
FL_GPU_TEST(test_sphere_normals, sphere_body)

static void capsule_body(fl_gpu *gpu)
{
  /* Two axes: along y (the mesh frame's default) and a tilted one. */
  const float a0[3] = {0, 0.5f, 0}, b0[3] = {0, 1.5f, 0};
  const float a1[3] = {-1.0f, 0.2f, 0.3f}, b1[3] = {1.0f, 0.9f, -0.4f};
  fl_cpu_mesh mesh;
  ENSURE(fl_mesh_capsule(a0, b0, 0.3f, 10, 16, &mesh));
  check_round(gpu, &mesh, a0, b0, 0.3f, "capsule along y");
  fl_cpu_mesh_free(&mesh);
  if (fl_test_failed_current) return;
  ENSURE(fl_mesh_capsule(a1, b1, 0.25f, 8, 20, &mesh));
  check_round(gpu, &mesh, a1, b1, 0.25f, "tilted capsule");
  fl_cpu_mesh_free(&mesh);
}
FL_GPU_TEST(test_capsule_normals, capsule_body)

static void box_body(fl_gpu *gpu)
{
  const float center[3] = {1.0f, -0.5f, 2.0f}, half[3] = {0.4f, 1.2f, 0.7f};
  fl_cpu_mesh mesh;
  ENSURE(fl_mesh_box(center, half, &mesh));
  uint32_t n = mesh.vertex_count;
  float (*g)[4] = malloc(n * sizeof *g), (*c)[4] = malloc(n * sizeof *c);
  ENSURE(g && c);
  bool ok = gpu_normals(gpu, &mesh, g);
  fl_mesh_normals_cpu(&mesh, c);
  double diff = max_diff((const float (*)[4])g, (const float (*)[4])c, n, NULL);
  /* Flat faces: each vertex's normal is its face's axis, pointing away from the centre. */
  uint32_t bad = 0;
  for (uint32_t v = 0; v < n && ok; v++) {
    const float *p = mesh.positions[v];
    int axis = -1;
    for (int i = 0; i < 3; i++)
      if (fabsf(g[v][i]) > 0.5f) axis = i;
    bool good = axis >= 0;
    for (int i = 0; i < 3 && good; i++) {
      float want = i == axis ? (g[v][i] > 0 ? 1.0f : -1.0f) : 0.0f;
      good = fabsf(g[v][i] - want) <= 1e-5f;
    }
    good = good && g[v][axis] * (p[axis] - center[axis]) > 0 &&
           fabsf(fabsf(p[axis] - center[axis]) - half[axis]) <= 1e-6f;
    if (!good) bad++;
  }
  free(g);
  free(c);
  fl_cpu_mesh_free(&mesh);
  ENSURE(ok);
  ENSURE_MSG(diff <= 1e-5, "box: max |gpu - cpu| = %g", diff);
  ENSURE_MSG(bad == 0, "box: %u vertex normals are not their face's outward axis", bad);
}
FL_GPU_TEST(test_box_normals, box_body)

/* CPU only: the CSR adjacency of a quad made of triangles (0,1,2) and (0,2,3). */
static void test_vertex_faces(void)
{
  float pos[4][4] = {{0, 0, 0, 1}, {1, 0, 0, 1}, {1, 1, 0, 1}, {0, 1, 0, 1}};
  uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
  fl_cpu_mesh quad = {.positions = pos, .indices = idx, .vertex_count = 4, .triangle_count = 2};
  uint32_t *first = NULL, *faces = NULL;
  ENSURE(fl_mesh_vertex_faces(&quad, &first, &faces));
  static const uint32_t want_first[5] = {0, 2, 3, 5, 6};
  static const uint32_t want_faces[6] = {0, 1, 0, 0, 1, 1};
  bool same = memcmp(first, want_first, sizeof want_first) == 0 && memcmp(faces, want_faces, sizeof want_faces) == 0;
  if (!same) {
    fprintf(stderr, "  first:");
    for (int i = 0; i < 5; i++) fprintf(stderr, " %u", first[i]);
    fprintf(stderr, "\n  faces:");
    for (int i = 0; i < 6; i++) fprintf(stderr, " %u", faces[i]);
    fputc('\n', stderr);
  }
  free(first);
  free(faces);
  ENSURE(same);

  /* The CPU normals of the flat quad: +z everywhere. */
  float normals[4][4];
  fl_mesh_normals_cpu(&quad, normals);
  for (int v = 0; v < 4; v++) ENSURE(normals[v][0] == 0 && normals[v][1] == 0 && normals[v][2] == 1);

  /* Index 4 of 4 vertices: refused, with the index and the count named. */
  idx[5] = 4;
  first = faces = NULL;
  fl_error_clear();
  ENSURE(!fl_mesh_vertex_faces(&quad, &first, &faces));
  ENSURE(first == NULL && faces == NULL);
  ENSURE(fl_fixture_error_has("out of range"));
  ENSURE(fl_fixture_error_has("4 vertices"));
}

static const fl_test_case cases[] = {
    {"sphere_normals", test_sphere_normals},
    {"box_normals", test_box_normals},
    {"capsule_normals", test_capsule_normals},
    {"vertex_faces", test_vertex_faces},
};
FL_TEST_MAIN(cases)
