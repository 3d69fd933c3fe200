/* tests/unit/test_cloth_build.c: the cloth load-time build (counts, pins, rest
 * state, colouring, CSR, a sag's arc, tethers), the constraint gradients against finite differences,
 * and the CPU reference substep of xpbd_spec.h (free fall, pins, strain,
 * damping, momentum, wind, contacts, self-collision). */
#include "test.h"

#include "core/log.h"
#include "sim/xpbd/xpbd_build.h"
#include "sim/xpbd/xpbd_cpu.h"
#include "sim/common/sdf_cpu.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define PI_F 3.14159265358979323846f

/* The scene defaults of a cloth object (docs/SCENES.md), at resolution nx x ny. */
static fl_cloth_desc cloth_desc(uint32_t nx, uint32_t ny)
{
  return (fl_cloth_desc){
      .resolution = {nx, ny},
      .size = {1, 1},
      .center = {0, 1, 0},
      .plane = FL_PLANE_XZ,
      .mass = 1.0f,
      .shear_compliance = 1e-6f,
      .bend_compliance = 1e-3f,
      .bending = FL_BENDING_ISOMETRIC,
      .damping = 0.1f,
      .damping_model = FL_DAMPING_POINT,
      .thickness = 0.01f,
      .friction = {0.5f, 0.4f},
  };
}

static fl_sim_desc sim_desc(void)
{
  return (fl_sim_desc){
      .dt = 1.0f / 60.0f,
      .substeps = 10,
      .iterations = 4,
      .gravity = {0, -9.81f, 0},
      .domain_min = {-5, 0, -5},
      .domain_max = {5, 10, 5},
      .solver = FL_SOLVER_COLORING,
      .relaxation = 1.5f,
  };
}

static const char NAMES[2][FL_SCENE_NAME_MAX] = {"sheet", "other"};

static uint32_t rng_state = 12345;
static float frand(void) /* uniform in [-1, 1) */
{
  rng_state = rng_state * 1664525u + 1013904223u;
  return (float)(rng_state >> 8) / (float)(1u << 23) - 1.0f;
}

