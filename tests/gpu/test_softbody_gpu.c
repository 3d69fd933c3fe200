/* tests/gpu/test_softbody_gpu.c: soft bodies and balloons in the XPBD system
 * on the GPU (sim/xpbd/xpbd.c; shaders/xpbd/tet_*, body_volume, contacts,
 * self_collide) against the CPU reference (sim/xpbd/xpbd_cpu.c), through the
 * real system: the same build on both sides (every particle then moved by
 * the same fixed +-1 mm, see rig_jitter), 20 substeps recorded with
 * fl_xpbd_record_substep, then every position within 1e-4 m (a NaN fails) and
 * each body's state (volume after the last substep, smallest ratio to k V0)
 * within a relative 1e-3:
 *   sphere_coloring   a voxel soft sphere (xpbd: edges + tet volumes, global
 *                     surface conservation) falling onto a ground plane
 *   sphere_jacobi     the same with the Jacobi solver
 *   sphere_symmetric  the same with "symmetric" (the colours backward in odd iterations)
 *   neohookean_box    a Neo-Hookean box sliding down onto the ground (each tet's two
 *                     constraints solved together, softbody_spec.h)
 *   neohookean_jacobi the same with the Jacobi solver
 *   balloon_ground    a balloon (pressure 1.3, local conservation) thrown onto the ground
 *   balloon_slide     a balloon (pressure 1.3, compliance 5e-4, global conservation, friction 0.05) thrown
 *                     sideways onto the ground: the fresh, graded global weights and the
 *                     contact load the kinetic friction counts (softbody_spec.h, CONTACT LOAD)
 *   balloon_pairs     the same with Diziol's opposite-pair weights (beta 0.5, s 2) and
 *                     velocity correction, and a soft sphere (local, pairs, velocity
 *                     correction) beside it; every body has pairs
 *   soft_on_balloon   a soft sphere dropped onto a balloon resting on the ground
 *                     (body-body particle collisions)
 *   balloon_pairs_wide, balloon_slide_wide: those two with the body pass in
 *                     GPUs' workgroups of FL_BODY_WORKGROUP (a CPU driver's
 *                     are smaller: its sums reduce in another order)
 * Each case also checks that what it tests happened (ground contacts, a
 * particle contact between the two bodies). */
#include "gpu_fixture.h"
#include "body_descs.h"

#include <math.h>
#include <stdlib.h>

#include "flurry_shared.h"
#include "gpu/profiler.h"
#include "scene/scene.h"
#include "sim/xpbd/xpbd.h"
#include "sim/xpbd/xpbd_cpu.h"
#include "sim/common/gpu_mesh.h"
#include "sim/common/sdf_cpu.h"
#include "sim/xpbd/body_build.h"

#define STEPS 20
static uint32_t g_body_workgroup; /* 0: the system's choice for the device */
#define POS_TOL 1e-4   /* m */
#define STATE_TOL 1e-3 /* relative */

typedef float vec4f[4];

/* ---- scene descriptions, every field set ---- */

static fl_softbody_desc soft_desc(fl_body_shape shape, fl_soft_model model, fl_body_common_desc common)
{
  fl_softbody_desc d;
  memset(&d, 0, sizeof d);
  d.common = common;
  d.shape = shape;
  d.half_extents[0] = 0.2f, d.half_extents[1] = 0.15f, d.half_extents[2] = 0.2f;
  d.minor_radius = 0.1f;
  d.resolution = 4;
  d.density = 200.0f;
  d.model = model;
  d.edge_compliance = 1e-5f;
  d.volume_compliance = 0.0f;
  d.youngs_modulus = 2e4f;
  d.poisson_ratio = 0.4f;
  d.render_detail = 8;
  return d;
}

static fl_sim_desc sim_desc(fl_solver solver)
{
  return (fl_sim_desc){.dt = 1.0f / 60.0f, .substeps = 4, .iterations = 4, .gravity = {0, -9.81f, 0},
                       .domain_min = {-5, -1, -5}, .domain_max = {5, 5, 5}, .solver = solver,
                       .relaxation = 1.5f, .collider_normals = FL_NORMALS_ANALYTIC};
}

