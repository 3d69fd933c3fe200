/* tests/gpu/test_coupling_catch.c: snow caught by closed surfaces, the coupling's surface samples
 * (issue 18, docs/COUPLING.md "Surface samples", "Balloons"); split from test_coupling.c, whose
 * cases together passed CTest's 600 s under ASan on a loaded machine:
 *   jelly_catch      a snowball dropped on a coarse soft-body sphere (resolution 6, its particles 1.3
 *                    grid cells apart): after 45 frames no snow particle is inside the body's closed
 *                    surface deeper than one grid cell (winding number against its surface triangles,
 *                    then the distance to the nearest); the vertex-only scheme before the surface
 *                    samples let the snow in (docs/COUPLING.md)
 *   balloon_catch    a snowball dropped on a coarse balloon (subdivisions 2, then 1, then a firm one
 *                    of subdivisions 2 that keeps its volume), checked every frame for 90 frames: no snow
 *                    particle inside its membrane (winding number against its read-back triangles; the
 *                    crushed subdivision-2 one: none after frame 45 deeper than a quarter cell); none
 *                    above the snow's top at the drop, and the snow's kinetic energy
 *                    after the landing below what its fall gave it (no spray); the balloons' vertices
 *                    alone (the scheme before their surface samples) let about 100 of 280 in
 *                    (docs/COUPLING.md) */
#include "gpu_fixture.h"
#include "world_fixture.h"
#include "sim/coupling/coupling.h"
#include "coupling_fixture.h"

#include <math.h>
#include <stdlib.h>

static double len3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The closest point of triangle abc to p (Ericson, Real-Time Collision Detection, 5.1.5): its distance. */
static double triangle_distance(const double p[3], const double a[3], const double b[3], const double c[3])
{
  double ab[3], ac[3], ap[3], q[3];
  for (int k = 0; k < 3; k++) {
    ab[k] = b[k] - a[k];
    ac[k] = c[k] - a[k];
    ap[k] = p[k] - a[k];
  }
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
  double d1 = DOT(ab, ap), d2 = DOT(ac, ap), v = 0, w = 0;
  double bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]}, cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
  double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
#undef DOT
  if (d1 <= 0 && d2 <= 0) v = w = 0;                                   /* vertex a */
  else if (d3 >= 0 && d4 <= d3) v = 1, w = 0;                          /* vertex b */
  else if (d6 >= 0 && d5 <= d6) v = 0, w = 1;                          /* vertex c */
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) v = d1 / (d1 - d3), w = 0;   /* edge ab */
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) v = 0, w = d2 / (d2 - d6);   /* edge ac */
  else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {                  /* edge bc */
    w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    v = 1 - w;
  } else {
    double den = 1 / (va + vb + vc);
    v = vb * den;
    w = vc * den;
  }
  for (int k = 0; k < 3; k++) q[k] = a[k] + v * ab[k] + w * ac[k] - p[k];
  return len3(q);
}

/* The winding number of the closed mesh (tri: n triangles of x) around p: the sum of the
 * triangles' signed solid angles (Van Oosterom and Strackee 1983) over 4 pi; about +-1 inside, 0 outside. */
static double winding_number(const float (*x)[4], const uint32_t *tri, uint32_t n, const double p[3])
{
  double sum = 0;
  for (uint32_t t = 0; t < n; t++) {
    double r[3][3], l[3];
    for (int j = 0; j < 3; j++) {
      for (int k = 0; k < 3; k++) r[j][k] = x[tri[3 * t + j]][k] - p[k];
      l[j] = len3(r[j]);
    }
    double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                 r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
    double d01 = r[0][0] * r[1][0] + r[0][1] * r[1][1] + r[0][2] * r[1][2];
    double d12 = r[1][0] * r[2][0] + r[1][1] * r[2][1] + r[1][2] * r[2][2];
    double d20 = r[2][0] * r[0][0] + r[2][1] * r[0][1] + r[2][2] * r[0][2];
    sum += 2 * atan2(det, l[0] * l[1] * l[2] + d01 * l[2] + d12 * l[0] + d20 * l[1]);
  }
  return sum / (4 * 3.14159265358979323846);
}

/* The distance from p to the nearest of the mesh's n triangles (tri, of x). */
static double mesh_distance(const float (*x)[4], const uint32_t *tri, uint32_t n, const double p[3])
{
  double depth = 1e30;
  for (uint32_t t = 0; t < n; t++) {
    double v[3][3];
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) v[j][k] = x[tri[3 * t + j]][k];
    depth = fmin(depth, triangle_distance(p, v[0], v[1], v[2]));
  }
  return depth;
}

