/* tests/gpu/test_cloth.c: the XPBD cloth system on the GPU (sim/xpbd/xpbd.c,
 * shaders/xpbd/) against its CPU reference (sim/xpbd/xpbd_cpu.c), and
 * physical invariants of the GPU substep (xpbd_spec.h):
 *   gpu_vs_cpu_*  the same build, colliders and (perturbed, non-flat) start
 *                 state on both; after 5-10 substeps every position agrees
 *                 within 1e-4 of the cloth size and w is bitwise equal:
 *                 colouring + isometric, colouring + dihedral, Jacobi (one
 *                 isometric and one dihedral object), wind drag + lift (one
 *                 object with wind, one without), gusts of that wind, sphere + box + moving sphere
 *                 + ground + domain walls with friction, edge damping (beside
 *                 a point-damped object), global damping (beside a point-damped
 *                 object). Each case also checks that the CPU
 *                 reference with the feature switched off ends > 10x the
 *                 tolerance away, so the feature is really exercised.
 *                 The dihedral cases start wrapped on a sphere with little
 *                 velocity noise, so that no stencil comes near flat: there the
 *                 acos form of xpbd_spec.h is ill-conditioned in float (the
 *                 1 - d^2 < 1e-8 skip only catches d == -1 exactly; one ulp off
 *                 gives C ~ 3.5e-4 rad of pure rounding and a noise gradient, so
 *                 any two float implementations disagree there; reported as a
 *                 bug), and lavapipe's acos is off by up to 1.6e-4 rad.
 *   gpu_vs_cpu_tethers the tethers (long range attachments) of a heavy, stretchy hammock, against the
 *                 reference (without them it ends far away)
 *   tethers_hold  after 240 substeps of that hammock no tether is longer than its rest distance
 *                 by 1e-4 (the projections onto its two alternate), every free particle has one to each pinned edge, and the sheet without
 *                 them stretches along them by more than 5 %
 *   global_damping a free sheet spinning with relative motion on top, no
 *                 gravity: with damping_model "global" its angular momentum stays
 *                 within 1 % over 120 substeps while the motion relative to the
 *                 rigid one decays below a tenth; point damping at the same rate
 *                 loses far more than 1 % of it
 *   xpbd_promise  a sheet hanging from its top edge settles to the same sag
 *                 (< 2%) at 10 and 40 substeps per frame, and 4x the
 *                 compliance sags ~4x as much
 *   free_fall     no colliders: y = y0 + v0 t - g t^2/2 within 1% of the fall, the
 *                 symplectic Euler form y0 + v0 t - g h^2 n(n+1)/2 within 0.1% (float
 *                 rounding), x and z uniform motion, and GPU == CPU reference
 *   no_penetration 200 frames dropped on a sphere, a box and the ground
 *                 (through fl_world): no particle deeper than the thickness
 *                 in any collider, and the cloth does rest on sphere and box
 *   pins          pinned particles are bitwise where they started after 300
 *                 substeps with wind and a collider, both solvers
 *   builtin_scenes_no_nan  cloth, curtain and drape (16x16, no self-collision)
 *                 for >= 1000 substeps through fl_world: nan_count == 0
 *   pick_and_drag a ray through a particle picks what a CPU nearest-along-ray
 *                 search picks (that particle); misses and pinned particles are
 *                 not grabbed; dragging pulls the particle to the target
 *   report_stats  fl_world_stats max/mean strain (and the closest
 *                 non-neighbour pair) equal a CPU computation from the
 *                 read-back positions, for both objects of a two-cloth world.
 * Self-collision is not tested here (the spatial hash lands later). */
#include "gpu_fixture.h"
#include "world_fixture.h"

#include <math.h>
#include <stdlib.h>

#include "flurry_shared.h"
#include "gpu/profiler.h"
#include "scene/scene.h"
#include "sim/xpbd/xpbd.h"
#include "sim/xpbd/xpbd_cpu.h"
#include "sim/common/gpu_mesh.h"
#include "sim/common/pick.h"
#include "sim/common/sdf_cpu.h"
#include "sim/world.h"

typedef float vec4f[4];

/* ---- a fixed-seed generator ---- */

static uint32_t rng_state = 0x9e3779b9u;
static float rnd(float lo, float hi) { return fl_test_rnd(&rng_state, lo, hi); }

/* A figure the XPBD material reports for a cloth (NaN when absent). */
static double figure(const fl_object_stats *s, const char *key) { return fl_fixture_stat(s, NULL, key); }

/* ---- the cloth system driven directly, beside its CPU reference ---- */

typedef struct {
  fl_gpu *gpu;
  fl_scene scene;
  fl_descriptor_cache sets;
  fl_gpu_collider colliders[FL_MAX_COLLIDERS]; /* the whole uniform block, unused records zero */
  uint32_t collider_count;
  fl_buffer collider_buf;
  fl_xpbd_system sys;
  fl_xpbd_cpu cpu;
  fl_profiler prof;
  uint32_t n;
  uint64_t gpu_steps, cpu_steps; /* substeps run on each side (their end times follow from these) */
} rig;

static void rig_destroy(rig *r)
{
  fl_xpbd_cpu_destroy(&r->cpu);
  fl_xpbd_destroy(&r->sys);
  fl_profiler_destroy(&r->prof);
  fl_buffer_destroy(r->gpu, &r->collider_buf);
  fl_descriptor_cache_destroy(&r->sets);
}

static bool rig_create(fl_gpu *gpu, const char *json, const char *const *overrides, int override_count, rig *r)
{
  memset(r, 0, sizeof *r);
  r->gpu = gpu;
  fl_error_clear();
  if (!fl_scene_parse(json, "inline.json", overrides, override_count, &r->scene)) {
    fprintf(stderr, "  scene: %s\n", fl_error_message());
    return false;
  }
  fl_cloth_desc descs[FL_SCENE_MAX_OBJECTS];
  char names[FL_SCENE_MAX_OBJECTS][FL_SCENE_NAME_MAX];
  uint32_t count = 0;
  for (uint32_t i = 0; i < r->scene.object_count; i++) {
    const fl_scene_object *o = &r->scene.objects[i];
    if (o->type == FL_OBJECT_COLLIDER) fl_collider_pack(&o->collider, &r->colliders[r->collider_count++]);
    if (o->type == FL_OBJECT_CLOTH) {
      descs[count] = o->cloth;
      memcpy(names[count], o->name, FL_SCENE_NAME_MAX);
      count++;
    }
  }
  gpu->collider_features = fl_collider_features(r->colliders, r->collider_count); /* as the world sets it */
  bool ok = fl_descriptor_cache_create(gpu, "test", &r->sets) && fl_profiler_create(gpu, &r->prof) &&
            fl_buffer_create(gpu, sizeof r->colliders, FL_MEMORY_DEVICE, "test colliders", &r->collider_buf) &&
            fl_buffer_upload(gpu, &r->collider_buf, 0, r->colliders, sizeof r->colliders) &&
            fl_xpbd_create(gpu, descs, (const char(*)[FL_SCENE_NAME_MAX])names, count, NULL, 0, &r->sys) &&
            fl_xpbd_cpu_create(&r->sys.build, &r->cpu);
  /* Timestamps cost a flush each on lavapipe, and hundreds of substeps go into one
   * command buffer here: scopes only label the passes. */
  r->prof.enabled = false;
  if (ok) r->n = r->sys.build.particle_count;
  else fprintf(stderr, "  rig: %s\n", fl_error_message());
  return ok;
}

static float rig_h(const rig *r) { return r->scene.sim.dt / (float)r->scene.sim.substeps; }

/* The end time of substep k (0-based), as fl_world computes it. */
static float rig_time(const rig *r, uint64_t k) { return (float)((double)rig_h(r) * (double)(k + 1)); }

/* Records `steps` GPU substeps (in command buffers of at most 240), the picker's drag in each. */
static bool rig_gpu(rig *r, int steps, const fl_picker *picker)
{
  while (steps > 0) {
    int chunk = steps < 240 ? steps : 240;
    fl_rec rec;
    if (!fl_rec_begin_once(r->gpu, &r->sets, &rec)) return false;
    rec.prof = &r->prof;
    fl_profiler_reset(&r->prof, 0, FL_QUEUE_COMPUTE, rec.cmd);
    for (int s = 0; s < chunk; s++, r->gpu_steps++) {
      fl_step step = {.sim = &r->scene.sim, .colliders = &r->collider_buf, .collider_count = r->collider_count,
                      .h = rig_h(r), .inv_h = 1.0f / rig_h(r), .t = rig_time(r, r->gpu_steps), .picker = picker};
      fl_xpbd_record_substep(&r->sys, &rec, &step);
    }
    if (!fl_rec_end_once(&rec)) return false;
    fl_profiler_collect(&r->prof, 0);
    steps -= chunk;
  }
  return true;
}

static void rig_cpu(rig *r, int steps)
{
  for (int s = 0; s < steps; s++, r->cpu_steps++)
    fl_xpbd_cpu_substep(&r->cpu, &r->scene.sim, r->colliders, r->collider_count, rig_h(r),
                         rig_time(r, r->cpu_steps));
}

static bool rig_read(rig *r, vec4f *pos, vec4f *vel)
{
  VkDeviceSize bytes = (VkDeviceSize)r->n * 16;
  return fl_buffer_readback(r->gpu, &r->sys.pos, 0, pos, bytes) &&
         (!vel || fl_buffer_readback(r->gpu, &r->sys.vel, 0, vel, bytes));
}

/* Sets the same positions and velocities on both sides. */
static bool rig_set(rig *r, vec4f *pos, vec4f *vel)
{
  VkDeviceSize bytes = (VkDeviceSize)r->n * 16;
  memcpy(r->cpu.x, pos, bytes);
  memcpy(r->cpu.v, vel, bytes);
  return fl_buffer_upload(r->gpu, &r->sys.pos, 0, pos, bytes) && fl_buffer_upload(r->gpu, &r->sys.vel, 0, vel, bytes);
}

/* The largest side of any cloth object: the scale of the position tolerances. */
static float rig_size(const rig *r)
{
  float s = 0;
  for (uint32_t i = 0; i < r->scene.object_count; i++)
    if (r->scene.objects[i].type == FL_OBJECT_CLOTH)
      s = fmaxf(s, fmaxf(r->scene.objects[i].cloth.size[0], r->scene.objects[i].cloth.size[1]));
  return s;
}

/* ---- GPU against the CPU reference ---- */

typedef struct {
  const char *json;
  int steps;
  float bump;      /* amplitude (m) of a smooth fold added to the rest shape, along the sheet's normal */
  float cap;       /* > 0: the sheet is also bent onto a sphere of this radius (m) around its centre */
  float jitter;    /* uniform random +- per component (m) added to every particle */
  float v0[3];     /* initial velocity of every free particle ... */
  float vjitter;   /* ... plus uniform random +- per component */
  /* Overrides that switch the feature under test off: the CPU reference run with
   * them must end far (> 1e-3 of the size, 10x the tolerance) from the one without,
   * or the comparison would not be testing that feature. */
  const char *without[2];
  float floor; /* > 0: no particle may end below this height (m), on the GPU or the CPU */
} compare_case;