/* ---- the system and its CPU reference, side by side ---- */

typedef struct {
  fl_gpu *gpu;
  fl_sim_desc sim;
  fl_gpu_collider colliders[FL_MAX_COLLIDERS]; /* the whole uniform block, unused records zero */
  uint32_t collider_count;
  fl_buffer collider_buf;
  fl_xpbd_system sys;
  fl_xpbd_cpu cpu;
  fl_profiler prof;
  uint32_t n;
} rig;

static void rig_destroy(rig *r)
{
  fl_xpbd_cpu_destroy(&r->cpu);
  fl_xpbd_destroy(&r->sys);
  fl_profiler_destroy(&r->prof);
  fl_buffer_destroy(r->gpu, &r->collider_buf);
}

/* The system for `count` built bodies over a ground plane at y = 0. */
static bool rig_create(fl_gpu *gpu, const fl_sim_desc *sim, const fl_body_build *bodies, uint32_t count, rig *r)
{
  memset(r, 0, sizeof *r);
  r->gpu = gpu;
  r->sim = *sim;
  fl_collider_desc ground = {.shape = FL_SHAPE_PLANE, .normal = {0, 1, 0}, .offset = 0.0f, .friction = 0.5f};
  fl_collider_pack(&ground, &r->colliders[r->collider_count++]);
  bool ok = fl_profiler_create(gpu, &r->prof) &&
            fl_buffer_create(gpu, sizeof r->colliders, FL_MEMORY_DEVICE, "test colliders", &r->collider_buf) &&
            fl_buffer_upload(gpu, &r->collider_buf, 0, r->colliders, sizeof r->colliders) &&
            fl_xpbd_create(gpu, NULL, NULL, 0, bodies, count, &r->sys) &&
            fl_xpbd_cpu_create(&r->sys.build, &r->cpu);
  r->prof.enabled = false; /* scopes only label the passes */
  if (ok && g_body_workgroup) r->sys.body_workgroup = g_body_workgroup;
  if (ok) r->n = r->sys.build.particle_count;
  return ok;
}

static float rig_h(const rig *r) { return r->sim.dt / (float)r->sim.substeps; }
static float rig_time(const rig *r, int k) { return (float)((double)rig_h(r) * (double)(k + 1)); }

/* Moves every particle by a fixed pseudo-random +-1 mm per component on both
 * sides. At the rest shape many constraints have C == 0 exactly and others
 * rounding noise; the Jacobi average divides by the count of nonzero
 * dlambdas, so there rounding decides the divisor and 1 ulp changes the result
 * by ~1e-3 m (the CPU against itself). Off the rest shape the count is stable. */
static bool rig_jitter(rig *r)
{
  uint32_t state = 0x2545f491u;
  for (uint32_t p = 0; p < r->n; p++)
    for (int a = 0; a < 3; a++) {
      state = state * 1664525u + 1013904223u;
      r->cpu.x[p][a] += 1e-3f * ((float)(state >> 8) / 8388608.0f - 1.0f);
    }
  return fl_buffer_upload(r->gpu, &r->sys.pos, 0, r->cpu.x, (VkDeviceSize)r->n * 16);
}

/* `steps` substeps on both sides (the GPU's in one command buffer). */
static bool rig_run(rig *r, int steps)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(r->gpu, &once)) return false;
  once.rec.prof = &r->prof;
  fl_profiler_reset(&r->prof, 0, FL_QUEUE_COMPUTE, once.rec.cmd);
  for (int s = 0; s < steps; s++) {
    fl_step step = {.sim = &r->sim, .colliders = &r->collider_buf, .collider_count = r->collider_count,
                    .h = rig_h(r), .inv_h = 1.0f / rig_h(r), .t = rig_time(r, s)};
    fl_xpbd_record_substep(&r->sys, &once.rec, &step);
  }
  if (!fl_fixture_once_end(&once)) return false;
  fl_profiler_collect(&r->prof, 0);
  for (int s = 0; s < steps; s++)
    fl_xpbd_cpu_substep(&r->cpu, &r->sim, r->colliders, r->collider_count, rig_h(r), rig_time(r, s));
  return true;
}