static float dist3(const float a[3], const float b[3])
{
  float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* Index of the triangle with exactly the vertices {a, b, c}, or -1. */
static int find_triangle(const fl_xpbd_build *b, uint32_t a, uint32_t bb, uint32_t c)
{
  for (uint32_t t = 0; t < b->triangle_count; t++) {
    const uint32_t *v = &b->triangles[3 * t];
    int hits = 0;
    for (int k = 0; k < 3; k++) hits += v[k] == a || v[k] == bb || v[k] == c;
    if (hits == 3) return (int)t;
  }
  return -1;
}

/* Number of triangle edges shared by two triangles, counted by brute force. */
static uint32_t interior_edges(const fl_xpbd_build *b)
{
  uint32_t n = 0;
  for (uint32_t t = 0; t < b->triangle_count; t++)
    for (int e = 0; e < 3; e++) {
      uint32_t p = b->triangles[3 * t + e], q = b->triangles[3 * t + (e + 1) % 3];
      for (uint32_t u = t + 1; u < b->triangle_count; u++)
        for (int f = 0; f < 3; f++) {
          uint32_t r = b->triangles[3 * u + f], s = b->triangles[3 * u + (f + 1) % 3];
          n += (p == r && q == s) || (p == s && q == r);
        }
    }
  return n;
}

static void test_counts_and_colouring(void)
{
  const fl_bending_model models[] = {FL_BENDING_ISOMETRIC, FL_BENDING_DIHEDRAL, FL_BENDING_NONE};
  const uint32_t nx = 17, ny = 13;
  for (int m = 0; m < 3; m++) {
    fl_cloth_desc d = cloth_desc(nx, ny);
    d.bending = models[m];
    fl_xpbd_build b;
    ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
    ENSURE(b.particle_count == nx * ny && b.object_count == 1);
    ENSURE(b.triangle_count == 2 * (nx - 1) * (ny - 1));
    uint32_t stretch = 0, shear = 0;
    for (uint32_t c = 0; c < b.distance.count; c++) {
      stretch += b.distances[c].kind == FL_DISTANCE_STRETCH;
      shear += b.distances[c].kind == FL_DISTANCE_SHEAR;
    }
    ENSURE(stretch == (nx - 1) * ny + nx * (ny - 1));
    ENSURE(shear == 2 * (nx - 1) * (ny - 1));
    ENSURE(b.distance.count == stretch + shear);
    uint32_t interior = interior_edges(&b);
    ENSURE(interior == (nx - 1) * (ny - 2) + (nx - 2) * (ny - 1) + (nx - 1) * (ny - 1));
    ENSURE(b.bend.count == (models[m] == FL_BENDING_NONE ? 0 : interior));
    ENSURE(fl_xpbd_colouring_valid(&b));
    ENSURE(b.distance.color_count >= 8 && b.distance.color_count <= 12);
    ENSURE(b.distance.color_offsets[b.distance.color_count] == b.distance.count);
    if (b.bend.count) ENSURE(b.bend.color_offsets[b.bend.color_count] == b.bend.count);
    /* Each bend: x0 < x1 an edge of two triangles, x2 opposite in the one listed first. */
    for (uint32_t c = 0; c < b.bend.count; c++) {
      const uint32_t *v = b.bends[c].idx;
      ENSURE(v[0] < v[1]);
      int t2 = find_triangle(&b, v[0], v[1], v[2]), t3 = find_triangle(&b, v[0], v[1], v[3]);
      ENSURE(t2 >= 0 && t3 >= 0 && t2 < t3);
      ENSURE(b.bends[c].model == (models[m] == FL_BENDING_DIHEDRAL ? FL_BEND_DIHEDRAL : FL_BEND_ISOMETRIC));
    }
    /* A colour that shares a particle is caught. */
    uint32_t first = b.distance.color_offsets[0];
    b.distances[first + 1].i = b.distances[first].i;
    ENSURE(!fl_xpbd_colouring_valid(&b));
    fl_xpbd_build_destroy(&b);
  }
}

static void test_pins_and_positions(void)
{
  fl_cloth_desc d = cloth_desc(10, 8);
  d.size[0] = 2.0f, d.size[1] = 0.7f;
  d.center[0] = 1.0f, d.center[2] = -0.5f;
  d.mass = 4.0f;
  d.pins[0] = (fl_cloth_pin){FL_PIN_PARTICLE, 2, 3};
  d.pins[1] = (fl_cloth_pin){FL_PIN_PARTICLE, 0, -1};  /* top-left */
  d.pins[2] = (fl_cloth_pin){FL_PIN_PARTICLE, -1, 0};  /* bottom-right */
  d.pins[3] = (fl_cloth_pin){FL_PIN_ROW, -1, 0};       /* top */
  d.pins[4] = (fl_cloth_pin){FL_PIN_COLUMN, 0, 0};     /* left */
  d.pins[5] = (fl_cloth_pin){FL_PIN_INDEX, 17, 0};
  d.pin_count = 6;
  fl_cloth_desc e = cloth_desc(3, 4); /* a second object, plane xy, no pins */
  e.plane = FL_PLANE_XY;
  fl_cloth_desc both[2] = {d, e};
  fl_xpbd_build b;
  ENSURE_MSG(fl_cloth_build_create(both, NAMES, 2, &b), "%s", fl_error_message());
  ENSURE(b.particle_count == 80 + 12);
  for (uint32_t j = 0; j < 8; j++)
    for (uint32_t i = 0; i < 10; i++) {
      uint32_t k = j * 10 + i;
      bool pinned = (i == 2 && j == 3) || (i == 9 && j == 0) || j == 7 || i == 0 || k == 17;
      ENSURE_MSG(b.positions[k][3] == (pinned ? 0.0f : 20.0f), "particle %u,%u w %g", i, j,
                 (double)b.positions[k][3]);
      ENSURE_NEAR(b.positions[k][0], 1.0 + ((double)i / 9 - 0.5) * 2.0, 1e-6);
      ENSURE_NEAR(b.positions[k][1], 1.0, 0);
      ENSURE_NEAR(b.positions[k][2], -0.5 + ((double)j / 7 - 0.5) * 0.7, 1e-6);
      ENSURE(b.particle_object[k] == 0);
    }
  for (uint32_t k = 80; k < 92; k++) {
    uint32_t i = (k - 80) % 3, j = (k - 80) / 3;
    ENSURE(b.particle_object[k] == 1 && b.positions[k][3] == 12.0f);
    ENSURE_NEAR(b.positions[k][1], 1.0 + ((double)j / 3 - 0.5), 1e-6);
    ENSURE_NEAR(b.positions[k][0], ((double)i / 2 - 0.5), 1e-6);
    ENSURE_NEAR(b.positions[k][2], 0, 0);
  }
  const fl_gpu_xpbd_object *o = &b.objects[1];
  ENSURE(o->first == 80 && o->count == 12 && o->nx == 3 && o->ny == 4);
  ENSURE(o->static_friction == 0.5f && o->kinetic_friction == 0.4f && o->thickness == 0.01f && o->damping == 0.1f);
  ENSURE(o->damping_model == FL_DAMPING_MODEL_POINT);
  ENSURE(b.triangle_object[b.triangle_count - 1] == 1 && b.triangles[3 * (b.triangle_count - 1)] >= 80);
  ENSURE(fl_xpbd_colouring_valid(&b));
  fl_xpbd_build_destroy(&b);

  /* Bad pins and sizes fail with a line naming the object. */
  d.pins[0] = (fl_cloth_pin){FL_PIN_PARTICLE, 10, 0};
  ENSURE(!fl_cloth_build_create(&d, NAMES, 1, &b));
  ENSURE_MSG(strstr(fl_error_message(), "cloth \"sheet\": pin 0") &&
                 strstr(fl_error_message(), "outside the 10x8 grid"),
             "%s", fl_error_message());
  d.pins[0] = (fl_cloth_pin){FL_PIN_INDEX, 80, 0};
  ENSURE(!fl_cloth_build_create(&d, NAMES, 1, &b));
  d.pins[0] = (fl_cloth_pin){FL_PIN_ROW, 8, 0};
  ENSURE(!fl_cloth_build_create(&d, NAMES, 1, &b));
  d = cloth_desc(1, 8);
  fl_error_clear();
  ENSURE(!fl_cloth_build_create(&d, NAMES, 1, &b));
  ENSURE_MSG(strstr(fl_error_message(), "resolution 1x8"), "%s", fl_error_message());
}

/* A sag bends the sheet along x into an arc of its own length: the x edges stay at the centre's height,
 * the middle column hangs `sag` below (towards -z for "xy"), every row's chords keep the grid's spacing
 * (to 1e-4). Tethers: every free particle of a sheet pinned on its left and
 * right columns has one to each column, the nearest across the flat sheet (its own row), at that
 * distance; none on a sheet without pins. A desc with a sag too deep or tethers on a tearing cloth fails. */
static void test_sag_and_tethers(void)
{
  fl_cloth_desc d = cloth_desc(21, 5);
  d.size[0] = 1.2f;
  d.sag = 0.2f;
  d.tethers = true;
  d.pins[0] = (fl_cloth_pin){FL_PIN_COLUMN, 0, 0};
  d.pins[1] = (fl_cloth_pin){FL_PIN_COLUMN, -1, 0};
  d.pin_count = 2;
  fl_xpbd_build b;
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  double spacing = 1.2 / 20.0;
  for (uint32_t j = 0; j < 5; j++) {
    const float *left = b.positions[j * 21], *mid = b.positions[j * 21 + 10], *right = b.positions[j * 21 + 20];
    ENSURE_NEAR(left[1], 1.0f, 1e-6);
    ENSURE_NEAR(right[1], 1.0f, 1e-6);
    ENSURE_NEAR(mid[1], 0.8f, 1e-6);
    ENSURE_NEAR(mid[0], 0.0f, 1e-6);
    for (uint32_t i = 0; i + 1 < 21; i++) {
      const float *p = b.positions[j * 21 + i], *q = b.positions[j * 21 + i + 1];
      ENSURE_NEAR(hypot(q[0] - p[0], q[1] - p[1]), spacing, 1e-4); /* a chord of the arc: 1 - 2e-4 of it */
    }
    for (uint32_t i = 0; i < 21; i++) {
      fl_gpu_tether t = b.tethers[j * 21 + i];
      if (i == 0 || i == 20) {
        ENSURE(t.pin0 == FL_TETHER_NONE && t.pin1 == FL_TETHER_NONE);
        continue;
      }
      uint32_t near = i <= 10 ? j * 21 : j * 21 + 20, far = i <= 10 ? j * 21 + 20 : j * 21;
      ENSURE(t.pin0 == near && t.pin1 == far);
      ENSURE_NEAR(t.rest0, spacing * (i <= 10 ? i : 20 - i), 1e-6);
      ENSURE_NEAR(t.rest1, spacing * (i <= 10 ? 20 - i : i), 1e-6);
    }
  }
  ENSURE(b.any_tether);
  fl_xpbd_build_destroy(&b);

  d.plane = FL_PLANE_XY; /* "xy": the same arc towards -z, y along the sheet's second side */
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  for (uint32_t j = 0; j < 5; j++) {
    ENSURE_NEAR(b.positions[j * 21][2], 0.0f, 1e-6);
    ENSURE_NEAR(b.positions[j * 21 + 10][2], -0.2f, 1e-6);
    ENSURE_NEAR(b.positions[j * 21 + 10][1], 1.0f + (j / 4.0f - 0.5f), 1e-6);
  }
  fl_xpbd_build_destroy(&b);
  d.plane = FL_PLANE_XZ;

  d.pin_count = 0; /* tethers without pins: none */
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  ENSURE(!b.any_tether && b.tethers[30].pin0 == FL_TETHER_NONE);
  fl_xpbd_build_destroy(&b);

  d.sag = 0.37f; /* more than 0.3 x 1.2 */
  fl_error_clear();
  ENSURE(!fl_cloth_build_create(&d, NAMES, 1, &b));
  ENSURE_MSG(strstr(fl_error_message(), "cloth \"sheet\": sag 0.37"), "%s", fl_error_message());
  d.sag = 0.1f;
  d.tear_strain = 0.5f;
  fl_error_clear();
  ENSURE(!fl_cloth_build_create(&d, NAMES, 1, &b));
  ENSURE_MSG(strstr(fl_error_message(), "cannot have tethers"), "%s", fl_error_message());
}

static void test_rest_state(void)
{
  const fl_bending_model models[] = {FL_BENDING_ISOMETRIC, FL_BENDING_DIHEDRAL};
  for (int m = 0; m < 2; m++)
    for (int plane = 0; plane < 2; plane++) {
      fl_cloth_desc d = cloth_desc(9, 6);
      d.bending = models[m];
      d.plane = plane ? FL_PLANE_XY : FL_PLANE_XZ;
      d.size[0] = 1.6f, d.size[1] = 0.5f;
      d.center[0] = 0.3f, d.center[1] = 2.0f;
      fl_xpbd_build b;
      ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
      for (uint32_t c = 0; c < b.distance.count; c++) {
        const fl_gpu_distance *dc = &b.distances[c];
        float C, g[3];
        ENSURE(fl_xpbd_distance_eval(dc, b.positions[dc->i], b.positions[dc->j], &C, g));
        ENSURE_NEAR(C, 0, 1e-6);
        double dx = 1.6 / 8, dy = 0.5 / 5;
        double want = dc->kind == FL_DISTANCE_SHEAR ? sqrt(dx * dx + dy * dy)
                      : dc->j - dc->i == 1 ? dx : dy;
        ENSURE_NEAR(dc->rest, want, 1e-6);
        ENSURE(dc->compliance == (dc->kind == FL_DISTANCE_SHEAR ? 1e-6f : 0.0f));
      }
      for (uint32_t c = 0; c < b.bend.count; c++) {
        const fl_gpu_bend *bd = &b.bends[c];
        float x[12], g[12], C;
        for (int k = 0; k < 4; k++) memcpy(x + 3 * k, b.positions[bd->idx[k]], 3 * sizeof(float));
        fl_xpbd_bend_eval(bd, x, &C, g);
        ENSURE_NEAR(C, 0, 1e-6);
        ENSURE(bd->compliance == 1e-3f);
        if (models[m] == FL_BENDING_DIHEDRAL) {
          /* With the normals p1 x p2 and p1 x p3 of xpbd_spec.h a flat stencil has d = -1. */
          ENSURE_NEAR(bd->rest, PI_F, 1e-6);
        } else {
          double s[3] = {0, 0, 0}, ksum = 0;
          for (int k = 0; k < 4; k++) {
            ksum += bd->k[k];
            for (int a = 0; a < 3; a++) s[a] += (double)bd->k[k] * x[3 * k + a];
          }
          ENSURE_NEAR(ksum, 0, 1e-5);
          ENSURE(sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) < 1e-5);
          ENSURE(bd->rest > 0);
          ENSURE(bd->rest_s == 0.0f); /* a flat sheet keeps the flat-rest constraint exactly */
        }
      }
      fl_xpbd_build_destroy(&b);
    }
}

