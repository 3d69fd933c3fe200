/* tests/gpu/test_cloth_bodies.c: a cloth dropped onto a soft body and a
 * balloon through triangle contacts (issue 15, docs/CLOTH.md), checked on the
 * CPU at several moments with the exact segment-triangle test: no cloth vertex
 * inside either body (ray parity), no cloth edge through a body's triangle and
 * no body edge through a cloth triangle (a body vertex on the wrong side of
 * the cloth would need one), the smallest cloth-to-body distances reported.
 * Frames are substeps of 1/240 s, as in test_cloth_contact.c. CTest runs the
 * issue's 64x64 cloth for 120 substeps on lavapipe (about 1-2 minutes on the
 * loaded 2-core machine; it passes since the third contact pass, docs/CLOTH.md
 * "Cloth on bodies") and a 16x16 one on SwiftShader (the trimmed device);
 * FLURRY_CONTACT_FULL=1 runs the 64x64 there too, and FLURRY_CONTACT_EVERY=n
 * checks every n substeps instead of every 40. */
#include "gpu_fixture.h"
#include "world_fixture.h"
#include "contact_checks.h"

#define BODIES_JSON_HEAD                                                                                         \
  "{ \"sim\": { \"dt\": 0.0041666667, \"substeps\": 1, \"iterations\": 2, \"gravity\": [0, -9.81, 0],"          \
  " \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } }, \"objects\": ["                                  \
  "{ \"type\": \"cloth\", \"name\": \"cloth\", \"resolution\": [%d, %d], \"size\": [1, 1],"                    \
  " \"center\": [0, 0.46, 0], \"mass\": 0.2, \"bend_compliance\": 1e-2, \"thickness\": %.5f,"                  \
  " \"friction\": [0.5, 0.4], \"self_collision\": \"triangles\" },"
#define BODIES_JSON_TAIL                                                                                         \
  "{ \"type\": \"softbody\", \"name\": \"soft\", \"shape\": \"sphere\", \"center\": [-0.23, 0.19, 0],"         \
  " \"radius\": 0.18, \"resolution\": 6, \"density\": 400, \"edge_compliance\": 1e-3, \"damping\": 0.5,"       \
  " \"thickness\": 0.01 },"                                                                                     \
  "{ \"type\": \"balloon\", \"name\": \"balloon\", \"center\": [0.23, 0.19, 0.02], \"radius\": 0.18,"          \
  " \"subdivisions\": 3, \"mass\": 0.1, \"pressure\": 1.1, \"damping\": 0.5, \"thickness\": 0.01 },"           \
  "{ \"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0 } ] }"

/* A diagnosis of a failed moment: which crossings (cloth edges through body
 * triangles, body edges through cloth triangles), for each body edge through
 * a cloth triangle the heights of its ends over that triangle's plane
 * (positive: on the cloth's outer side, a body vertex through the cloth), and
 * how deep each cloth vertex inside the body lies (its distance to the
 * surface against the reach). */
static void report_inside(const sheet *cloth, const sheet *body, uint32_t cloth_through, uint32_t body_through)
{
  static const double dir[3] = {0.5773, 0.6412, 0.5057};
  fprintf(stderr, "    %u cloth edges through body triangles, %u body edges through cloth triangles\n", cloth_through,
          body_through);
  /* Each body edge through a cloth triangle: its ends' heights over the triangle's
   * plane along the body's outward vertex normal (the sum of its triangles'). */
  for (uint32_t a = 0; a < body->tri_count; a++)
    for (int k = 0; k < 3; k++) {
      uint32_t e[2] = {body->tri[a][k], body->tri[a][(k + 1) % 3]};
      double p[3], q[3];
      to_d(body->pos[e[0]], p);
      to_d(body->pos[e[1]], q);
      for (uint32_t b = 0; b < cloth->tri_count; b++) {
        double x[3][3];
        for (int c = 0; c < 3; c++) to_d(cloth->pos[cloth->tri[b][c]], x[c]);
        if (!fl_segment_hits_triangle(p, q, x[0], x[1], x[2])) continue;
        double nf[3], u[3], w[3];
        for (int c = 0; c < 3; c++) u[c] = x[1][c] - x[0][c], w[c] = x[2][c] - x[0][c];
        nf[0] = u[1] * w[2] - u[2] * w[1], nf[1] = u[2] * w[0] - u[0] * w[2], nf[2] = u[0] * w[1] - u[1] * w[0];
        double ln = sqrt(nf[0] * nf[0] + nf[1] * nf[1] + nf[2] * nf[2]);
        fprintf(stderr, "    body edge %u-%u through cloth triangle %u:", e[0], e[1], b);
        for (int end = 0; end < 2; end++) {
          double vn[3] = {0, 0, 0}, y[3];
          to_d(body->pos[e[end]], y);
          for (uint32_t f = 0; f < body->tri_count; f++) {
            const uint32_t *t = body->tri[f];
            if (t[0] != e[end] && t[1] != e[end] && t[2] != e[end]) continue;
            double y0[3], y1[3], y2[3];
            to_d(body->pos[t[0]], y0), to_d(body->pos[t[1]], y1), to_d(body->pos[t[2]], y2);
            for (int c = 0; c < 3; c++) u[c] = y1[c] - y0[c], w[c] = y2[c] - y0[c];
            vn[0] += u[1] * w[2] - u[2] * w[1], vn[1] += u[2] * w[0] - u[0] * w[2], vn[2] += u[0] * w[1] - u[1] * w[0];
          }
          double h = 0, s = 0;
          for (int c = 0; c < 3; c++) h += (y[c] - x[0][c]) * nf[c] / ln, s += vn[c] * nf[c];
          fprintf(stderr, " end %u %+.4f m", e[end], s >= 0 ? h : -h);
        }
        fprintf(stderr, " (outward of the cloth's plane)\n");
      }
    }
  for (uint32_t v = 0; v < cloth->count; v++) {
    double p[3], q[3];
    to_d(cloth->pos[v], p);
    for (int c = 0; c < 3; c++) q[c] = p[c] + 10.0 * dir[c];
    uint32_t hits = 0;
    float depth = INFINITY;
    for (uint32_t b = 0; b < body->tri_count; b++) {
      double x[3][3];
      for (int k = 0; k < 3; k++) to_d(body->pos[body->tri[b][k]], x[k]);
      hits += fl_segment_hits_triangle(p, q, x[0], x[1], x[2]);
      const float *x0 = body->pos[body->tri[b][0]], *x1 = body->pos[body->tri[b][1]], *x2 = body->pos[body->tri[b][2]];
      float bary[3], d2 = 0;
      fl_tri_closest_on_triangle(cloth->pos[v], x0, x1, x2, bary);
      for (int c = 0; c < 3; c++) {
        float d = cloth->pos[v][c] - (bary[0] * x0[c] + bary[1] * x1[c] + bary[2] * x2[c]);
        d2 += d * d;
      }
      depth = fminf(depth, sqrtf(d2));
    }
    if (hits & 1u)
      fprintf(stderr, "    cloth vertex %u (%u, %u) at (%.4f %.4f %.4f) inside, %.4f m below the surface\n", v,
              v % cloth->nx, v / cloth->nx, p[0], p[1], p[2], (double)depth);
  }
}