/* Relative difference of two state values (NaN: infinite). */
static double rel_diff(float g, float c)
{
  double d = fabs((double)g - (double)c) / fmax(fabs((double)c), 1e-12);
  return isnan(d) ? INFINITY : d;
}

typedef struct {
  double pos_err, volume_err, ratio_err;
  uint32_t flag_mismatches, ground_contacts, body_contacts;
} outcome;

/* Builds the bodies, runs both sides and compares; false (with the reason printed) on a set-up failure. */
static bool run_case(fl_gpu *gpu, const char *what, const fl_sim_desc *sim, const fl_body_build *bodies,
                     uint32_t count, outcome *out)
{
  memset(out, 0, sizeof *out);
  out->pos_err = out->volume_err = out->ratio_err = INFINITY;
  rig r;
  fl_error_clear();
  bool ok = rig_create(gpu, sim, bodies, count, &r) && rig_jitter(&r) && rig_run(&r, STEPS);
  vec4f *pos = calloc(r.n ? r.n : 1, sizeof *pos);
  uint32_t *flags = calloc(r.n ? r.n : 1, sizeof *flags);
  float(*state)[4] = calloc(count, sizeof *state);
  ok = ok && pos && flags && state && fl_buffer_readback(gpu, &r.sys.pos, 0, pos, (VkDeviceSize)r.n * 16) &&
       fl_buffer_readback(gpu, &r.sys.contact, 0, flags, (VkDeviceSize)r.n * 4) &&
       fl_xpbd_read_body_state(&r.sys, state);
  if (!ok) fprintf(stderr, "  %s: %s\n", what, fl_error_message());
  if (ok) {
    const fl_xpbd_build *b = &r.sys.build;
    double worst = 0;
    uint32_t at = 0;
    for (uint32_t p = 0; p < r.n; p++)
      for (int a = 0; a < 3; a++) {
        double d = fabs((double)pos[p][a] - (double)r.cpu.x[p][a]);
        if (!(d <= worst)) worst = d, at = p;
      }
    out->pos_err = isnan(worst) ? INFINITY : worst;
    out->volume_err = out->ratio_err = 0;
    for (uint32_t k = 0; k < count; k++) {
      out->volume_err = fmax(out->volume_err, rel_diff(state[k][0], r.cpu.body_state[k][0]));
      out->ratio_err = fmax(out->ratio_err, rel_diff(state[k][2], r.cpu.body_state[k][2]));
      fprintf(stderr, "  %s: body %u: V/V0 gpu %.6f cpu %.6f, min ratio gpu %.6f cpu %.6f\n", what, (unsigned)k,
              state[k][0] / b->bodies[k].rest_volume, r.cpu.body_state[k][0] / b->bodies[k].rest_volume, state[k][2],
              r.cpu.body_state[k][2]);
    }
    for (uint32_t p = 0; p < r.n; p++) {
      out->flag_mismatches += flags[p] != r.cpu.contact[p];
      if (!r.cpu.contact[p]) continue;
      /* A flagged particle clear of the ground (by more than its radius) touched another particle. */
      float radius = 0.5f * b->objects[b->particle_object[p]].thickness;
      if (r.cpu.x[p][1] > radius + 0.05f) out->body_contacts++;
      else out->ground_contacts++;
    }
    fprintf(stderr,
            "  %s: %u particles, max |gpu - cpu| = %.3g m (particle %u: gpu %.7g %.7g %.7g, cpu %.7g %.7g %.7g); "
            "state: volume %.3g, min ratio %.3g relative; contact flags differ on %u; ground contacts %u, "
            "particle contacts %u\n",
            what, (unsigned)r.n, out->pos_err, (unsigned)at, pos[at][0], pos[at][1], pos[at][2], r.cpu.x[at][0],
            r.cpu.x[at][1], r.cpu.x[at][2], out->volume_err, out->ratio_err, (unsigned)out->flag_mismatches,
            (unsigned)out->ground_contacts, (unsigned)out->body_contacts);
  }
  free(pos);
  free(flags);
  free(state);
  rig_destroy(&r);
  return ok;
}

/* Builds a body from a softbody or balloon desc (exactly one non-NULL) and
 * moves it up or down so that its lowest particle is at y = bottom (voxel
 * bodies reach beyond their shape by up to a cell). */
