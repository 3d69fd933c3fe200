/* tests/gpu/test_particle_kernels.c: the particle kernels on the GPU against
 * their CPU references (sim/particles/particles_cpu.c), and physical invariants
 * of the GPU substep:
 *   integrate  1000 random particles (some pinned, w = 0), 5 substeps in one
 *              command buffer == 5 x fl_particles_cpu_integrate (1e-5 of scale)
 *   collide    particles touching a plane, sphere, box, capsule, a moving
 *              sphere, the domain walls, a container box (inside), plus far and
 *              pinned ones: one pass, then 10 integrate+collide substeps, GPU ==
 *              fl_particles_cpu_collide (1e-4 of scale)
 *   moving     a mesh collider (a convex mesh, its SDF baked on a grid) on keyframes
 *              that move and turn it, a box spinning about a pivot and a capsule moving and
 *              spinning: the same comparison at times the poses differ, so the SDF,
 *              its tetrahedral gradient and the contact-point velocity in the
 *              friction match the CPU mirror (sim/common/sdf_cpu.c)
 *              (the variant with every collider feature: collider_features 3; the
 *              other collide tests run the translation-only one, 0)
 *   variants   the kernel table makes one collide pipeline per collider_features
 *              value and shares integrate (no collider code) between them
 *   free fall  x_n = x0 + v0 t + g h^2 n(n+1)/2 exactly (symplectic Euler),
 *              within 1% of x0 + v0 t + g t^2 / 2
 *   bouncing   300 substeps in a container box on the ground around a sphere:
 *              no particle inside a collider (sdf >= r - 1e-4) or outside the
 *              domain, nothing NaN; pinned particles never move. */
#include "gpu_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "flurry_shared.h"
#include "gpu/profiler.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/sdf_cpu.h"
#include "sim/particles/particles.h"
#include "sim/particles/particles_cpu.h"

typedef float vec4f[4];

/* ---- a fixed-seed generator ---- */

static uint32_t rng_state = 0x12345678u;
static float rnd(float lo, float hi) { return fl_test_rnd(&rng_state, lo, hi); }
static void rnd_dir(float d[3])
{
  float len;
  do {
    for (int a = 0; a < 3; a++) d[a] = rnd(-1, 1);
    len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  } while (len < 0.1f || len > 1.0f);
  for (int a = 0; a < 3; a++) d[a] /= len;
}

/* ---- a particles object on the GPU whose state the test sets ---- */

typedef struct {
  fl_gpu *gpu;
  fl_buffer colliders;
  fl_particles p;
  fl_sim_desc sim;
  uint32_t collider_count;
} rig;

/* `colliders`: the records of a whole collider block of `block_bytes` (a mesh or
 * keyframes in its tail), or with block_bytes 0 loose records put in a block here. */
static bool rig_create(fl_gpu *gpu, uint32_t count, const fl_gpu_collider *colliders, uint32_t collider_count,
                       size_t block_bytes, float radius, float restitution, float friction, rig *r)
{
  memset(r, 0, sizeof *r);
  r->gpu = gpu;
  r->collider_count = collider_count;
  /* The shader reads a block of FL_MAX_COLLIDERS records; unused ones stay zero. */
  static fl_gpu_collider records[FL_MAX_COLLIDERS];
  memset(records, 0, sizeof records);
  if (collider_count > FL_MAX_COLLIDERS) return false;
  if (collider_count) memcpy(records, colliders, collider_count * sizeof *colliders);
  const void *block = block_bytes ? (const void *)colliders : (const void *)records;
  /* The kernels keep only the collider code these colliders need, as the world sets it:
   * the static and translating tests run the translation-only variant, moving the full one. */
  gpu->collider_features = fl_collider_features(records, collider_count);
  size_t bytes = block_bytes ? block_bytes : sizeof records;
  fl_particles_desc desc = {.count = count, .center = {0, 1, 0}, .half_extents = {0.5f, 0.5f, 0.5f},
                            .radius = radius, .mass = (float)count, .restitution = restitution,
                            .friction = friction, .seed = 1};
  bool ok = fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, "test colliders", &r->colliders) &&
            fl_buffer_upload(gpu, &r->colliders, 0, block, bytes) &&
            fl_particles_create(gpu, "test particles", &desc, &r->p);
  if (!ok) fprintf(stderr, "  rig: %s\n", fl_error_message());
  return ok;
}

static void rig_destroy(rig *r)
{
  fl_particles_destroy(r->gpu, &r->p);
  fl_buffer_destroy(r->gpu, &r->colliders);
}

static bool rig_set(rig *r, const void *pos, const void *vel)
{
  VkDeviceSize bytes = (VkDeviceSize)r->p.count * 16;
  return fl_buffer_upload(r->gpu, &r->p.pos, 0, pos, bytes) && fl_buffer_upload(r->gpu, &r->p.vel, 0, vel, bytes);
}

static bool rig_get(rig *r, vec4f *pos, vec4f *vel)
{
  VkDeviceSize bytes = (VkDeviceSize)r->p.count * 16;
  return fl_buffer_readback(r->gpu, &r->p.pos, 0, pos, bytes) && fl_buffer_readback(r->gpu, &r->p.vel, 0, vel, bytes);
}