static void dsub(const double *a, const double *b, double out[3])
{
  for (int k = 0; k < 3; k++) out[k] = a[k] - b[k];
}
static void dcross(const double a[3], const double b[3], double out[3])
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}
static double ddot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* C of bend bd at x, in double, straight from xpbd_spec.h (independent of xpbd_cpu.c). */
static double bend_c_double(const fl_gpu_bend *bd, const double x[12])
{
  if (bd->model == FL_BEND_DIHEDRAL) {
    double p1[3], p2[3], p3[3], n1[3], n2[3];
    dsub(x + 3, x, p1), dsub(x + 6, x, p2), dsub(x + 9, x, p3);
    dcross(p1, p2, n1), dcross(p1, p3, n2);
    double d = ddot(n1, n2) / sqrt(ddot(n1, n1) * ddot(n2, n2));
    return acos(fmax(-1.0, fmin(1.0, d))) - bd->rest;
  }
  double s[3] = {0, 0, 0};
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++) s[a] += (double)bd->k[k] * x[3 * k + a];
  double dl = sqrt(ddot(s, s)) - bd->rest_s; /* rest_s = 0: the flat-rest C = c/2 |s|^2 */
  return 0.5 * bd->rest * dl * dl;
}

/* Compares the float gradient at x0 against central differences (step 1e-4) of C
 * in double: every component within 1e-3 of the gradient's largest component. */
