/* tests/unit/test_colliders.c: the collider block on the CPU (sim/common/sdf_cpu.c,
 * collider_block.c, mesh_sdf.c; issue 17):
 *   mesh bake      every baked node equals the exact signed distance to the mesh
 *                  (closest triangle point, winding-number sign)
 *   mesh sample    between nodes the trilinear SDF stays within sqrt(3)/2 cell of the
 *                  exact one (the bound for any 1-Lipschitz field: sum w_i |p - n_i| <=
 *                  sqrt(sum w_i |p - n_i|^2) <= sqrt(3/4) cell) and has its sign wherever
 *                  |d| > one cell; a step of -d along the tetrahedral normal lands within
 *                  half a cell of the surface but near the blade's sharp rims (<= 4 %)
 *   keyframes      the pose interpolates position (linear) and rotation (slerp), holds
 *                  before the first and after the last keyframe; a rest point carried by
 *                  the pose keeps its distance; v and omega are the segment's
 *   rotation       the velocity at a point is the time derivative of that material
 *                  point's path (v + omega x r), for angular_velocity and keyframes
 *   bad input      an open mesh, decreasing keyframe times, keyframes with a velocity:
 *                  one clear line each. */
#include "test.h"

#include <math.h>
#include <stdlib.h>

#include "core/log.h"
#include "scene/scene.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/mesh_sdf.h"
#include "sim/common/sdf_cpu.h"

static uint32_t rng_state = 0x9e3779b9u;
static float rnd(float lo, float hi) { return fl_test_rnd(&rng_state, lo, hi); }

static const float BLADE_CENTER[3] = {0.3f, 0.4f, -0.2f};

static fl_collider_desc blade_desc(void)
{
  fl_collider_desc d = {.shape = FL_SHAPE_MESH, .scale = 1.0f, .resolution = 24, .friction = 0.3f,
                        .center = {BLADE_CENTER[0], BLADE_CENTER[1], BLADE_CENTER[2]},
                        .pivot = {BLADE_CENTER[0], BLADE_CENTER[1], BLADE_CENTER[2]}};
  if (snprintf(d.path, sizeof d.path, "%s/assets/meshes/plow_blade.obj", fl_test_source_dir()) >= (int)sizeof d.path)
    d.path[0] = 0; /* too long: the load fails and says so */
  return d;
}

static void test_mesh_bake_exact(void)
{
  fl_collider_desc d = blade_desc();
  fl_cpu_mesh mesh = {0};
  fl_mesh_sdf sdf;
  ENSURE_MSG(fl_obj_load_placed(d.path, d.scale, d.center, &mesh), "%s", fl_error_message());
  bool ok = fl_mesh_sdf_bake(&mesh, d.resolution, &sdf);
  ENSURE_MSG(ok, "%s", fl_error_message());
  double worst = 0;
  uint32_t inside = 0, checked = 0, n = sdf.dims[0] * sdf.dims[1] * sdf.dims[2];
  for (uint32_t i = 0; i < n; i += 3, checked++) {
    uint32_t x = i % sdf.dims[0], y = i / sdf.dims[0] % sdf.dims[1], z = i / (sdf.dims[0] * sdf.dims[1]);
    double p[3] = {sdf.grid_min[0] + x * (double)sdf.cell, sdf.grid_min[1] + y * (double)sdf.cell,
                   sdf.grid_min[2] + z * (double)sdf.cell};
    double exact = fl_mesh_sdf_exact(&mesh, p);
    worst = fmax(worst, fabs(exact - sdf.values[i]));
    inside += sdf.values[i] < 0;
  }
  fprintf(stderr, "  bake: %u x %u x %u nodes, cell %.4f m, %u of %u checked nodes inside, worst |baked - exact| %.2g\n",
          sdf.dims[0], sdf.dims[1], sdf.dims[2], sdf.cell, inside, checked, worst);
  fl_mesh_sdf_free(&sdf);
  fl_cpu_mesh_free(&mesh);
  ENSURE(worst < 1e-5);
  ENSURE(inside > 0 && inside < checked / 2); /* a thin blade: some nodes inside, most outside */
}