#define JELLY_SCENE                                                                                               \
  "{\"sim\": {\"dt\": 0.0166666667, \"substeps\": 6, \"gravity\": [0, -9.81, 0], \"domain\": {\"min\":"          \
  " [-0.5, 0, -0.5], \"max\": [0.5, 1.0, 0.5]}}, \"objects\": ["                                                   \
  "{\"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0,"      \
  " \"friction\": 0.6},"                                                                                          \
  "{\"type\": \"softbody\", \"name\": \"jelly\", \"shape\": \"sphere\", \"center\": [0, 0.201, 0], \"radius\": 0.2,"   \
  " \"resolution\": 6, \"density\": 1000, \"edge_compliance\": 1e-3, \"volume_compliance\": 0, \"damping\": 0.5},"  \
  "{\"type\": \"snow\", \"name\": \"snow\", \"shape\": \"sphere\", \"center\": [0.03, 0.56, 0], \"radius\": 0.1,"   \
  " \"grid_spacing\": 0.05, \"particles_per_cell\": 4, \"E0\": 1e4, \"xi\": 3, \"friction\": 0.6,"               \
  " \"velocity\": [0, -1, 0]}]}"

static void jelly_catch_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  fl_coupling *c = fl_fixture_coupled_world(gpu, JELLY_SCENE, &scene, &world, &prof);
  ENSURE(c);
  const fl_xpbd_build *b = &c->xpbd->build;
  float cell = c->snow->build.h;
  uint32_t first = b->objects[0].first, nt = c->xpbd->object_triangles[0], *tri = malloc((size_t)nt * 12 + 12);
  ENSURE(tri);
  for (uint32_t k = 0; k < 3 * nt; k++) tri[k] = b->triangles[3 * c->xpbd->object_first_triangle[0] + k] - first;
  int frames = fl_fixture_trim(45, 20); /* SwiftShader: the landing (about frame 12) */
  float(*snow)[4] = NULL, (*sv)[4] = NULL, (*body)[4] = NULL, (*bv)[4] = NULL;
  uint32_t ns = 0, nb = 0, inside = 0, deep = 0;
  ENSURE(fl_fixture_step_frames(gpu, world, &prof, frames, true, NULL));
  ENSURE(fl_world_read_state(world, 0, &body, &bv, &nb) && fl_world_read_state(world, 1, &snow, &sv, &ns));
  double deepest = 0, top = -1e30, low = 1e30, snow_low = 1e30;
  for (uint32_t i = 0; i < nb; i++) {
    top = fmax(top, body[i][1]);
    low = fmin(low, body[i][1]);
  }
  for (uint32_t i = 0; i < ns; i++) {
    double p[3] = {snow[i][0], snow[i][1], snow[i][2]};
    snow_low = fmin(snow_low, p[1]);
    if (fabs(winding_number((const float(*)[4])body, tri, nt, p)) < 0.5) continue;
    inside++;
    double depth = mesh_distance((const float(*)[4])body, tri, nt, p);
    deepest = fmax(deepest, depth);
    deep += depth > cell;
  }
  fl_object_stats st[2];
  ENSURE(fl_world_stats(world, 0, &st[0]) && fl_world_stats(world, 1, &st[1]));
  printf("  %d frames, %u surface samples: the jelly between y %.3f and %.3f m; the snow's lowest particle %.3f m; "
         "%u of %u snow particles inside its surface, %u deeper than a cell (%.3f m), the deepest %.3f m\n",
         frames, c->sample_count, low, top, snow_low, inside, ns, deep, cell, deepest);
  ENSURE(st[0].nan_count == 0 && st[1].nan_count == 0 && !st[0].unstable && !st[1].unstable);
  ENSURE_MSG(deep == 0, "%u snow particles ended inside the soft body deeper than a cell (deepest %.3f m)", deep,
             deepest);
  ENSURE_MSG(snow_low > 0.2, "the snow fell past the jelly (lowest %.3f m)", snow_low);
  free(tri);
  free(snow);
  free(sv);
  free(body);
  free(bv);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
}
FL_GPU_TEST(test_jelly_catch, jelly_catch_body)

