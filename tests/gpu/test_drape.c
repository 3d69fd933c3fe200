/* tests/gpu/test_drape.c: the `drape` scene as shipped (assets/scenes/drape.json,
 * a particles-mode 40x40 sheet on a box), run to rest on the GPU, then checked
 * exactly on the CPU (in double) for box features inside the cloth's triangles
 * (issue 15 item 2, docs/CLOTH.md "Colliders against triangles"):
 *   - crossings: box edges (12 segments) through a triangle (fl_segment_hits_triangle);
 *   - height: for each triangle near the box, the part of each box edge whose
 *     projection lies inside the triangle (the edge clipped to the triangle's
 *     prism), its smallest height above the triangle's plane on the box's side
 *     (the side of the box centre). A feature that pokes through the triangle
 *     has a negative height; the contact keeps it at r = thickness / 2.
 * Passes when no edge crosses a triangle and the lowest height is at least
 * r - 1 mm (FL_DRAPE_TOLERANCE). Frames: FLURRY_DRAPE_FRAMES, default 150
 * (2.5 s: the sheet has fallen onto the box and rests on it), 60 on the
 * trimmed second device (SwiftShader: draped, still settling). */
#include "gpu_fixture.h"
#include "world_fixture.h"
#include "contact_checks.h"

#define FL_DRAPE_TOLERANCE 0.001 /* m below r that a box feature may reach into a triangle */

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double *a, const double *b, double *o)
{
  o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

/* The 12 edges of box (centre c, half extents h) as corner pairs. */
static void box_edges(const float c[3], const float h[3], double e[12][2][3])
{
  int n = 0;
  for (int axis = 0; axis < 3; axis++)
    for (int s1 = -1; s1 <= 1; s1 += 2)
      for (int s2 = -1; s2 <= 1; s2 += 2) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int end = 0; end < 2; end++) {
          e[n][end][axis] = c[axis] + (end ? 1 : -1) * h[axis];
          e[n][end][u] = c[u] + s1 * h[u];
          e[n][end][v] = c[v] + s2 * h[v];
        }
        n++;
      }
}

/* The smallest height on the box's side (centre `centre`) of the box edges
 * clipped to the prism of triangle x; INFINITY when none lies in the prism. */
static double triangle_height(double x[3][3], double e[12][2][3], const double centre[3])
{
  double u[3], v[3], n[3], w[3];
  for (int k = 0; k < 3; k++) u[k] = x[1][k] - x[0][k], v[k] = x[2][k] - x[0][k];
  cross3(u, v, n);
  double len = sqrt(dot3(n, n));
  if (!(len > 1e-15)) return INFINITY;
  for (int k = 0; k < 3; k++) n[k] /= len, w[k] = centre[k] - x[0][k];
  double side = dot3(n, w) < 0 ? -1.0 : 1.0, best = INFINITY;
  for (int g = 0; g < 12; g++) {
    const double *p = e[g][0], *q = e[g][1];
    double t0 = 0, t1 = 1;
    for (int k = 0; k < 3 && t0 <= t1; k++) { /* the half-space inside triangle edge k */
      const double *a = x[k], *b = x[(k + 1) % 3], *c = x[(k + 2) % 3];
      double ab[3], m[3], ac[3], ap[3], pq[3];
      for (int j = 0; j < 3; j++) ab[j] = b[j] - a[j], ac[j] = c[j] - a[j], ap[j] = p[j] - a[j], pq[j] = q[j] - p[j];
      cross3(n, ab, m);
      if (dot3(m, ac) < 0)
        for (int j = 0; j < 3; j++) m[j] = -m[j];
      double f0 = dot3(m, ap), df = dot3(m, pq); /* f(t) = f0 + t df >= 0 */
      if (fabs(df) < 1e-300) {
        if (f0 < 0) t1 = -1;
      } else if (df > 0) {
        t0 = fmax(t0, -f0 / df);
      } else {
        t1 = fmin(t1, -f0 / df);
      }
    }
    if (t0 > t1) continue;
    for (int end = 0; end < 2; end++) {
      double t = end ? t1 : t0, y[3];
      for (int j = 0; j < 3; j++) y[j] = p[j] + t * (q[j] - p[j]) - x[0][j];
      best = fmin(best, side * dot3(n, y));
    }
  }
  return best;
}