static bool build_body(const fl_softbody_desc *soft, const fl_balloon_desc *balloon, float bottom, fl_body_build *out)
{
  fl_error_clear();
  bool ok = soft ? fl_softbody_build(soft, "soft", out) : fl_balloon_build(balloon, "balloon", out);
  if (!ok) {
    fprintf(stderr, "  build: %s\n", fl_error_message());
    return false;
  }
  float lowest = INFINITY;
  for (uint32_t p = 0; p < out->particle_count; p++) lowest = fminf(lowest, out->positions[p][1]);
  float dy = bottom - lowest;
  for (uint32_t p = 0; p < out->particle_count; p++) out->positions[p][1] += dy;
  for (uint32_t v = 0; v < out->render.vertex_count; v++) out->render.positions[v][1] += dy;
  return true;
}

/* A balloon (bodies[0], lowest particle at balloon_bottom) and a soft body (bodies[1], at soft_bottom);
 * false (nothing left to free) when either fails to build. */
static bool build_balloon_and_soft(const fl_balloon_desc *bd, float balloon_bottom, const fl_softbody_desc *sd,
                                   float soft_bottom, fl_body_build bodies[2])
{
  if (!build_body(NULL, bd, balloon_bottom, &bodies[0])) return false;
  if (build_body(sd, NULL, soft_bottom, &bodies[1])) return true;
  fl_body_build_free(&bodies[0]);
  return false;
}

/* Runs the two bodies with the colouring solver (run_case), then frees them. */
static bool run_two_and_free(fl_gpu *gpu, const char *what, fl_body_build bodies[2], outcome *o)
{
  fl_sim_desc sim = sim_desc(FL_SOLVER_COLORING);
  bool ok = run_case(gpu, what, &sim, bodies, 2, o);
  fl_body_build_free(&bodies[0]);
  fl_body_build_free(&bodies[1]);
  return ok;
}

#define ENSURE_AGREES(o)                                                                              \
  do {                                                                                                \
    ENSURE_MSG((o).pos_err <= POS_TOL, "positions differ by %.3g m", (o).pos_err);                    \
    ENSURE_MSG((o).volume_err <= STATE_TOL, "volumes differ by %.3g (relative)", (o).volume_err);     \
    ENSURE_MSG((o).ratio_err <= STATE_TOL, "min ratios differ by %.3g (relative)", (o).ratio_err);    \
  } while (0)

static void soft_sphere(fl_gpu *gpu, fl_solver solver, const char *what)
{
  static const float down[3] = {0.3f, -1.0f, 0.0f};
  fl_softbody_desc d =
      soft_desc(FL_BODY_SPHERE, FL_SOFT_MODEL_XPBD, fl_test_body_common(0, 0.5f, 0, 0.25f, down, FL_VOLUME_CONSERVE_GLOBAL));
  fl_body_build body;
  ENSURE(build_body(&d, NULL, 0.02f + 0.01f, &body));
  fl_sim_desc sim = sim_desc(solver);
  outcome o;
  bool ok = run_case(gpu, what, &sim, &body, 1, &o);
  fl_body_build_free(&body);
  ENSURE(ok);
  ENSURE_AGREES(o);
  ENSURE(o.ground_contacts > 0);
}

static void sphere_coloring_body(fl_gpu *gpu) { soft_sphere(gpu, FL_SOLVER_COLORING, "soft sphere, colouring"); }
FL_GPU_TEST(test_sphere_coloring, sphere_coloring_body)

static void sphere_jacobi_body(fl_gpu *gpu) { soft_sphere(gpu, FL_SOLVER_JACOBI, "soft sphere, jacobi"); }
FL_GPU_TEST(test_sphere_jacobi, sphere_jacobi_body)

static void sphere_symmetric_body(fl_gpu *gpu) { soft_sphere(gpu, FL_SOLVER_SYMMETRIC, "soft sphere, symmetric"); }
FL_GPU_TEST(test_sphere_symmetric, sphere_symmetric_body)