static bool gradient_matches(const fl_gpu_bend *bd, const float x0[12], double *worst)
{
  float C, g[12];
  if (!fl_xpbd_bend_eval(bd, x0, &C, g)) return false;
  double scale = 0, xd[12];
  for (int k = 0; k < 12; k++) scale = fmax(scale, fabs(g[k])), xd[k] = x0[k];
  *worst = fabs(bend_c_double(bd, xd) - C) / fmax(1.0, fabs(C)) * 1e-2; /* C itself, to 1e-5 */
  const double step = 1e-4;
  for (int k = 0; k < 12; k++) {
    double xp[12], xm[12];
    memcpy(xp, xd, sizeof xp);
    memcpy(xm, xd, sizeof xm);
    xp[k] += step;
    xm[k] -= step;
    double num = (bend_c_double(bd, xp) - bend_c_double(bd, xm)) / (2 * step);
    *worst = fmax(*worst, fabs(num - g[k]) / scale);
  }
  return *worst <= 1e-3;
}

static void test_bend_gradients(void)
{
  for (int trial = 0; trial < 20; trial++) {
    float rest[12], x[12];
    for (int k = 0; k < 12; k++) rest[k] = frand();
    for (int k = 0; k < 12; k++) x[k] = rest[k] + 0.3f * frand();
    fl_gpu_bend dih = {.idx = {0, 1, 2, 3}, .compliance = 1e-3f, .model = FL_BEND_DIHEDRAL};
    fl_xpbd_bend_rest(&dih, rest);
    fl_gpu_bend iso = {.idx = {0, 1, 2, 3}, .compliance = 1e-3f, .model = FL_BEND_ISOMETRIC};
    fl_xpbd_bend_rest(&iso, rest);
    double worst;
    ENSURE_MSG(gradient_matches(&dih, x, &worst), "dihedral trial %d: error %g", trial, worst);
    ENSURE_MSG(gradient_matches(&iso, x, &worst), "isometric trial %d: error %g", trial, worst);
    /* One unit-mass projection step moves each towards C = 0. */
    const fl_gpu_bend *both[2] = {&dih, &iso};
    for (int m = 0; m < 2; m++) {
      float C0, C1, g[12], y[12];
      fl_xpbd_bend_eval(both[m], x, &C0, g);
      double gg = 0;
      for (int k = 0; k < 12; k++) gg += (double)g[k] * g[k];
      for (int k = 0; k < 12; k++) y[k] = x[k] + g[k] * (float)(-C0 / gg) * 0.5f;
      fl_xpbd_bend_eval(both[m], y, &C1, g);
      ENSURE_MSG(fabsf(C1) < fabsf(C0), "model %d trial %d: C %g -> %g", m, trial, (double)C0, (double)C1);
    }
  }
  /* A curved rest (two unit equilateral triangles bent by theta0): |s0| = |e0| 2 sin(theta0 / 2), and
   * the rest shape is at rest (C = 0, no gradient); bent further or flattened, C > 0 and one
   * projection step goes back towards it. */
  for (int t = 1; t <= 4; t++) {
    const float theta0 = 0.3f * (float)t, h = 0.8660254f;
    float curved[12] = {0, 0, 0, 1, 0, 0, 0.5f, h, 0, 0.5f, -h * cosf(theta0), -h * sinf(theta0)}, Cr, gr[12];
    fl_gpu_bend cv = {.model = FL_BEND_ISOMETRIC};
    fl_xpbd_bend_rest(&cv, curved);
    ENSURE_NEAR(cv.rest_s, 2 * sin(theta0 / 2), 1e-5);
    ENSURE(fl_xpbd_bend_eval(&cv, curved, &Cr, gr));
    ENSURE_NEAR(Cr, 0, 1e-10);
    for (int k = 0; k < 12; k++) ENSURE_NEAR(gr[k], 0, 1e-4);
    for (int dir = -1; dir <= 1; dir += 2) {
      float bent[12], C0, C1, y[12];
      memcpy(bent, curved, sizeof bent);
      const float theta = theta0 + 0.1f * (float)dir;
      bent[10] = -h * cosf(theta), bent[11] = -h * sinf(theta);
      ENSURE(fl_xpbd_bend_eval(&cv, bent, &C0, gr) && C0 > 0);
      double gg = 0;
      for (int k = 0; k < 12; k++) gg += (double)gr[k] * gr[k];
      for (int k = 0; k < 12; k++) y[k] = bent[k] + gr[k] * (float)(-C0 / gg);
      ENSURE(fl_xpbd_bend_eval(&cv, y, &C1, gr) && C1 < 0.5f * C0);
    }
  }
  /* Flat stencils: the dihedral gradient is skipped (1 - d^2 < 1e-8), isometric is 0. */
  float flat[12] = {0, 0, 0, 1, 0, 0, 0.3f, 0, 0.8f, 0.6f, 0, -0.7f}, C, g[12];
  fl_gpu_bend dih = {.model = FL_BEND_DIHEDRAL};
  fl_xpbd_bend_rest(&dih, flat);
  ENSURE_NEAR(dih.rest, PI_F, 1e-6);
  ENSURE(!fl_xpbd_bend_eval(&dih, flat, &C, g));
  ENSURE_NEAR(C, 0, 1e-6);
  fl_gpu_bend iso = {.model = FL_BEND_ISOMETRIC};
  fl_xpbd_bend_rest(&iso, flat);
  ENSURE(iso.rest_s == 0.0f); /* the flat-rest constraint */
  ENSURE(fl_xpbd_bend_eval(&iso, flat, &C, g));
  ENSURE_NEAR(C, 0, 1e-12);
  /* A stencil that folds up along its edge: C grows with the fold. */
  float fold[12];
  memcpy(fold, flat, sizeof fold);
  fold[7] = 0.2f, fold[10] = 0.2f;
  ENSURE(fl_xpbd_bend_eval(&dih, fold, &C, g) && fabsf(C) > 0.1f);
}