#define BALLOON_SCENE(subdivisions, extra)                                                                        \
  "{\"sim\": {\"dt\": 0.0166666667, \"substeps\": 8, \"iterations\": 2, \"gravity\": [0, -9.81, 0], \"domain\":"   \
  " {\"min\": [-0.4, 0, -0.4], \"max\": [0.4, 1.0, 0.4]}}, \"objects\": ["                                         \
  "{\"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0,"      \
  " \"friction\": 0.8},"                                                                                          \
  "{\"type\": \"balloon\", \"name\": \"balloon\", \"center\": [0, 0.2, 0], \"radius\": 0.2, \"subdivisions\": "     \
  subdivisions ", \"pressure\": 1.2, \"pressure_compliance\": 5e-4" extra "},"                                    \
  "{\"type\": \"snow\", \"name\": \"snow\", \"shape\": \"sphere\", \"center\": [0, 0.75, 0], \"radius\": 0.1,"      \
  " \"grid_spacing\": 0.05, \"particles_per_cell\": 8, \"E0\": 1e4, \"xi\": 3, \"friction\": 0.6}]}"

/* The figures of a snowball dropped on a balloon (balloon_run). */
typedef struct {
  uint32_t snow, samples, inside_max, inside_end; /* snow particles inside the membrane: most at a check, at the end */
  int inside_frame;                               /* the first frame with snow inside, -1: none */
  double deepest;                                 /* the deepest of them under the membrane, at any check (m) */
  double rise;                                    /* the snow's highest point over its top at the drop (m) */
  double energy_ratio;      /* after the landing, the snow's most kinetic energy over what its fall had given it */
  double low, balloon_top;  /* the snow's lowest point and the balloon's top at frame `settled` (m) */
  bool healthy;             /* no NaN, no blow-up in either (the health watch) */
} balloon_figures;

/* Drops the snowball of BALLOON_SCENE on the balloon for `frames` frames (the low and top figures at
 * frame `settled`), checking every frame:
 * the snow particles inside the balloon's membrane (the winding number of its read-back triangles),
 * their rise above where they started, and the snow's kinetic energy K against K0 + g sum m (y0 - y),
 * what the fall has given it (the snow's particles are of equal mass: per unit mass). */
static bool balloon_run(fl_gpu *gpu, const char *json, int frames, int settled, balloon_figures *f)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  if (!fl_fixture_make_world(gpu, json, &scene, &world) || !fl_profiler_create(gpu, &prof)) return false;
  fl_coupling *c = fl_world_coupling(world);
  const fl_xpbd_build *b = &c->xpbd->build;
  uint32_t first = b->objects[0].first, nt = c->xpbd->object_triangles[0], *tri = malloc((size_t)nt * 12 + 12);
  bool ok = c->gpu && tri;
  for (uint32_t k = 0; ok && k < 3 * nt; k++) tri[k] = b->triangles[3 * c->xpbd->object_first_triangle[0] + k] - first;
  float(*snow)[4] = NULL, (*sv)[4] = NULL, (*body)[4] = NULL, (*bv)[4] = NULL, (*snow0)[4] = NULL;
  uint32_t ns = 0, nb = 0;
  ok = ok && fl_world_read_state(world, 1, &snow0, &sv, &ns);
  double k0 = 0, drop = -1e30; /* the snow's kinetic energy and its top at the start */
  for (uint32_t i = 0; ok && i < ns; i++) {
    k0 += 0.5 * (sv[i][0] * sv[i][0] + sv[i][1] * sv[i][1] + sv[i][2] * sv[i][2]);
    drop = fmax(drop, snow0[i][1]);
  }
  free(sv);
  sv = NULL;
  *f = (balloon_figures){.snow = ns, .samples = c->sample_count, .inside_frame = -1, .rise = -1e30};
  bool landed = false;
  for (int frame = 1; ok && frame <= frames; frame++) {
    free(snow);
    free(sv);
    free(body);
    free(bv);
    snow = sv = body = bv = NULL;
    ok = fl_fixture_step_frames(gpu, world, &prof, 1, true, NULL) && fl_world_read_state(world, 0, &body, &bv, &nb) &&
         fl_world_read_state(world, 1, &snow, &sv, &ns);
    double top = -1e30, low = 1e30, kin = 0, fall = 0;
    uint32_t inside = 0;
    for (uint32_t i = 0; ok && i < nb; i++) top = fmax(top, body[i][1]);
    for (uint32_t i = 0; ok && i < ns; i++) {
      double p[3] = {snow[i][0], snow[i][1], snow[i][2]};
      low = fmin(low, p[1]);
      f->rise = fmax(f->rise, p[1] - drop);
      kin += 0.5 * (sv[i][0] * sv[i][0] + sv[i][1] * sv[i][1] + sv[i][2] * sv[i][2]);
      fall += 9.81 * (snow0[i][1] - p[1]); /* the MPM sorts its particles: i is not the same one, the sum is */
      if (fabs(winding_number((const float(*)[4])body, tri, nt, p)) < 0.5) continue;
      inside++;
      f->deepest = fmax(f->deepest, mesh_distance((const float(*)[4])body, tri, nt, p));
    }
    landed = landed || low < top + 2 * c->snow->build.h; /* within the parcels' reach of the membrane */
    if (landed) f->energy_ratio = fmax(f->energy_ratio, kin / (k0 + fall));
    if (inside && f->inside_frame < 0) f->inside_frame = frame;
    f->inside_max = inside > f->inside_max ? inside : f->inside_max;
    f->inside_end = inside;
    if (frame == settled) {
      f->low = low;
      f->balloon_top = top;
    }
  }
  fl_object_stats st[2];
  ok = ok && fl_world_stats(world, 0, &st[0]) && fl_world_stats(world, 1, &st[1]);
  f->healthy = ok && !st[0].nan_count && !st[1].nan_count && !st[0].unstable && !st[1].unstable;
  if (ok && !f->healthy)
    printf("  the balloon: %u NaNs, health bits %#x; the snow: %u NaNs, health bits %#x\n", st[0].nan_count,
           st[0].unstable, st[1].nan_count, st[1].unstable);
  free(tri);
  free(snow);
  free(sv);
  free(snow0);
  free(body);
  free(bv);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  return ok;
}