/* The step of a substep of length h ending at `time`. */
static fl_step rig_step(const rig *r, float h, float time)
{
  return (fl_step){.sim = &r->sim, .colliders = &r->colliders, .collider_count = r->collider_count, .h = h,
                   .inv_h = 1.0f / h, .t = time};
}

static void rig_push(const rig *r, float h, float time, fl_particles_push *push)
{
  fl_step step = rig_step(r, h, time);
  fl_particles_push_fill(&r->p, &step, push);
}

/* Records `steps` substeps of h ending at t0 + h (s + 1) with the raw dispatches:
 * integrate and/or collide, a barrier after each, in one command buffer. */
static bool rig_run(rig *r, int steps, float h, float t0, bool integrate, bool collide)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(r->gpu, &once)) return false;
  for (int s = 0; s < steps; s++) {
    fl_particles_push push;
    rig_push(r, h, t0 + h * (float)(s + 1), &push);
    if (integrate) fl_particles_record_integrate(&r->p, &once.rec, &push);
    if (collide) fl_particles_record_collide(&r->p, &once.rec, &push, &r->colliders);
  }
  return fl_fixture_once_end(&once);
}

/* Same on the CPU references. */
static void cpu_run(const rig *r, vec4f *pos, vec4f *vel, const fl_gpu_collider *colliders, int steps, float h,
                    float t0, bool integrate, bool collide)
{
  for (int s = 0; s < steps; s++) {
    fl_particles_push push;
    rig_push(r, h, t0 + h * (float)(s + 1), &push);
    if (integrate) fl_particles_cpu_integrate(pos, vel, &push);
    if (collide) fl_particles_cpu_collide(pos, vel, colliders, &push);
  }
}

/* max |a - b| over xyz divided by max(1, max |b|); w must match exactly. Reports the worst element. */
static double rel_error(const vec4f *a, const vec4f *b, uint32_t n, const char *what, bool *w_same)
{
  double scale = 1, worst = 0;
  uint32_t at = 0;
  for (uint32_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) scale = fmax(scale, fabs(b[i][k]));
  *w_same = true;
  for (uint32_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) {
      double d = fabs((double)a[i][k] - (double)b[i][k]);
      if (!(d <= worst)) {
        worst = d;
        at = i;
      }
    }
    if (memcmp(&a[i][3], &b[i][3], sizeof(float)) != 0) *w_same = false;
  }
  double rel = worst / scale;
  if (rel > 1e-6 || isnan(rel))
    fprintf(stderr, "  %s: worst at %u: gpu (%.8g %.8g %.8g) cpu (%.8g %.8g %.8g), %.3g of scale %.3g\n", what, at,
            a[at][0], a[at][1], a[at][2], b[at][0], b[at][1], b[at][2], rel, scale);
  return isnan(worst) ? INFINITY : rel;
}

/* ---- integrate ---- */

#define N_INTEGRATE 1000

static void integrate_body(fl_gpu *gpu)
{
  static vec4f pos0[N_INTEGRATE], vel0[N_INTEGRATE], gp[N_INTEGRATE], gv[N_INTEGRATE], cp[N_INTEGRATE],
      cv[N_INTEGRATE];
  rng_state = 0x2468aceu;
  for (int i = 0; i < N_INTEGRATE; i++) {
    for (int a = 0; a < 3; a++) {
      pos0[i][a] = rnd(-5, 5);
      vel0[i][a] = rnd(-3, 3);
    }
    pos0[i][3] = i % 10 == 3 ? 0.0f : rnd(0.5f, 2.0f); /* every 10th pinned (inverse mass 0) */
    vel0[i][3] = 0;
  }
  rig r;
  ENSURE(rig_create(gpu, N_INTEGRATE, NULL, 0, 0, 0.05f, 0.5f, 0.2f, &r));
  r.sim = (fl_sim_desc){.gravity = {0.7f, -9.81f, -0.4f}, .domain_min = {-100, -100, -100},
                        .domain_max = {100, 100, 100}};
  const float h = 1.0f / 240.0f;
  bool ok = rig_set(&r, pos0, vel0) && rig_run(&r, 5, h, 0.0f, true, false) && rig_get(&r, gp, gv);
  memcpy(cp, pos0, sizeof cp);
  memcpy(cv, vel0, sizeof cv);
  cpu_run(&r, cp, cv, NULL, 5, h, 0.0f, true, false);
  rig_destroy(&r);
  ENSURE_MSG(ok, "%s", fl_error_message());

  bool pw, vw;
  double ep = rel_error((const vec4f *)gp, (const vec4f *)cp, N_INTEGRATE, "integrate positions", &pw);
  double ev = rel_error((const vec4f *)gv, (const vec4f *)cv, N_INTEGRATE, "integrate velocities", &vw);
  fprintf(stderr, "  integrate: gpu vs cpu %.2g (positions), %.2g (velocities) of scale\n", ep, ev);
  ENSURE(ep <= 1e-5);
  ENSURE(ev <= 1e-5);
  ENSURE(pw && vw); /* w: inverse mass kept, velocity w zero */
  /* It really ran: v = v0 + 5 g h for free particles, unchanged for pinned ones. */
  for (int i = 0; i < N_INTEGRATE; i++)
    for (int a = 0; a < 3; a++) {
      float want = pos0[i][3] > 0 ? vel0[i][a] + 5 * h * r.sim.gravity[a] : vel0[i][a];
      ENSURE_NEAR(gv[i][a], want, 1e-5);
    }
}
FL_GPU_TEST(test_integrate, integrate_body)