static void neohookean_box(fl_gpu *gpu, fl_solver solver, const char *what)
{
  static const float slide[3] = {0.8f, -1.0f, 0.3f};
  fl_softbody_desc d = soft_desc(FL_BODY_BOX, FL_SOFT_MODEL_NEOHOOKEAN,
                                 fl_test_body_common(0, 0.5f, 0, 0.25f, slide, FL_VOLUME_CONSERVE_NONE));
  fl_body_build body;
  ENSURE(build_body(&d, NULL, 0.02f + 0.01f, &body));
  fl_sim_desc sim = sim_desc(solver);
  outcome o;
  bool ok = run_case(gpu, what, &sim, &body, 1, &o);
  fl_body_build_free(&body);
  ENSURE(ok);
  ENSURE_AGREES(o);
  ENSURE(o.ground_contacts > 0);
}
static void neohookean_box_body(fl_gpu *gpu) { neohookean_box(gpu, FL_SOLVER_COLORING, "neo-hookean box"); }
FL_GPU_TEST(test_neohookean_box, neohookean_box_body)

static void neohookean_jacobi_body(fl_gpu *gpu) { neohookean_box(gpu, FL_SOLVER_JACOBI, "neo-hookean box, jacobi"); }
FL_GPU_TEST(test_neohookean_jacobi, neohookean_jacobi_body)

static void balloon_ground_body(fl_gpu *gpu)
{
  static const float down[3] = {0.2f, -2.0f, 0.0f};
  fl_balloon_desc d = fl_test_balloon(fl_test_body_common(0, 0.5f, 0, 0.3f, down, FL_VOLUME_CONSERVE_LOCAL), 2, 1.3f);
  fl_body_build body;
  ENSURE(build_body(NULL, &d, 0.02f + 0.03f, &body));
  fl_sim_desc sim = sim_desc(FL_SOLVER_COLORING);
  outcome o;
  bool ok = run_case(gpu, "balloon on the ground", &sim, &body, 1, &o);
  fl_body_build_free(&body);
  ENSURE(ok);
  ENSURE_AGREES(o);
  ENSURE(o.ground_contacts > 0);
}
FL_GPU_TEST(test_balloon_ground, balloon_ground_body)

static void balloon_slide_body(fl_gpu *gpu)
{
  static const float slide[3] = {4.0f, -3.0f, 1.0f};
  fl_body_common_desc c = fl_test_body_common(0, 0.5f, 0, 0.3f, slide, FL_VOLUME_CONSERVE_GLOBAL);
  c.friction[0] = c.friction[1] = 0.05f; /* kinetic friction: its correction grows with the load */
  fl_balloon_desc d = fl_test_balloon(c, 2, 1.0f);
  d.pressure_compliance = 5e-4f; /* a soft gas, as in the balloons scene: the conservation does the rest */
  fl_body_build body;
  ENSURE(build_body(NULL, &d, 0.02f, &body));
  fl_sim_desc sim = sim_desc(FL_SOLVER_COLORING);
  outcome o;
  bool ok = run_case(gpu, "balloon sliding on the ground", &sim, &body, 1, &o);
  fl_body_build_free(&body);
  ENSURE(ok);
  ENSURE_AGREES(o);
  ENSURE(o.ground_contacts > 0);
}
FL_GPU_TEST(test_balloon_slide, balloon_slide_body)

/* Diziol's opposite pairs and velocity correction switched on in a common desc. */
static fl_body_common_desc with_pairs(fl_body_common_desc c)
{
  c.volume_beta = 0.5f;
  c.volume_pair_stiffness = 2.0f;
  c.volume_velocity = true;
  return c;
}

/* How many of the body's particles have an opposite particle other than themselves. */
static uint32_t paired(const fl_body_build *b)
{
  fl_xpbd_build x;
  if (!fl_xpbd_build_create(NULL, NULL, 0, b, 1, &x)) return 0;
  uint32_t n = 0;
  for (uint32_t p = 0; p < x.particle_count; p++) n += x.opposite[p] != p;
  fl_xpbd_build_destroy(&x);
  return n;
}