/* Each family's CSR lists, per particle, exactly the constraints that touch it, ascending. */
static void test_csr(void)
{
  fl_cloth_desc d[2] = {cloth_desc(7, 5), cloth_desc(4, 6)};
  d[1].bending = FL_BENDING_DIHEDRAL;
  fl_xpbd_build b;
  ENSURE_MSG(fl_cloth_build_create(d, NAMES, 2, &b), "%s", fl_error_message());
  for (int f = 0; f < 2; f++) {
    const fl_constraint_family *fam = f ? &b.bend : &b.distance;
    uint32_t arity = f ? 4 : 2;
    ENSURE(fam->particle_first[0] == 0 && fam->particle_first[b.particle_count] == fam->count * arity);
    uint32_t *seen = calloc(fam->count, sizeof *seen);
    ENSURE(seen);
    for (uint32_t p = 0; p < b.particle_count; p++) {
      ENSURE(fam->particle_first[p] <= fam->particle_first[p + 1]);
      for (uint32_t it = fam->particle_first[p]; it < fam->particle_first[p + 1]; it++) {
        uint32_t c = fam->particle_items[it];
        ENSURE(c < fam->count);
        ENSURE(it == fam->particle_first[p] || fam->particle_items[it - 1] < c);
        const uint32_t ij[2] = {b.distances[c].i, b.distances[c].j}, *idx = f ? b.bends[c].idx : ij;
        bool has = false;
        for (uint32_t k = 0; k < arity; k++) has = has || idx[k] == p;
        ENSURE(has);
        seen[c]++;
      }
    }
    for (uint32_t c = 0; c < fam->count; c++) ENSURE(seen[c] == arity);
    free(seen);
  }
  fl_xpbd_build_destroy(&b);
}

/* ---- the CPU reference substep ---- */

static bool all_finite(const fl_xpbd_cpu *c)
{
  for (uint32_t p = 0; p < c->build->particle_count; p++)
    for (int a = 0; a < 4; a++)
      if (!isfinite(c->x[p][a]) || !isfinite(c->v[p][a])) return false;
  return true;
}

static void test_pinned_cloth(void)
{
  for (int variant = 0; variant < 3; variant++) {
    fl_cloth_desc d = cloth_desc(10, 10);
    d.pins[0] = (fl_cloth_pin){FL_PIN_PARTICLE, 0, -1};
    d.pins[1] = (fl_cloth_pin){FL_PIN_PARTICLE, -1, -1};
    d.pin_count = 2;
    d.center[1] = 3.0f;
    if (variant == 1) d.bending = FL_BENDING_DIHEDRAL, d.damping_model = FL_DAMPING_EDGE;
    fl_sim_desc sim = sim_desc();
    if (variant == 2) sim.solver = FL_SOLVER_JACOBI;
    fl_xpbd_build b;
    fl_xpbd_cpu c;
    ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
    ENSURE(fl_xpbd_cpu_create(&b, &c));
    float h = sim.dt / (float)sim.substeps;
    for (int n = 0; n < 200; n++) fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h * (float)(n + 1));
    ENSURE_MSG(all_finite(&c), "variant %d", variant);
    uint32_t pinned[2] = {90, 99};
    for (int k = 0; k < 2; k++) {
      ENSURE(memcmp(c.x[pinned[k]], b.positions[pinned[k]], sizeof c.x[0]) == 0);
      ENSURE(c.v[pinned[k]][0] == 0 && c.v[pinned[k]][1] == 0 && c.v[pinned[k]][2] == 0);
    }
    /* It hangs: the free corners fell, and no stretch constraint is much over length. */
    ENSURE(c.x[0][1] < 2.7f && c.x[9][1] < 2.7f);
    for (uint32_t k = 0; k < b.distance.count; k++) {
      const fl_gpu_distance *dc = &b.distances[k];
      if (dc->kind == FL_DISTANCE_STRETCH)
        ENSURE_MSG(dist3(c.x[dc->i], c.x[dc->j]) < 1.5f * dc->rest, "variant %d", variant);
    }
    fl_xpbd_cpu_destroy(&c);
    fl_xpbd_build_destroy(&b);
  }
}

static void test_free_fall(void)
{
  for (int variant = 0; variant < 3; variant++) {
    /* Near the origin, where float positions resolve 6e-8 m (the domain floor moved away). */
    fl_cloth_desc d = cloth_desc(8, 8);
    d.damping = 0.0f;
    d.center[1] = 0.1f;
    if (variant == 1) d.bending = FL_BENDING_DIHEDRAL;
    fl_sim_desc sim = sim_desc();
    sim.domain_min[1] = -5.0f;
    if (variant == 2) sim.solver = FL_SOLVER_JACOBI;
    fl_xpbd_build b;
    fl_xpbd_cpu c;
    ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
    ENSURE(fl_xpbd_cpu_create(&b, &c));
    const float h = 1.0f / 600.0f;
    const int steps = 100;
    for (int n = 0; n < steps; n++) fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h * (float)(n + 1));
    double fall = (double)sim.gravity[1] * h * h * steps * (steps + 1) / 2.0;
    for (uint32_t p = 0; p < b.particle_count; p++) {
      ENSURE_NEAR(c.x[p][0], b.positions[p][0], 1e-4);
      ENSURE_NEAR(c.x[p][1], b.positions[p][1] + fall, 1e-4);
      ENSURE_NEAR(c.x[p][2], b.positions[p][2], 1e-4);
      ENSURE_NEAR(c.v[p][1], (double)sim.gravity[1] * h * steps, 1e-3);
    }
    fl_xpbd_cpu_destroy(&c);
    fl_xpbd_build_destroy(&b);
  }
}

