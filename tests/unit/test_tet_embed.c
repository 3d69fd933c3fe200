/* tests/unit/test_tet_embed.c: barycentric embedding of points in tet meshes:
 * points inside tets get their containing tet (weights >= 0, summing to 1,
 * reproducing the point); render surfaces outside the voxel tets get the
 * nearest tet (checked against a brute-force search) and are still reproduced;
 * and 50k points into about 20k tets, timed. */
#include "test.h"

#include "core/log.h"
#include "sim/xpbd/tet_embed.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint32_t rng_state = 77;
static double urand(void) /* uniform in [0, 1) */
{
  rng_state = rng_state * 1664525u + 1013904223u;
  return (double)(rng_state >> 8) / (double)(1u << 24);
}

static double now_s(void)
{
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool sphere_tets(float radius, float spacing, fl_tet_mesh *m)
{
  const fl_solid s = {.kind = FL_SOLID_SPHERE, .center = {0.2f, 1.0f, -0.4f}, .radius = radius};
  return fl_tetrahedralize(&s, spacing, m);
}

/* |p - sum_k w_k x_k| for one embedded point. */
static double reproduction_error(const fl_tet_mesh *m, const fl_gpu_skin *s, const float p[3])
{
  double q[3] = {0, 0, 0};
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++) q[a] += (double)s->weights[k] * m->positions[s->idx[k]][a];
  double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* ---- a brute-force point-tet distance, written independently of tet_embed.c ---- */

static void sub3(const double a[3], const double b[3], double o[3])
{
  for (int i = 0; i < 3; i++) o[i] = a[i] - b[i];
}
static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double a[3], const double b[3], double o[3])
{
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

static double segment_dist(const double p[3], const double a[3], const double b[3])
{
  double ab[3], ap[3], q[3];
  sub3(b, a, ab);
  sub3(p, a, ap);
  double t = dot3(ap, ab) / dot3(ab, ab);
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  for (int i = 0; i < 3; i++) q[i] = a[i] + t * ab[i] - p[i];
  return sqrt(dot3(q, q));
}

/* Projection onto the plane when it falls inside the triangle, else the nearest edge. */
static double triangle_dist(const double p[3], const double *v[3])
{
  double e1[3], e2[3], n[3], d[3];
  sub3(v[1], v[0], e1);
  sub3(v[2], v[0], e2);
  cross3(e1, e2, n);
  sub3(p, v[0], d);
  double h = dot3(d, n) / dot3(n, n);
  double q[3] = {p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2]};
  bool in = true;
  for (int k = 0; k < 3; k++) {
    double e[3], w[3], c[3];
    sub3(v[(k + 1) % 3], v[k], e);
    sub3(q, v[k], w);
    cross3(e, w, c);
    in = in && dot3(c, n) >= 0;
  }
  if (in) return fabs(h) * sqrt(dot3(n, n));
  double best = INFINITY;
  for (int k = 0; k < 3; k++) best = fmin(best, segment_dist(p, v[k], v[(k + 1) % 3]));
  return best;
}

static double tet_dist(const fl_tet_mesh *m, uint32_t t, const float pf[3])
{
  double x[4][3], p[3] = {pf[0], pf[1], pf[2]};
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++) x[k][a] = m->positions[m->tets[t][k]][a];
  static const int F[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
  bool inside = true;
  double best = INFINITY;
  for (int f = 0; f < 4; f++) {
    const double *v[3] = {x[F[f][0]], x[F[f][1]], x[F[f][2]]};
    double e1[3], e2[3], n[3], d[3];
    sub3(v[1], v[0], e1);
    sub3(v[2], v[0], e2);
    cross3(e1, e2, n); /* outward */
    sub3(p, v[0], d);
    inside = inside && dot3(d, n) <= 0;
    best = fmin(best, triangle_dist(p, v));
  }
  return inside ? 0 : best;
}

/* ---- tests ---- */