/* A deterministic non-flat, moving start state: the rest shape wrapped onto a
 * sphere, folded and jittered (pinned particles too: they stay wherever they are
 * put), with velocities on the free particles. */
static void perturbed_state(const rig *r, const compare_case *cc, vec4f *pos, vec4f *vel)
{
  const fl_xpbd_build *b = &r->sys.build;
  rng_state = 0x2545f491u;
  memcpy(pos, b->positions, (size_t)r->n * 16);
  memset(vel, 0, (size_t)r->n * 16);
  for (uint32_t p = 0; p < r->n; p++) {
    const fl_gpu_xpbd_object *o = &b->objects[b->particle_object[p]];
    uint32_t local = p - o->first, nx = o->nx, ny = o->ny;
    float u = (float)(local % nx) / (float)(nx - 1), v = (float)(local / nx) / (float)(ny - 1);
    const float *c0 = b->positions[o->first], *c1 = b->positions[o->first + o->count - 1];
    /* Normal axis: y for "xz" sheets, z for "xy" ones (their rest z is constant). */
    int axis = c0[2] == c1[2] ? 2 : 1;
    if (cc->cap > 0) { /* lengths kept along the radii: every edge bent by ~ spacing / cap */
      float rel[3], rho = 0;
      for (int a = 0; a < 3; a++) {
        rel[a] = a == axis ? 0.0f : b->positions[p][a] - 0.5f * (c0[a] + c1[a]);
        rho += rel[a] * rel[a];
      }
      rho = sqrtf(rho);
      float phi = rho / cc->cap, shrink = rho > 0 ? cc->cap * sinf(phi) / rho : 1.0f;
      for (int a = 0; a < 3; a++) pos[p][a] += a == axis ? cc->cap * (1.0f - cosf(phi)) : rel[a] * (shrink - 1.0f);
    }
    pos[p][axis] += cc->bump * sinf(3.0f * u + 1.0f) * cosf(2.5f * v - 0.5f);
    for (int a = 0; a < 3; a++) {
      pos[p][a] += rnd(-cc->jitter, cc->jitter);
      float dv = cc->v0[a] + rnd(-cc->vjitter, cc->vjitter);
      vel[p][a] = pos[p][3] == 0.0f ? 0.0f : dv;
    }
  }
}

/* Max |gpu - cpu| over xyz, divided by `scale`; w must be bitwise equal. Reports the worst. */
static double max_rel_diff(const vec4f *g, const vec4f *c, uint32_t n, double scale, const char *what, bool *w_same)
{
  double worst = 0;
  uint32_t at = 0;
  *w_same = true;
  for (uint32_t i = 0; i < n; i++) {
    for (int a = 0; a < 3; a++) {
      double d = fabs((double)g[i][a] - (double)c[i][a]);
      if (!(d <= worst)) {
        worst = d;
        at = i;
      }
    }
    if (memcmp(&g[i][3], &c[i][3], sizeof(float)) != 0) *w_same = false;
  }
  fprintf(stderr, "  %s: max |gpu - cpu| = %.3g of the cloth size (particle %u: gpu %.7g %.7g %.7g, cpu %.7g %.7g %.7g)\n",
          what, worst / scale, at, g[at][0], g[at][1], g[at][2], c[at][0], c[at][1], c[at][2]);
  return isnan(worst) ? INFINITY : worst / scale;
}

/* The CPU reference alone on the scene with `overrides`, from the start state pos/vel. */
static bool cpu_only(const compare_case *cc, const vec4f *pos, const vec4f *vel, uint32_t n, vec4f *out)
{
  int count = cc->without[1] ? 2 : 1;
  fl_scene scene;
  if (!fl_scene_parse(cc->json, "inline.json", cc->without, count, &scene)) return false;
  fl_cloth_desc descs[FL_SCENE_MAX_OBJECTS];
  char names[FL_SCENE_MAX_OBJECTS][FL_SCENE_NAME_MAX];
  fl_gpu_collider colliders[FL_MAX_COLLIDERS];
  uint32_t nd = 0, nc = 0;
  for (uint32_t i = 0; i < scene.object_count; i++) {
    if (scene.objects[i].type == FL_OBJECT_COLLIDER) fl_collider_pack(&scene.objects[i].collider, &colliders[nc++]);
    if (scene.objects[i].type != FL_OBJECT_CLOTH) continue;
    descs[nd] = scene.objects[i].cloth;
    memcpy(names[nd++], scene.objects[i].name, FL_SCENE_NAME_MAX);
  }
  fl_xpbd_build b;
  if (!fl_cloth_build_create(descs, (const char(*)[FL_SCENE_NAME_MAX])names, nd, &b)) return false;
  fl_xpbd_cpu c;
  bool ok = b.particle_count == n && fl_xpbd_cpu_create(&b, &c);
  if (ok) {
    memcpy(c.x, pos, (size_t)n * 16);
    memcpy(c.v, vel, (size_t)n * 16);
    float h = scene.sim.dt / (float)scene.sim.substeps;
    for (int s = 0; s < cc->steps; s++)
      fl_xpbd_cpu_substep(&c, &scene.sim, colliders, nc, h, (float)((double)h * (double)(s + 1)));
    memcpy(out, c.x, (size_t)n * 16);
    fl_xpbd_cpu_destroy(&c);
  }
  fl_xpbd_build_destroy(&b);
  return ok;
}

static void compare(fl_gpu *gpu, const compare_case *cc, const char *what)
{
  rig r;
  bool ok = rig_create(gpu, cc->json, NULL, 0, &r);
  vec4f *pos = calloc(r.n ? r.n : 1, 16), *vel = calloc(r.n ? r.n : 1, 16), *gp = calloc(r.n ? r.n : 1, 16),
        *off = calloc(r.n ? r.n : 1, 16);
  ok = ok && pos && vel && gp && off;
  if (ok) {
    perturbed_state(&r, cc, pos, vel);
    ok = cpu_only(cc, (const vec4f *)pos, (const vec4f *)vel, r.n, off) && rig_set(&r, pos, vel) &&
         rig_gpu(&r, cc->steps, NULL) && rig_read(&r, gp, NULL);
    rig_cpu(&r, cc->steps);
  }
  double diff = INFINITY, effect = 0, scale = rig_size(&r), lowest = INFINITY;
  bool w_same = false;
  if (ok) {
    diff = max_rel_diff((const vec4f *)gp, (const vec4f *)r.cpu.x, r.n, scale, what, &w_same);
    for (uint32_t i = 0; i < r.n; i++) lowest = fmin(lowest, fmin((double)gp[i][1], (double)r.cpu.x[i][1]));
    for (uint32_t i = 0; i < r.n; i++)
      for (int a = 0; a < 3; a++) effect = fmax(effect, fabs((double)r.cpu.x[i][a] - off[i][a]) / scale);
    fprintf(stderr, "  with %s%s%s instead: %.3g of the size away\n", cc->without[0], cc->without[1] ? ", " : "",
            cc->without[1] ? cc->without[1] : "", effect);
  }
  free(pos);
  free(vel);
  free(gp);
  free(off);
  rig_destroy(&r);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE(effect > 1e-3); /* the feature under test matters to this state */
  ENSURE(w_same);
  ENSURE_MSG(diff <= 1e-4, "%s: %.3g", what, diff);
  if (cc->floor > 0) fprintf(stderr, "  lowest particle %.7f m (the floor %.7f m)\n", lowest, (double)cc->floor);
  ENSURE_MSG(!(cc->floor > 0) || lowest >= cc->floor - 1e-6, "%s: a particle at %.7f m", what, lowest);
}

#define SIM(extra)                                                                                      \
  "\"sim\": { \"dt\": 0.0166666667, \"substeps\": 4, \"gravity\": [0, -9.81, 0],"                       \
  " \"domain\": { \"min\": [-5, -5, -5], \"max\": [5, 5, 5] }" extra " }"

static void colouring_isometric_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [12, 10], \"size\": [1, 0.8],\n"
              "    \"mass\": 0.5, \"pin\": [\"top-left\", \"top-right\"], \"stretch_compliance\": 1e-5,\n"
              "    \"shear_compliance\": 1e-5, \"bend_compliance\": 1e-3, \"bending\": \"isometric\",\n"
              "    \"damping\": 0.5 } ] }",
      .steps = 5, .bump = 0.1f, .jitter = 0.015f, .v0 = {0, -0.5f, 0}, .vjitter = 0.3f,
      .without = {"objects.a.bending=none"}};
  compare(gpu, &cc, "colouring, isometric");
}
FL_GPU_TEST(test_gpu_vs_cpu_colouring_isometric, colouring_isometric_body)

static void colouring_dihedral_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [11, 12], \"size\": [0.9, 1],\n"
              "    \"plane\": \"xy\", \"mass\": 0.5, \"pin\": [\"top\"], \"stretch_compliance\": 1e-5,\n"
              "    \"bend_compliance\": 1, \"bending\": \"dihedral\" } ] }",
      .steps = 5, .cap = 1.0f, .v0 = {0, 0, 0.3f}, .vjitter = 0.05f,
      .without = {"objects.a.bending=none"}};
  compare(gpu, &cc, "colouring, dihedral");
}
FL_GPU_TEST(test_gpu_vs_cpu_colouring_dihedral, colouring_dihedral_body)

static void jacobi_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 3, \"solver\": \"jacobi\", \"relaxation\": 1.5") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [10, 10], \"mass\": 0.5,\n"
              "    \"pin\": [\"corner:0,0\"], \"stretch_compliance\": 1e-5, \"bending\": \"isometric\" },\n"
              "  { \"type\": \"cloth\", \"name\": \"b\", \"resolution\": [9, 11], \"size\": [0.8, 1],\n"
              "    \"plane\": \"xy\", \"center\": [0, 1, 1], \"mass\": 0.3, \"pin\": [\"top\"],\n"
              "    \"bend_compliance\": 10, \"bending\": \"dihedral\" } ] }",
      .steps = 5, .cap = 1.0f, .v0 = {0.2f, -0.3f, 0}, .vjitter = 0.05f,
      .without = {"sim.solver=coloring"}};
  compare(gpu, &cc, "jacobi, isometric + dihedral");
}
FL_GPU_TEST(test_gpu_vs_cpu_jacobi, jacobi_body)

/* Triangle contacts (docs/CLOTH.md): two sheets 2 cm apart, folded by the
 * perturbation so that vertex-triangle and edge-edge pairs come within reach
 * (3 cm), one of them self-colliding through its own fold. */