static void cloth_on_bodies_body(fl_gpu *gpu)
{
  /* The 64x64; SwiftShader (the trimmed device) runs 16x16 unless FLURRY_CONTACT_FULL=1. */
  const char *full = getenv("FLURRY_CONTACT_FULL");
  const char *every = getenv("FLURRY_CONTACT_EVERY"); /* check every this many substeps (a diagnosis) */
  int res = full && strcmp(full, "1") == 0 ? 64 : fl_fixture_trim(64, 16), per_round = every ? atoi(every) : 40;
  if (per_round < 1 || per_round > 120) per_round = 40;
  int rounds = 120 / per_round;
  double spacing = 1.0 / (res - 1), thickness = 0.3 * spacing;
  char json[2048];
  snprintf(json, sizeof json, BODIES_JSON_HEAD BODIES_JSON_TAIL, res, res, thickness);
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  fl_body_build soft = {0}, balloon = {0};
  ENSURE(fl_fixture_make_world(gpu, json, &scene, &world));
  bool ok = fl_profiler_create(gpu, &prof) && fl_softbody_build(&scene.objects[1].softbody, "soft", &soft) &&
            fl_balloon_build(&scene.objects[2].balloon, "balloon", &balloon);
  const fl_body_build *builds[2] = {&soft, &balloon};
  static const char *const names[2] = {"soft body", "balloon"};
  uint32_t worst = 0;
  float closest[2] = {INFINITY, INFINITY};
  for (int round = 0; ok && round < rounds; round++) {
    ok = fl_fixture_step_frames(gpu, world, &prof, per_round, true, NULL);
    sheet cloth, body;
    ok = ok && sheet_read(world, 0, (uint32_t)res, (uint32_t)res, &cloth);
    for (uint32_t k = 0; ok && k < 2; k++) {
      ok = body_read(world, 1 + k, builds[k], &body);
      if (ok) {
        uint32_t inside = inside_count(&cloth, &body);
        uint32_t cloth_through = crossings(&cloth, &body, false), body_through = crossings(&body, &cloth, false);
        uint32_t cross = cloth_through + body_through;
        if (inside + cross) report_inside(&cloth, &body, cloth_through, body_through);
        closest[k] = fminf(min_distance(&cloth, &body), min_distance(&body, &cloth));
        fprintf(stderr, "  frame %d, %s: %u cloth vertices inside, %u edge-triangle crossings, closest %.4f m\n",
                per_round * (round + 1), names[k], inside, cross, (double)closest[k]);
        if (inside + cross > worst) worst = inside + cross;
      }
      sheet_free(&body);
    }
    sheet_free(&cloth);
  }
  fl_body_build_free(&soft);
  fl_body_build_free(&balloon);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  ENSURE_MSG(ok, "%s", fl_error_message());
  fprintf(stderr, "  %dx%d cloth, thickness %.4f m (0.3 x spacing), reach to the bodies %.4f m: closest %.4f m to the "
          "soft body, %.4f m to the balloon\n", res, res, thickness, 0.5 * (thickness + 0.01), (double)closest[0],
          (double)closest[1]);
  ENSURE(worst == 0);
  /* The cloth lies on both bodies (the test is not vacuous). */
  ENSURE(closest[0] < 0.02f && closest[1] < 0.02f);
}
FL_GPU_TEST(test_cloth_on_bodies, cloth_on_bodies_body)

static const fl_test_case cases[] = {
    {"cloth_on_bodies", test_cloth_on_bodies},
};
FL_TEST_MAIN(cases)