static void test_points_inside(void)
{
  fl_tet_mesh m;
  ENSURE_MSG(sphere_tets(1.0f, 0.2f, &m), "%s", fl_error_message());
  enum { N = 5000 };
  float(*p)[4] = malloc(N * sizeof *p);
  uint32_t *home = malloc(N * sizeof *home);
  fl_gpu_skin *skin = malloc(N * sizeof *skin);
  ENSURE(p && home && skin);
  for (uint32_t i = 0; i < N; i++) { /* a random point of a random tet, strictly inside */
    uint32_t t = (uint32_t)(urand() * m.tet_count);
    double w[4], sum = 0;
    for (int k = 0; k < 4; k++) sum += w[k] = 0.02 + urand();
    for (int a = 0; a < 3; a++) {
      double x = 0;
      for (int k = 0; k < 4; k++) x += w[k] / sum * m.positions[m.tets[t][k]][a];
      p[i][a] = (float)x;
    }
    p[i][3] = 1;
    home[i] = t;
  }
  ENSURE_MSG(fl_tet_embed(&m, (const float(*)[4])p, N, skin), "%s", fl_error_message());
  for (uint32_t i = 0; i < N; i++) {
    double sum = 0;
    for (int k = 0; k < 4; k++) {
      ENSURE_MSG(skin[i].weights[k] >= -1e-5f, "point %u: weight %g", i, (double)skin[i].weights[k]);
      ENSURE(skin[i].idx[k] < m.vertex_count);
      sum += skin[i].weights[k];
    }
    ENSURE_NEAR(sum, 1.0, 1e-5);
    ENSURE_MSG(reproduction_error(&m, &skin[i], p[i]) < 1e-5, "point %u", i);
    /* Its own tet, or one sharing the point (never when strictly inside, up to rounding). */
    uint32_t same = 0;
    for (int k = 0; k < 4; k++)
      for (int q = 0; q < 4; q++) same += skin[i].idx[k] == m.tets[home[i]][q];
    ENSURE_MSG(same == 4, "point %u embedded in another tet", i);
  }
  free(p);
  free(home);
  free(skin);
  fl_tet_mesh_free(&m);
}

/* A sphere's render surface around its voxel tets: reproduced, in the nearest tet. */
static void test_surface_nearest(void)
{
  const fl_solid s = {.kind = FL_SOLID_SPHERE, .center = {0.2f, 1.0f, -0.4f}, .radius = 1.0f};
  fl_tet_mesh m;
  fl_cpu_mesh surf;
  ENSURE_MSG(fl_tetrahedralize(&s, 2.0f / 6.0f, &m), "%s", fl_error_message());
  ENSURE(fl_solid_surface(&s, 24, &surf));
  fl_gpu_skin *skin = malloc(surf.vertex_count * sizeof *skin);
  ENSURE(skin);
  ENSURE_MSG(fl_tet_embed(&m, (const float(*)[4])surf.positions, surf.vertex_count, skin), "%s",
             fl_error_message());
  uint32_t outside = 0;
  for (uint32_t i = 0; i < surf.vertex_count; i++) {
    const float *p = surf.positions[i];
    ENSURE_MSG(reproduction_error(&m, &skin[i], p) < 1e-4, "vertex %u", i);
    double best = INFINITY, chosen = -1;
    for (uint32_t t = 0; t < m.tet_count; t++) {
      double d = tet_dist(&m, t, p);
      best = fmin(best, d);
      bool match = true;
      for (int k = 0; k < 4; k++) match = match && m.tets[t][k] == skin[i].idx[k];
      if (match) chosen = d;
    }
    ENSURE_MSG(chosen >= 0, "vertex %u: its tet is not a tet of the mesh", i);
    ENSURE_MSG(chosen <= best + 1e-6, "vertex %u: chosen tet at %g, nearest at %g", i, chosen, best);
    outside += best > 0;
  }
  ENSURE(outside > surf.vertex_count / 4); /* the case exercises the outward search */
  free(skin);
  fl_cpu_mesh_free(&surf);
  fl_tet_mesh_free(&m);
}