static void triangles_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [10, 10], \"mass\": 0.5,\n"
              "    \"thickness\": 0.03, \"self_collision\": \"triangles\" },\n"
              "  { \"type\": \"cloth\", \"name\": \"b\", \"resolution\": [9, 11], \"size\": [0.9, 1.1],\n"
              "    \"center\": [0.03, 1.02, 0.04], \"mass\": 0.3, \"thickness\": 0.03,\n"
              "    \"self_collision\": \"triangles\" } ] }",
      .steps = 4, .bump = 0.03f, .v0 = {0, -0.3f, 0}, .vjitter = 0.3f,
      .without = {"objects.a.self_collision=particles", "objects.b.self_collision=particles"}};
  compare(gpu, &cc, "triangle contacts");
}
FL_GPU_TEST(test_gpu_vs_cpu_triangles, triangles_body)

/* The colliders' priority (docs/CLOTH.md "The colliders have priority"): a sheet
 * on the ground hit by another falling at 3 m/s; the averaged triangle contacts
 * would press the lower one into the ground, xpbd/tri_apply_colliders holds
 * every particle at its radius (0.015 m) or above, on the GPU and the CPU. */
static void triangles_ground_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 4, \"iterations\": 2, \"gravity\": [0, -9.81, 0],"
              " \"domain\": { \"min\": [-5, -5, -5], \"max\": [5, 5, 5] } }, \"objects\": [\n"
              "  { \"type\": \"collider\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0,\n"
              "    \"friction\": 0.5 },\n"
              "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [8, 8], \"size\": [0.8, 0.8],\n"
              "    \"center\": [0, 0.016, 0], \"mass\": 0.2, \"thickness\": 0.03,\n"
              "    \"self_collision\": \"triangles\" },\n"
              "  { \"type\": \"cloth\", \"name\": \"b\", \"resolution\": [7, 9], \"size\": [0.6, 0.7],\n"
              "    \"center\": [0.03, 0.06, 0.04], \"mass\": 0.6, \"thickness\": 0.03,\n"
              "    \"self_collision\": \"triangles\" } ] }",
      .steps = 4, .bump = 0.0f, .jitter = 0.0005f, .v0 = {0, -3.0f, 0}, .vjitter = 0.3f,
      .without = {"objects.a.self_collision=particles", "objects.b.self_collision=particles"}, .floor = 0.015f};
  compare(gpu, &cc, "triangle contacts on the ground");
}
FL_GPU_TEST(test_gpu_vs_cpu_triangles_ground, triangles_ground_body)

/* The contact guard (docs/CLOTH.md "The contact guard"): the same two sheets
 * with velocities scattered by 8 m/s (33 mm a substep against approaches of
 * 9 mm allowed for pairs 2 cm apart at a substep's start, and 27 mm in all),
 * so that the clamp binds; with sim.contact_guard false the discrete contacts alone. */
static void contact_guard_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2, \"contact_guard\": true") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [10, 10], \"mass\": 0.5,\n"
              "    \"thickness\": 0.03, \"self_collision\": \"triangles\" },\n"
              "  { \"type\": \"cloth\", \"name\": \"b\", \"resolution\": [9, 11], \"size\": [0.9, 1.1],\n"
              "    \"center\": [0.03, 1.02, 0.04], \"mass\": 0.3, \"thickness\": 0.03,\n"
              "    \"self_collision\": \"triangles\" } ] }",
      .steps = 4, .bump = 0.03f, .v0 = {0, -1.0f, 0}, .vjitter = 8.0f,
      .without = {"sim.contact_guard=false"}};
  compare(gpu, &cc, "contact guard");
}
FL_GPU_TEST(test_gpu_vs_cpu_contact_guard, contact_guard_body)

/* Colliders against triangles (xpbd/tri_collider, docs/CLOTH.md): a coarse sheet
 * on a ball whose top bulges 3 cm between its vertices (spacing 0.2 m), and a
 * box edge under it; with sim.collider_triangles false only the vertices meet
 * the colliders. */
static void triangle_colliders_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"s\", \"resolution\": [6, 6], \"mass\": 0.5,\n"
              "    \"thickness\": 0.03, \"self_collision\": \"triangles\" },\n"
              "  { \"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0.05, 0.69, 0.03], \"radius\": 0.3 },\n"
              "  { \"type\": \"collider\", \"shape\": \"box\", \"center\": [0.4, 0.78, -0.3],\n"
              "    \"half_extents\": [0.3, 0.2, 0.05] } ] }",
      .steps = 4, .bump = 0.0f, .jitter = 0.005f, .v0 = {0, -0.5f, 0}, .vjitter = 0.1f,
      .without = {"sim.collider_triangles=false"}};
  compare(gpu, &cc, "colliders against triangles");
}
FL_GPU_TEST(test_gpu_vs_cpu_triangle_colliders, triangle_colliders_body)

/* The same pass on a particles-mode sheet (as `drape`'s): a capsule's side and
 * end and a turning box's edges and corner between the vertices. */
static void particle_cloth_colliders_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"s\", \"resolution\": [6, 6], \"mass\": 0.5,\n"
              "    \"thickness\": 0.03, \"friction\": [0.6, 0.5] },\n"
              "  { \"type\": \"collider\", \"shape\": \"capsule\", \"a\": [-0.35, 0.7, 0.05], \"b\": [0.03, 0.91, 0.13],\n"
              "    \"radius\": 0.12, \"friction\": 0.5 },\n"
              "  { \"type\": \"collider\", \"shape\": \"box\", \"center\": [0.35, 0.81, -0.3],\n"
              "    \"half_extents\": [0.2, 0.2, 0.1], \"angular_velocity\": [0.3, 0.5, 0.2] } ] }",
      .steps = 4, .bump = 0.0f, .jitter = 0.005f, .v0 = {0, -0.5f, 0}, .vjitter = 0.1f,
      .without = {"sim.collider_triangles=false"}};
  compare(gpu, &cc, "colliders against particle-cloth triangles");
}
FL_GPU_TEST(test_gpu_vs_cpu_particle_cloth_colliders, particle_cloth_colliders_body)

static void wind_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"flag\", \"resolution\": [12, 8], \"size\": [1.2, 0.8],\n"
              "    \"plane\": \"xy\", \"pin\": [\"left\"], \"wind\": [3, 0.5, -2], \"drag\": 1.5, \"lift\": 1.5 },\n"
              "  { \"type\": \"cloth\", \"name\": \"still\", \"resolution\": [8, 8], \"center\": [0, 1, 1.5],\n"
              "    \"pin\": [\"top\"] } ] }",
      .steps = 8, .bump = 0.08f, .jitter = 0.01f, .v0 = {0, 0, 0.5f}, .vjitter = 0.5f,
      .without = {"objects.flag.drag=0", "objects.flag.lift=0"}};
  compare(gpu, &cc, "wind drag + lift");
}
FL_GPU_TEST(test_gpu_vs_cpu_wind, wind_body)

/* Gusts (common/gust_shared.h): the wind of each triangle scaled by where its
 * centroid is and when, fronts 0.5 m long passing every 0.1 s. */
static void gust_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"flag\", \"resolution\": [12, 8], \"size\": [1.2, 0.8],\n"
              "    \"plane\": \"xy\", \"pin\": [\"left\"], \"wind\": [3, 0.5, -2], \"drag\": 1.5, \"lift\": 1.5,\n"
              "    \"gust\": 0.9, \"gust_period\": 0.1, \"gust_length\": 0.5 } ] }",
      .steps = 8, .bump = 0.08f, .jitter = 0.01f, .v0 = {0, 0, 0.5f}, .vjitter = 0.5f,
      .without = {"objects.flag.gust=0"}};
  compare(gpu, &cc, "wind gusts");
}
FL_GPU_TEST(test_gpu_vs_cpu_gust, gust_body)

/* BDF2 (sim.integrator, NOTES.md "BDF2 variant"): its Euler start step, then the
 * second-order predict, the 2h/3 compliance step and the three-point velocity. */
static void bdf2_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2, \"integrator\": \"bdf2\"") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [10, 8], \"mass\": 0.5,\n"
              "    \"pin\": [\"corner:0,0\"], \"stretch_compliance\": 1e-4, \"bending\": \"isometric\",\n"
              "    \"bend_compliance\": 1 } ] }",
      .steps = 8, .bump = 0.05f, .cap = 1.0f, .v0 = {0.3f, 0.2f, 0}, .vjitter = 0.2f,
      .without = {"sim.integrator=euler"}};
  compare(gpu, &cc, "bdf2");
}
FL_GPU_TEST(test_gpu_vs_cpu_bdf2, bdf2_body)

/* Triangle area constraints (docs/AREA.md) on a stretchy sheet, by colour and by Jacobi; "without":
 * a compliance so large that they do nothing. */
#define AREA_SHEET                                                                                       \
  "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [10, 8], \"mass\": 0.5,\n"                       \
  "    \"pin\": [\"top-left\", \"top-right\"], \"stretch_compliance\": 1e-2, \"shear_compliance\": 1e-2,\n"   \
  "    \"area_compliance\": 1e-6 } ] }"
static void area_colouring_body(fl_gpu *gpu)
{
  static const compare_case cc = {.json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n" AREA_SHEET,
                                  .steps = 6, .bump = 0.05f, .jitter = 0.02f, .v0 = {0, -0.5f, 0}, .vjitter = 0.3f,
                                  .without = {"objects.a.area_compliance=1e9"}};
  compare(gpu, &cc, "area, colouring");
}
FL_GPU_TEST(test_gpu_vs_cpu_area_colouring, area_colouring_body)

static void area_jacobi_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 3, \"solver\": \"jacobi\"") ", \"objects\": [\n" AREA_SHEET,
      .steps = 6, .bump = 0.05f, .jitter = 0.02f, .v0 = {0, -0.5f, 0}, .vjitter = 0.3f,
      .without = {"objects.a.area_compliance=1e9"}};
  compare(gpu, &cc, "area, jacobi");
}
FL_GPU_TEST(test_gpu_vs_cpu_area_jacobi, area_jacobi_body)

/* Hierarchical PBD with compliant stretch (docs/HIERARCHY.md): the coarse levels, the carry of
 * their multipliers into the fine ones (alpha~ / (w_i + w_j) = 0.13 here) and the fine solve
 * that starts from them, on the GPU against the CPU reference. */
static void hierarchy_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [17, 13], \"size\": [1, 0.8],\n"
              "    \"mass\": 10, \"pin\": [\"top\"], \"stretch_compliance\": 1e-4, \"shear_compliance\": 1e-4,\n"
              "    \"bending\": \"none\", \"hierarchy_levels\": 3 } ] }",
      .steps = 5, .bump = 0.05f, .jitter = 0.01f, .v0 = {0, -0.5f, 0}, .vjitter = 0.3f,
      .without = {"objects.a.hierarchy_levels=1"}};
  compare(gpu, &cc, "hierarchy with the carry");
}
FL_GPU_TEST(test_gpu_vs_cpu_hierarchy, hierarchy_body)