/* ---- collide ---- */

#define R_PARTICLE 0.05f
#define MAX_COLLIDE 2048

static fl_gpu_collider make_plane(float nx, float ny, float nz, float offset, float friction)
{
  fl_gpu_collider c = {.a = {nx, ny, nz}, .r = offset, .friction = friction, .shape = FL_GPU_SHAPE_PLANE};
  return c;
}
static fl_gpu_collider make_sphere(const float center[3], float radius, const float velocity[3], float friction,
                                   bool inside)
{
  fl_gpu_collider c = {.a = {center[0], center[1], center[2]}, .r = radius,
                       .velocity = {velocity[0], velocity[1], velocity[2]}, .friction = friction,
                       .shape = FL_GPU_SHAPE_SPHERE, .inside = inside ? 1u : 0u};
  return c;
}
static fl_gpu_collider make_box(const float center[3], const float half[3], float friction, bool inside)
{
  fl_gpu_collider c = {.a = {center[0], center[1], center[2]}, .b = {half[0], half[1], half[2]},
                       .friction = friction, .shape = FL_GPU_SHAPE_BOX, .inside = inside ? 1u : 0u};
  return c;
}
static fl_gpu_collider make_capsule(const float a[3], const float b[3], float radius, float friction)
{
  fl_gpu_collider c = {.a = {a[0], a[1], a[2]}, .r = radius, .b = {b[0], b[1], b[2]},
                       .friction = friction, .shape = FL_GPU_SHAPE_CAPSULE};
  return c;
}

typedef struct {
  vec4f pos[MAX_COLLIDE], vel[MAX_COLLIDE];
  uint32_t n;
} particle_set;

/* Adds a particle at p with a random velocity (pinned: w = 0). */
static void add(particle_set *s, float x, float y, float z, bool pinned)
{
  if (s->n >= MAX_COLLIDE) return;
  vec4f *p = &s->pos[s->n], *v = &s->vel[s->n];
  (*p)[0] = x, (*p)[1] = y, (*p)[2] = z, (*p)[3] = pinned ? 0.0f : rnd(0.5f, 2.0f);
  for (int a = 0; a < 3; a++) (*v)[a] = rnd(-2, 2);
  (*v)[3] = 0;
  s->n++;
}

/* A point at signed distance `gap` outside a sphere's surface. */
static void add_near_sphere(particle_set *s, const float c[3], float radius, float gap)
{
  float d[3];
  rnd_dir(d);
  add(s, c[0] + d[0] * (radius + gap), c[1] + d[1] * (radius + gap), c[2] + d[2] * (radius + gap), false);
}

/* A point at distance `gap` outside (inside when negative) a random face of a box,
 * over the inner 70% of the face: away from edges, where the SDF has no kink. */
static void add_near_box(particle_set *s, const float c[3], const float half[3], float gap)
{
  int axis = (int)rnd(0, 2.999f);
  float sign = rnd(-1, 1) < 0 ? -1.0f : 1.0f, p[3];
  for (int a = 0; a < 3; a++) p[a] = c[a] + rnd(-0.7f, 0.7f) * half[a];
  p[axis] = c[axis] + sign * (half[axis] + gap);
  add(s, p[0], p[1], p[2], false);
}

/* A point at `gap` from a capsule's surface: around the side or over an end cap. */
static void add_near_capsule(particle_set *s, const float a[3], const float b[3], float radius, float gap)
{
  float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, d[3];
  float len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
  float t = rnd(-0.25f, 1.25f);
  rnd_dir(d);
  float along = (d[0] * ab[0] + d[1] * ab[1] + d[2] * ab[2]) / len2;
  if (t > 0 && t < 1) { /* the side: perpendicular to the axis */
    for (int k = 0; k < 3; k++) d[k] -= along * ab[k];
  } else if ((t <= 0 && along > 0) || (t >= 1 && along < 0)) { /* a cap: away from the segment */
    for (int k = 0; k < 3; k++) d[k] -= 2 * along * ab[k];
  }
  float dl = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  float tc = t < 0 ? 0 : t > 1 ? 1 : t;
  float p[3];
  for (int k = 0; k < 3; k++) p[k] = a[k] + tc * ab[k] + d[k] / dl * (radius + gap);
  add(s, p[0], p[1], p[2], false);
}

static float gap(void) { return rnd(-0.8f * R_PARTICLE, 1.2f * R_PARTICLE); } /* mostly touching */

/* Runs the set through one collide pass and through 10 integrate+collide substeps
 * on both sides and compares; `contacts_min` of the particles must be moved by the pass. */