static void test_mesh_sample(void)
{
  fl_collider_desc d = blade_desc();
  fl_collider_block *b;
  size_t bytes;
  ENSURE_MSG(fl_collider_block_build(&d, NULL, 1, &b, &bytes), "%s", fl_error_message());
  fl_cpu_mesh mesh = {0};
  ENSURE(fl_obj_load_placed(d.path, d.scale, d.center, &mesh));
  const fl_gpu_collider *c = &b->records[0];
  float cell = c->grid_cell;
  double worst = 0, worst_projected = 0;
  uint32_t near = 0, sign_wrong = 0, projected_far = 0;
  rng_state = 0x1234567u;
  while (near < 2000) {
    float p[3];
    for (int a = 0; a < 3; a++) p[a] = BLADE_CENTER[a] + rnd(-0.35f, 0.35f);
    double pd[3] = {p[0], p[1], p[2]}, exact = fl_mesh_sdf_exact(&mesh, pd);
    float s = fl_collider_sdf_cpu(c, p, 0.0f);
    if (fabs(exact) > 1.0 * cell) sign_wrong += (exact < 0) != (s < 0);
    if (fabs(exact) > 3.0 * cell) continue;
    near++;
    worst = fmax(worst, fabs(s - exact));
    float n[3];
    fl_collider_normal_cpu(c, p, 0.0f, n);
    double q[3] = {p[0] - s * n[0], p[1] - s * n[1], p[2] - s * n[2]};
    double after = fabs(fl_mesh_sdf_exact(&mesh, q));
    worst_projected = fmax(worst_projected, after);
    projected_far += after > 0.5 * cell;
  }
  fprintf(stderr, "  sample: cell %.4f m; within 3 cells of the blade: worst |sdf - exact| %.3g cells; %u sign errors "
          "beyond one cell; after a step along the normal, %u of %u farther than half a cell (worst %.2g cells)\n",
          cell, worst / cell, sign_wrong, projected_far, near, worst_projected / cell);
  fl_cpu_mesh_free(&mesh);
  free(b);
  ENSURE(worst < 0.8660254 * cell); /* measured 0.49 cells: inside the 3-cell-thick blade, at its mid-surface ridge */
  ENSURE(sign_wrong == 0);
  ENSURE(projected_far <= near / 25); /* measured 39 of 2000: near the rims and the 2.75-degree tips */
}

/* A box collider on three keyframes: it rises 0.6 m and turns 90 degrees about y, then moves along x. */
static fl_collider_desc keyframed_box(void)
{
  const float half_pi = 1.5707963f;
  fl_collider_desc d = {.shape = FL_SHAPE_BOX, .center = {0, 1, 0}, .half_extents = {0.4f, 0.1f, 0.2f},
                        .pivot = {0, 1, 0}, .keyframe_count = 3};
  d.keyframes[0] = (fl_collider_keyframe){.t = 1.0f, .position = {0, 1, 0}};
  d.keyframes[1] = (fl_collider_keyframe){.t = 3.0f, .position = {0, 1.6f, 0}, .rotation = {0, half_pi, 0}};
  d.keyframes[2] = (fl_collider_keyframe){.t = 4.0f, .position = {1, 1.6f, 0}, .rotation = {0, half_pi, 0}};
  return d;
}