static void colliders_body(fl_gpu *gpu)
{
  /* The sheet starts touching the sphere and box tops, overlapping the x = -0.505
   * domain wall, with a sphere coming down on it; sliding velocities give both
   * static and kinetic friction. */
  static const compare_case cc = {
      .json = "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 4, \"iterations\": 2, \"gravity\": [0, -9.81, 0],\n"
              "           \"domain\": { \"min\": [-0.505, 0, -2], \"max\": [2, 3, 2] } },\n"
              "  \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [12, 12], \"center\": [0, 0.56, 0],\n"
              "    \"thickness\": 0.04, \"friction\": [0.6, 0.4], \"stretch_compliance\": 1e-6 },\n"
              "  { \"type\": \"collider\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0.02 },\n"
              "  { \"type\": \"collider\", \"shape\": \"sphere\", \"center\": [-0.2, 0.1, 0], \"radius\": 0.45,\n"
              "    \"friction\": 0.5 },\n"
              "  { \"type\": \"collider\", \"shape\": \"box\", \"center\": [0.35, 0.25, 0.1],\n"
              "    \"half_extents\": [0.15, 0.3, 0.2], \"friction\": 0.8 },\n"
              "  { \"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0.25, 0.72, -0.3], \"radius\": 0.15,\n"
              "    \"velocity\": [0.2, -1, 0], \"friction\": 0.3 } ] }",
      .steps = 10, .bump = 0.0f, .jitter = 0.01f, .v0 = {0.3f, -1.0f, 0.2f}, .vjitter = 0.3f,
      .without = {"objects.sheet.friction=[0, 0]"}};
  compare(gpu, &cc, "colliders + friction");
}
FL_GPU_TEST(test_gpu_vs_cpu_colliders, colliders_body)

/* The generic collider normal (four-point tetrahedral gradient, sim.collider_normals)
 * on the GPU matches the CPU reference's: a sheet over a sphere, a capsule and a box. */
static void tetrahedral_normals_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 4, \"gravity\": [0, -9.81, 0],\n"
              "           \"domain\": { \"min\": [-2, -1, -2], \"max\": [2, 3, 2] }, \"collider_normals\": \"tetrahedral\" },\n"
              "  \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [12, 12], \"center\": [0, 0.5, 0],\n"
              "    \"thickness\": 0.04, \"friction\": [0.3, 0.2] },\n"
              "  { \"type\": \"collider\", \"shape\": \"sphere\", \"center\": [-0.25, 0.1, 0], \"radius\": 0.42 },\n"
              "  { \"type\": \"collider\", \"shape\": \"capsule\", \"a\": [0.2, 0.4, -0.4], \"b\": [0.3, 0.42, 0.4],\n"
              "    \"radius\": 0.1 },\n"
              "  { \"type\": \"collider\", \"shape\": \"box\", \"center\": [0.1, 0.2, 0.3],\n"
              "    \"half_extents\": [0.13, 0.3, 0.11] } ] }",
      .steps = 8, .bump = 0.0f, .jitter = 0.01f, .v0 = {0.2f, -1.0f, 0.1f}, .vjitter = 0.3f,
      .without = {"sim.collider_normals=\"analytic\""}};
  compare(gpu, &cc, "tetrahedral collider normals");
}
FL_GPU_TEST(test_gpu_vs_cpu_tetrahedral_normals, tetrahedral_normals_body)

static void edge_damping_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"edge\", \"resolution\": [10, 10], \"pin\": [\"top-left\"],\n"
              "    \"stretch_compliance\": 1, \"shear_compliance\": 1, \"damping\": 240,\n"
              "    \"damping_model\": \"edge\" },\n"
              "  { \"type\": \"cloth\", \"name\": \"point\", \"resolution\": [8, 8], \"center\": [0, 1, 1.5],\n"
              "    \"damping\": 2 } ] }",
      .steps = 8, .bump = 0.05f, .jitter = 0.01f, .v0 = {0, 0, 0}, .vjitter = 1.5f,
      .without = {"objects.edge.damping=0"}};
  compare(gpu, &cc, "edge damping");
}
FL_GPU_TEST(test_gpu_vs_cpu_edge_damping, edge_damping_body)

static void global_damping_body(fl_gpu *gpu)
{
  static const compare_case cc = {
      .json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
              "  { \"type\": \"cloth\", \"name\": \"global\", \"resolution\": [10, 10], \"pin\": [\"top-left\"],\n"
              "    \"stretch_compliance\": 1e-4, \"damping\": 30, \"damping_model\": \"global\" },\n"
              "  { \"type\": \"cloth\", \"name\": \"point\", \"resolution\": [8, 8], \"center\": [0, 1, 1.5],\n"
              "    \"damping\": 2 } ] }",
      .steps = 8, .bump = 0.05f, .jitter = 0.01f, .v0 = {0.5f, 0, 0}, .vjitter = 1.5f,
      .without = {"objects.global.damping=0"}};
  compare(gpu, &cc, "global damping");
}
FL_GPU_TEST(test_gpu_vs_cpu_global_damping, global_damping_body)

/* Angular momentum about the centre of mass, the rigid fit's omega = I^-1 L, and the
 * RMS of each velocity's deviation from v_cm + omega x r, over particles with w > 0. */
static void rigid_fit(const vec4f *pos, const vec4f *vel, uint32_t n, double l_out[3], double *relative_rms)
{
  double m = 0, xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0}, l[3] = {0, 0, 0}, in[3][3] = {{0}};
  for (uint32_t p = 0; p < n; p++) {
    double mi = 1.0 / pos[p][3];
    m += mi;
    for (int a = 0; a < 3; a++) xc[a] += mi * pos[p][a], vc[a] += mi * vel[p][a];
  }
  for (int a = 0; a < 3; a++) xc[a] /= m, vc[a] /= m;
  for (uint32_t p = 0; p < n; p++) {
    double mi = 1.0 / pos[p][3], r[3];
    for (int a = 0; a < 3; a++) r[a] = pos[p][a] - xc[a];
    double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    l[0] += mi * (r[1] * vel[p][2] - r[2] * vel[p][1]);
    l[1] += mi * (r[2] * vel[p][0] - r[0] * vel[p][2]);
    l[2] += mi * (r[0] * vel[p][1] - r[1] * vel[p][0]);
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 3; c++) in[a][c] += mi * ((a == c ? rr : 0.0) - r[a] * r[c]);
  }
  double cof[3][3], w[3];
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 3; c++)
      cof[a][c] = in[(a + 1) % 3][(c + 1) % 3] * in[(a + 2) % 3][(c + 2) % 3] -
                  in[(a + 1) % 3][(c + 2) % 3] * in[(a + 2) % 3][(c + 1) % 3];
  double det = in[0][0] * cof[0][0] + in[0][1] * cof[0][1] + in[0][2] * cof[0][2];
  for (int a = 0; a < 3; a++) w[a] = (cof[a][0] * l[0] + cof[a][1] * l[1] + cof[a][2] * l[2]) / det;
  double sum = 0;
  for (uint32_t p = 0; p < n; p++) {
    double r[3];
    for (int a = 0; a < 3; a++) r[a] = pos[p][a] - xc[a];
    double rigid[3] = {vc[0] + w[1] * r[2] - w[2] * r[1], vc[1] + w[2] * r[0] - w[0] * r[2],
                       vc[2] + w[0] * r[1] - w[1] * r[0]};
    for (int a = 0; a < 3; a++) sum += (vel[p][a] - rigid[a]) * (vel[p][a] - rigid[a]);
  }
  memcpy(l_out, l, sizeof l);
  *relative_rms = sqrt(sum / n);
}

/* A free sheet spun about a tilted axis, with random relative velocities, no gravity:
 * returns |L_end - L_0| / |L_0| and the relative motion's RMS at the end over its start. */
static bool spin(fl_gpu *gpu, const char *model, double *l_change, double *relative_decay)
{
  char json[1024];
  snprintf(json, sizeof json,
           "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 8, \"iterations\": 2, \"gravity\": [0, 0, 0],"
           " \"domain\": { \"min\": [-50, -50, -50], \"max\": [50, 50, 50] } }, \"objects\": ["
           " { \"type\": \"cloth\", \"name\": \"spinner\", \"resolution\": [12, 12], \"size\": [1, 1],"
           " \"stretch_compliance\": 1e-6, \"damping\": 6, \"damping_model\": \"%s\" } ] }", model);
  rig r;
  if (!rig_create(gpu, json, NULL, 0, &r)) return false;
  vec4f *pos = calloc(r.n, 16), *vel = calloc(r.n, 16);
  bool ok = pos && vel;
  rng_state = 0x51u;
  const float omega[3] = {0.4f, 3.0f, 0.8f};
  double xc[3] = {0, 0, 0};
  for (uint32_t p = 0; ok && p < r.n; p++)
    for (int a = 0; a < 3; a++) xc[a] += r.sys.build.positions[p][a] / r.n;
  for (uint32_t p = 0; ok && p < r.n; p++) {
    memcpy(pos[p], r.sys.build.positions[p], 16);
    float rr[3] = {(float)(pos[p][0] - xc[0]), (float)(pos[p][1] - xc[1]), (float)(pos[p][2] - xc[2])};
    vel[p][0] = omega[1] * rr[2] - omega[2] * rr[1] + rnd(-0.5f, 0.5f);
    vel[p][1] = omega[2] * rr[0] - omega[0] * rr[2] + rnd(-0.5f, 0.5f);
    vel[p][2] = omega[0] * rr[1] - omega[1] * rr[0] + rnd(-0.5f, 0.5f);
    vel[p][3] = 0;
  }
  double l0[3], l1[3], rel0, rel1;
  if (ok) rigid_fit((const vec4f *)pos, (const vec4f *)vel, r.n, l0, &rel0);
  ok = ok && rig_set(&r, pos, vel) && rig_gpu(&r, 120, NULL) && rig_read(&r, pos, vel);
  if (ok) {
    rigid_fit((const vec4f *)pos, (const vec4f *)vel, r.n, l1, &rel1);
    double d2 = 0, n2 = 0;
    for (int a = 0; a < 3; a++) d2 += (l1[a] - l0[a]) * (l1[a] - l0[a]), n2 += l0[a] * l0[a];
    *l_change = sqrt(d2 / n2);
    *relative_decay = rel1 / rel0;
    fprintf(stderr, "  %s damping: |L| %.4f -> %.4f (change %.3g of |L0|), relative motion RMS %.3f -> %.3f m/s\n",
            model, sqrt(n2), sqrt(l1[0] * l1[0] + l1[1] * l1[1] + l1[2] * l1[2]), *l_change, rel0, rel1);
  }
  free(pos);
  free(vel);
  rig_destroy(&r);
  return ok;
}