static float max_strain(const fl_xpbd_cpu *c)
{
  float worst = 0;
  for (uint32_t k = 0; k < c->build->distance.count; k++) {
    const fl_gpu_distance *dc = &c->build->distances[k];
    worst = fmaxf(worst, fabsf(dist3(c->x[dc->i], c->x[dc->j]) / dc->rest - 1.0f));
  }
  return worst;
}

static void test_strain_reduction(void)
{
  for (int solver = 0; solver < 2; solver++) {
    fl_cloth_desc d = cloth_desc(8, 8);
    d.shear_compliance = 0.0f;
    fl_sim_desc sim = sim_desc();
    sim.gravity[1] = 0.0f;
    sim.iterations = 20;
    sim.solver = solver ? FL_SOLVER_JACOBI : FL_SOLVER_COLORING;
    fl_xpbd_build b;
    fl_xpbd_cpu c;
    ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
    ENSURE(fl_xpbd_cpu_create(&b, &c));
    for (uint32_t p = 0; p < b.particle_count; p++) { /* stretch by 30% about the centre */
      c.x[p][0] *= 1.3f;
      c.x[p][2] *= 1.3f;
    }
    float before = max_strain(&c);
    ENSURE_NEAR(before, 0.3, 1e-5);
    fl_xpbd_cpu_substep(&c, &sim, NULL, 0, 1.0f / 600.0f, 1.0f / 600.0f);
    /* Jacobi spreads a correction one particle per iteration, so it converges slower. */
    float after = max_strain(&c);
    ENSURE_MSG(after < (solver ? 0.75f : 0.25f) * before && all_finite(&c), "solver %d: strain %g -> %g",
               solver, (double)before, (double)after);
    fl_xpbd_cpu_destroy(&c);
    fl_xpbd_build_destroy(&b);
  }
}

/* A horizontal 12x12 sheet pinned at its four corners, run to rest under
 * gravity with `iterations` per substep; its final positions go to x (144 of
 * them), the sag (largest drop of a particle) to *sag. Stretch and shear only:
 * bending stencils share a particle with about 12 others, so Jacobi needs far
 * more iterations to converge them (docs/CLOTH.md), and a rest shape reached
 * with an unconverged solve depends on the solver. */
static void hang_to_rest(fl_solver solver, float omega, int iterations, float (*x)[4], float *sag)
{
  fl_cloth_desc d = cloth_desc(12, 12);
  d.pins[0] = (fl_cloth_pin){FL_PIN_PARTICLE, 0, 0};
  d.pins[1] = (fl_cloth_pin){FL_PIN_PARTICLE, -1, 0};
  d.pins[2] = (fl_cloth_pin){FL_PIN_PARTICLE, 0, -1};
  d.pins[3] = (fl_cloth_pin){FL_PIN_PARTICLE, -1, -1};
  d.pin_count = 4;
  d.bending = FL_BENDING_NONE;
  d.center[1] = 3.0f;
  d.stretch_compliance = 1e-2f; /* a sag set by the compliance, not only by the geometry */
  d.shear_compliance = 1e-2f;
  d.damping = 20.0f;            /* reach rest sooner; the rest shape does not depend on it */
  fl_sim_desc sim = sim_desc();
  sim.solver = solver;
  sim.relaxation = omega;
  sim.iterations = (uint32_t)iterations;
  sim.substeps = 1;
  fl_xpbd_build b;
  fl_xpbd_cpu c;
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  ENSURE(fl_xpbd_cpu_create(&b, &c));
  float h = sim.dt / (float)sim.substeps;
  for (int n = 0; n < 300; n++) fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h * (float)(n + 1));
  ENSURE(b.particle_count == 144);
  memcpy(x, c.x, (size_t)b.particle_count * sizeof *x);
  *sag = 0;
  float speed = 0;
  for (uint32_t p = 0; p < b.particle_count; p++) {
    *sag = fmaxf(*sag, b.positions[p][1] - x[p][1]);
    speed = fmaxf(speed, sqrtf(c.v[p][0] * c.v[p][0] + c.v[p][1] * c.v[p][1] + c.v[p][2] * c.v[p][2]));
  }
  ENSURE_MSG(speed < 1e-3f && all_finite(&c), "not at rest: speed %g", (double)speed);
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);
}

/* A converged XPBD solve does not depend on the solver or on omega: the
 * Jacobi solver's lambda grows by the same scaled amount its positions move
 * by (xpbd_spec.h, SOLVERS), so its rest shape is the colouring solver's. */
static void test_jacobi_equilibrium(void)
{
  const int iterations = 200;
  static float ref[144][4], x[144][4];
  float sag_ref;
  hang_to_rest(FL_SOLVER_COLORING, 1.0f, iterations, ref, &sag_ref);
  ENSURE(sag_ref > 0.1f);
  const float omegas[] = {1.0f, 1.5f, 2.0f};
  for (int k = 0; k < 3; k++) {
    float sag;
    hang_to_rest(FL_SOLVER_JACOBI, omegas[k], iterations, x, &sag);
    float worst = 0;
    for (uint32_t p = 0; p < 144; p++)
      for (int a = 0; a < 3; a++) worst = fmaxf(worst, fabsf(x[p][a] - ref[p][a]));
    fprintf(stderr, "  omega %.1f: sag %.4f m (colouring %.4f m), largest difference %.2e m = %.2f %% of the sag\n",
            (double)omegas[k], (double)sag, (double)sag_ref, (double)worst, 100.0 * worst / sag_ref);
    ENSURE_MSG(worst <= 0.02f * sag_ref, "omega %.1f: rest shapes differ by %g m, sag %g m", (double)omegas[k],
               (double)worst, (double)sag_ref);
  }
}