/* Points far outside the mesh and exactly on vertices still embed and reproduce. */
static void test_far_points(void)
{
  fl_tet_mesh m;
  ENSURE(sphere_tets(0.5f, 0.25f, &m));
  float p[6][4] = {{5, 1, -0.4f, 1}, {0.2f, -7, -0.4f, 1}, {-3, 4, 2, 1}};
  for (int k = 0; k < 3; k++) memcpy(p[3 + k], m.positions[m.tets[k][k]], sizeof m.positions[0]), p[3 + k][3] = 1;
  fl_gpu_skin skin[6];
  ENSURE(fl_tet_embed(&m, (const float(*)[4])p, 6, skin));
  for (int i = 0; i < 6; i++) {
    ENSURE_MSG(reproduction_error(&m, &skin[i], p[i]) < 1e-4, "point %d", i);
    double best = INFINITY, chosen = INFINITY;
    for (uint32_t t = 0; t < m.tet_count; t++) {
      double d = tet_dist(&m, t, p[i]);
      best = fmin(best, d);
      if (!memcmp(m.tets[t], skin[i].idx, sizeof m.tets[t])) chosen = d;
    }
    ENSURE_MSG(chosen <= best + 1e-6, "point %d: chosen %g, nearest %g", i, chosen, best);
  }
  fl_tet_mesh empty = {0};
  fl_error_clear();
  ENSURE(!fl_tet_embed(&empty, (const float(*)[4])p, 1, skin));
  ENSURE(strstr(fl_error_message(), "no tets"));
  fl_error_clear();
  fl_tet_mesh_free(&m);
}

/* 50k points (a fine render surface and random points in and around the ball) into about 20k tets. */
static void test_timing(void)
{
  const fl_solid s = {.kind = FL_SOLID_SPHERE, .center = {0.2f, 1.0f, -0.4f}, .radius = 1.0f};
  fl_tet_mesh m;
  fl_cpu_mesh surf;
  ENSURE(fl_tetrahedralize(&s, 0.108f, &m));
  ENSURE(fl_mesh_icosphere(s.center, 1.0f, 6, &surf));
  enum { N = 50000 };
  float(*p)[4] = malloc(N * sizeof *p);
  fl_gpu_skin *skin = malloc(N * sizeof *skin);
  ENSURE(p && skin && surf.vertex_count < N);
  memcpy(p, surf.positions, surf.vertex_count * sizeof *p);
  for (uint32_t i = surf.vertex_count; i < N; i++) {
    for (int a = 0; a < 3; a++) p[i][a] = s.center[a] + (float)(2.4 * urand() - 1.2);
    p[i][3] = 1;
  }
  double t0 = now_s();
  clock_t c0 = clock();
  ENSURE(fl_tet_embed(&m, (const float(*)[4])p, N, skin));
  double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC, dt = now_s() - t0;
  printf("  embedding %u points (%u surface vertices) into %u tets: %.1f ms (%.1f ms of CPU)\n", N,
         surf.vertex_count, m.tet_count, 1e3 * dt, 1e3 * cpu);
  fflush(stdout);
  ENSURE(m.tet_count > 15000 && m.tet_count < 25000);
  double worst = 0;
  for (uint32_t i = 0; i < surf.vertex_count; i++) worst = fmax(worst, reproduction_error(&m, &skin[i], p[i]));
  ENSURE_MSG(worst < 1e-4, "surface reproduced to %g", worst);
  /* CPU time, so a loaded machine does not fail it; an unoptimized sanitizer build is about 8 times slower. */
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
  const double limit = 1.0;
#else
  const double limit = 5.0;
#endif
  ENSURE_MSG(cpu < limit, "embedding took %.3f s of CPU", cpu);
  free(p);
  free(skin);
  fl_cpu_mesh_free(&surf);
  fl_tet_mesh_free(&m);
}

static const fl_test_case TESTS[] = {
    {"points_inside", test_points_inside},
    {"surface_nearest", test_surface_nearest},
    {"far_points", test_far_points},
    {"timing", test_timing},
};
FL_TEST_MAIN(TESTS)
