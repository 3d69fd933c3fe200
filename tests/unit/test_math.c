/* tests/unit/test_math: the CPU-side math: camera matrices (Vulkan clip
 * conventions), the SDF mirror against analytic distances and normals, the
 * procedural meshes, and the overlay's text layout. */
#include "test.h"

#include "render/camera.h"
#include "render/overlay.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/sdf_cpu.h"

#include <math.h>
#include <stdlib.h>

static void project(const fl_camera *cam, const float p[3], float ndc[3])
{
  mat4 view, proj, vp;
  fl_camera_matrices(cam, 16.0f / 9.0f, view, proj);
  glm_mat4_mul(proj, view, vp);
  vec4 x = {p[0], p[1], p[2], 1.0f}, clip;
  glm_mat4_mulv(vp, x, clip);
  for (int i = 0; i < 3; i++) ndc[i] = clip[i] / clip[3];
}

static void test_camera_projects_target_to_center(void)
{
  fl_camera cam;
  float eye[3] = {3, 4, 5}, target[3] = {0, 1, 0}, ndc[3];
  fl_camera_look(&cam, eye, target);
  project(&cam, target, ndc);
  ENSURE_NEAR(ndc[0], 0, 1e-5);
  ENSURE_NEAR(ndc[1], 0, 1e-5);
  ENSURE(ndc[2] > 0 && ndc[2] < 1);
  float e[3];
  fl_camera_eye(&cam, e);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(e[i], eye[i], 1e-4);
}

/* The lens shift (the panel's): the target lands shift_x right of the middle, at
 * the same height and depth, and the picking ray through that pixel hits it. */
static void test_camera_lens_shift(void)
{
  fl_camera cam;
  float eye[3] = {3, 4, 5}, target[3] = {0, 1, 0}, ndc[3], plain[3];
  fl_camera_look(&cam, eye, target);
  ENSURE(cam.shift_x == 0.0f);
  project(&cam, target, plain);
  cam.shift_x = 0.23f;
  project(&cam, target, ndc);
  ENSURE_NEAR(ndc[0], 0.23, 1e-5);
  ENSURE_NEAR(ndc[1], 0, 1e-5);
  ENSURE_NEAR(ndc[2], plain[2], 1e-6);
  float w = 1280, h = 720, dir[3], e[3], to[3];
  fl_camera_ray(&cam, (ndc[0] + 1.0f) * 0.5f * w, (ndc[1] + 1.0f) * 0.5f * h, w, h, dir);
  fl_camera_eye(&cam, e);
  float len = sqrtf((target[0] - e[0]) * (target[0] - e[0]) + (target[1] - e[1]) * (target[1] - e[1]) +
                    (target[2] - e[2]) * (target[2] - e[2]));
  for (int i = 0; i < 3; i++) to[i] = (target[i] - e[i]) / len;
  for (int i = 0; i < 3; i++) ENSURE_NEAR(dir[i], to[i], 1e-4);
}

static void test_camera_vulkan_conventions(void)
{
  fl_camera cam;
  float eye[3] = {0, 0, 5}, target[3] = {0, 0, 0}, ndc[3];
  fl_camera_look(&cam, eye, target);
  float above[3] = {0, 1, 0}, nearer[3] = {0, 0, 4}, farther[3] = {0, 0, -4}, right[3] = {1, 0, 0};
  project(&cam, above, ndc);
  ENSURE(ndc[1] < 0); /* Vulkan clip space: +y is down, so "up" projects to negative y */
  project(&cam, right, ndc);
  ENSURE(ndc[0] > 0);
  float zn[3], zf[3];
  project(&cam, nearer, zn);
  project(&cam, farther, zf);
  ENSURE(zn[2] < zf[2]); /* depth grows with distance, within [0, 1] */
  ENSURE(zn[2] >= 0 && zf[2] <= 1);
}

static void test_camera_orbit_keeps_distance(void)
{
  fl_camera cam;
  float eye[3] = {2, 2, 2}, target[3] = {0, 0, 0}, e[3];
  fl_camera_look(&cam, eye, target);
  float d0 = cam.distance;
  fl_camera_orbit(&cam, 120, -40);
  fl_camera_eye(&cam, e);
  ENSURE_NEAR(sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]), d0, 1e-4);
  fl_camera_orbit(&cam, 0, 1e6f); /* pitch clamps short of the pole */
  ENSURE(cam.pitch < 1.5708f);
  fl_camera_zoom(&cam, 1);
  ENSURE(cam.distance < d0);
}