static void global_damping_momentum_body(fl_gpu *gpu)
{
  double l_global, rel_global, l_point, rel_point;
  ENSURE_MSG(spin(gpu, "global", &l_global, &rel_global), "%s", fl_error_message());
  ENSURE_MSG(spin(gpu, "point", &l_point, &rel_point), "%s", fl_error_message());
  ENSURE(l_global < 0.01);   /* angular momentum kept within 1 % */
  ENSURE(rel_global < 0.1);  /* while the relative motion decays */
  ENSURE(l_point > 0.1);     /* point damping at the same rate would not keep it */
}
FL_GPU_TEST(test_global_damping_momentum, global_damping_momentum_body)

/* ---- the XPBD promise: the equilibrium does not depend on the substep count ---- */

/* Mean sag (rest y - y over all particles) of a sheet hanging from its top edge after 60
 * frames (damped to rest). XPBD promises a stiffness independent of the time step once
 * the solve converges; one Gauss-Seidel iteration per substep on a light sheet does not
 * (a 1 kg 8x8 sheet at compliance 1e-4 sags 2.5x more at 10 than at 40 substeps, on
 * the CPU reference too), so this sheet is heavy (10 kg) and gets 4 iterations. */
static bool hanging_sag(fl_gpu *gpu, float compliance, int substeps, double *sag, double *vmax)
{
  static const char *const json =
      "{ \"sim\": { \"dt\": 0.0166666667, \"iterations\": 4, \"gravity\": [0, -9.81, 0],\n"
      "           \"domain\": { \"min\": [-100, -100, -100], \"max\": [100, 100, 100] } },\n"
      "  \"objects\": [ { \"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [8, 8], \"plane\": \"xy\",\n"
      "    \"mass\": 10, \"pin\": [\"top\"], \"bending\": \"none\", \"damping\": 20 } ] }";
  char set_c[64], set_s[64], set_sub[64];
  snprintf(set_c, sizeof set_c, "objects.sheet.stretch_compliance=%g", compliance);
  snprintf(set_s, sizeof set_s, "objects.sheet.shear_compliance=%g", compliance);
  snprintf(set_sub, sizeof set_sub, "sim.substeps=%d", substeps);
  const char *sets[] = {set_c, set_s, set_sub};
  rig r;
  bool ok = rig_create(gpu, json, sets, 3, &r);
  vec4f *pos = calloc(r.n ? r.n : 1, 16), *vel = calloc(r.n ? r.n : 1, 16);
  ok = ok && pos && vel && rig_gpu(&r, 60 * substeps, NULL) && rig_read(&r, pos, vel);
  *sag = 0;
  *vmax = 0;
  for (uint32_t p = 0; ok && p < r.n; p++) {
    *sag += (double)r.sys.build.positions[p][1] - pos[p][1];
    *vmax = fmax(*vmax, sqrt((double)vel[p][0] * vel[p][0] + (double)vel[p][1] * vel[p][1] +
                             (double)vel[p][2] * vel[p][2]));
  }
  if (ok) *sag /= r.n;
  free(pos);
  free(vel);
  rig_destroy(&r);
  if (ok) fprintf(stderr, "  compliance %g, %d substeps: mean sag %.6g m, max speed %.3g m/s\n", compliance,
                  substeps, *sag, *vmax);
  return ok;
}

static void xpbd_promise_body(fl_gpu *gpu)
{
  double sag10, sag40, sag_soft, v10, v40, vsoft;
  bool ok = hanging_sag(gpu, 1e-4f, 10, &sag10, &v10) && hanging_sag(gpu, 1e-4f, 40, &sag40, &v40) &&
            hanging_sag(gpu, 4e-4f, 10, &sag_soft, &vsoft);
  ENSURE_MSG(ok, "%s", fl_error_message());
  /* At rest (float noise in v = dx/h aside), and sagging visibly. */
  ENSURE(v10 < 0.01 && v40 < 0.01 && vsoft < 0.01);
  ENSURE(sag10 > 1e-3);
  ENSURE_MSG(fabs(sag40 - sag10) < 0.02 * sag10, "sag %.6g (10 substeps) vs %.6g (40 substeps)", sag10, sag40);
  /* Linear elasticity: 4x the compliance, ~4x the sag. */
  ENSURE_MSG(sag_soft > 3.5 * sag10 && sag_soft < 4.5 * sag10, "sag %.6g at 4x compliance vs %.6g", sag_soft, sag10);
}
FL_GPU_TEST(test_xpbd_promise, xpbd_promise_body)

/* ---- the integrators' numerical damping ---- */

/* Mechanical energy lost (kinetic + gravitational, over the free particles) by an
 * undamped sheet pinned along one edge, released horizontal, after `frames`,
 * as a fraction of M g L (its mass, gravity and side). Nothing but the
 * integrator removes energy here (docs/CLOTH.md, "Integrators": over 10 s Euler
 * loses 0.21 M g L, BDF2 0.004). */
static bool swing_loss(fl_gpu *gpu, const char *integrator, int frames, double *loss)
{
  static const char *const json =
      "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 8, \"iterations\": 4, \"gravity\": [0, -9.81, 0],\n"
      "           \"domain\": { \"min\": [-100, -100, -100], \"max\": [100, 100, 100] } },\n"
      "  \"objects\": [ { \"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [10, 10], \"plane\": \"xz\",\n"
      "    \"size\": [1, 1], \"mass\": 1, \"pin\": [\"left\"], \"bending\": \"isometric\",\n"
      "    \"bend_compliance\": 1e-3, \"damping\": 0,\n"
      "    \"stretch_compliance\": 1e-7, \"shear_compliance\": 1e-7 } ] }";
  char set[64];
  snprintf(set, sizeof set, "sim.integrator=%s", integrator);
  const char *sets[] = {set};
  rig r;
  bool ok = rig_create(gpu, json, sets, 1, &r);
  vec4f *pos = calloc(r.n ? r.n : 1, 16), *vel = calloc(r.n ? r.n : 1, 16);
  ok = ok && pos && vel && rig_gpu(&r, frames * 8, NULL) && rig_read(&r, pos, vel);
  double e0 = 0, e1 = 0, mass = 0;
  for (uint32_t p = 0; ok && p < r.n; p++) {
    if (pos[p][3] == 0.0f) continue;
    double m = 1.0 / pos[p][3], v2 = (double)vel[p][0] * vel[p][0] + (double)vel[p][1] * vel[p][1] +
                                     (double)vel[p][2] * vel[p][2];
    e0 += m * 9.81 * r.sys.build.positions[p][1];
    e1 += m * (0.5 * v2 + 9.81 * pos[p][1]);
    mass += m;
  }
  *loss = ok ? (e0 - e1) / (mass * 9.81 * 1.0) : 0;
  free(pos);
  free(vel);
  rig_destroy(&r);
  if (ok) fprintf(stderr, "  %s: %d frames, energy lost %.4f M g L\n", integrator, frames, *loss);
  return ok;
}

static void bdf2_damping_body(fl_gpu *gpu)
{
  double euler, bdf2;
  ENSURE_MSG(swing_loss(gpu, "euler", 60, &euler) && swing_loss(gpu, "bdf2", 60, &bdf2), "%s", fl_error_message());
  ENSURE_MSG(bdf2 > -0.01, "BDF2 gained energy: %.4f M g L", -bdf2);
  ENSURE_MSG(bdf2 < 0.5 * euler, "BDF2 lost %.4f M g L, Euler %.4f", bdf2, euler);
}
FL_GPU_TEST(test_bdf2_damping, bdf2_damping_body)

/* ---- free fall ---- */

static void free_fall_body(fl_gpu *gpu)
{
  static const char *const json =
      "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 4, \"iterations\": 2, \"gravity\": [0, -9.81, 0],\n"
      "           \"domain\": { \"min\": [-1000, -1000, -1000], \"max\": [1000, 1000, 1000] } },\n"
      "  \"objects\": [ { \"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [10, 10],\n"
      "    \"stretch_compliance\": 1e-4, \"damping\": 0 } ] }";
  rig r;
  bool ok = rig_create(gpu, json, NULL, 0, &r);
  const int n = 240; /* 1 s */
  const float v0[3] = {0.4f, 1.5f, -0.2f};
  vec4f *pos = calloc(r.n ? r.n : 1, 16), *vel = calloc(r.n ? r.n : 1, 16);
  ok = ok && pos && vel;
  if (ok) {
    memcpy(pos, r.sys.build.positions, (size_t)r.n * 16);
    for (uint32_t p = 0; p < r.n; p++) memcpy(vel[p], v0, sizeof v0);
    ok = rig_set(&r, pos, vel) && rig_gpu(&r, n, NULL) && rig_read(&r, pos, vel);
    rig_cpu(&r, n);
  }
  double h = rig_h(&r), t = h * n, g = 9.81, fall = 0.5 * g * t * t;
  double worst_exact = 0, worst_sympl = 0, worst_xz = 0, worst_v = 0, worst_cpu = 0;
  for (uint32_t p = 0; ok && p < r.n; p++) {
    const float *x0 = r.sys.build.positions[p];
    double exact = x0[1] + v0[1] * t - fall, sympl = x0[1] + v0[1] * t - g * h * h * n * (n + 1) / 2.0;
    worst_exact = fmax(worst_exact, fabs(pos[p][1] - exact));
    worst_sympl = fmax(worst_sympl, fabs(pos[p][1] - sympl));
    worst_xz = fmax(worst_xz, fabs(pos[p][0] - (x0[0] + v0[0] * t)));
    worst_xz = fmax(worst_xz, fabs(pos[p][2] - (x0[2] + v0[2] * t)));
    worst_v = fmax(worst_v, fabs(vel[p][1] - (v0[1] - g * h * n)));
    for (int a = 0; a < 3; a++) worst_cpu = fmax(worst_cpu, fabs((double)pos[p][a] - r.cpu.x[p][a]));
  }
  free(pos);
  free(vel);
  rig_destroy(&r);
  ENSURE_MSG(ok, "%s", fl_error_message());
  fprintf(stderr, "  fall %.4g m: |y - exact| %.3g, |y - symplectic| %.3g, |xz - x0 - v0 t| %.3g,"
          " |vy - (v0 - g t)| %.3g, |gpu - cpu| %.3g\n", fall, worst_exact, worst_sympl, worst_xz, worst_v, worst_cpu);
  ENSURE(worst_exact <= 0.01 * fall);
  /* Symplectic Euler, but for float rounding: v is recomputed as (x - prev) / h every
   * substep, which turns the rounding of x (~2e-7 m here) into ~5e-5 m/s of velocity
   * error per substep. 1e-3 of the fall is still 4x tighter than the gap between the
   * symplectic and the exact forms (g h t / 2 = 0.42% of the fall). */
  ENSURE(worst_sympl <= 1e-3 * fall);
  ENSURE(worst_cpu <= 1e-5 * fall);
  ENSURE(worst_xz <= 1e-5 * fall);
  ENSURE(worst_v <= 1e-4 * g * t);
}
FL_GPU_TEST(test_free_fall, free_fall_body)