static void compare_collide(fl_gpu *gpu, const particle_set *set, const fl_gpu_collider *colliders, uint32_t ncol,
                            size_t block_bytes, double tol, const fl_sim_desc *sim, float t0, uint32_t far_first, uint32_t far_count,
                            const char *what)
{
  static vec4f gp[MAX_COLLIDE], gv[MAX_COLLIDE], cp[MAX_COLLIDE], cv[MAX_COLLIDE];
  uint32_t n = set->n;
  rig r;
  ENSURE(rig_create(gpu, n, colliders, ncol, block_bytes, R_PARTICLE, 0.4f, 0.8f, &r));
  r.sim = *sim;
  const float h = 1.0f / 120.0f;
  /* One collide pass at time t0. */
  bool ok = rig_set(&r, set->pos, set->vel) && rig_run(&r, 1, 0.0f, t0, false, true) && rig_get(&r, gp, gv);
  memcpy(cp, set->pos, n * sizeof *cp);
  memcpy(cv, set->vel, n * sizeof *cv);
  cpu_run(&r, cp, cv, colliders, 1, 0.0f, t0, false, true);
  bool pw, vw;
  double ep = ok ? rel_error((const vec4f *)gp, (const vec4f *)cp, n, "collide positions", &pw) : INFINITY;
  double ev = ok ? rel_error((const vec4f *)gv, (const vec4f *)cv, n, "collide velocities", &vw) : INFINITY;
  uint32_t moved = 0, far_moved = 0, pinned_moved = 0, pinned = 0;
  for (uint32_t i = 0; i < n; i++) {
    bool changed = memcmp(cp[i], set->pos[i], 16) != 0 || memcmp(cv[i], set->vel[i], 16) != 0;
    bool g_changed = memcmp(gp[i], set->pos[i], 16) != 0 || memcmp(gv[i], set->vel[i], 16) != 0;
    moved += changed;
    if (i >= far_first && i < far_first + far_count) far_moved += changed || g_changed;
    if (set->pos[i][3] == 0) {
      pinned++;
      pinned_moved += changed || g_changed;
    }
  }
  /* Ten integrate + collide substeps from the original state, times t0 + h .. t0 + 10 h. */
  ok = ok && rig_set(&r, set->pos, set->vel) && rig_run(&r, 10, h, t0, true, true) && rig_get(&r, gp, gv);
  memcpy(cp, set->pos, n * sizeof *cp);
  memcpy(cv, set->vel, n * sizeof *cv);
  cpu_run(&r, cp, cv, colliders, 10, h, t0, true, true);
  bool pw10, vw10;
  double ep10 = ok ? rel_error((const vec4f *)gp, (const vec4f *)cp, n, "10 substeps positions", &pw10) : INFINITY;
  double ev10 = ok ? rel_error((const vec4f *)gv, (const vec4f *)cv, n, "10 substeps velocities", &vw10) : INFINITY;
  rig_destroy(&r);
  fprintf(stderr, "  %s: %u particles, %u in contact; gpu vs cpu: pass %.2g / %.2g, 10 substeps %.2g / %.2g\n",
          what, n, moved, ep, ev, ep10, ev10);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE_MSG(moved >= (n - far_count - pinned) / 2, "%s: only %u of %u particles were in contact", what, moved, n);
  ENSURE_MSG(far_moved == 0, "%s: %u particles far from everything changed", what, far_moved);
  ENSURE_MSG(pinned > 0 && pinned_moved == 0, "%s: %u of %u pinned particles changed", what, pinned_moved, pinned);
  ENSURE(ep <= tol && ev <= tol);
  ENSURE(pw && vw);
  ENSURE(ep10 <= tol && ev10 <= tol);
  ENSURE(pw10 && vw10);
}

static void collide_shapes_body(fl_gpu *gpu)
{
  static particle_set set;
  memset(&set, 0, sizeof set);
  rng_state = 0xc0ffee11u;
  const float zero[3] = {0, 0, 0};
  const float s_c[3] = {2, 1, 0}, b_c[3] = {-2, 1, 0}, b_h[3] = {0.5f, 0.3f, 0.4f};
  const float cap_a[3] = {0, 1, 2.5f}, cap_b[3] = {1, 1.6f, 2.5f};
  const float m_c[3] = {0, 1.2f, -2.5f}, m_v[3] = {0.5f, 0.1f, -0.3f};
  const float t0 = 0.7f;
  fl_gpu_collider col[5] = {
      make_plane(0, 1, 0, 0, 0.5f),
      make_sphere(s_c, 0.5f, zero, 0.3f, false),
      make_box(b_c, b_h, 0.6f, false),
      make_capsule(cap_a, cap_b, 0.25f, 0.4f),
      make_sphere(m_c, 0.4f, m_v, 0.2f, false), /* moving: at time t the centre is m_c + m_v t */
  };
  for (int i = 0; i < 200; i++) add(&set, rnd(-4.5f, -3), rnd(0.2f, 1.2f) * R_PARTICLE, rnd(-4.5f, -3), false);
  for (int i = 0; i < 200; i++) add_near_sphere(&set, s_c, 0.5f, gap());
  for (int i = 0; i < 300; i++) add_near_box(&set, b_c, b_h, gap());
  for (int i = 0; i < 250; i++) add_near_capsule(&set, cap_a, cap_b, 0.25f, gap());
  const float moved_c[3] = {m_c[0] + m_v[0] * t0, m_c[1] + m_v[1] * t0, m_c[2] + m_v[2] * t0};
  for (int i = 0; i < 200; i++) add_near_sphere(&set, moved_c, 0.4f, gap());
  /* Domain walls (x, z = +-5, top y = 5), including two-wall edges. */
  for (int i = 0; i < 200; i++) {
    float w = 5 - R_PARTICLE - gap(), y = rnd(2.5f, 4.5f), u = rnd(-4, 4);
    switch (i % 5) {
    case 0: add(&set, w, y, u, false); break;
    case 1: add(&set, -w, y, u, false); break;
    case 2: add(&set, u, y, w, false); break;
    case 3: add(&set, u, 5 - R_PARTICLE - gap(), -w, false); break;
    default: add(&set, u, 5 - R_PARTICLE - gap(), rnd(-4, 4), false); break;
    }
  }
  /* Deep below the ground: pushed all the way out. */
  for (int i = 0; i < 20; i++) add(&set, rnd(3, 4.5f), rnd(-0.9f, -0.2f), rnd(3, 4.5f), false);
  /* Pinned, some inside colliders: never changed. */
  for (int i = 0; i < 20; i++) add(&set, s_c[0] + rnd(-0.2f, 0.2f), s_c[1], s_c[2], true);
  for (int i = 0; i < 20; i++) add(&set, rnd(-4, 4), rnd(-0.5f, 0.02f), rnd(3.2f, 4), true);
  uint32_t far_first = set.n;
  for (int i = 0; i < 100; i++) add(&set, rnd(-0.8f, 0.8f), rnd(2.5f, 3.5f), rnd(-0.8f, 0.8f), false);
  fl_sim_desc sim = {.gravity = {0, -9.81f, 0}, .domain_min = {-5, -1, -5}, .domain_max = {5, 5, 5}};
  compare_collide(gpu, &set, col, 5, 0, 1e-4, &sim, t0, far_first, 100, "shapes and walls");
}
FL_GPU_TEST(test_collide_shapes, collide_shapes_body)

