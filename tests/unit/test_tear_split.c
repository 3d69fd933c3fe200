/* tests/unit/test_tear_split.c: the CPU half of cloth tearing (sim/xpbd/tear.h). A
 * sheet torn across a row of vertices splits into two connected components
 * (over its triangles and every constraint), no triangle or constraint holds
 * vertices of both, every triangle edge keeps its distance constraint, the mass
 * is conserved and the recoloured families stay valid; pins, spent spares and a
 * plane that leaves one side empty refuse the split; a balloon's split opens a
 * slit and turns its pressure off. */
#include "test.h"

#include "sim/xpbd/tear.h"

#include <stdlib.h>

#define NX 12u
#define NY 12u
#define ROW 6u

static fl_cloth_desc torn_desc(void)
{
  return (fl_cloth_desc){.resolution = {NX, NY}, .size = {1, 1}, .center = {0, 1, 0}, .plane = FL_PLANE_XZ,
                         .mass = 1.0f, .shear_compliance = 1e-6f, .bend_compliance = 1e-3f,
                         .bending = FL_BENDING_ISOMETRIC, .damping = 0.1f, .thickness = 0.01f,
                         .friction = {0.5f, 0.4f}, .area = true, .area_compliance = 0.0f, .tear_strain = 0.2f};
}

static uint32_t find(uint32_t *parent, uint32_t p)
{
  while (parent[p] != p) p = parent[p] = parent[parent[p]];
  return p;
}

static void join(uint32_t *parent, const uint32_t *idx, uint32_t count)
{
  for (uint32_t k = 1; k < count; k++) parent[find(parent, idx[k])] = find(parent, idx[0]);
}

/* Connected components of the active particles over triangles and every constraint. */
static uint32_t components(const fl_xpbd_build *b)
{
  uint32_t n = b->objects[0].count, *parent = malloc(n * sizeof *parent), count = 0;
  for (uint32_t p = 0; p < n; p++) parent[p] = p;
  for (uint32_t t = 0; t < b->triangle_count; t++) join(parent, &b->triangles[3 * t], 3);
  for (uint32_t c = 0; c < b->distance.count; c++) join(parent, (uint32_t[]){b->distances[c].i, b->distances[c].j}, 2);
  for (uint32_t c = 0; c < b->bend.count; c++) join(parent, b->bends[c].idx, 4);
  for (uint32_t c = 0; c < b->area.count; c++) join(parent, b->areas[c].idx, 3);
  for (uint32_t p = 0; p < n; p++) count += find(parent, p) == p;
  free(parent);
  return count;
}

/* 1: the upper part (grid rows above ROW, and the new particles), 0: the lower (rows up to ROW). */
static int part(uint32_t p) { return p >= NX * NY || p / NX > ROW; }

static bool one_part(const uint32_t *idx, uint32_t count)
{
  for (uint32_t k = 1; k < count; k++)
    if (part(idx[k]) != part(idx[0])) return false;
  return true;
}

static double total_mass(const fl_xpbd_build *b)
{
  double m = 0;
  for (uint32_t p = 0; p < b->objects[0].count; p++) m += 1.0 / b->positions[p][3];
  return m;
}

/* Tears the sheet across: every vertex of row ROW splits from its neighbour above. */
static void tear_across(fl_xpbd_build *b, fl_tear_split *splits)
{
  for (uint32_t i = 0; i < NX; i++) {
    uint32_t a = ROW * NX + i;
    ENSURE(fl_tear_has_distance(b, a, a + NX));
    ENSURE_MSG(fl_tear_constraint(b, a, a + NX, &splits[i]), "vertex %u", (unsigned)a);
    ENSURE(splits[i].src == a && splits[i].dst == NX * NY + i);
  }
  ENSURE(fl_xpbd_build_recolour(b));
}

static void test_sheet_splits_in_two(void)
{
  fl_cloth_desc d = torn_desc();
  fl_xpbd_build b;
  ENSURE(fl_cloth_build_create(&d, NULL, 1, &b));
  ENSURE(b.objects[0].count == NX * NY && b.capacity[0] == NX * NY + fl_tear_spares(NX, NY));
  ENSURE(components(&b) == 1);
  uint32_t distances = b.distance.count, bends = b.bend.count, triangles = b.triangle_count;
  double mass = total_mass(&b);
  fl_tear_split splits[NX];
  tear_across(&b, splits);
  if (fl_test_failed_current) return;
  ENSURE(b.objects[0].count == NX * NY + NX);
  ENSURE_MSG(components(&b) == 2, "%u components", (unsigned)components(&b));
  for (uint32_t t = 0; t < b.triangle_count; t++) ENSURE_MSG(one_part(&b.triangles[3 * t], 3), "triangle %u", (unsigned)t);
  for (uint32_t c = 0; c < b.distance.count; c++)
    ENSURE(one_part((uint32_t[]){b.distances[c].i, b.distances[c].j}, 2));
  for (uint32_t c = 0; c < b.bend.count; c++) ENSURE(one_part(b.bends[c].idx, 4));
  for (uint32_t c = 0; c < b.area.count; c++) ENSURE(one_part(b.areas[c].idx, 3));
  for (uint32_t t = 0; t < b.triangle_count; t++) /* every edge drawn is held */
    for (int e = 0; e < 3; e++)
      ENSURE(fl_tear_has_distance(&b, b.triangles[3 * t + e], b.triangles[3 * t + (e + 1) % 3]));
  /* The cut opens the NX - 1 edges along the row: each is copied once. Bends across it go. */
  ENSURE(b.triangle_count == triangles);
  ENSURE(b.distance.count == distances + NX - 1);
  ENSURE(b.bend.count < bends);
  ENSURE_NEAR(total_mass(&b), mass, 1e-5 * mass);
  for (uint32_t i = 0; i < NX; i++) { /* the halves share the vertex's mass, at the same place */
    ENSURE_NEAR(b.positions[splits[i].src][3], 2.0 * NX * NY / d.mass, 1e-3);
    ENSURE(b.positions[splits[i].dst][3] == b.positions[splits[i].src][3]);
    for (int k = 0; k < 3; k++) ENSURE(b.positions[splits[i].dst][k] == b.positions[splits[i].src][k]);
  }
  ENSURE(fl_xpbd_colouring_valid(&b));
  fl_xpbd_build_destroy(&b);
}