/* ---- the world path: stepping frames the way the app does ---- */



static const char *const DROP_SCENE =
    "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 4, \"iterations\": 2, \"gravity\": [0, -9.81, 0],\n"
    "           \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [16, 16], \"size\": [1.4, 1.4],\n"
    "      \"center\": [0, 1.2, 0], \"mass\": 0.3, \"thickness\": 0.03, \"bend_compliance\": 1e-2 },\n"
    "    { \"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0.05 },\n"
    "    { \"type\": \"collider\", \"name\": \"ball\", \"shape\": \"sphere\", \"center\": [-0.3, 0.35, 0], \"radius\": 0.3 },\n"
    "    { \"type\": \"collider\", \"name\": \"block\", \"shape\": \"box\", \"center\": [0.35, 0.3, 0.1],\n"
    "      \"half_extents\": [0.2, 0.25, 0.3], \"friction\": 0.8 } ] }";

static void no_penetration_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  ENSURE(fl_fixture_make_world(gpu, DROP_SCENE, &scene, &world));
  fl_profiler prof;
  float (*pos)[4] = NULL, (*vel)[4] = NULL;
  uint32_t count = 0;
  const int frames = 200;
  bool ok = fl_profiler_create(gpu, &prof) && fl_fixture_step_frames(gpu, world, &prof, frames, true, NULL) &&
            fl_world_read_state(world, 0, &pos, &vel, &count);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  ENSURE_MSG(ok, "%s", fl_error_message());
  fl_gpu_collider col[3];
  uint32_t nc = 0;
  for (uint32_t i = 0; i < scene.object_count; i++)
    if (scene.objects[i].type == FL_OBJECT_COLLIDER) fl_collider_pack(&scene.objects[i].collider, &col[nc++]);
  const float thick = scene.objects[0].cloth.thickness, t = (float)(frames * (double)scene.sim.dt);
  float min_sdf[3] = {INFINITY, INFINITY, INFINITY};
  uint32_t deep = 0, bad = 0, at = 0;
  for (uint32_t p = 0; p < count; p++) {
    bool finite = isfinite(pos[p][0]) && isfinite(pos[p][1]) && isfinite(pos[p][2]);
    bad += !finite;
    for (uint32_t c = 0; c < nc && finite; c++) {
      float d = fl_collider_sdf_cpu(&col[c], pos[p], t);
      if (d < min_sdf[c]) min_sdf[c] = d;
      if (d < -thick) {
        if (!deep) at = p;
        deep++;
      }
    }
  }
  fprintf(stderr, "  min sdf: ground %.4g, ball %.4g, block %.4g (thickness %g)\n", min_sdf[0], min_sdf[1], min_sdf[2],
          thick);
  if (deep) fprintf(stderr, "  particle %u at %g %g %g\n", at, pos[at][0], pos[at][1], pos[at][2]);
  free(pos);
  free(vel);
  ENSURE(count == 256);
  ENSURE(bad == 0);
  ENSURE_MSG(deep == 0, "%u particle-collider pairs deeper than the thickness", deep);
  /* The cloth came to rest on both shapes (the test is not vacuous). */
  ENSURE(min_sdf[1] < thick && min_sdf[2] < thick);
}
FL_GPU_TEST(test_no_penetration, no_penetration_body)

/* ---- pins ---- */

static void pins_body(fl_gpu *gpu)
{
  static const char *const json =
      "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
      "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [10, 9], \"plane\": \"xy\",\n"
      "    \"pin\": [\"top-left\", \"corner:5,0\", \"index:40\", \"column:9\"], \"stretch_compliance\": 1e-4,\n"
      "    \"wind\": [2, 0, 3], \"drag\": 0.5, \"lift\": 0.3, \"damping_model\": \"edge\", \"damping\": 1 },\n"
      "  { \"type\": \"cloth\", \"name\": \"b\", \"resolution\": [8, 8], \"center\": [0, 0.5, 1.5],\n"
      "    \"pin\": [\"row:3\"], \"bending\": \"dihedral\" },\n"
      "  { \"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0.2, 0.3, 1.5], \"radius\": 0.3 } ] }";
  static const char *const solvers[] = {"sim.solver=coloring", "sim.solver=jacobi"};
  for (int s = 0; s < 2; s++) {
    rig r;
    bool ok = rig_create(gpu, json, &solvers[s], 1, &r);
    vec4f *pos = calloc(r.n ? r.n : 1, 16);
    ok = ok && pos && rig_gpu(&r, 300, NULL) && rig_read(&r, pos, NULL);
    uint32_t pinned = 0, moved_pins = 0, moved_free = 0, w_changed = 0;
    for (uint32_t p = 0; ok && p < r.n; p++) {
      const float *x0 = r.sys.build.positions[p];
      w_changed += memcmp(&pos[p][3], &x0[3], sizeof(float)) != 0;
      if (x0[3] == 0.0f) {
        pinned++;
        moved_pins += memcmp(pos[p], x0, 16) != 0;
      } else {
        moved_free += fabsf(pos[p][0] - x0[0]) + fabsf(pos[p][1] - x0[1]) + fabsf(pos[p][2] - x0[2]) > 0.01f;
      }
    }
    free(pos);
    rig_destroy(&r);
    ENSURE_MSG(ok, "%s", fl_error_message());
    fprintf(stderr, "  %s: %u pinned, %u of them moved; %u free particles moved > 1 cm\n", solvers[s], pinned,
            moved_pins, moved_free);
    /* a: (0,8), (5,0), index 40 = (0,4) and column 9 (9 particles); b: row 3 (8). */
    ENSURE(pinned == 12 + 8);
    ENSURE(moved_pins == 0);
    ENSURE(w_changed == 0);
    ENSURE(moved_free > 100);
  }
}
FL_GPU_TEST(test_pins, pins_body)

/* ---- tethers (long range attachments, xpbd_spec.h step 4b) ---- */

/* A heavy, stretchy hammock: 10 kg on compliances of 1e-2, hung with a sag between its left and right
 * columns. Without tethers it stretches far past its rest lengths. */
#define TETHER_SHEET                                                                                          \
  "  { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [14, 9], \"size\": [1.2, 0.7], \"mass\": 10,\n"     \
  "    \"pin\": [\"left\", \"right\"], \"sag\": 0.2, \"tethers\": true, \"stretch_compliance\": 1e-2,\n"         \
  "    \"shear_compliance\": 1e-2 } ] }"
static void tethers_compare_body(fl_gpu *gpu)
{
  static const compare_case cc = {.json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n" TETHER_SHEET,
                                  .steps = 8, .bump = 0.05f, .jitter = 0.02f, .v0 = {0, -2.0f, 0}, .vjitter = 0.3f,
                                  .without = {"objects.a.tethers=false"}};
  compare(gpu, &cc, "tethers");
}
FL_GPU_TEST(test_gpu_vs_cpu_tethers, tethers_compare_body)

/* The largest |x_k - x_pin| / rest - 1 over every tether of the build, at positions pos. */
static double worst_tether(const fl_xpbd_build *b, vec4f *pos)
{
  double worst = -1;
  for (uint32_t k = 0; k < b->particle_count; k++) {
    uint32_t pin[2] = {b->tethers[k].pin0, b->tethers[k].pin1};
    float rest[2] = {b->tethers[k].rest0, b->tethers[k].rest1};
    for (int t = 0; t < 2; t++) {
      if (pin[t] == FL_TETHER_NONE) continue;
      double d = sqrt(pow(pos[k][0] - pos[pin[t]][0], 2) + pow(pos[k][1] - pos[pin[t]][1], 2) +
                      pow(pos[k][2] - pos[pin[t]][2], 2));
      worst = fmax(worst, d / rest[t] - 1.0);
    }
  }
  return worst;
}

/* The GPU substep keeps every tether: after 240 substeps of the heavy hammock under gravity no particle is
 * farther from either of its pins than its rest distance by 1e-4 of it, and each free particle has two
 * tethers (one to each pinned edge); the same sheet without tethers ends stretched along them by more
 * than 5 %. */
static void tethers_hold_body(fl_gpu *gpu)
{
  static const char *const json = "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n" TETHER_SHEET;
  static const char *const off = "objects.a.tethers=false";
  rig r, loose;
  bool ok = rig_create(gpu, json, NULL, 0, &r), ok_loose = rig_create(gpu, json, &off, 1, &loose);
  vec4f *pos = calloc(r.n ? r.n : 1, 16), *pos_loose = calloc(r.n ? r.n : 1, 16);
  ok = ok && ok_loose && pos && pos_loose && loose.n == r.n && rig_gpu(&r, 240, NULL) && rig_read(&r, pos, NULL) &&
       rig_gpu(&loose, 240, NULL) && rig_read(&loose, pos_loose, NULL);
  uint32_t one = 0, two = 0, free_count = 0;
  double worst = 0, worst_loose = 0;
  if (ok) {
    const fl_xpbd_build *b = &r.sys.build;
    for (uint32_t k = 0; k < r.n; k++) {
      free_count += b->positions[k][3] != 0.0f;
      one += b->tethers[k].pin0 != FL_TETHER_NONE;
      two += b->tethers[k].pin1 != FL_TETHER_NONE;
    }
    worst = worst_tether(b, pos);
    worst_loose = worst_tether(b, pos_loose); /* the tethered build's tethers, measured on the loose sheet */
  }
  free(pos);
  free(pos_loose);
  if (ok_loose) rig_destroy(&loose);
  rig_destroy(&r);
  ENSURE_MSG(ok, "%s", fl_error_message());
  fprintf(stderr, "  %u free particles, %u with a tether, %u with two; the worst stretch along one: %.2g with tethers, "
                  "%.3f without\n", free_count, one, two, worst, worst_loose);
  ENSURE(one == free_count && two == free_count); /* pinned left and right: every free particle has an edge each side */
  ENSURE_MSG(worst <= 1e-4, "a tether stretched by %.3g", worst); /* 4 alternating projections: 5.9e-5 measured */
  ENSURE_MSG(worst_loose > 0.05, "without tethers the sheet stretched only %.3g: the test does not exercise them",
             worst_loose);
}
FL_GPU_TEST(test_tethers_hold, tethers_hold_body)

/* ---- every built-in cloth scene stays finite ---- */