static void collide_container_body(fl_gpu *gpu)
{
  static particle_set set;
  fl_sim_desc sim = {.gravity = {0, -9.81f, 0}, .domain_min = {-5, -5, -5}, .domain_max = {5, 5, 5}};

  /* A container box: solid outside, so particles near its inner walls are pushed in. */
  memset(&set, 0, sizeof set);
  rng_state = 0xbadc0deu;
  const float c[3] = {0, 2, 0}, half[3] = {2, 1.5f, 1.8f};
  fl_gpu_collider box = make_box(c, half, 0.4f, true);
  for (int i = 0; i < 400; i++) add_near_box(&set, c, half, -rnd(0, 1.3f * R_PARTICLE)); /* inside, near a wall */
  for (int i = 0; i < 100; i++) add_near_box(&set, c, half, rnd(0.0f, 0.3f));           /* escaped: pulled back */
  for (int i = 0; i < 10; i++) add(&set, rnd(2.2f, 2.5f), 2, 0, true);
  uint32_t far_first = set.n;
  for (int i = 0; i < 50; i++) add(&set, rnd(-0.5f, 0.5f), rnd(1.5f, 2.5f), rnd(-0.5f, 0.5f), false);
  compare_collide(gpu, &set, &box, 1, 0, 1e-4, &sim, 0.25f, far_first, 50, "container box");
  if (fl_test_failed_current) return;

  /* A moving container sphere. */
  memset(&set, 0, sizeof set);
  const float sc[3] = {0.5f, 2, 0.5f}, sv[3] = {0.2f, -0.1f, 0.3f};
  fl_gpu_collider ball = make_sphere(sc, 2.0f, sv, 0.3f, true);
  const float t0 = 1.5f, at[3] = {sc[0] + sv[0] * t0, sc[1] + sv[1] * t0, sc[2] + sv[2] * t0};
  for (int i = 0; i < 400; i++) add_near_sphere(&set, at, 2.0f, -rnd(0, 1.3f * R_PARTICLE));
  for (int i = 0; i < 100; i++) add_near_sphere(&set, at, 2.0f, rnd(0.0f, 0.3f));
  for (int i = 0; i < 10; i++) add(&set, at[0] + 2.2f, at[1], at[2], true);
  far_first = set.n;
  for (int i = 0; i < 50; i++) add(&set, at[0] + rnd(-1, 1), at[1] + rnd(-1, 1), at[2] + rnd(-1, 1), false);
  compare_collide(gpu, &set, &ball, 1, 0, 1e-4, &sim, t0, far_first, 50, "moving container sphere");
}
FL_GPU_TEST(test_collide_container, collide_container_body)

/* Adds `count` particles around collider c at time t, each at a signed distance from it
 * in [-0.8 R, 1.2 R] (rejection sampling in the box centre +- extent). */
static void add_near_collider(particle_set *s, const fl_gpu_collider *c, float t, const float centre[3],
                              float extent, int count)
{
  for (int added = 0, tries = 0; added < count && tries < 200000; tries++) {
    float p[3];
    for (int a = 0; a < 3; a++) p[a] = centre[a] + rnd(-extent, extent);
    float d = fl_collider_sdf_cpu(c, p, t) - R_PARTICLE;
    if (d < -0.8f * R_PARTICLE || d > 0.2f * R_PARTICLE) continue;
    add(s, p[0], p[1], p[2], false);
    added++;
  }
}

/* Writes an icosphere of radius 0.45 (320 triangles, scaled to 0.45 x 0.3 x 0.6: not symmetric,
 * so its turns show) as a temporary OBJ; its path goes to `path`. */