static void test_refusals(void)
{
  fl_cloth_desc d = torn_desc();
  d.pins[0] = (fl_cloth_pin){.kind = FL_PIN_ROW, .a = ROW};
  d.pin_count = 1;
  fl_xpbd_build b;
  ENSURE(fl_cloth_build_create(&d, NULL, 1, &b));
  fl_tear_split s;
  uint32_t a = ROW * NX + 3;
  ENSURE(!fl_tear_split_vertex(&b, a, a + NX, &s)); /* pinned */
  /* a free vertex, split from a neighbour in its own row: both sides hold triangles */
  uint32_t v = (ROW + 2) * NX + 3, count = b.objects[0].count;
  ENSURE(fl_tear_split_vertex(&b, v, v + 1, &s) && b.objects[0].count == count + 1);
  /* a corner, split along the sheet's edge: its one or two triangles lie on one side */
  uint32_t corner = (NY - 1) * NX + NX - 1;
  ENSURE(!fl_tear_split_vertex(&b, corner, corner - NX, &s));
  /* spares run out */
  b.objects[0].count = b.capacity[0];
  ENSURE(!fl_tear_split_vertex(&b, v + 2, v + 2 + NX, &s));
  fl_xpbd_build_destroy(&b);
  d = torn_desc();
  d.tear_strain = 0; /* no spares, no tearing */
  ENSURE(fl_cloth_build_create(&d, NULL, 1, &b));
  ENSURE(b.capacity[0] == NX * NY && b.particle_count == NX * NY);
  ENSURE(!fl_tear_split_vertex(&b, v, v + NX, &s));
  fl_xpbd_build_destroy(&b);
}

/* A balloon's vertex split from a neighbour: the surface opens a slit, keeps every edge held and its mass,
 * and the balloon's overpressure and volume conservation are off (the air escapes). */
static void test_balloon_loses_pressure(void)
{
  fl_balloon_desc d = {.common = {.center = {0, 1, 0}, .radius = 0.3f, .friction = {0.5f, 0.4f},
                                  .volume_conservation = FL_CONSERVE_GLOBAL},
                       .shape = FL_BODY_ICOSPHERE, .subdivisions = 2, .mass = 0.1f, .stretch_compliance = 1e-4f,
                       .bend_compliance = 0.1f, .bending = FL_BENDING_ISOMETRIC, .pressure = 1.4f, .tear_strain = 0.3f};
  fl_body_build body;
  ENSURE(fl_balloon_build(&d, "balloon", &body));
  fl_xpbd_build b;
  bool built = fl_xpbd_build_create(NULL, NULL, 0, &body, 1, &b);
  uint32_t n = body.particle_count;
  fl_body_build_free(&body);
  ENSURE(built);
  ENSURE(b.objects[0].count == n && b.capacity[0] > n && b.bodies[0].particle_count == b.capacity[0]);
  ENSURE(b.bodies[0].overpressure == 1 && b.bodies[0].conservation == FL_CONSERVE_GLOBAL);
  double mass = total_mass(&b);
  uint32_t bends = b.bend.count;
  fl_tear_split split;
  ENSURE(fl_tear_constraint(&b, b.distances[0].i, b.distances[0].j, &split));
  ENSURE(fl_xpbd_build_recolour(&b));
  ENSURE(split.dst == n && b.objects[0].count == n + 1);
  ENSURE(b.bodies[0].overpressure == 0 && b.bodies[0].conservation == FL_CONSERVE_NONE);
  ENSURE_NEAR(total_mass(&b), mass, 1e-5 * mass);
  ENSURE(b.bend.count < bends && components(&b) == 1); /* a slit, not a cut-off piece */
  for (uint32_t t = 0; t < b.triangle_count; t++)
    for (int e = 0; e < 3; e++)
      ENSURE(fl_tear_has_distance(&b, b.triangles[3 * t + e], b.triangles[3 * t + (e + 1) % 3]));
  ENSURE(fl_xpbd_colouring_valid(&b));
  fl_xpbd_build_destroy(&b);
}

static const fl_test_case TESTS[] = {
    {"balloon_loses_pressure", test_balloon_loses_pressure},
    {"sheet_splits_in_two", test_sheet_splits_in_two},
    {"refusals", test_refusals},
};

FL_TEST_MAIN(TESTS)
