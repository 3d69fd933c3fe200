/* tests/gpu/test_tear_contact.c: tearing with triangle contacts (docs/CLOTH.md
 * "Tearing", "Triangle contacts"). A 16x16 sheet with self_collision
 * "triangles", held at its left and right edges, is torn in two by a bar
 * pushed down through it; its halves fall onto a second sheet lying on the
 * ground, and fold onto it, onto themselves, and (the left one) onto a small
 * balloon lying on that sheet (cloth against body triangles in the scene). At several moments (frame 28,
 * as it tears, then every 10 frames), from the GPU's triangles and positions:
 *   - no edge of either sheet passes through a triangle of the same sheet (bar
 *     the triangles sharing a vertex with it), of the other one or of the
 *     balloon, nor a balloon edge through a sheet (the exact segment-triangle
 *     test, contact_checks.h);
 *   - the contact edge list and triangle edge owners the GPU uses equal a CPU
 *     rebuild (fl_tri_contacts_create) from the triangles read back, and the
 *     list has grown past the load's (the tear copied edges along the cut);
 * and at the end the torn sheet's triangles form exactly two connected
 * components, under validation (0 errors). */
#include "gpu_fixture.h"
#include "world_fixture.h"
#include "contact_checks.h"

#include "sim/material.h"
#include "sim/xpbd/xpbd.h"

static const char *const TORN_ONTO_SHEET =
    "{\"sim\": {\"dt\": 0.0166666667, \"substeps\": 6, \"iterations\": 2,"
    " \"domain\": {\"min\": [-2, 0, -2], \"max\": [2, 3, 2]}},"
    " \"objects\": ["
    "  {\"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0},"
    "  {\"type\": \"collider\", \"name\": \"bar\", \"shape\": \"capsule\", \"a\": [0, 0.6, -0.7], \"b\": [0, 0.6, 0.7],"
    "   \"radius\": 0.05, \"friction\": 0.3,"
    "   \"keyframes\": [{\"t\": 0.1, \"position\": [0, 0.6, 0]}, {\"t\": 0.6, \"position\": [0, 0.1, 0]}]},"
    "  {\"type\": \"cloth\", \"name\": \"top\", \"resolution\": [16, 16], \"size\": [1, 1], \"center\": [0, 0.45, 0],"
    "   \"mass\": 0.3, \"pin\": [\"left\", \"right\"], \"stretch_compliance\": 0, \"shear_compliance\": 1e-6,"
    "   \"bend_compliance\": 1e-2, \"damping\": 0.2, \"thickness\": 0.01, \"friction\": [0.5, 0.4],"
    "   \"tear_strain\": 0.3, \"self_collision\": \"triangles\"},"
    "  {\"type\": \"cloth\", \"name\": \"bottom\", \"resolution\": [12, 12], \"size\": [1.2, 1.2],"
    "   \"center\": [0, 0.02, 0], \"mass\": 0.3, \"bend_compliance\": 1e-2, \"thickness\": 0.01,"
    "   \"friction\": [0.5, 0.4], \"self_collision\": \"triangles\"},"
    "  {\"type\": \"balloon\", \"name\": \"ball\", \"center\": [-0.25, 0.11, 0], \"radius\": 0.09,"
    "   \"subdivisions\": 1, \"pressure\": 1.2, \"thickness\": 0.02}]}";

static uint32_t find_root(uint32_t *parent, uint32_t p)
{
  while (parent[p] != p) p = parent[p] = parent[parent[p]];
  return p;
}

/* Connected components of a sheet's particles that some triangle uses, over its triangles. */
static uint32_t components(const sheet *s)
{
  uint32_t *parent = malloc(s->count * sizeof *parent), *used = calloc(s->count, sizeof *used), count = 0;
  for (uint32_t p = 0; p < s->count; p++) parent[p] = p;
  for (uint32_t t = 0; t < s->tri_count; t++)
    for (int k = 0; k < 3; k++) {
      used[s->tri[t][k]] = 1;
      parent[find_root(parent, s->tri[t][k])] = find_root(parent, s->tri[t][0]);
    }
  for (uint32_t p = 0; p < s->count; p++) count += used[p] && find_root(parent, p) == p;
  free(parent);
  free(used);
  return count;
}

/* Cloth object o as the GPU has it now: its positions and its triangles, re-indexed from its first particle. */
static bool torn_read(fl_world *w, const fl_xpbd_system *s, const uint32_t (*tri)[3], uint32_t o, sheet *out)
{
  float(*vel)[4] = NULL;
  memset(out, 0, sizeof *out);
  if (!fl_world_read_state(w, o, &out->pos, &vel, &out->count)) return false;
  free(vel);
  uint32_t first = s->build.objects[o].first, t0 = s->object_first_triangle[o];
  out->tri_count = s->object_triangles[o];
  out->tri = malloc(out->tri_count * sizeof *out->tri);
  if (!out->tri) return false;
  for (uint32_t t = 0; t < out->tri_count; t++)
    for (int k = 0; k < 3; k++) {
      uint32_t v = tri[t0 + t][k] - first;
      if (v >= out->count) return false; /* a triangle outside its object's particles */
      out->tri[t][k] = v;
    }
  return true;
}