static bool write_icosphere_obj(char *path, size_t size)
{
  fl_cpu_mesh m;
  const float origin[3] = {0, 0, 0};
  if (!fl_mesh_icosphere(origin, 0.45f, 2, &m)) return false;
  snprintf(path, size, "/tmp/colliders-test-icosphere-%d.obj", (int)getpid());
  FILE *f = fopen(path, "w");
  bool ok = f != NULL;
  for (uint32_t v = 0; ok && v < m.vertex_count; v++)
    fprintf(f, "v %.7f %.7f %.7f\n", m.positions[v][0], m.positions[v][1] * (2.0f / 3.0f), m.positions[v][2] * (4.0f / 3.0f));
  for (uint32_t t = 0; ok && t < m.triangle_count; t++)
    fprintf(f, "f %u %u %u\n", m.indices[3 * t] + 1, m.indices[3 * t + 1] + 1, m.indices[3 * t + 2] + 1);
  ok = f && fclose(f) == 0 && ok;
  fl_cpu_mesh_free(&m);
  return ok;
}

static void collide_moving_body(fl_gpu *gpu)
{
  static particle_set set;
  memset(&set, 0, sizeof set);
  rng_state = 0x5ca1ab1eu;
  const float quarter = 0.7853982f;
  fl_collider_desc descs[3] = {
      /* A convex mesh (an icosphere written to an OBJ here): the plow blade's concave side has a ridge
       * of its outside distance where the normal flips, and there SwiftShader and lavapipe disagree. */
      {.shape = FL_SHAPE_MESH, .scale = 1.0f, .resolution = 24, .center = {-2, 1.5f, 0}, .pivot = {-2, 1.5f, 0},
       .friction = 0.5f, .keyframe_count = 3},
      {.shape = FL_SHAPE_BOX, .center = {2, 1.5f, 0}, .half_extents = {0.6f, 0.2f, 0.4f}, .pivot = {2, 1.2f, 0},
       .angular_velocity = {0.4f, 1.5f, -0.8f}, .friction = 0.6f},
      {.shape = FL_SHAPE_CAPSULE, .a = {-0.5f, 1.5f, 2.5f}, .b = {0.5f, 1.8f, 2.5f}, .radius = 0.25f,
       .pivot = {0, 1.65f, 2.5f}, .velocity = {0.3f, 0, -0.2f}, .angular_velocity = {0, 0, 3.0f}, .friction = 0.4f},
  };
  ENSURE(write_icosphere_obj(descs[0].path, sizeof descs[0].path));
  descs[0].keyframes[0] = (fl_collider_keyframe){.t = 0, .position = {-2, 1.5f, 0}};
  descs[0].keyframes[1] = (fl_collider_keyframe){.t = 1, .position = {-1.8f, 1.7f, 0.1f}, .rotation = {0, quarter, 0}};
  descs[0].keyframes[2] = (fl_collider_keyframe){.t = 2, .position = {-1.5f, 1.7f, 0.3f},
                                                 .rotation = {quarter, quarter, 0}};
  fl_collider_block *b = NULL;
  size_t bytes;
  ENSURE_MSG(fl_collider_block_build(descs, NULL, 3, &b, &bytes), "%s", fl_error_message());
  ENSURE(fl_collider_features(b->records, 3) == FL_COLLIDER_FEATURES_ALL);
  const float t0 = 0.6f; /* mid-segment: the blade moving and turning */
  const float *centres[3] = {descs[0].keyframes[0].position, descs[1].center, descs[2].pivot};
  const float extents[3] = {0.7f, 1.0f, 0.9f};
  for (int c = 0; c < 3; c++) add_near_collider(&set, &b->records[c], t0, centres[c], extents[c], 400);
  for (int i = 0; i < 10; i++) add(&set, 2 + rnd(-0.1f, 0.1f), 1.5f, 0, true); /* pinned inside the box */
  uint32_t far_first = set.n;
  for (int i = 0; i < 50; i++) add(&set, rnd(-0.5f, 0.5f), rnd(3.5f, 4.5f), rnd(-4, -3), false);
  fl_sim_desc sim = {.gravity = {0, -9.81f, 0}, .domain_min = {-5, -1, -5}, .domain_max = {5, 5, 5}};
  remove(descs[0].path);
  /* Turning colliders evaluate sin and cos on the device; SwiftShader's are ~1e-4 rad off (lavapipe
   * agrees with the CPU to 2e-6), which a contact turns into 1e-2 of the velocity scale. */
  bool swiftshader = strstr(gpu->props.deviceName, "SwiftShader") != NULL;
  double tol = swiftshader ? 2e-2 : 1e-4;
  if (swiftshader) fprintf(stderr, "  SwiftShader: tolerance %g (its sin and cos)\n", tol);
  compare_collide(gpu, &set, b->records, 3, bytes, tol, &sim, t0, far_first, 50,
                  "moving mesh, spinning box and capsule");
  free(b);
}
FL_GPU_TEST(test_collide_moving, collide_moving_body)

/* fl_kernel keys the kernels with collider code on fl_gpu.collider_features. */
static void kernel_variants_body(fl_gpu *gpu)
{
  const fl_pipeline *c[2], *i[2];
  for (uint32_t f = 0; f < 2; f++) {
    gpu->collider_features = f ? FL_COLLIDER_FEATURES_ALL : 0u;
    c[f] = fl_kernel(gpu, "particles/collide", sizeof(fl_particles_push), 0);
    i[f] = fl_kernel(gpu, "particles/integrate", sizeof(fl_particles_push), 0);
    ENSURE_MSG(c[f] && i[f], "%s", fl_error_message());
  }
  ENSURE(c[0] != c[1] && c[0]->pipeline != c[1]->pipeline);
  ENSURE(c[0]->uses_collider_features && c[1]->uses_collider_features);
  ENSURE(i[0] == i[1] && !i[0]->uses_collider_features);
  gpu->collider_features = 0u; /* found again, not made again */
  ENSURE(fl_kernel(gpu, "particles/collide", sizeof(fl_particles_push), 0) == c[0]);
  gpu->collider_features = FL_COLLIDER_FEATURES_ALL;
}
FL_GPU_TEST(test_kernel_variants, kernel_variants_body)