static void test_keyframes(void)
{
  fl_collider_desc desc = keyframed_box();
  fl_collider_block *b;
  size_t bytes;
  ENSURE(fl_collider_block_build(&desc, NULL, 1, &b, &bytes));
  const fl_gpu_collider *c = &b->records[0];
  float d[3], q[4], v[3], w[3];
  fl_collider_pose_cpu(c, 0.5f, d, q, v, w); /* before the first: held at it, still */
  ENSURE_NEAR(d[1], 0, 1e-6);
  ENSURE_NEAR(q[3], 1, 1e-6);
  ENSURE_NEAR(v[1], 0, 0);
  fl_collider_pose_cpu(c, 2.0f, d, q, v, w); /* half way through the first segment */
  ENSURE_NEAR(d[1], 0.3f, 1e-6);
  ENSURE_NEAR(2 * acosf(q[3]), 0.7853982f, 1e-5); /* 45 degrees */
  ENSURE_NEAR(q[1], sinf(0.3926991f), 1e-5);     /* about +y */
  ENSURE_NEAR(v[1], 0.3f, 1e-6);
  ENSURE_NEAR(w[1], 0.7853982f, 1e-5); /* 90 degrees in 2 s */
  fl_collider_pose_cpu(c, 3.5f, d, q, v, w); /* the second: translation only */
  ENSURE_NEAR(d[0], 0.5f, 1e-6);
  ENSURE_NEAR(v[0], 1.0f, 1e-6);
  ENSURE_NEAR(w[1], 0.0f, 1e-6);
  fl_collider_pose_cpu(c, 9.0f, d, q, v, w); /* after the last: held, still */
  ENSURE_NEAR(d[0], 1.0f, 1e-6);
  ENSURE_NEAR(v[0], 0.0f, 0);
  /* The box's end at rest (0.4, 1, 0) is, at t = 3, turned to (0, 1.6, -0.4): on the surface, the
   * rest box's far corner region is now along -z. */
  const float end[3] = {0.0f, 1.6f, -0.4f - 0.05f}, beside[3] = {0.45f, 1.6f, 0.0f};
  ENSURE_NEAR(fl_collider_sdf_cpu(c, end, 3.0f), 0.05f, 1e-5);
  ENSURE_NEAR(fl_collider_sdf_cpu(c, beside, 3.0f), 0.25f, 1e-5); /* the box is 0.2 deep along x now */
  float n[3];
  fl_collider_normal_cpu(c, end, 3.0f, n); /* the analytic normal turns with the box */
  ENSURE_NEAR(n[2], -1.0f, 1e-5);
  free(b);
}

/* The velocity fl_collider_velocity_cpu reports at a material point against the
 * central difference of that point's path over +-1 ms. */
static double velocity_error(const fl_gpu_collider *c, const float rest[3], float t)
{
  float x[3][3];
  const float ts[3] = {t - 1e-3f, t, t + 1e-3f};
  for (int k = 0; k < 3; k++) {
    float d[3], q[4], v[3], w[3], r[3];
    fl_collider_pose_cpu(c, ts[k], d, q, v, w);
    for (int a = 0; a < 3; a++) r[a] = rest[a] - c->pivot[a];
    fl_quat_rotate_cpu(q, r, x[k]);
    for (int a = 0; a < 3; a++) x[k][a] += c->pivot[a] + d[a];
  }
  float v[3];
  fl_collider_velocity_cpu(c, x[1], t, v);
  double err = 0;
  for (int a = 0; a < 3; a++) err = fmax(err, fabs(v[a] - (x[2][a] - x[0][a]) / 2e-3));
  return err;
}

static void test_rotation_velocity(void)
{
  fl_collider_desc descs[2] = {keyframed_box(),
                               {.shape = FL_SHAPE_CAPSULE, .a = {-0.3f, 0.5f, 0}, .b = {0.3f, 0.5f, 0},
                                .radius = 0.05f, .pivot = {0, 0.4f, 0}, .velocity = {0.2f, 0, 0},
                                .angular_velocity = {0.3f, 0.5f, 2.0f}}};
  fl_collider_block *b;
  size_t bytes;
  ENSURE(fl_collider_block_build(descs, NULL, 2, &b, &bytes));
  double worst = 0;
  rng_state = 0xfeedu;
  for (int i = 0; i < 200; i++) {
    float rest[3] = {rnd(-0.5f, 0.5f), rnd(0.5f, 1.5f), rnd(-0.5f, 0.5f)}, t = rnd(1.1f, 3.9f);
    if (fabsf(t - 3.0f) < 0.01f) continue; /* the keyframe itself: a kink */
    worst = fmax(worst, velocity_error(&b->records[i % 2], rest, t));
  }
  fprintf(stderr, "  rotation: worst |v(p) - d/dt path| %.2g m/s\n", worst);
  /* A point on the spinning capsule's surface moves with the capsule: its distance stays 0. */
  float p0[3] = {0.3f, 0.55f, 0.0f}, d[3], q[4], v[3], w[3], p[3], r[3];
  fl_collider_pose_cpu(&b->records[1], 2.0f, d, q, v, w);
  for (int a = 0; a < 3; a++) r[a] = p0[a] - b->records[1].pivot[a];
  fl_quat_rotate_cpu(q, r, p);
  for (int a = 0; a < 3; a++) p[a] += b->records[1].pivot[a] + d[a];
  float carried = fl_collider_sdf_cpu(&b->records[1], p, 2.0f);
  free(b);
  ENSURE(worst < 2e-3);
  ENSURE_NEAR(carried, 0.0f, 1e-5);
}