static fl_gpu_collider collider(fl_collider_shape shape, bool inside)
{
  fl_collider_desc d = {.shape = shape, .normal = {0, 1, 0}, .offset = 0.5f, .center = {1, 2, 3}, .radius = 0.5f,
                        .half_extents = {1, 0.5f, 2}, .a = {0, 0, 0}, .b = {0, 2, 0}, .friction = 0.3f,
                        .inside = inside};
  fl_gpu_collider c;
  fl_collider_pack(&d, &c);
  return c;
}

static void test_sdf_analytic_distances(void)
{
  fl_gpu_collider plane = collider(FL_SHAPE_PLANE, false), sphere = collider(FL_SHAPE_SPHERE, false),
                  box = collider(FL_SHAPE_BOX, false), capsule = collider(FL_SHAPE_CAPSULE, false),
                  container = collider(FL_SHAPE_BOX, true);
  float p1[3] = {7, 2, -3};
  ENSURE_NEAR(fl_collider_sdf_cpu(&plane, p1, 0), 1.5f, 1e-6);
  float p2[3] = {1, 2, 5};
  ENSURE_NEAR(fl_collider_sdf_cpu(&sphere, p2, 0), 1.5f, 1e-6);
  float p3[3] = {1, 2, 3}; /* box centre: inside by the smallest half extent */
  ENSURE_NEAR(fl_collider_sdf_cpu(&box, p3, 0), -0.5f, 1e-6);
  float p4[3] = {3, 3, 3}; /* 1 past the +x face and 0.5 past +y: corner distance */
  ENSURE_NEAR(fl_collider_sdf_cpu(&box, p4, 0), sqrtf(1.0f + 0.25f), 1e-6);
  float p5[3] = {2, 1, 0}; /* beside the capsule's segment */
  ENSURE_NEAR(fl_collider_sdf_cpu(&capsule, p5, 0), 1.5f, 1e-6);
  float p6[3] = {0, 4, 0}; /* beyond its end cap */
  ENSURE_NEAR(fl_collider_sdf_cpu(&capsule, p6, 0), 1.5f, 1e-6);
  ENSURE_NEAR(fl_collider_sdf_cpu(&container, p3, 0), 0.5f, 1e-6); /* inside a container is free space */
}

static void test_sdf_moving_collider(void)
{
  fl_collider_desc d = {.shape = FL_SHAPE_SPHERE, .center = {0, 0, 0}, .radius = 1, .velocity = {2, 0, 0}};
  fl_gpu_collider c;
  fl_collider_pack(&d, &c);
  float p[3] = {4, 0, 0};
  ENSURE_NEAR(fl_collider_sdf_cpu(&c, p, 0.0f), 3.0f, 1e-6);
  ENSURE_NEAR(fl_collider_sdf_cpu(&c, p, 1.5f), 0.0f, 1e-6); /* the sphere moved to x = 3 */
}

static void test_sdf_normals(void)
{
  fl_gpu_collider sphere = collider(FL_SHAPE_SPHERE, false), plane = collider(FL_SHAPE_PLANE, false);
  float p[3] = {1.3f, 2.4f, 3.5f}, n[3];
  float expect[3] = {0.3f, 0.4f, 0.5f}, len = sqrtf(0.5f);
  fl_collider_normal_cpu(&sphere, p, 0, n);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(n[i], expect[i] / len, 1e-6);
  fl_collider_normal_tetra_cpu(&sphere, p, 0, n);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(n[i], expect[i] / len, 1e-3);
  fl_collider_normal_cpu(&plane, p, 0, n);
  ENSURE_NEAR(n[1], 1.0f, 1e-6);
}

/* The analytic normal of every shape agrees with the generic tetrahedral
 * gradient wherever the SDF is smooth (away from box edges and the capsule axis). */