/* ---- invariants ---- */

/* Records `steps` substeps through fl_particles_record_substep (the world's path) with profiler scopes. */
static bool record_substeps(rig *r, fl_profiler *prof, int steps, float h, double *time)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(r->gpu, &once)) return false;
  once.rec.prof = prof;
  fl_profiler_reset(prof, 0, FL_QUEUE_COMPUTE, once.rec.cmd);
  for (int s = 0; s < steps; s++) {
    *time += h;
    fl_step step = rig_step(r, h, (float)*time);
    fl_particles_record_substep(&r->p, &once.rec, &step);
  }
  bool ok = fl_fixture_once_end(&once);
  if (ok) fl_profiler_collect(prof, 0);
  return ok;
}

#define N_FALL 64

static void free_fall_body(fl_gpu *gpu)
{
  static vec4f pos0[N_FALL], vel0[N_FALL], pos[N_FALL], vel[N_FALL];
  rng_state = 0x5eed5eedu;
  for (int i = 0; i < N_FALL; i++) {
    for (int a = 0; a < 3; a++) {
      pos0[i][a] = rnd(-5, 5);
      vel0[i][a] = rnd(-3, 3);
    }
    pos0[i][3] = rnd(0.5f, 2);
    vel0[i][3] = 0;
  }
  rig r;
  ENSURE(rig_create(gpu, N_FALL, NULL, 0, 0, R_PARTICLE, 0.5f, 0.5f, &r));
  r.sim = (fl_sim_desc){.gravity = {1.0f, -9.81f, -0.5f}, .domain_min = {-1e4f, -1e4f, -1e4f},
                        .domain_max = {1e4f, 1e4f, 1e4f}};
  fl_profiler prof;
  ENSURE(fl_profiler_create(gpu, &prof));
  const int n = 300;
  const double h = 1.0 / 600.0, t = n * h;
  double time = 0;
  bool ok = rig_set(&r, pos0, vel0);
  for (int chunk = 0; chunk < 3 && ok; chunk++) /* 3 command buffers of 100 substeps (200 scopes each) */
    ok = record_substeps(&r, &prof, n / 3, (float)h, &time);
  ok = ok && rig_get(&r, pos, vel);
  const fl_profile_stat *st = fl_profiler_find(&prof, "particles/integrate");
  bool timed = !prof.can_time[FL_QUEUE_COMPUTE] || (st && st->count == 3 && st->executions == (uint32_t)n / 3);
  fl_profiler_destroy(&prof);
  const float *g = r.sim.gravity;
  rig_destroy(&r);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE(timed);

  double worst_formula = 0, worst_analytic = 0, worst_v = 0;
  double g_len = sqrt((double)g[0] * g[0] + (double)g[1] * g[1] + (double)g[2] * g[2]);
  double half_gt2 = 0.5 * g_len * t * t;
  for (int i = 0; i < N_FALL; i++) {
    double err_f = 0, err_a = 0;
    for (int a = 0; a < 3; a++) {
      /* Symplectic Euler: v_k = v0 + k g h, x_n = x0 + h sum_{k=1..n} v_k. */
      double x_n = pos0[i][a] + vel0[i][a] * t + g[a] * h * h * n * (n + 1) / 2.0;
      double x_exact = pos0[i][a] + vel0[i][a] * t + 0.5 * g[a] * t * t;
      double v_n = vel0[i][a] + g[a] * h * n;
      err_f = fmax(err_f, fabs(pos[i][a] - x_n) / fmax(1.0, fabs(x_n)));
      err_a += (pos[i][a] - x_exact) * (pos[i][a] - x_exact);
      worst_v = fmax(worst_v, fabs(vel[i][a] - v_n) / fmax(1.0, fabs(v_n)));
    }
    worst_formula = fmax(worst_formula, err_f);
    worst_analytic = fmax(worst_analytic, sqrt(err_a) / half_gt2);
  }
  /* The formula's own distance from the analytic fall is g h t / 2 = 0.33% of g t^2 / 2 here. */
  fprintf(stderr, "  free fall: %.2g from the symplectic Euler formula, %.3f%% from g t^2/2 (expected %.3f%%)\n",
          worst_formula, 100 * worst_analytic, 100 * (h / t));
  ENSURE(worst_formula <= 1e-4);
  ENSURE(worst_v <= 1e-4);
  ENSURE(worst_analytic <= 0.01);
  ENSURE_NEAR(worst_analytic, h / t, 1e-3); /* and it is the expected O(h) offset, not zero */
  for (int i = 0; i < N_FALL; i++) ENSURE(pos[i][3] == pos0[i][3]);
}
FL_GPU_TEST(test_free_fall, free_fall_body)

#define N_BOUNCE 1000
#define N_PINNED 40