static void balloon_catch_body(fl_gpu *gpu)
{
  /* the lead's coarse balloon, then the coarsest (its 42 vertices 2.4 cells apart), both with the default
   * bending (isometric, with its rest-curvature term since the balloon no longer spins up on its own:
   * docs/CLOTH.md "Bending on a curved rest shape") */
  static const struct {
    const char *json, *name;
    double late; /* after frame `settled`, snow may lie this deep under the membrane (m); 0: none inside */
  } runs[] = {{BALLOON_SCENE("2", ""), "subdivisions 2", 0.0125},
              {BALLOON_SCENE("1", ""), "subdivisions 1", 0},
              {BALLOON_SCENE("2", ", \"volume_conservation\": \"global\""), "subdivisions 2, firm (global)", 0}};
  /* no snow inside over the landing (about frame 13) and the settling; after frame `settled`, none in the
   * firm balloon (global: the snow slides down its round top and sides to the ground) nor the coarsest, and
   * none deeper than a quarter cell in the crushed one (the "none" pressure model loses about a third of its
   * volume: 2 particles 10.8 mm in at frame 85 in one of six runs). Before the snow's G2P took PIC near the
   * surfaces, the crushed one let 0 to 6 particles in from frame 64 to 79 (up to 26 mm) and the firm one 11
   * to 18 from frame 34 (up to 0.2 m deep): FLIP's particle velocities carried them across
   * (docs/COUPLING.md, "PIC at closed surfaces") */
  const int frames = fl_fixture_trim(90, 20), settled = fl_fixture_trim(45, 20);
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    balloon_figures f;
    ENSURE(balloon_run(gpu, runs[r].json, frames, settled, &f));
    printf("  %s, %u surface samples, %u snow particles, %d frames: inside the membrane at most %u (first at frame "
           "%d), %u at the end, the deepest %.4f m under it; the snow's top %.4f m over its top at the drop; K / (K0 "
           "+ fall) at most %.3f after the landing; at frame %d the snow's lowest point %.3f m, the balloon's top "
           "%.3f m\n",
           runs[r].name, f.samples, f.snow, frames, f.inside_max, f.inside_frame, f.inside_end, f.deepest, f.rise,
           f.energy_ratio, settled, f.low, f.balloon_top);
    ENSURE(f.samples > 0 && f.healthy);
    ENSURE_MSG(f.inside_frame < 0 || (runs[r].late > 0 && f.inside_frame > settled && f.deepest <= runs[r].late),
               "%s: snow inside the balloon's membrane at frame %d (%u at most, %.4f m deep)", runs[r].name,
               f.inside_frame, f.inside_max, f.deepest);
    ENSURE_MSG(f.rise <= 0, "%s: the snow sprayed %.4f m above its drop height", runs[r].name, f.rise);
    ENSURE_MSG(f.energy_ratio < 1, "%s: the snow's kinetic energy reached %.3f times what its fall gave it",
               runs[r].name, f.energy_ratio);
    ENSURE_MSG(f.low > 0.05, "%s: the snow fell past the balloon (lowest %.3f m at frame %d)", runs[r].name, f.low,
               settled);
  }
}
FL_GPU_TEST(test_balloon_catch, balloon_catch_body)

static const fl_test_case cases[] = {
    {"jelly_catch", test_jelly_catch},
    {"balloon_catch", test_balloon_catch},
};
FL_TEST_MAIN(cases)