static void builtin_scenes_body(fl_gpu *gpu)
{
  static const struct {
    const char *scene, *object;
  } list[] = {{"cloth", "flag"}, {"curtain", "curtain"}, {"drape", "sheet"}};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
    char res[96], self[96];
    snprintf(res, sizeof res, "objects.%s.resolution=[16,16]", list[i].object);
    snprintf(self, sizeof self, "objects.%s.self_collision=false", list[i].object);
    const char *sets[] = {res, self};
    fl_scene scene;
    fl_error_clear();
    ENSURE_MSG(fl_scene_load(list[i].scene, sets, 2, &scene), "%s: %s", list[i].scene, fl_error_message());
    fl_world *world = NULL;
    ENSURE_MSG(fl_world_create(gpu, &scene, &world), "%s: %s", list[i].scene, fl_error_message());
    fl_profiler prof;
    int frames = (int)((1000 + scene.sim.substeps - 1) / scene.sim.substeps);
    fl_object_stats st;
    bool ok = fl_profiler_create(gpu, &prof) && fl_fixture_step_frames(gpu, world, &prof, frames, true, NULL) &&
              fl_world_stats(world, 0, &st);
    uint64_t substeps = fl_world_substeps(world);
    const fl_profile_stat *predict = fl_profiler_find(&prof, "xpbd/predict");
    bool timed = prof.can_time[FL_QUEUE_COMPUTE];
    uint32_t predict_executions = predict ? predict->executions : 0; /* read before the profiler is freed */
    fl_profiler_destroy(&prof);
    fl_world_destroy(world);
    ENSURE_MSG(ok, "%s: %s", list[i].scene, fl_error_message());
    fprintf(stderr, "  %s: %llu substeps, nan %u, outside %u, max strain %.3g, bbox y %.3g .. %.3g\n", list[i].scene,
            (unsigned long long)substeps, st.nan_count, st.outside_domain, figure(&st, "max_strain"), st.bbox_min[1],
            st.bbox_max[1]);
    ENSURE(substeps >= 1000);
    ENSURE(st.particles == 256 && strcmp(st.type, "cloth") == 0);
    ENSURE_MSG(st.nan_count == 0, "%s: %u NaN particles", list[i].scene, st.nan_count);
    ENSURE(st.outside_domain == 0);
    ENSURE(isfinite(figure(&st, "max_strain")) && isfinite(st.kinetic_energy));
    ENSURE(!timed || predict_executions == scene.sim.substeps);
  }
}
FL_GPU_TEST(test_builtin_scenes_no_nan, builtin_scenes_body)

/* ---- picking and dragging ---- */

/* What common/pick.comp computes: the free particle with the smallest t >= 0 along
 * the ray among those within `radius` of it (smallest index on ties); -1 when none. */
static int cpu_pick(const vec4f *pos, uint32_t n, const float o[3], const float d[3], float radius, float *t_out)
{
  int best = -1;
  float best_t = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (pos[i][3] == 0.0f) continue;
    float rel[3] = {pos[i][0] - o[0], pos[i][1] - o[1], pos[i][2] - o[2]};
    float t = rel[0] * d[0] + rel[1] * d[1] + rel[2] * d[2];
    float off[3] = {rel[0] - t * d[0], rel[1] - t * d[1], rel[2] - t * d[2]};
    if (t < 0 || sqrtf(off[0] * off[0] + off[1] * off[1] + off[2] * off[2]) > radius) continue;
    if (best < 0 || t < best_t) {
      best = (int)i;
      best_t = t;
    }
  }
  *t_out = best_t;
  return best;
}

/* Requests a pick, records it alone, waits, collects: true when a particle was grabbed. */
static bool gpu_pick(fl_gpu *gpu, fl_picker *pk, const float o[3], const float d[3], float radius, bool *grabbed)
{
  fl_picker_request(pk, o, d, radius);
  fl_descriptor_cache sets;
  fl_rec r;
  if (!fl_descriptor_cache_create(gpu, "pick test", &sets) || !fl_rec_begin_once(gpu, &sets, &r)) return false;
  r.slot = 1;
  fl_picker_record(pk, &r);
  bool ok = fl_rec_end_once(&r);
  fl_descriptor_cache_destroy(&sets);
  if (!ok) return false;
  *grabbed = fl_picker_collect(pk, 1);
  return true;
}

static void pick_body(fl_gpu *gpu)
{
  static const char *const json =
      "{ " SIM(", \"iterations\": 2") ", \"objects\": [\n"
      "  { \"type\": \"cloth\", \"name\": \"decoy\", \"resolution\": [4, 4], \"center\": [3, 1, 3] },\n"
      "  { \"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [12, 12], \"center\": [0, 1, 0],\n"
      "    \"pin\": [\"top-left\", \"top-right\"], \"bend_compliance\": 1e-2 } ] }";
  rig r;
  ENSURE(rig_create(gpu, json, NULL, 0, &r));
  fl_picker pk;
  bool ok = fl_picker_create(gpu, &pk);
  const uint32_t first = 16, k = first + 6 * 12 + 5; /* sheet particle (5, 6) */
  const uint32_t pin = first + 11 * 12;              /* sheet top-left */
  ok = ok && fl_picker_add_target(&pk, &r.sys.pos, 0, r.n);
  vec4f *pos = calloc(r.n ? r.n : 1, 16), *cpu_free = calloc(r.n ? r.n : 1, 16);
  ok = ok && pos && cpu_free && rig_gpu(&r, 20, NULL) && rig_read(&r, pos, NULL); /* let it sag a little */
  bool miss_grabbed = true, pin_grabbed = true, grabbed = false;
  int want = -2, want_pin = -2;
  float want_t = 0, t_pin, radius = 0.3f / 11.0f, target[3] = {0}, start_dist = 0;
  if (ok) {
    /* A miss: pointing away from the sheet. */
    float o_miss[3] = {0, 2, 0}, d_up[3] = {0, 1, 0};
    ok = gpu_pick(gpu, &pk, o_miss, d_up, radius, &miss_grabbed);
    /* Straight down onto the pinned corner: pinned particles are not grabbed. */
    float o_pin[3] = {pos[pin][0], pos[pin][1] + 2, pos[pin][2]}, d_down[3] = {0, -1, 0};
    want_pin = cpu_pick((const vec4f *)pos, r.n, o_pin, d_down, radius, &t_pin);
    ok = ok && gpu_pick(gpu, &pk, o_pin, d_down, radius, &pin_grabbed);
  }
  if (ok) {
    /* A slanted ray from a camera-like point through particle k. */
    float o[3] = {pos[k][0] + 0.6f, pos[k][1] + 1.8f, pos[k][2] + 0.9f}, d[3], len = 0;
    for (int a = 0; a < 3; a++) len += (pos[k][a] - o[a]) * (pos[k][a] - o[a]);
    len = sqrtf(len);
    for (int a = 0; a < 3; a++) d[a] = (pos[k][a] - o[a]) / len;
    want = cpu_pick((const vec4f *)pos, r.n, o, d, radius, &want_t);
    ok = gpu_pick(gpu, &pk, o, d, radius, &grabbed);
  }
  bool held_ok = grabbed && pk.held && pk.held_target == 0 && (int)pk.held_index == want &&
                 fabsf(pk.held_distance - want_t) <= 1e-5f * want_t;
  if (ok && grabbed)
    fprintf(stderr, "  picked %u at t %.6g (cpu: %d at t %.6g)\n", pk.held_index, pk.held_distance, want, want_t);
  /* Drag it 0.3 m up for 60 substeps; the CPU reference runs the same substeps without the drag. */
  if (ok && held_ok) {
    target[0] = pos[k][0];
    target[1] = pos[k][1] + 0.3f;
    target[2] = pos[k][2];
    memcpy(pk.drag_target, target, sizeof target);
    start_dist = 0.3f;
    ok = rig_read(&r, r.cpu.x, r.cpu.v) && rig_gpu(&r, 60, &pk) && rig_read(&r, pos, NULL);
    r.cpu_steps = 20;
    rig_cpu(&r, 60);
    memcpy(cpu_free, r.cpu.x, (size_t)r.n * 16);
  }
  double dragged = 0, undragged = 0;
  for (int a = 0; a < 3; a++) {
    dragged += ((double)pos[k][a] - target[a]) * ((double)pos[k][a] - target[a]);
    undragged += ((double)cpu_free[k][a] - target[a]) * ((double)cpu_free[k][a] - target[a]);
  }
  dragged = sqrt(dragged);
  undragged = sqrt(undragged);
  free(pos);
  free(cpu_free);
  fl_picker_destroy(&pk);
  rig_destroy(&r);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE(!miss_grabbed);
  ENSURE(want_pin == -1 && !pin_grabbed);
  ENSURE_MSG(want == (int)k, "the CPU search picks %d, not the particle %u the ray goes through", want, k);
  ENSURE_MSG(held_ok, "gpu picked %d (held %d), cpu %d", grabbed ? (int)pk.held_index : -1, pk.held, want);
  fprintf(stderr, "  after dragging: %.3g m from the target (%.3g m without the drag, %.3g at the start)\n", dragged,
          undragged, start_dist);
  ENSURE(dragged < 0.1 * start_dist);
  ENSURE(undragged > start_dist);
}
FL_GPU_TEST(test_pick_and_drag, pick_body)

/* ---- report stats ---- */