/* The GPU's contact edges and owners against a CPU rebuild from the GPU's triangles; *count: the edges. */
static void contact_topology_matches(fl_gpu *gpu, const fl_xpbd_system *s, const uint32_t (*tri)[3], uint32_t *count)
{
  fl_xpbd_build copy = s->build; /* the CPU's build with the triangles read back */
  copy.triangles = (uint32_t *)tri;
  fl_tri_contacts ref;
  ENSURE(fl_tri_contacts_create(&copy, &ref));
  uint32_t e = s->tri.edge_count, t = s->build.triangle_count;
  uint32_t(*edges)[2] = malloc((size_t)e * sizeof *edges), *owned = malloc((size_t)t * sizeof *owned);
  ENSURE(edges && owned);
  ENSURE(fl_buffer_readback(gpu, &s->edges, 0, edges, (VkDeviceSize)e * 8) &&
         fl_buffer_readback(gpu, &s->tri_owned, 0, owned, (VkDeviceSize)t * 4));
  ENSURE_MSG(ref.edge_count == e, "%u contact edges on the GPU, %u rebuilt from its triangles", (unsigned)e,
             (unsigned)ref.edge_count);
  for (uint32_t k = 0; k < e; k++)
    ENSURE_MSG(edges[k][0] == ref.edges[k][0] && edges[k][1] == ref.edges[k][1], "edge %u: (%u, %u), CPU (%u, %u)",
               (unsigned)k, (unsigned)edges[k][0], (unsigned)edges[k][1], (unsigned)ref.edges[k][0],
               (unsigned)ref.edges[k][1]);
  for (uint32_t k = 0; k < t; k++)
    ENSURE_MSG(owned[k] == ref.owned[k], "triangle %u: owner word %#x, CPU %#x", (unsigned)k, (unsigned)owned[k],
               (unsigned)ref.owned[k]);
  free(edges);
  free(owned);
  fl_tri_contacts_destroy(&ref);
  *count = e;
}

static void torn_onto_sheet(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  ENSURE(fl_fixture_make_world(gpu, TORN_ONTO_SHEET, &scene, &world) && fl_profiler_create(gpu, &prof));
  /* The material's instance begins with its fl_xpbd_system (xpbd_material.c). */
  fl_xpbd_system *s = fl_world_material(world, &fl_material_xpbd);
  ENSURE(s->tri.any && s->tear.on);
  uint32_t load_edges = s->tri.edge_count, t = s->build.triangle_count, edges = 0;
  uint32_t(*tri)[3] = malloc((size_t)t * sizeof *tri);
  ENSURE(tri);
  sheet top = {0}, bottom = {0}, ball = {0};
  int frame = 0;
  float touch = INFINITY; /* the closest the torn sheet came to the balloon at a check */
  for (int check = 0; check < 5; check++) {
    ENSURE_MSG(fl_fixture_step_frames(gpu, world, &prof, check ? 10 : 28, true, NULL), "%s", fl_error_message());
    frame += check ? 10 : 28;
    /* A batch the CPU made after the last frame is on the GPU after the next one's start: step to a frame with none. */
    for (int more = 0; more < 8 && s->tear.upload; more++, frame++)
      ENSURE_MSG(fl_fixture_step_frames(gpu, world, &prof, 1, true, NULL), "%s", fl_error_message());
    ENSURE(!s->tear.upload);
    ENSURE(fl_buffer_readback(gpu, &s->triangles, 0, tri, (VkDeviceSize)t * 12));
    contact_topology_matches(gpu, s, (const uint32_t(*)[3])tri, &edges);
    sheet_free(&top);
    sheet_free(&bottom);
    sheet_free(&ball);
    ENSURE(torn_read(world, s, (const uint32_t(*)[3])tri, 0, &top) &&
           torn_read(world, s, (const uint32_t(*)[3])tri, 1, &bottom) &&
           torn_read(world, s, (const uint32_t(*)[3])tri, 2, &ball));
    uint32_t self_top = crossings(&top, &top, true), self_bottom = crossings(&bottom, &bottom, true),
             across = crossings(&top, &bottom, false) + crossings(&bottom, &top, false),
             body = crossings(&top, &ball, false) + crossings(&ball, &top, false) + crossings(&bottom, &ball, false) +
                    crossings(&ball, &bottom, false);
    float low = INFINITY;
    for (uint32_t v = 0; v < top.count; v++) low = fminf(low, top.pos[v][1]);
    touch = fminf(touch, fminf(min_distance(&top, &ball), min_distance(&ball, &top)));
    fprintf(stderr, "  frame %d: %u splits, %u contact edges (%u at load); edges through triangles: %u top/top, %u "
            "bottom/bottom, %u across, %u sheets/balloon; torn sheet's lowest point %.3f m, %u components\n", frame,
            s->tear.splits_done, (unsigned)edges, (unsigned)load_edges, self_top, self_bottom, across, body, (double)low,
            components(&top));
    ENSURE(self_top == 0 && self_bottom == 0 && across == 0 && body == 0);
  }
  /* It tore (the edge list grew with the cut), in two, and its halves came down onto the lower sheet. */
  ENSURE(edges > load_edges && s->tear.splits_done > 0);
  ENSURE_MSG(components(&top) == 2, "%u components", components(&top));
  float low = INFINITY;
  for (uint32_t v = 0; v < top.count; v++) low = fminf(low, top.pos[v][1]);
  ENSURE(low < 0.06f);
  fprintf(stderr, "  torn sheet to balloon: %.4f m at the closest check\n", (double)touch);
  ENSURE(touch < 0.025f); /* the balloon took part: within reach (0.01 + 0.02) / 2 and 1 cm */
  sheet_free(&top);
  sheet_free(&bottom);
  sheet_free(&ball);
  free(tri);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
}
FL_GPU_TEST(test_torn_onto_sheet, torn_onto_sheet)

static const fl_test_case cases[] = {
    {"torn_onto_sheet", test_torn_onto_sheet},
};
FL_TEST_MAIN(cases)