static void balloon_pairs_body(fl_gpu *gpu)
{
  static const float down[3] = {0.2f, -2.0f, 0.0f}, slide[3] = {-0.5f, -1.0f, 0.0f};
  fl_balloon_desc bd =
      fl_test_balloon(with_pairs(fl_test_body_common(0, 0.5f, 0, 0.3f, down, FL_VOLUME_CONSERVE_LOCAL)), 2, 1.3f);
  fl_softbody_desc sd =
      soft_desc(FL_BODY_SPHERE, FL_SOFT_MODEL_XPBD,
                with_pairs(fl_test_body_common(0.8f, 0.5f, 0, 0.2f, slide, FL_VOLUME_CONSERVE_LOCAL)));
  fl_body_build bodies[2];
  ENSURE(build_balloon_and_soft(&bd, 0.02f + 0.03f, &sd, 0.02f + 0.03f, bodies));
  uint32_t balloon_pairs = paired(&bodies[0]), soft_pairs = paired(&bodies[1]), balloon_n = bodies[0].particle_count;
  fprintf(stderr, "  pairs: balloon %u of %u particles, soft sphere %u of %u\n", (unsigned)balloon_pairs,
          (unsigned)bodies[0].particle_count, (unsigned)soft_pairs, (unsigned)bodies[1].particle_count);
  outcome o;
  ENSURE(run_two_and_free(gpu, "paired bodies on the ground", bodies, &o));
  ENSURE(balloon_pairs == balloon_n); /* every vertex of the icosphere is on the surface */
  ENSURE(soft_pairs > 0);             /* the sphere's surface vertices (not its inner ones) */
  ENSURE_AGREES(o);
  ENSURE(o.ground_contacts > 0);
}
FL_GPU_TEST(test_balloon_pairs, balloon_pairs_body)

static void balloon_pairs_wide_body(fl_gpu *gpu)
{
  g_body_workgroup = FL_BODY_WORKGROUP;
  balloon_pairs_body(gpu);
  g_body_workgroup = 0;
}
FL_GPU_TEST(test_balloon_pairs_wide, balloon_pairs_wide_body)

static void balloon_slide_wide_body(fl_gpu *gpu)
{
  g_body_workgroup = FL_BODY_WORKGROUP;
  balloon_slide_body(gpu);
  g_body_workgroup = 0;
}
FL_GPU_TEST(test_balloon_slide_wide, balloon_slide_wide_body)

static void soft_on_balloon_body(fl_gpu *gpu)
{
  static const float still[3] = {0, 0, 0}, down[3] = {0.1f, -2.0f, 0.0f};
  /* The balloon rests on the ground (its top at 0.02 + 0.6); the sphere's lowest particle starts 0.05 above it. */
  fl_balloon_desc bd = fl_test_balloon(fl_test_body_common(0, 0.5f, 0, 0.3f, still, FL_VOLUME_CONSERVE_GLOBAL), 2, 1.0f);
  fl_softbody_desc sd =
      soft_desc(FL_BODY_SPHERE, FL_SOFT_MODEL_XPBD, fl_test_body_common(0.05f, 1.0f, 0, 0.15f, down, FL_VOLUME_CONSERVE_LOCAL));
  fl_body_build bodies[2];
  ENSURE(build_balloon_and_soft(&bd, 0.02f, &sd, 0.02f + 0.6f + 0.04f + 0.05f, bodies));
  outcome o;
  ENSURE(run_two_and_free(gpu, "soft sphere on a balloon", bodies, &o));
  ENSURE_AGREES(o);
  ENSURE(o.body_contacts > 0);
}
FL_GPU_TEST(test_soft_on_balloon, soft_on_balloon_body)

static const fl_test_case TESTS[] = {
    {"sphere_coloring", test_sphere_coloring},   {"sphere_jacobi", test_sphere_jacobi},
    {"sphere_symmetric", test_sphere_symmetric},
    {"neohookean_box", test_neohookean_box},     {"neohookean_jacobi", test_neohookean_jacobi},
    {"balloon_ground", test_balloon_ground},
    {"balloon_slide", test_balloon_slide},
    {"soft_on_balloon", test_soft_on_balloon},   {"balloon_pairs", test_balloon_pairs},
    {"balloon_pairs_wide", test_balloon_pairs_wide}, {"balloon_slide_wide", test_balloon_slide_wide},
};
FL_TEST_MAIN(TESTS)