static double kinetic_energy(const fl_xpbd_cpu *c)
{
  double e = 0;
  for (uint32_t p = 0; p < c->build->particle_count; p++)
    if (c->x[p][3] > 0)
      for (int a = 0; a < 3; a++) e += 0.5 * c->v[p][a] * c->v[p][a] / c->x[p][3];
  return e;
}

static void test_point_damping(void)
{
  fl_cloth_desc d = cloth_desc(8, 8);
  d.damping = 2.0f;
  fl_sim_desc sim = sim_desc();
  sim.gravity[1] = 0.0f;
  fl_xpbd_build b;
  fl_xpbd_cpu c;
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  ENSURE(fl_xpbd_cpu_create(&b, &c));
  for (uint32_t p = 0; p < b.particle_count; p++) c.v[p][0] = 1.0f, c.v[p][2] = 0.5f;
  double e0 = kinetic_energy(&c);
  const float h = 1.0f / 60.0f;
  fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h);
  double e1 = kinetic_energy(&c), f = 1.0 - 2.0 * h;
  ENSURE(e1 < e0);
  ENSURE_NEAR(e1 / e0, f * f, 1e-3);
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);
}

static void momentum(const fl_xpbd_cpu *c, double out[3])
{
  out[0] = out[1] = out[2] = 0;
  for (uint32_t p = 0; p < c->build->particle_count; p++)
    for (int a = 0; a < 3; a++) out[a] += c->v[p][a] / c->x[p][3];
}

/* Edge damping conserves linear momentum (random velocities), and it damps
 * relative motion along edges (columns alternately moving -x and +x). */
static void test_edge_damping_momentum(void)
{
  double energy[2];
  for (int motion = 0; motion < 2; motion++)
    for (int damped = 0; damped < 2; damped++) {
      fl_cloth_desc d = cloth_desc(10, 10);
      d.center[1] = 0.0f;
      d.damping_model = FL_DAMPING_EDGE;
      d.damping = damped ? 200.0f : 0.0f;
      d.stretch_compliance = d.shear_compliance = 1.0f; /* very soft: the constraints barely act */
      d.bending = FL_BENDING_NONE;
      fl_sim_desc sim = sim_desc();
      sim.gravity[1] = 0.0f;
      sim.domain_min[1] = -5.0f;
      fl_xpbd_build b;
      fl_xpbd_cpu c;
      ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
      ENSURE(fl_xpbd_cpu_create(&b, &c));
      rng_state = 99;
      for (uint32_t p = 0; p < b.particle_count; p++)
        for (int a = 0; a < 3; a++)
          c.v[p][a] = motion ? (a == 0 ? (p % 2 ? -1.0f : 1.0f) : 0.0f) : 0.5f * frand();
      double p0[3], p1[3];
      momentum(&c, p0);
      const float h = 1.0f / 240.0f;
      for (int n = 0; n < 5; n++) fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h * (float)(n + 1));
      momentum(&c, p1);
      for (int a = 0; a < 3; a++) ENSURE_NEAR(p1[a], p0[a], 1e-5);
      energy[damped] = kinetic_energy(&c);
      fl_xpbd_cpu_destroy(&c);
      fl_xpbd_build_destroy(&b);
    }
  ENSURE_MSG(energy[1] < 0.5 * energy[0], "damped %g, undamped %g", energy[1], energy[0]);
}

static void test_wind(void)
{
  fl_cloth_desc d = cloth_desc(6, 6);
  d.plane = FL_PLANE_XY;
  d.wind[2] = 5.0f;
  d.drag = 1.0f;
  d.lift = 0.5f;
  d.pins[0] = (fl_cloth_pin){FL_PIN_ROW, -1, 0};
  d.pin_count = 1;
  d.bending = FL_BENDING_NONE;
  fl_sim_desc sim = sim_desc();
  sim.gravity[1] = 0.0f;
  fl_xpbd_build b;
  fl_xpbd_cpu c;
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  ENSURE(fl_xpbd_cpu_create(&b, &c));
  const float h = 1.0f / 600.0f;
  fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h);
  /* Still cloth, wind along its normal: every free particle is pushed along +z. */
  for (uint32_t p = 0; p < b.particle_count; p++) {
    if (b.positions[p][3] == 0) continue;
    ENSURE(c.v[p][2] > 0);
    ENSURE_NEAR(c.v[p][0], 0, 1e-3 * c.v[p][2]);
  }
  /* Full drag on an interior particle: area per vertex 6 * (0.2^2 / 2) / 3, force drag A u^2. */
  uint32_t mid = 2 * 6 + 2;
  double area = 0.2 * 0.2 / 2, want = 0, mass = 1.0 / 36;
  for (uint32_t t = 0; t < b.triangle_count; t++)
    for (int k = 0; k < 3; k++)
      if (b.triangles[3 * t + k] == mid) want += 1.0 * area * 25.0 / 3.0;
  ENSURE_NEAR(c.v[mid][2], want / mass * h, 1e-3 * want / mass * h);
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);
}