static void drape_body(fl_gpu *gpu)
{
  const char *env = getenv("FLURRY_DRAPE_FRAMES");
  int frames = env ? atoi(env) : fl_fixture_trim(150, 60); /* SwiftShader: draped, not yet at rest */
  char path[1024];
  snprintf(path, sizeof path, "%s/assets/scenes/drape.json", fl_test_source_dir());
  fl_scene scene;
  fl_error_clear();
  ENSURE_MSG(fl_scene_load(path, NULL, 0, &scene), "%s", fl_error_message());
  /* The scene as shipped: a 40x40 cloth (object 0) and a box collider named "table". */
  const fl_scene_object *cloth = &scene.objects[0], *box = NULL;
  for (uint32_t k = 0; k < scene.object_count; k++)
    if (scene.objects[k].type == FL_OBJECT_COLLIDER && scene.objects[k].collider.shape == FL_SHAPE_BOX)
      box = &scene.objects[k];
  ENSURE(cloth->type == FL_OBJECT_CLOTH && box);
  uint32_t nx = cloth->cloth.resolution[0], ny = cloth->cloth.resolution[1];
  double r = 0.5 * cloth->cloth.thickness;
  fl_world *world = NULL;
  fl_profiler prof;
  ENSURE_MSG(fl_world_create(gpu, &scene, &world), "%s", fl_error_message());
  ENSURE(fl_profiler_create(gpu, &prof));
  bool ok = fl_fixture_step_frames(gpu, world, &prof, frames, true, NULL);
  fl_profiler_destroy(&prof);
  ENSURE_MSG(ok, "%s", fl_error_message());
  sheet s;
  ENSURE(sheet_read(world, 0, nx, ny, &s));
  fl_world_destroy(world);

  double e[12][2][3], centre[3], lo[3], hi[3];
  box_edges(box->collider.center, box->collider.half_extents, e);
  for (int k = 0; k < 3; k++) {
    centre[k] = box->collider.center[k];
    lo[k] = centre[k] - box->collider.half_extents[k] - 0.1;
    hi[k] = centre[k] + box->collider.half_extents[k] + 0.1;
  }
  uint32_t hits = 0, near = 0, worst_t = 0;
  double lowest = INFINITY, top = -INFINITY, bottom = INFINITY;
  for (uint32_t t = 0; t < s.tri_count; t++) {
    double x[3][3];
    bool out = false;
    for (int v = 0; v < 3; v++) to_d(s.pos[s.tri[t][v]], x[v]);
    for (int c = 0; c < 3 && !out; c++)
      out = fmax(fmax(x[0][c], x[1][c]), x[2][c]) < lo[c] || fmin(fmin(x[0][c], x[1][c]), x[2][c]) > hi[c];
    if (out) continue;
    near++;
    for (int g = 0; g < 12; g++) hits += fl_segment_hits_triangle(e[g][0], e[g][1], x[0], x[1], x[2]);
    double h = triangle_height(x, e, centre);
    if (h < lowest) lowest = h, worst_t = t;
  }
  for (uint32_t v = 0; v < s.count; v++) top = fmax(top, s.pos[v][1]), bottom = fmin(bottom, s.pos[v][1]);
  fprintf(stderr, "  drape after %d frames: %u triangles near the box, %u box-edge crossings, lowest box feature "
          "%.4f m above a triangle (r = %.4f m, so %.4f m into it; triangle %u), vertices at y %.4f .. %.4f\n",
          frames, near, hits, lowest, r, r - lowest, worst_t, bottom, top);
  sheet_free(&s);
  /* The sheet is draped over the box (the check is not vacuous): its top above the box's and
   * within 15 cm of it (5 cm at rest), its edges hanging 10 cm or more down the sides. */
  double box_top = box->collider.center[1] + box->collider.half_extents[1];
  ENSURE_MSG(top > box_top && top < box_top + 0.15 && bottom < box_top - 0.1,
             "the sheet is not draped over the box (vertices at y %.4f .. %.4f m)", bottom, top);
  ENSURE_MSG(hits == 0, "%u box edges cross a triangle", hits);
  ENSURE_MSG(lowest >= r - FL_DRAPE_TOLERANCE, "a box feature %.4f m into a triangle (tolerance %.4f m)",
             r - lowest, r - (r - FL_DRAPE_TOLERANCE));
}
FL_GPU_TEST(test_drape_box_features, drape_body)

static const fl_test_case cases[] = {{"drape_box_features", test_drape_box_features}};
FL_TEST_MAIN(cases)