static void test_sdf_analytic_matches_tetra(void)
{
  fl_gpu_collider shapes[] = {collider(FL_SHAPE_PLANE, false), collider(FL_SHAPE_SPHERE, false),
                              collider(FL_SHAPE_BOX, false), collider(FL_SHAPE_CAPSULE, false),
                              collider(FL_SHAPE_BOX, true), collider(FL_SHAPE_SPHERE, true)};
  unsigned state = 12345;
  int checked = 0;
  for (int trial = 0; trial < 4000; trial++) {
    float p[3];
    for (int a = 0; a < 3; a++) {
      state = state * 1664525u + 1013904223u;
      p[a] = -3.0f + 9.0f * (float)(state >> 8) / 16777216.0f;
    }
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      float na[3], nt[3];
      fl_collider_normal_cpu(&shapes[s], p, 0, na);
      fl_collider_normal_tetra_cpu(&shapes[s], p, 0, nt);
      /* Skip points near a crease, where the gradient jumps: the tetrahedral
       * stencil straddles it there, by design. */
      float d = fl_collider_sdf_cpu(&shapes[s], p, 0);
      float step = 0.01f, moved[3];
      for (int a = 0; a < 3; a++) moved[a] = p[a] - step * na[a];
      if (fabsf(fl_collider_sdf_cpu(&shapes[s], moved, 0) - (d - step)) > 1e-4f) continue;
      float dot = na[0] * nt[0] + na[1] * nt[1] + na[2] * nt[2];
      ENSURE_MSG(dot > 0.999f, "shape %zu at (%g,%g,%g): analytic vs tetra dot %g", s, p[0], p[1], p[2], dot);
      checked++;
    }
  }
  ENSURE(checked > 10000);
}

static void test_meshes_closed_and_outward(void)
{
  float c[3] = {0.5f, -1, 2}, h[3] = {1, 2, 3};
  fl_cpu_mesh meshes[3];
  ENSURE(fl_mesh_sphere(c, 1.0f, 8, 12, &meshes[0]));
  ENSURE(fl_mesh_box(c, h, &meshes[1]));
  float a[3] = {0.5f, -2, 2}, b[3] = {0.5f, 0, 2};
  ENSURE(fl_mesh_capsule(a, b, 0.5f, 8, 12, &meshes[2]));
  for (int m = 0; m < 3; m++) {
    /* Signed volume by the divergence theorem: positive when triangles wind outward. */
    double volume = 0;
    for (uint32_t t = 0; t < meshes[m].triangle_count; t++) {
      const float *p0 = meshes[m].positions[meshes[m].indices[3 * t]];
      const float *p1 = meshes[m].positions[meshes[m].indices[3 * t + 1]];
      const float *p2 = meshes[m].positions[meshes[m].indices[3 * t + 2]];
      volume += (p0[0] * (p1[1] * p2[2] - p1[2] * p2[1]) - p0[1] * (p1[0] * p2[2] - p1[2] * p2[0]) +
                 p0[2] * (p1[0] * p2[1] - p1[1] * p2[0])) / 6.0;
    }
    double expected[3] = {4.0 / 3.0 * GLM_PI, 8.0 * h[0] * h[1] * h[2],
                          4.0 / 3.0 * GLM_PI * 0.125 + GLM_PI * 0.25 * 2.0};
    ENSURE_MSG(volume > 0, "mesh %d winds inward (volume %g)", m, volume);
    ENSURE_MSG(fabs(volume - expected[m]) < 0.12 * expected[m], "mesh %d volume %g, expected %g", m, volume,
               expected[m]);
    fl_cpu_mesh_free(&meshes[m]);
  }
}

static void test_overlay_layout(void)
{
  static fl_overlay_vertex v[FL_OVERLAY_MAX_VERTICES];
  uint32_t one = fl_overlay_layout("A", 0, 0, 1, v, FL_OVERLAY_MAX_VERTICES);
  uint32_t two = fl_overlay_layout("A\nA", 0, 0, 1, v, FL_OVERLAY_MAX_VERTICES);
  ENSURE(one > 0 && one % 6 == 0);
  ENSURE(two == 2 * one);
  float max_y = 0;
  for (uint32_t i = 0; i < two; i++) max_y = v[i].y > max_y ? v[i].y : max_y;
  ENSURE(max_y > 12.0f); /* the second line sits below the first */
  ENSURE(fl_overlay_layout("", 0, 0, 1, v, FL_OVERLAY_MAX_VERTICES) == 0);
  ENSURE(fl_overlay_layout("overflow", 0, 0, 1, v, 12) <= 12);
}

static const fl_test_case cases[] = {
    {"camera_projects_target_to_center", test_camera_projects_target_to_center},
    {"camera_lens_shift", test_camera_lens_shift},
    {"camera_vulkan_conventions", test_camera_vulkan_conventions},
    {"camera_orbit_keeps_distance", test_camera_orbit_keeps_distance},
    {"sdf_analytic_distances", test_sdf_analytic_distances},
    {"sdf_moving_collider", test_sdf_moving_collider},
    {"sdf_normals", test_sdf_normals},
    {"sdf_analytic_matches_tetra", test_sdf_analytic_matches_tetra},
    {"meshes_closed_and_outward", test_meshes_closed_and_outward},
    {"overlay_layout", test_overlay_layout},
};
FL_TEST_MAIN(cases)