static void test_contacts(void)
{
  const float h = 1.0f / 600.0f;
  fl_sim_desc sim = sim_desc();
  fl_collider_desc ground = {.shape = FL_SHAPE_PLANE, .normal = {0, 1, 0}, .offset = 0.5f, .friction = 1.0f};
  fl_collider_desc ball = {.shape = FL_SHAPE_SPHERE, .center = {0, 0.45f, 0}, .radius = 0.2f, .friction = 0.3f};
  fl_gpu_collider col[2];
  fl_collider_pack(&ground, &col[0]);
  fl_collider_pack(&ball, &col[1]);
  fl_xpbd_build b;
  fl_xpbd_cpu c;

  /* Sliding on the ground at 2 m/s: it stays on top and friction stops it. */
  fl_cloth_desc d = cloth_desc(8, 8);
  d.thickness = 0.02f;
  d.center[1] = 0.51f;
  d.damping = 0.0f;
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  ENSURE(fl_xpbd_cpu_create(&b, &c));
  for (uint32_t p = 0; p < b.particle_count; p++) c.v[p][0] = 2.0f;
  for (int n = 0; n < 300; n++) fl_xpbd_cpu_substep(&c, &sim, col, 1, h, h * (float)(n + 1));
  ENSURE(all_finite(&c));
  for (uint32_t p = 0; p < b.particle_count; p++) {
    ENSURE_MSG(c.x[p][1] >= 0.51f - 1e-5f, "particle %u at y %g", p, (double)c.x[p][1]);
    ENSURE_MSG(fabsf(c.v[p][0]) < 1e-3f, "friction: particle %u still slides at %g", p, (double)c.v[p][0]);
  }
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);

  /* Dropped onto a ball on the ground: nothing ends inside either. (No bending: a
   * coarse stiff sheet pops off the ball, PBD contacts turning pushes into velocity.) */
  d.center[1] = 0.8f;
  d.bending = FL_BENDING_NONE;
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  ENSURE(fl_xpbd_cpu_create(&b, &c));
  for (int n = 0; n < 300; n++) fl_xpbd_cpu_substep(&c, &sim, col, 2, h, h * (float)(n + 1));
  ENSURE(all_finite(&c));
  int on_ball = 0;
  for (uint32_t p = 0; p < b.particle_count; p++) {
    ENSURE_MSG(c.x[p][1] >= 0.51f - 1e-5f, "particle %u at y %g", p, (double)c.x[p][1]);
    float sd = fl_collider_sdf_cpu(&col[1], c.x[p], 0);
    ENSURE_MSG(sd >= 0.01f - 1e-4f, "particle %u inside the ball by %g", p, (double)(0.01f - sd));
    on_ball += sd < 0.012f;
  }
  ENSURE(on_ball > 0);
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);

  /* The domain walls hold too (floor y = 0, r = 0.005). */
  d = cloth_desc(4, 4);
  d.center[1] = 0.001f;
  ENSURE_MSG(fl_cloth_build_create(&d, NAMES, 1, &b), "%s", fl_error_message());
  ENSURE(fl_xpbd_cpu_create(&b, &c));
  for (int n = 0; n < 20; n++) fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h * (float)(n + 1));
  for (uint32_t p = 0; p < b.particle_count; p++) ENSURE(c.x[p][1] >= 0.005f - 1e-6f);
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);
}

static void test_self_collision(void)
{
  /* Two overlapping sheets push apart to exactly one thickness in one substep. */
  fl_cloth_desc d[2] = {cloth_desc(6, 6), cloth_desc(6, 6)};
  for (int k = 0; k < 2; k++) {
    d[k].thickness = 0.02f;
    d[k].self_collision = true;
  }
  d[1].center[1] = 1.005f;
  fl_sim_desc sim = sim_desc();
  sim.gravity[1] = 0.0f;
  fl_xpbd_build b;
  fl_xpbd_cpu c;
  ENSURE_MSG(fl_cloth_build_create(d, NAMES, 2, &b), "%s", fl_error_message());
  ENSURE(fl_xpbd_cpu_create(&b, &c));
  const float h = 1.0f / 600.0f;
  fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h);
  for (uint32_t p = 0; p < 36; p++) {
    ENSURE_NEAR(c.x[p + 36][1] - c.x[p][1], 0.02, 1e-5);
    ENSURE_NEAR(c.x[p][1], 1.0 - 0.0075, 1e-5);
    ENSURE_NEAR(c.x[p][0], b.positions[p][0], 1e-6);
  }
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);

  /* A dense sheet does not collide with its mesh neighbours (|di|, |dj| <= 2). */
  fl_cloth_desc s = cloth_desc(10, 10);
  s.size[0] = s.size[1] = 0.1f; /* spacing 0.0111 */
  s.thickness = 0.03f;
  s.self_collision = true;
  ENSURE_MSG(fl_cloth_build_create(&s, NAMES, 1, &b), "%s", fl_error_message());
  ENSURE(fl_xpbd_cpu_create(&b, &c));
  fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h);
  for (uint32_t p = 0; p < b.particle_count; p++)
    for (int a = 0; a < 3; a++) ENSURE_NEAR(c.x[p][a], b.positions[p][a], 1e-6);
  /* Folded onto itself (the far half lifted by half a thickness), it pushes apart. */
  for (uint32_t p = 0; p < b.particle_count; p++) memcpy(c.x[p], b.positions[p], sizeof c.x[p]);
  for (uint32_t j = 0; j < 10; j++)
    for (uint32_t i = 5; i < 10; i++) {
      uint32_t p = j * 10 + i, q = j * 10 + (9 - i);
      c.x[p][0] = c.x[q][0];
      c.x[p][1] = c.x[q][1] + 0.015f;
    }
  fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h);
  ENSURE(all_finite(&c));
  ENSURE_MSG(c.x[5 * 10 + 9][1] - c.x[5 * 10 + 0][1] > 0.017f, "gap %g",
             (double)(c.x[5 * 10 + 9][1] - c.x[5 * 10 + 0][1]));
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);
}

static const fl_test_case TESTS[] = {
    {"counts_and_colouring", test_counts_and_colouring},
    {"pins_and_positions", test_pins_and_positions},
    {"rest_state", test_rest_state},
    {"sag_and_tethers", test_sag_and_tethers},
    {"bend_gradients", test_bend_gradients},
    {"csr", test_csr},
    {"pinned_cloth", test_pinned_cloth},
    {"free_fall", test_free_fall},
    {"strain_reduction", test_strain_reduction},
    {"jacobi_equilibrium", test_jacobi_equilibrium},
    {"point_damping", test_point_damping},
    {"edge_damping_momentum", test_edge_damping_momentum},
    {"wind", test_wind},
    {"contacts", test_contacts},
    {"self_collision", test_self_collision},
};
FL_TEST_MAIN(TESTS)