static void report_stats_body(fl_gpu *gpu)
{
  /* Two sheets 5 mm apart (much closer than their thickness, the stats' search radius),
   * stretchy, so the strain is not zero. */
  static const char *const json =
      "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 4, \"iterations\": 1, \"gravity\": [0, -9.81, 0],\n"
      "           \"domain\": { \"min\": [-3, 0, -3], \"max\": [3, 4, 3] } },\n"
      "  \"objects\": [\n"
      "    { \"type\": \"cloth\", \"name\": \"upper\", \"resolution\": [12, 10], \"size\": [1, 0.8],\n"
      "      \"center\": [0, 1.505, 0], \"pin\": [\"top-left\", \"bottom-right\"], \"stretch_compliance\": 1e-3,\n"
      "      \"thickness\": 0.08 },\n"
      "    { \"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0, 0.5, 0], \"radius\": 0.4 },\n"
      "    { \"type\": \"cloth\", \"name\": \"lower\", \"resolution\": [10, 12], \"size\": [0.9, 1.1],\n"
      "      \"center\": [0.05, 1.5, 0], \"pin\": [\"left\"], \"stretch_compliance\": 2e-3, \"thickness\": 0.1 } ] }";
  fl_scene scene;
  fl_world *world = NULL;
  ENSURE(fl_fixture_make_world(gpu, json, &scene, &world));
  fl_profiler prof;
  bool ok = fl_profiler_create(gpu, &prof) && fl_fixture_step_frames(gpu, world, &prof, 20, true, NULL);
  fl_object_stats st[2];
  float (*pos[2])[4] = {NULL, NULL}, (*vel[2])[4] = {NULL, NULL};
  uint32_t count[2] = {0, 0};
  for (uint32_t o = 0; o < 2 && ok; o++)
    ok = fl_world_stats(world, o, &st[o]) && fl_world_read_state(world, o, &pos[o], &vel[o], &count[o]);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  const fl_cloth_desc *d[2] = {&scene.objects[0].cloth, &scene.objects[2].cloth};
  double max_s[2] = {0, 0}, mean_s[2] = {0, 0}, min_d[2] = {0, 0};
  for (uint32_t o = 0; o < 2 && ok; o++) {
    uint32_t nx = d[o]->resolution[0], ny = d[o]->resolution[1], edges = 0;
    double rest[2] = {d[o]->size[0] / (nx - 1.0), d[o]->size[1] / (ny - 1.0)};
    for (uint32_t j = 0; j < ny; j++)
      for (uint32_t i = 0; i < nx; i++)
        for (int dir = 0; dir < 2; dir++) {
          if ((dir == 0 && i + 1 == nx) || (dir == 1 && j + 1 == ny)) continue;
          const float *a = pos[o][j * nx + i], *b = pos[o][dir == 0 ? j * nx + i + 1 : (j + 1) * nx + i];
          double l = sqrt(((double)a[0] - b[0]) * ((double)a[0] - b[0]) + ((double)a[1] - b[1]) * ((double)a[1] - b[1]) +
                          ((double)a[2] - b[2]) * ((double)a[2] - b[2]));
          double s = fabs(l / rest[dir] - 1.0);
          max_s[o] = fmax(max_s[o], s);
          mean_s[o] += s;
          edges++;
        }
    mean_s[o] /= edges;
    /* Closest pair (p in o, q anywhere) that are not mesh neighbours, capped at the thickness. */
    min_d[o] = d[o]->thickness;
    for (uint32_t p = 0; p < count[o]; p++)
      for (uint32_t q2 = 0; q2 < 2; q2++)
        for (uint32_t q = 0; q < count[q2]; q++) {
          if (q2 == o) {
            int di = (int)(p % nx) - (int)(q % nx), dj = (int)(p / nx) - (int)(q / nx);
            if (abs(di) <= 2 && abs(dj) <= 2) continue;
          }
          const float *a = pos[o][p], *b = pos[q2][q];
          double l = sqrt(((double)a[0] - b[0]) * ((double)a[0] - b[0]) + ((double)a[1] - b[1]) * ((double)a[1] - b[1]) +
                          ((double)a[2] - b[2]) * ((double)a[2] - b[2]));
          min_d[o] = fmin(min_d[o], l);
        }
  }
  for (int o = 0; o < 2; o++) {
    free(pos[o]);
    free(vel[o]);
  }
  ENSURE_MSG(ok, "%s", fl_error_message());
  for (int o = 0; o < 2; o++) {
    fprintf(stderr, "  %s: strain max %.6g mean %.6g (cpu %.6g %.6g), closest non-neighbour %.6g (cpu %.6g)\n",
            st[o].name, figure(&st[o], "max_strain"), figure(&st[o], "mean_strain"), max_s[o], mean_s[o],
            figure(&st[o], "min_distance_nonneighbor"), min_d[o]);
    ENSURE(!isnan(figure(&st[o], "max_strain")));
    ENSURE(st[o].particles == d[o]->resolution[0] * d[o]->resolution[1]);
    ENSURE(max_s[o] > 1e-3 && mean_s[o] > 1e-4); /* it did stretch */
    ENSURE_NEAR(figure(&st[o], "max_strain"), max_s[o], 1e-6 * fmax(1.0, max_s[o]) + 2e-7);
    ENSURE_NEAR(figure(&st[o], "mean_strain"), mean_s[o], 1e-6 * fmax(1.0, mean_s[o]) + 2e-7);
    ENSURE(min_d[o] < d[o]->thickness); /* the two sheets are that close */
    ENSURE_NEAR(figure(&st[o], "min_distance_nonneighbor"), min_d[o], 1e-6);
  }
}
FL_GPU_TEST(test_report_stats, report_stats_body)

/* ---- self-collision ---- */

/* Two overlapping sheets (closer than their thickness), folded and moving:
 * the GPU's hash-based contacts match the CPU reference's. */
static void self_collision_body(fl_gpu *gpu)
{
  static const char *json =
      "{ " SIM("") ", \"objects\": ["
      " { \"type\": \"cloth\", \"name\": \"a\", \"resolution\": [12, 12], \"size\": [0.6, 0.6], \"center\": [0, 1, 0],"
      "   \"thickness\": 0.04, \"self_collision\": true, \"friction\": [0.5, 0.4] },"
      " { \"type\": \"cloth\", \"name\": \"b\", \"resolution\": [12, 12], \"size\": [0.6, 0.6], \"center\": [0.013, 1.015, 0.011],"
      "   \"thickness\": 0.04, \"self_collision\": true, \"friction\": [0.5, 0.4] } ] }";
  compare_case cc = {.json = json, .steps = 4, .bump = 0.01f, .jitter = 0.002f, .v0 = {0.3f, -0.2f, 0.1f},
                     .vjitter = 0.2f, .without = {"objects.a.self_collision=false", "objects.b.self_collision=false"}};
  compare(gpu, &cc, "self-collision");
}
FL_GPU_TEST(test_gpu_vs_cpu_self_collision, self_collision_body)

/* Smallest distance between a particle of object 0 and one of object 1 (all non-neighbours). */
static double min_pair_distance(const vec4f *a, uint32_t na, const vec4f *b, uint32_t nb)
{
  double best = INFINITY;
  for (uint32_t i = 0; i < na; i++)
    for (uint32_t j = 0; j < nb; j++) {
      double d2 = 0;
      for (int k = 0; k < 3; k++) d2 += ((double)a[i][k] - b[j][k]) * ((double)a[i][k] - b[j][k]);
      if (d2 < best) best = d2;
    }
  return sqrt(best);
}

/* Two sheets dropped onto each other and the ground: with self-collision no pair
 * of them ends closer than half the thickness; without it they pass through. */
static bool drop_two_sheets(fl_gpu *gpu, bool self, double *min_distance, double *self_reported)
{
  char json[2048];
  snprintf(json, sizeof json,
           "{ " SIM("") ", \"objects\": ["
           " { \"type\": \"cloth\", \"name\": \"low\", \"resolution\": [14, 14], \"size\": [0.8, 0.8], \"center\": [0, 0.3, 0],"
           "   \"thickness\": 0.03, \"self_collision\": %s, \"bending\": \"isometric\" },"
           " { \"type\": \"cloth\", \"name\": \"high\", \"resolution\": [14, 14], \"size\": [0.8, 0.8], \"center\": [0.004, 0.6, 0.003],"
           "   \"thickness\": 0.03, \"self_collision\": %s, \"bending\": \"isometric\" },"
           " { \"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0 },"
           " { \"type\": \"collider\", \"name\": \"bump\", \"shape\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 0.15 } ] }",
           self ? "true" : "false", self ? "true" : "false");
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  bool ok = fl_fixture_make_world(gpu, json, &scene, &world) && fl_profiler_create(gpu, &prof);
  ok = ok && fl_fixture_step_frames(gpu, world, &prof, 90, true, NULL);
  vec4f *pa = NULL, *va = NULL, *pb = NULL, *vb = NULL;
  uint32_t na = 0, nb = 0;
  ok = ok && fl_world_read_state(world, 0, (float(**)[4])&pa, (float(**)[4])&va, &na) &&
       fl_world_read_state(world, 1, (float(**)[4])&pb, (float(**)[4])&vb, &nb);
  if (ok) *min_distance = min_pair_distance((const vec4f *)pa, na, (const vec4f *)pb, nb);
  fl_object_stats st;
  *self_reported = INFINITY;
  if (ok && self && fl_world_stats(world, 0, &st)) *self_reported = figure(&st, "min_distance_nonneighbor");
  free(pa);
  free(va);
  free(pb);
  free(vb);
  if (world) fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  return ok;
}

static void cloth_on_cloth_body(fl_gpu *gpu)
{
  double with = 0, without = 0, reported = 0, ignored = 0;
  ENSURE_MSG(drop_two_sheets(gpu, true, &with, &reported), "%s", fl_error_message());
  ENSURE_MSG(drop_two_sheets(gpu, false, &without, &ignored), "%s", fl_error_message());
  fprintf(stderr, "  closest pair between the sheets: %.4f m with self-collision, %.4f m without; "
                  "report's min_distance_nonneighbor %.4f m (thickness 0.03)\n", with, without, reported);
  ENSURE(with >= 0.5 * 0.03);
  ENSURE(reported >= 0.5 * 0.03);  /* within the lower sheet, and against the upper one */
  ENSURE(without < 0.5 * 0.03);    /* the test can tell: without contacts the sheets interpenetrate */
}
FL_GPU_TEST(test_cloth_on_cloth, cloth_on_cloth_body)

static const fl_test_case cases[] = {
    {"gpu_vs_cpu_self_collision", test_gpu_vs_cpu_self_collision},
    {"gpu_vs_cpu_tetrahedral_normals", test_gpu_vs_cpu_tetrahedral_normals},
    {"cloth_on_cloth", test_cloth_on_cloth},
    {"gpu_vs_cpu_colouring_isometric", test_gpu_vs_cpu_colouring_isometric},
    {"gpu_vs_cpu_colouring_dihedral", test_gpu_vs_cpu_colouring_dihedral},
    {"gpu_vs_cpu_jacobi", test_gpu_vs_cpu_jacobi},
    {"gpu_vs_cpu_triangles", test_gpu_vs_cpu_triangles},
    {"gpu_vs_cpu_triangles_ground", test_gpu_vs_cpu_triangles_ground},
    {"gpu_vs_cpu_contact_guard", test_gpu_vs_cpu_contact_guard},
    {"gpu_vs_cpu_triangle_colliders", test_gpu_vs_cpu_triangle_colliders},
    {"gpu_vs_cpu_particle_cloth_colliders", test_gpu_vs_cpu_particle_cloth_colliders},
    {"gpu_vs_cpu_wind", test_gpu_vs_cpu_wind},
    {"gpu_vs_cpu_gust", test_gpu_vs_cpu_gust},
    {"gpu_vs_cpu_bdf2", test_gpu_vs_cpu_bdf2},
    {"gpu_vs_cpu_area_colouring", test_gpu_vs_cpu_area_colouring},
    {"gpu_vs_cpu_area_jacobi", test_gpu_vs_cpu_area_jacobi},
    {"gpu_vs_cpu_hierarchy", test_gpu_vs_cpu_hierarchy},
    {"bdf2_damping", test_bdf2_damping},
    {"gpu_vs_cpu_colliders", test_gpu_vs_cpu_colliders},
    {"gpu_vs_cpu_edge_damping", test_gpu_vs_cpu_edge_damping},
    {"gpu_vs_cpu_global_damping", test_gpu_vs_cpu_global_damping},
    {"gpu_vs_cpu_tethers", test_gpu_vs_cpu_tethers},
    {"tethers_hold", test_tethers_hold},
    {"global_damping_momentum", test_global_damping_momentum},
    {"xpbd_promise", test_xpbd_promise},
    {"free_fall", test_free_fall},
    {"no_penetration", test_no_penetration},
    {"pins", test_pins},
    {"builtin_scenes_no_nan", test_builtin_scenes_no_nan},
    {"pick_and_drag", test_pick_and_drag},
    {"report_stats", test_report_stats},
};
FL_TEST_MAIN(cases)