static void bouncing_body(fl_gpu *gpu)
{
  static vec4f pos0[N_BOUNCE], vel0[N_BOUNCE], pos[N_BOUNCE], vel[N_BOUNCE];
  rng_state = 0xb0b0cafeu;
  const float zero[3] = {0, 0, 0}, sc[3] = {0, 0.6f, 0}, bc[3] = {0, 1.5f, 0}, bh[3] = {1.5f, 1.5f, 1.5f};
  fl_gpu_collider col[3] = {make_plane(0, 1, 0, 0, 0.3f), make_sphere(sc, 0.4f, zero, 0.3f, false),
                            make_box(bc, bh, 0.3f, true)};
  for (int i = 0; i < N_BOUNCE; i++) {
    bool pinned = i < N_PINNED;
    do {
      pos0[i][0] = rnd(-1.3f, 1.3f);
      pos0[i][1] = rnd(0.3f, 2.7f);
      pos0[i][2] = rnd(-1.3f, 1.3f);
    } while (!pinned && fl_collider_sdf_cpu(&col[1], pos0[i], 0) < R_PARTICLE + 0.01f);
    if (i < 10) { /* pinned inside the sphere and outside the container and domain */
      pos0[i][0] = sc[0] + rnd(-0.2f, 0.2f), pos0[i][1] = sc[1], pos0[i][2] = sc[2];
    } else if (i < 20) {
      pos0[i][0] = 2.5f, pos0[i][1] = rnd(-2, 5);
    }
    for (int a = 0; a < 3; a++) vel0[i][a] = pinned ? 0.0f : rnd(-2, 2);
    pos0[i][3] = pinned ? 0.0f : rnd(0.5f, 2);
    vel0[i][3] = 0;
  }
  rig r;
  ENSURE(rig_create(gpu, N_BOUNCE, col, 3, 0, R_PARTICLE, 0.6f, 0.3f, &r));
  r.sim = (fl_sim_desc){.gravity = {0, -9.81f, 0}, .domain_min = {-2, -1, -2}, .domain_max = {2, 4, 2}};
  fl_profiler prof;
  ENSURE(fl_profiler_create(gpu, &prof));
  bool ok = rig_set(&r, pos0, vel0);
  const float h = 1.0f / 240.0f;
  double time = 0, worst_pen[3] = {0, 0, 0}, worst_out = 0;
  uint32_t pinned_moved = 0, nan_count = 0, inside = 0, outside = 0;
  for (int chunk = 0; chunk < 6 && ok; chunk++) { /* 6 x 50 = 300 substeps, checked after each 50 */
    ok = record_substeps(&r, &prof, 50, h, &time) && rig_get(&r, pos, vel);
    for (int i = 0; i < N_BOUNCE && ok; i++) {
      if (i < N_PINNED) {
        pinned_moved += memcmp(pos[i], pos0[i], 16) != 0 || memcmp(vel[i], vel0[i], 16) != 0;
        continue;
      }
      bool finite = true;
      for (int a = 0; a < 4; a++) finite &= isfinite(pos[i][a]) && isfinite(vel[i][a]);
      if (!finite) {
        nan_count++;
        continue;
      }
      for (int c = 0; c < 3; c++) {
        double pen = R_PARTICLE - fl_collider_sdf_cpu(&col[c], pos[i], (float)time);
        worst_pen[c] = fmax(worst_pen[c], pen);
        inside += pen > 1e-4;
      }
      for (int a = 0; a < 3; a++) {
        double out = fmax(r.sim.domain_min[a] + R_PARTICLE - pos[i][a], pos[i][a] - (r.sim.domain_max[a] - R_PARTICLE));
        worst_out = fmax(worst_out, out);
        outside += out > 1e-4;
      }
    }
  }
  const fl_profile_stat *st = fl_profiler_find(&prof, "particles/collide");
  bool timed = !prof.can_time[FL_QUEUE_COMPUTE] || (st && st->count == 6 && st->executions == 50);
  fl_profiler_destroy(&prof);
  rig_destroy(&r);
  fprintf(stderr, "  bouncing: deepest penetration (m): ground %.2g, sphere %.2g, container %.2g; domain %.2g\n",
          worst_pen[0], worst_pen[1], worst_pen[2], worst_out);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE(timed);
  ENSURE(nan_count == 0);
  ENSURE_MSG(inside == 0, "%u particle-collider penetrations deeper than 1e-4", inside);
  ENSURE_MSG(outside == 0, "%u particles outside the domain", outside);
  ENSURE_MSG(pinned_moved == 0, "%u pinned particle states changed", pinned_moved);
  /* Something happened: the particles fell and settled. */
  double mean_y0 = 0, mean_y = 0;
  for (int i = N_PINNED; i < N_BOUNCE; i++) {
    mean_y0 += pos0[i][1];
    mean_y += pos[i][1];
  }
  ENSURE(mean_y < mean_y0 - 0.2 * (N_BOUNCE - N_PINNED));
}
FL_GPU_TEST(test_bouncing_invariants, bouncing_body)

static const fl_test_case cases[] = {
    {"integrate", test_integrate},
    {"collide_shapes", test_collide_shapes},
    {"collide_container", test_collide_container},
    {"collide_moving", test_collide_moving},
    {"kernel_variants", test_kernel_variants},
    {"free_fall", test_free_fall},
    {"bouncing_invariants", test_bouncing_invariants},
};
FL_TEST_MAIN(cases)