static void test_bad_input(void)
{
  fl_collider_desc d = blade_desc();
  ENSURE(snprintf(d.path, sizeof d.path, "%s/tests/scenes/bad/open_cube.obj", fl_test_source_dir()) < (int)sizeof d.path);
  const char *names[] = {"lid"};
  fl_collider_block *b = NULL;
  size_t bytes;
  fl_error_clear();
  ENSURE(!fl_collider_block_build(&d, names, 1, &b, &bytes));
  fprintf(stderr, "  open mesh: %s\n", fl_error_message());
  ENSURE(strstr(fl_error_message(), "collider \"lid\": ") == fl_error_message());
  ENSURE(strstr(fl_error_message(), "open_cube.obj: the mesh is open"));
  ENSURE(!strchr(fl_error_message(), '\n'));
  ENSURE(b == NULL);

  static fl_scene scene;
  static const char *const cases[][2] = {
      {"{\"objects\": [{\"type\": \"collider\", \"shape\": \"box\", \"half_extents\": [1, 1, 1], \"keyframes\": "
       "[{\"t\": 1}, {\"t\": 0.5}]}]}",
       "t.json: objects[0].keyframes[1].t: keyframe times must increase: 0.5 follows 1"},
      {"{\"objects\": [{\"type\": \"collider\", \"shape\": \"box\", \"half_extents\": [1, 1, 1], \"velocity\": [1, 0, 0], "
       "\"keyframes\": [{\"t\": 0}]}]}",
       "t.json: objects[0].velocity: a collider with \"keyframes\" moves along them only: remove \"velocity\""},
      {"{\"objects\": [{\"type\": \"collider\", \"shape\": \"sphere\", \"radius\": 1, \"keyframes\": []}]}",
       "t.json: objects[0].keyframes: expected a list of 1 to 16 keyframes"},
      {"{\"objects\": [{\"type\": \"collider\", \"shape\": \"sphere\", \"radius\": 1, \"keyframes\": [{\"t\": 0, "
       "\"spin\": 1}]}]}",
       "t.json: objects[0].keyframes[0]: unknown key \"spin\" for a keyframe"},
      {"{\"objects\": [{\"type\": \"collider\", \"shape\": \"mesh\"}]}",
       "t.json: objects[0]: missing required key \"path\" (a mesh collider needs \"path\": a closed .obj file)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fl_error_clear();
    ENSURE(!fl_scene_parse(cases[i][0], "t.json", NULL, 0, &scene));
    ENSURE_MSG(strncmp(fl_error_message(), cases[i][1], strlen(cases[i][1])) == 0, "got \"%s\", expected \"%s...\"",
               fl_error_message(), cases[i][1]);
  }
}

static const fl_test_case cases[] = {
    {"mesh_bake_exact", test_mesh_bake_exact}, {"mesh_sample", test_mesh_sample},
    {"keyframes", test_keyframes},             {"rotation_velocity", test_rotation_velocity},
    {"bad_input", test_bad_input},
};
FL_TEST_MAIN(cases)
