/* tests/unit/test_scene.c: the scene loader: every class of bad input fails with
 * one line naming the source, the key path and what was expected; defaults,
 * the built-in scenes and --set overrides work. */
#define _GNU_SOURCE
#include "test.h"

#include "core/file.h"
#include "core/log.h"
#include "scene/scene.h"

#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static fl_scene g_scene;

/* Points FLURRY_DATA_DIR at the source tree (CTest sets FLURRY_SOURCE_DIR), before
 * fl_data_dir() first caches it. */
static void use_source_dir(void)
{
  static char dir[1024];
  if (dir[0]) return;
  const char *src = getenv("FLURRY_SOURCE_DIR");
  if (src && src[0]) {
    snprintf(dir, sizeof dir, "%s", src);
  } else { /* run by hand: derive it from this file's path */
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *cut = strstr(dir, "/tests/unit/");
    if (cut) *cut = 0;
    else snprintf(dir, sizeof dir, ".");
  }
  setenv("FLURRY_DATA_DIR", dir, 1);
}

static bool parse(const char *json) { return fl_scene_parse(json, "t.json", NULL, 0, &g_scene); }

static bool parse_set(const char *json, const char *set)
{
  const char *sets[] = {set};
  return fl_scene_parse(json, "t.json", sets, 1, &g_scene);
}

/* Fails the test unless `call` returned false and the message holds every string. */
#define ENSURE_ERR(call, ...)                                                               \
  do {                                                                                      \
    ENSURE_MSG(!(call), "succeeded, expected an error");                                    \
    const char *const subs_[] = {__VA_ARGS__};                                              \
    const char *msg_ = fl_error_message();                                                  \
    ENSURE_MSG(!strchr(msg_, '\n'), "message has a newline: %s", msg_);                    \
    for (size_t k_ = 0; k_ < sizeof subs_ / sizeof subs_[0]; k_++)                          \
      ENSURE_MSG(strstr(msg_, subs_[k_]), "message \"%s\" lacks \"%s\"", msg_, subs_[k_]); \
  } while (0)

#define P(extra) "{\"objects\": [{\"type\": \"particles\"" extra "}]}"
#define C(extra) "{\"objects\": [{\"type\": \"collider\"" extra "}]}"
#define CL(extra) "{\"objects\": [{\"type\": \"cloth\"" extra "}]}"
#define MS(extra) "{\"objects\": [{\"type\": \"mass_spring\"" extra "}]}"
#define SB(extra) "{\"objects\": [{\"type\": \"softbody\"" extra "}]}"
#define BL(extra) "{\"objects\": [{\"type\": \"balloon\"" extra "}]}"

static void test_malformed_json(void)
{
  ENSURE_ERR(parse("{\n  \"name\": \"x\",\n  \"sim\": { \"dt\": 0.1,, }\n}"), "t.json:3:",
             "malformed JSON near");
  ENSURE_ERR(parse("{\"name\": \"x\"} trailing"), "t.json:1:", "malformed JSON near \"trailing");
  ENSURE_ERR(parse("{\"name\": "), "t.json:1:", "malformed JSON");
  ENSURE_ERR(parse(""), "t.json:1:1:", "malformed JSON");
  ENSURE_ERR(parse("[1, 2]"), "t.json: ", "expected a JSON object", "got [1, 2]");
  /* Well formed but deeper than the parser goes: the message says so (brackets in strings do not count). */
  static char deep[2 * 1200 + 64];
  size_t n = (size_t)snprintf(deep, sizeof deep, "{\"name\": \"[[{\", \"x\": ");
  for (int i = 0; i < 1200; i++) deep[n++] = '[';
  for (int i = 0; i < 1200; i++) deep[n++] = ']';
  snprintf(deep + n, sizeof deep - n, "}");
  ENSURE_ERR(parse(deep), "t.json:1:", "the JSON is nested too deeply (more than 1000 levels");
  ENSURE_ERR(parse("{\"name\": \"[[[[\", \"x\": [[1]}"), "malformed JSON");
}

static void test_unknown_keys(void)
{
  ENSURE_ERR(parse("{\"nmae\": \"x\"}"), "t.json: ", "unknown key \"nmae\" at the top level",
             "known: name, sim, camera, objects");
  ENSURE_ERR(parse("{\"sim\": {\"dtt\": 0.01}}"), "t.json: sim: unknown key \"dtt\"",
             "known: dt, substeps");
  ENSURE_ERR(parse("{\"sim\": {\"domain\": {\"mni\": [0,0,0]}}}"),
             "t.json: sim.domain: unknown key \"mni\" (known: min, max)");
  ENSURE_ERR(parse("{\"camera\": {\"up\": [0,1,0]}}"), "t.json: camera: unknown key \"up\"");
  ENSURE_ERR(parse(P(", \"radiuss\": 1")), "t.json: objects[0]: unknown key \"radiuss\"",
             "for a particles object", "known: type, name, count, center");
  ENSURE_ERR(parse(P(", \"radius\": 1, \"radius\": 2")),
             "t.json: objects[0]: duplicate key \"radius\"");
}

static void test_wrong_types(void)
{
  ENSURE_ERR(parse("{\"sim\": {\"dt\": \"fast\"}}"), "t.json: sim.dt: expected a number",
             "got \"fast\"");
  ENSURE_ERR(parse("{\"sim\": {\"substeps\": \"four\"}}"),
             "t.json: sim.substeps: expected an integer in 1..1000, got \"four\"");
  ENSURE_ERR(parse("{\"sim\": {\"substeps\": 2.5}}"), "sim.substeps: expected an integer",
             "got 2.5");
  ENSURE_ERR(parse("{\"camera\": {\"eye\": 5}}"),
             "t.json: camera.eye: expected an array of 3 numbers", "got 5");
  ENSURE_ERR(parse("{\"camera\": {\"eye\": [1, 2]}}"),
             "t.json: camera.eye: expected an array of 3 numbers", "got [1, 2]");
  ENSURE_ERR(parse("{\"sim\": {\"gravity\": [0, -9.8, 0, 1, 2]}}"),
             "t.json: sim.gravity: expected an array of 3 numbers", "got an array of 5 items");
  ENSURE_ERR(parse(P(", \"center\": [0, \"x\", 0]")),
             "t.json: objects[0].center[1]: expected a number in -10000..10000, got \"x\"");
  ENSURE_ERR(parse("{\"sim\": 5}"), "t.json: sim: expected an object", "got 5");
  ENSURE_ERR(parse("{\"objects\": {}}"), "t.json: objects: expected an array", "got an object");
  ENSURE_ERR(parse("{\"objects\": [3]}"), "t.json: objects[0]: expected an object", "got 3");
  ENSURE_ERR(parse("{\"name\": 7}"), "t.json: name: expected a string", "got 7");
  ENSURE_ERR(parse(C(", \"shape\": \"box\", \"half_extents\": [1,1,1], \"inside\": 1")),
             "t.json: objects[0].inside: expected true or false, got 1");
  ENSURE_ERR(parse(P(", \"name\": \"a.b\"")), "t.json: objects[0].name: expected a name",
             "got \"a.b\"");
}

static void test_out_of_range(void)
{
  ENSURE_ERR(parse("{\"sim\": {\"dt\": -0.1}}"), "t.json: sim.dt: expected a number > 0 and <= 0.1",
             "got -0.1");
  ENSURE_ERR(parse("{\"sim\": {\"dt\": 0}}"), "t.json: sim.dt: expected a number > 0", "got 0");
  /* A bound is compared in the type the user wrote: the bound itself is inside a closed range
   * (0.1 and 1e-05 round to floats just above and below them). */
  ENSURE(parse("{\"sim\": {\"dt\": 0.1}}"));
  ENSURE(g_scene.sim.dt == 0.1f);
  ENSURE_ERR(parse("{\"sim\": {\"dt\": 0.10000001}}"), "t.json: sim.dt: expected a number > 0 and <= 0.1",
             "got 0.10000001");
  ENSURE(parse(P(", \"radius\": 1e-05")));
  ENSURE(parse(P(", \"radius\": 10000")));
  ENSURE_ERR(parse(P(", \"radius\": 9.9999e-06")), "objects[0].radius: expected a number in 1e-05..10000");
  ENSURE_ERR(parse("{\"sim\": {\"dt\": 1e999}}"), "t.json: sim.dt: expected a number",
             "too large");
  ENSURE_ERR(parse("{\"sim\": {\"substeps\": 0}}"),
             "t.json: sim.substeps: expected an integer in 1..1000, got 0");
  ENSURE_ERR(parse("{\"sim\": {\"iterations\": 1001}}"),
             "t.json: sim.iterations: expected an integer in 1..1000, got 1001");
  ENSURE_ERR(parse(P(", \"count\": 0")), "t.json: objects[0].count: expected an integer in 1..",
             "got 0");
  ENSURE_ERR(parse(P(", \"radius\": -1")), "t.json: objects[0].radius: expected a number in 1e-05..10000, got -1");
  ENSURE_ERR(parse(P(", \"radius\": 0")), "t.json: objects[0].radius: expected a number in 1e-05..10000, got 0");
  ENSURE_ERR(parse("{\"sim\": {\"domain\": {\"min\": [0,0,0], \"max\": [1,0,1]}}}"),
             "t.json: sim.domain: expected min < max on every axis");
  ENSURE_ERR(parse(P(", \"restitution\": 1.5")),
             "t.json: objects[0].restitution: expected a number in 0..1, got 1.5");
  ENSURE_ERR(parse(P(", \"friction\": -0.1")),
             "t.json: objects[0].friction: expected a number in 0..100, got -0.1");
  ENSURE_ERR(parse(C(", \"shape\": \"sphere\", \"radius\": 1, \"friction\": -1")),
             "t.json: objects[0].friction: expected a number in 0..100, got -1");
  ENSURE_ERR(parse(P(", \"half_extents\": [1, 1, 0]")),
             "t.json: objects[0].half_extents[2]: expected a number in 1e-05..10000, got 0");
  ENSURE_ERR(parse(C(", \"shape\": \"plane\", \"normal\": [0, 0, 0]")),
             "t.json: objects[0].normal: expected a non-zero vector");
  ENSURE_ERR(parse(C(", \"shape\": \"sphere\", \"radius\": 0")),
             "t.json: objects[0].radius: expected a number in 1e-05..10000, got 0");
  ENSURE_ERR(parse(P(", \"seed\": -1")), "t.json: objects[0].seed: expected an integer in 0..");
  ENSURE_ERR(parse("{\"camera\": {\"eye\": [1,1,1], \"target\": [1,1,1]}}"),
             "t.json: camera: expected eye and target to differ");
}

static void test_object_types_and_shapes(void)
{
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"teapot\"}]}"),
             "t.json: objects[0].type: unknown object type \"teapot\"", "known: particles, collider");
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"snow\", \"friction\": \"slippery\"}]}"),
             "t.json: objects[0].friction: expected a number >= 0 or \"sticky\", got \"slippery\"");
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"snow\", \"radius\": 1, \"half_extents\": [1, 1, 1]}]}"),
             "t.json: objects[0]", "half_extents");
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"snow\", \"transfer\": \"flip\"}]}"),
             "t.json: objects[0].transfer");
  ENSURE_ERR(parse("{\"objects\": [{\"name\": \"a\"}]}"),
             "t.json: objects[0]: missing required key \"type\"");
  ENSURE_ERR(parse(C(", \"shape\": \"cone\"")),
             "t.json: objects[0].shape: unknown collider shape \"cone\"", "plane, sphere, box, capsule");
  ENSURE_ERR(parse(C("")), "t.json: objects[0]: missing required key \"shape\"");
  ENSURE_ERR(parse(C(", \"shape\": \"sphere\"")),
             "t.json: objects[0]: missing required key \"radius\"");
  ENSURE_ERR(parse(C(", \"shape\": \"capsule\", \"a\": [0,0,0], \"radius\": 1")),
             "t.json: objects[0]: missing required key \"b\"");
  ENSURE_ERR(parse(C(", \"shape\": \"plane\", \"normal\": [0,1,0], \"radius\": 1")),
             "t.json: objects[0]: unknown key \"radius\" for a plane collider", "known: ");
  ENSURE_ERR(parse(C(", \"shape\": \"capsule\", \"a\": [0,0,0], \"b\": [0,1,0], \"radius\": 1, "
                     "\"inside\": true")),
             "t.json: objects[0]: unknown key \"inside\" for a capsule collider");
}

static void test_duplicate_and_too_many_objects(void)
{
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"particles\", \"name\": \"a\"},"
                   " {\"type\": \"particles\", \"name\": \"a\"}]}"),
             "t.json: objects[1].name: duplicate object name \"a\" (also objects[0])");
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"particles\"},"
                   " {\"type\": \"particles\", \"name\": \"particles0\"}]}"),
             "t.json: objects[1].name: duplicate object name \"particles0\"");
  char json[8192];
  size_t n = (size_t)snprintf(json, sizeof json, "{\"objects\": [");
  for (int i = 0; i < FL_SCENE_MAX_OBJECTS + 1; i++)
    n += (size_t)snprintf(json + n, sizeof json - n, "%s{\"type\": \"particles\"}", i ? "," : "");
  snprintf(json + n, sizeof json - n, "]}");
  ENSURE(n < sizeof json - 4);
  ENSURE_ERR(parse(json), "t.json: objects: expected at most 64 objects, got 65");
  /* Exactly the maximum is fine. */
  n = (size_t)snprintf(json, sizeof json, "{\"objects\": [");
  for (int i = 0; i < FL_SCENE_MAX_OBJECTS; i++)
    n += (size_t)snprintf(json + n, sizeof json - n, "%s{\"type\": \"particles\"}", i ? "," : "");
  snprintf(json + n, sizeof json - n, "]}");
  ENSURE_MSG(parse(json), "%s", fl_error_message());
  ENSURE(g_scene.object_count == FL_SCENE_MAX_OBJECTS);
  ENSURE(strcmp(g_scene.objects[63].name, "particles63") == 0);
}

static void test_defaults(void)
{
  ENSURE_MSG(fl_scene_parse("{}", "some/dir/my_scene.json", NULL, 0, &g_scene), "%s",
             fl_error_message());
  ENSURE(strcmp(g_scene.name, "my_scene") == 0);
  ENSURE(strcmp(g_scene.source, "some/dir/my_scene.json") == 0);
  ENSURE_NEAR(g_scene.sim.dt, 1.0 / 60.0, 1e-7);
  ENSURE(g_scene.sim.substeps == 1 && g_scene.sim.iterations == 1);
  ENSURE_NEAR(g_scene.sim.gravity[1], -9.81, 1e-6);
  ENSURE_NEAR(g_scene.sim.domain_min[0], -5, 0);
  ENSURE_NEAR(g_scene.sim.domain_max[1], 10, 0);
  ENSURE_NEAR(g_scene.camera.eye[2], 8, 0);
  ENSURE_NEAR(g_scene.camera.target[1], 1, 0);
  ENSURE(g_scene.object_count == 0);

  ENSURE_MSG(parse("{\"name\": \"Demo\", \"objects\": [{\"type\": \"particles\"},"
                   " {\"type\": \"collider\", \"shape\": \"plane\", \"normal\": [0, 2, 0]},"
                   " {\"type\": \"collider\", \"shape\": \"capsule\", \"a\": [0,0,0],"
                   "  \"b\": [1,0,0], \"radius\": 0.25, \"velocity\": [1, 0, 0]}]}"),
             "%s", fl_error_message());
  ENSURE(strcmp(g_scene.name, "Demo") == 0);
  ENSURE(g_scene.object_count == 3);
  const fl_scene_object *p = &g_scene.objects[0];
  ENSURE(p->type == FL_OBJECT_PARTICLES && strcmp(p->name, "particles0") == 0);
  ENSURE(p->particles.count == 4096 && p->particles.seed == 1);
  ENSURE_NEAR(p->particles.center[1], 1, 0);
  ENSURE_NEAR(p->particles.half_extents[0], 0.5, 0);
  ENSURE_NEAR(p->particles.velocity_jitter, 0, 0);
  ENSURE_NEAR(p->particles.radius, 0.02, 1e-7);
  ENSURE_NEAR(p->particles.mass, 1, 0);
  ENSURE_NEAR(p->particles.restitution, 0.3, 1e-7);
  ENSURE_NEAR(p->particles.friction, 0.2, 1e-7);
  const fl_scene_object *plane = &g_scene.objects[1];
  ENSURE(plane->type == FL_OBJECT_COLLIDER && strcmp(plane->name, "collider1") == 0);
  ENSURE(plane->collider.shape == FL_SHAPE_PLANE && !plane->collider.inside);
  ENSURE_NEAR(plane->collider.normal[1], 1, 1e-7); /* normalized */
  ENSURE_NEAR(plane->collider.offset, 0, 0);
  ENSURE_NEAR(plane->collider.friction, 0.3, 1e-7);
  const fl_scene_object *cap = &g_scene.objects[2];
  ENSURE(cap->collider.shape == FL_SHAPE_CAPSULE);
  ENSURE_NEAR(cap->collider.b[0], 1, 0);
  ENSURE_NEAR(cap->collider.radius, 0.25, 0);
  ENSURE_NEAR(cap->collider.velocity[0], 1, 0);
  ENSURE(strcmp(fl_object_type_name(FL_OBJECT_COLLIDER), "collider") == 0);
  ENSURE(strcmp(fl_object_type_name(FL_OBJECT_MASS_SPRING), "mass_spring") == 0);
}

static void test_solver_keys(void)
{
  ENSURE_MSG(parse("{}"), "%s", fl_error_message());
  ENSURE(g_scene.sim.solver == FL_SOLVER_COLORING);
  ENSURE_NEAR(g_scene.sim.relaxation, 1.5, 0);
  ENSURE_MSG(parse("{\"sim\": {\"solver\": \"jacobi\", \"relaxation\": 1.8}}"), "%s", fl_error_message());
  ENSURE(g_scene.sim.solver == FL_SOLVER_JACOBI);
  ENSURE_NEAR(g_scene.sim.relaxation, 1.8, 1e-7);
  ENSURE_MSG(parse("{\"sim\": {\"solver\": \"coloring\", \"relaxation\": 1}}"), "%s", fl_error_message());
  ENSURE(g_scene.sim.solver == FL_SOLVER_COLORING);
  ENSURE_MSG(parse("{\"sim\": {\"relaxation\": 2}}"), "%s", fl_error_message());
  ENSURE_ERR(parse("{\"sim\": {\"solver\": \"gauss\"}}"),
             "t.json: sim.solver: expected one of: coloring, jacobi, symmetric; got \"gauss\"");
  ENSURE_ERR(parse("{\"sim\": {\"solver\": 1}}"), "t.json: sim.solver: expected one of: coloring, jacobi, symmetric; got 1");
  ENSURE_ERR(parse("{\"sim\": {\"relaxation\": 0.5}}"),
             "t.json: sim.relaxation: expected a number in 1..2, got 0.5");
  ENSURE_ERR(parse("{\"sim\": {\"relaxation\": 2.5}}"), "sim.relaxation: expected a number in 1..2, got 2.5");
  ENSURE_ERR(parse("{\"sim\": {\"relaxation\": \"x\"}}"), "sim.relaxation: expected a number in 1..2");
  ENSURE_MSG(parse_set("{}", "sim.solver=jacobi"), "%s", fl_error_message());
  ENSURE(g_scene.sim.solver == FL_SOLVER_JACOBI);
  ENSURE_MSG(parse("{\"sim\": {\"solver\": \"symmetric\"}}"), "%s", fl_error_message());
  ENSURE(g_scene.sim.solver == FL_SOLVER_SYMMETRIC);
}

/* The defaults a particle sheet (cloth, mass_spring) shares. */
static void ensure_sheet_defaults(const uint32_t resolution[2], const float size[2], const float center[3],
                                  fl_cloth_plane plane, float mass, uint32_t pin_count)
{
  ENSURE(resolution[0] == 32 && resolution[1] == 32);
  ENSURE(size[0] == 1 && size[1] == 1);
  ENSURE(center[0] == 0 && center[1] == 1 && center[2] == 0);
  ENSURE(plane == FL_PLANE_XZ && mass == 1 && pin_count == 0);
}

/* pins[0..count) are exactly want[0..want_count). */
static void ensure_pins(const fl_cloth_pin *pins, uint32_t count, const fl_cloth_pin *want, uint32_t want_count)
{
  ENSURE_MSG(count == want_count, "%u pins, expected %u", (unsigned)count, (unsigned)want_count);
  for (uint32_t i = 0; i < count; i++)
    ENSURE_MSG(pins[i].kind == want[i].kind && pins[i].a == want[i].a && pins[i].b == want[i].b,
               "pin %u: %d %d %d", (unsigned)i, (int)pins[i].kind, (int)pins[i].a, (int)pins[i].b);
}

static void test_cloth_defaults(void)
{
  ENSURE_MSG(parse(CL("")), "%s", fl_error_message());
  ENSURE(g_scene.object_count == 1);
  const fl_scene_object *o = &g_scene.objects[0];
  ENSURE(o->type == FL_OBJECT_CLOTH && strcmp(o->name, "cloth0") == 0);
  const fl_cloth_desc *c = &o->cloth;
  ensure_sheet_defaults(c->resolution, c->size, c->center, c->plane, c->mass, c->pin_count);
  ENSURE(c->stretch_compliance == 0 && c->shear_compliance == 1e-6f && c->bend_compliance == 1e-3f);
  ENSURE(c->bending == FL_BENDING_ISOMETRIC && c->damping == 0.1f && c->damping_model == FL_DAMPING_POINT);
  ENSURE(c->thickness == 0.01f && c->friction[0] == 0.5f && c->friction[1] == 0.4f);
  ENSURE(!c->self_collision && c->wind[0] == 0 && c->wind[1] == 0 && c->wind[2] == 0);
  ENSURE(c->drag == 0 && c->lift == 0);
  ENSURE(!c->area && c->area_compliance == 0); /* no area constraints unless the key is given */
  ENSURE(strcmp(fl_object_type_name(FL_OBJECT_CLOTH), "cloth") == 0);
}

static void test_cloth_keys(void)
{
  ENSURE_MSG(parse(CL(", \"name\": \"flag\", \"resolution\": [40, 24], \"size\": [2, 1.2],"
                      " \"center\": [0, 2, -1], \"plane\": \"xy\", \"mass\": 0.5,"
                      " \"pin\": [\"corner:3,4\", \"row:2\", \"column:39\", \"index:959\", \"top\","
                      " \"bottom\", \"left\", \"right\", \"top-left\", \"top-right\", \"bottom-left\","
                      " \"bottom-right\", \"corner:0,23\"],"
                      " \"stretch_compliance\": 1e-7, \"shear_compliance\": 2e-6, \"bend_compliance\": 0.01,"
                      " \"bending\": \"dihedral\", \"damping\": 0.5, \"damping_model\": \"edge\","
                      " \"thickness\": 0.02, \"friction\": [0.8, 0.6], \"self_collision\": true,"
                      " \"wind\": [1, 0, 3], \"drag\": 0.3, \"lift\": 0.2, \"area_compliance\": 1e-6")),
             "%s", fl_error_message());
  const fl_cloth_desc *c = &g_scene.objects[0].cloth;
  ENSURE(strcmp(g_scene.objects[0].name, "flag") == 0);
  ENSURE(c->resolution[0] == 40 && c->resolution[1] == 24);
  ENSURE_NEAR(c->size[0], 2, 0);
  ENSURE_NEAR(c->size[1], 1.2, 1e-7);
  ENSURE_NEAR(c->center[2], -1, 0);
  ENSURE(c->plane == FL_PLANE_XY);
  ENSURE_NEAR(c->mass, 0.5, 0);
  const fl_cloth_pin want[] = {
      {FL_PIN_PARTICLE, 3, 4}, {FL_PIN_ROW, 2, 0},       {FL_PIN_COLUMN, 39, 0},  {FL_PIN_INDEX, 959, 0},
      {FL_PIN_ROW, -1, 0},     {FL_PIN_ROW, 0, 0},       {FL_PIN_COLUMN, 0, 0},   {FL_PIN_COLUMN, -1, 0},
      {FL_PIN_PARTICLE, 0, -1}, {FL_PIN_PARTICLE, -1, -1}, {FL_PIN_PARTICLE, 0, 0}, {FL_PIN_PARTICLE, -1, 0},
      {FL_PIN_PARTICLE, 0, 23}};
  ensure_pins(c->pins, c->pin_count, want, 13);
  ENSURE_NEAR(c->stretch_compliance, 1e-7, 1e-12);
  ENSURE_NEAR(c->shear_compliance, 2e-6, 1e-12);
  ENSURE_NEAR(c->bend_compliance, 0.01, 1e-9);
  ENSURE(c->bending == FL_BENDING_DIHEDRAL && c->damping_model == FL_DAMPING_EDGE);
  ENSURE_NEAR(c->damping, 0.5, 0);
  ENSURE_NEAR(c->thickness, 0.02, 1e-9);
  ENSURE_NEAR(c->friction[0], 0.8, 1e-7);
  ENSURE_NEAR(c->friction[1], 0.6, 1e-7);
  ENSURE(c->self_collision);
  ENSURE_NEAR(c->wind[2], 3, 0);
  ENSURE_NEAR(c->drag, 0.3, 1e-7);
  ENSURE_NEAR(c->lift, 0.2, 1e-7);
  ENSURE(c->area);
  ENSURE_NEAR(c->area_compliance, 1e-6, 1e-12);
  ENSURE_MSG(parse(CL(", \"area_compliance\": 0")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].cloth.area && g_scene.objects[0].cloth.area_compliance == 0);
  ENSURE_ERR(parse(CL(", \"area_compliance\": -1")), "t.json: objects[0].area_compliance: expected a number >= 0, got -1");
  ENSURE_MSG(parse(CL(", \"bending\": \"none\", \"resolution\": [2, 4096]")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].cloth.bending == FL_BENDING_NONE && g_scene.objects[0].cloth.resolution[1] == 4096);
  ENSURE_MSG(parse(CL(", \"bending\": \"isometric\", \"damping_model\": \"point\", \"plane\": \"xz\","
                      " \"pin\": []")),
             "%s", fl_error_message());
  /* --set reaches cloth keys, pins included. */
  const char *sets[] = {"objects.cloth0.pin=[\"top-left\"]", "objects.cloth0.resolution.0=8"};
  ENSURE_MSG(fl_scene_parse(CL(", \"resolution\": [4, 4]"), "t.json", sets, 2, &g_scene), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].cloth.pin_count == 1 && g_scene.objects[0].cloth.pins[0].b == -1);
  ENSURE(g_scene.objects[0].cloth.resolution[0] == 8 && g_scene.objects[0].cloth.resolution[1] == 4);
  ENSURE_ERR(parse_set(CL(", \"resolution\": [8, 8]"), "objects.cloth0.resolution.0=1"),
             "t.json: objects[0].resolution[0]: expected an integer in 2..4096, got 1");
  ENSURE_ERR(parse_set(CL(""), "objects.cloth0.radius=1"),
             "--set objects.cloth0.radius=1: unknown key \"radius\" in objects.cloth0", "known: type, name, resolution");
}

static void test_cloth_errors(void)
{
  /* Unknown keys, as for other types. */
  ENSURE_ERR(parse(CL(", \"radius\": 1")), "t.json: objects[0]: unknown key \"radius\" for a cloth object",
             "known: type, name, resolution, size");
  /* Wrong lengths and types. */
  ENSURE_ERR(parse(CL(", \"resolution\": [32]")),
             "t.json: objects[0].resolution: expected an array of 2 integers, each in 2..4096, got [32]");
  ENSURE_ERR(parse(CL(", \"resolution\": [32, 32, 32]")), "objects[0].resolution: expected an array of 2 integers");
  ENSURE_ERR(parse(CL(", \"resolution\": 32")), "objects[0].resolution: expected an array of 2 integers", "got 32");
  ENSURE_ERR(parse(CL(", \"resolution\": [32, 2.5]")),
             "t.json: objects[0].resolution[1]: expected an integer in 2..4096, got 2.5");
  ENSURE_ERR(parse(CL(", \"resolution\": [1, 8]")), "objects[0].resolution[0]: expected an integer in 2..4096, got 1");
  ENSURE_ERR(parse(CL(", \"resolution\": [8, 4097]")), "objects[0].resolution[1]: expected an integer in 2..4096");
  ENSURE_ERR(parse(CL(", \"size\": [1]")), "t.json: objects[0].size: expected an array of 2 numbers, each a number in 1e-05..10000, got [1]");
  ENSURE_ERR(parse(CL(", \"size\": [1, 0]")), "t.json: objects[0].size[1]: expected a number in 1e-05..10000, got 0");
  ENSURE_ERR(parse(CL(", \"friction\": [0.5]")), "t.json: objects[0].friction: expected an array of 2 numbers, each a number in 0..100, got [0.5]");
  ENSURE_ERR(parse(CL(", \"friction\": 0.5")), "objects[0].friction: expected an array of 2 numbers", "got 0.5");
  ENSURE_ERR(parse(CL(", \"friction\": [0.5, -1]")), "t.json: objects[0].friction[1]: expected a number in 0..100, got -1");
  ENSURE_ERR(parse(CL(", \"center\": [0, 1]")), "objects[0].center: expected an array of 3 numbers");
  ENSURE_ERR(parse(CL(", \"wind\": [0, 1, 2, 3]")), "objects[0].wind: expected an array of 3 numbers");
  ENSURE_ERR(parse(CL(", \"self_collision\": 1")), "objects[0].self_collision: expected true, false, \"particles\" or \"triangles\", got 1");
  ENSURE_ERR(parse(CL(", \"self_collision\": \"edges\"")),
             "objects[0].self_collision: expected true, false, \"particles\" or \"triangles\", got \"edges\"");
  ENSURE_MSG(parse(CL(", \"self_collision\": \"triangles\"")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].cloth.self_collision && g_scene.objects[0].cloth.triangle_contacts);
  ENSURE_MSG(parse(CL(", \"self_collision\": \"particles\"")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].cloth.self_collision && !g_scene.objects[0].cloth.triangle_contacts);
  /* Out of range numbers. */
  ENSURE_ERR(parse(CL(", \"mass\": 0")), "t.json: objects[0].mass: expected a number > 0 and <= 1e+09, got 0");
  ENSURE_ERR(parse(CL(", \"thickness\": -0.1")), "objects[0].thickness: expected a number in 1e-05..10000, got -0.1");
  ENSURE_ERR(parse(CL(", \"stretch_compliance\": -1")), "objects[0].stretch_compliance: expected a number >= 0");
  ENSURE_ERR(parse(CL(", \"shear_compliance\": -1")), "objects[0].shear_compliance: expected a number >= 0");
  ENSURE_ERR(parse(CL(", \"bend_compliance\": -1")), "objects[0].bend_compliance: expected a number >= 0");
  ENSURE_ERR(parse(CL(", \"damping\": -0.5")), "objects[0].damping: expected a number in 0..10000, got -0.5");
  ENSURE_ERR(parse(CL(", \"drag\": -1")), "objects[0].drag: expected a number in 0..100, got -1");
  ENSURE_ERR(parse(CL(", \"lift\": -1")), "objects[0].lift: expected a number in 0..100, got -1");
  /* Bad enums. */
  ENSURE_ERR(parse(CL(", \"plane\": \"yz\"")), "t.json: objects[0].plane: expected one of: xz, xy; got \"yz\"");
  ENSURE_ERR(parse(CL(", \"bending\": \"cubic\"")),
             "t.json: objects[0].bending: expected one of: isometric, dihedral, none; got \"cubic\"");
  ENSURE_ERR(parse(CL(", \"bending\": true")), "objects[0].bending: expected one of: isometric", "got true");
  ENSURE_ERR(parse(CL(", \"damping_model\": \"Edge\"")),
             "t.json: objects[0].damping_model: expected one of: point, edge, global; got \"Edge\"");
  /* Bad pin forms. */
  ENSURE_ERR(parse(CL(", \"pin\": \"top\"")), "t.json: objects[0].pin: expected an array of pins", "got \"top\"");
  ENSURE_ERR(parse(CL(", \"pin\": [3]")), "t.json: objects[0].pin[0]: expected a pin \"corner:i,j\"", "got 3");
  const char *const bad_forms[] = {"corner:1",   "corner:1,",  "corner:,1",   "corner:1,2,3", "corner:-1,0",
                                   "corner: 1,2", "row:",      "row:x",       "row:1.5",      "column:+2",
                                   "index:",     "Top",        "top-middle",  "middle",       "",
                                   "row:12345678901", "corner:1;2"};
  for (size_t i = 0; i < sizeof bad_forms / sizeof bad_forms[0]; i++) {
    char json[256], got[64];
    snprintf(json, sizeof json, CL(", \"pin\": [\"top\", \"%s\"]"), bad_forms[i]);
    snprintf(got, sizeof got, "got \"%s\"", bad_forms[i]);
    ENSURE_ERR(parse(json), "t.json: objects[0].pin[1]: expected a pin", "top-left, top-right", got);
  }
  /* Out of range pins, checked against the resolution. */
  ENSURE_ERR(parse(CL(", \"pin\": [\"top\", \"corner:40,0\"]")),
             "t.json: objects[0].pin[1]: \"corner:40,0\" is outside the 32x32 grid");
  ENSURE_ERR(parse(CL(", \"resolution\": [10, 5], \"pin\": [\"corner:9,5\"]")),
             "objects[0].pin[0]: \"corner:9,5\" is outside the 10x5 grid");
  ENSURE_ERR(parse(CL(", \"resolution\": [10, 5], \"pin\": [\"row:5\"]")),
             "objects[0].pin[0]: \"row:5\" is outside the 10x5 grid");
  ENSURE_ERR(parse(CL(", \"resolution\": [10, 5], \"pin\": [\"column:10\"]")),
             "objects[0].pin[0]: \"column:10\" is outside the 10x5 grid");
  ENSURE_ERR(parse(CL(", \"resolution\": [10, 5], \"pin\": [\"index:50\"]")),
             "objects[0].pin[0]: \"index:50\" is outside the 10x5 grid");
  ENSURE_ERR(parse(CL(", \"pin\": [\"index:9999999999\"]")), "\"index:9999999999\" is outside the 32x32 grid");
  ENSURE_MSG(parse(CL(", \"resolution\": [10, 5], \"pin\": [\"corner:9,4\", \"row:4\", \"column:9\", \"index:49\"]")),
             "%s", fl_error_message());
  /* At most FL_CLOTH_MAX_PINS pins. */
  char json[1024];
  size_t n = (size_t)snprintf(json, sizeof json, "{\"objects\": [{\"type\": \"cloth\", \"pin\": [");
  for (int i = 0; i < FL_CLOTH_MAX_PINS + 1; i++)
    n += (size_t)snprintf(json + n, sizeof json - n, "%s\"index:%d\"", i ? ", " : "", i);
  snprintf(json + n, sizeof json - n, "]}]}");
  ENSURE_ERR(parse(json), "t.json: objects[0].pin: expected at most 16 pins, got 17");
  /* A sag deeper than an arc of the sheet's length can hang, tethers that are not a boolean or on a tearing cloth. */
  ENSURE_MSG(parse(CL(", \"size\": [1.2, 0.8], \"sag\": 0.36, \"tethers\": true")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].cloth.sag == 0.36f && g_scene.objects[0].cloth.tethers);
  ENSURE_ERR(parse(CL(", \"size\": [1.2, 0.8], \"sag\": 0.37")),
             "objects[0].sag: expected at most 0.3 x size[0] = 0.36 m (deeper than an arc can hang), got 0.37");
  ENSURE_ERR(parse(CL(", \"sag\": -0.1")), "objects[0].sag:");
  ENSURE_ERR(parse(CL(", \"tethers\": 1")), "objects[0].tethers:");
  ENSURE_ERR(parse(CL(", \"tethers\": true, \"tear_strain\": 0.5")),
             "objects[0].tethers: a tearing cloth (tear_strain) cannot have tethers");
}

static void test_mass_spring_defaults(void)
{
  ENSURE_MSG(parse(MS("")), "%s", fl_error_message());
  ENSURE(g_scene.object_count == 1);
  const fl_scene_object *o = &g_scene.objects[0];
  ENSURE(o->type == FL_OBJECT_MASS_SPRING && strcmp(o->name, "mass_spring0") == 0);
  const fl_mass_spring_desc *m = &o->mass_spring;
  ensure_sheet_defaults(m->resolution, m->size, m->center, m->plane, m->mass, m->pin_count);
  ENSURE(m->stiffness == 1000 && m->damping == 0.5f);
  ENSURE(m->springs == (FL_MS_SPRINGS_STRUCTURAL | FL_MS_SPRINGS_SHEAR | FL_MS_SPRINGS_BEND));
  ENSURE(m->integrator == FL_MS_INTEGRATOR_HY && m->jacobi_iterations == 3);
  ENSURE(m->split == FL_MS_SPLIT_KEY_PAPER && m->definite_jacobian);
  ENSURE(m->cg_iterations == 100 && m->cg_tolerance == 1e-5f && m->divergence_strain == 2);
}

static void test_mass_spring_keys(void)
{
  ENSURE_MSG(parse(MS(", \"name\": \"sheet\", \"resolution\": [40, 24], \"size\": [2, 1.2],"
                      " \"center\": [0, 2, -1], \"plane\": \"xy\", \"mass\": 0.5, \"stiffness\": 2500,"
                      " \"damping\": 0, \"springs\": \"structural+shear\","
                      " \"pin\": [\"top-left\", \"corner:39,23\", \"row:2\", \"index:959\"],"
                      " \"integrator\": \"IM\", \"jacobi_iterations\": 100, \"split\": \"momentum\","
                      " \"definite_jacobian\": false, \"cg_iterations\": 10000, \"cg_tolerance\": 0.5,"
                      " \"divergence_strain\": 0.25")),
             "%s", fl_error_message());
  const fl_mass_spring_desc *m = &g_scene.objects[0].mass_spring;
  ENSURE(strcmp(g_scene.objects[0].name, "sheet") == 0);
  ENSURE(m->resolution[0] == 40 && m->resolution[1] == 24);
  ENSURE_NEAR(m->size[0], 2, 0);
  ENSURE_NEAR(m->size[1], 1.2, 1e-7);
  ENSURE_NEAR(m->center[1], 2, 0);
  ENSURE_NEAR(m->center[2], -1, 0);
  ENSURE(m->plane == FL_PLANE_XY);
  ENSURE_NEAR(m->mass, 0.5, 0);
  ENSURE_NEAR(m->stiffness, 2500, 0);
  ENSURE(m->damping == 0);
  ENSURE(m->springs == (FL_MS_SPRINGS_STRUCTURAL | FL_MS_SPRINGS_SHEAR));
  const fl_cloth_pin want[] = {
      {FL_PIN_PARTICLE, 0, -1}, {FL_PIN_PARTICLE, 39, 23}, {FL_PIN_ROW, 2, 0}, {FL_PIN_INDEX, 959, 0}};
  ensure_pins(m->pins, m->pin_count, want, 4);
  ENSURE(m->integrator == FL_MS_INTEGRATOR_IM && m->jacobi_iterations == 100);
  ENSURE(m->split == FL_MS_SPLIT_KEY_MOMENTUM && !m->definite_jacobian);
  ENSURE(m->cg_iterations == 10000);
  ENSURE_NEAR(m->cg_tolerance, 0.5, 0);
  ENSURE_NEAR(m->divergence_strain, 0.25, 0);
  /* Every integrator and spring set by name; the edges of the integer ranges. */
  static const char *const integrators[] = {"E", "HO", "JI", "IM", "HY"};
  for (int i = 0; i < 5; i++) {
    char json[256];
    snprintf(json, sizeof json, MS(", \"integrator\": \"%s\""), integrators[i]);
    ENSURE_MSG(parse(json), "%s", fl_error_message());
    ENSURE(g_scene.objects[0].mass_spring.integrator == (fl_ms_integrator)i);
  }
  ENSURE_MSG(parse(MS(", \"springs\": \"structural\", \"resolution\": [2, 1024], \"jacobi_iterations\": 1,"
                      " \"cg_iterations\": 1, \"split\": \"paper\", \"plane\": \"xz\"")),
             "%s", fl_error_message());
  m = &g_scene.objects[0].mass_spring;
  ENSURE(m->springs == FL_MS_SPRINGS_STRUCTURAL && m->resolution[1] == 1024);
  ENSURE(m->jacobi_iterations == 1 && m->cg_iterations == 1 && m->split == FL_MS_SPLIT_KEY_PAPER);
  ENSURE_MSG(parse(MS(", \"springs\": \"structural+shear+bend\"")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].mass_spring.springs == 7);
  /* --set reaches mass_spring keys, pins included. */
  const char *sets[] = {"objects.mass_spring0.integrator=JI", "objects.mass_spring0.pin=[\"bottom\"]",
                        "objects.mass_spring0.resolution=[32, 9]"};
  ENSURE_MSG(fl_scene_parse(MS(""), "t.json", sets, 3, &g_scene), "%s", fl_error_message());
  m = &g_scene.objects[0].mass_spring;
  ENSURE(m->integrator == FL_MS_INTEGRATOR_JI && m->pin_count == 1 && m->pins[0].kind == FL_PIN_ROW);
  ENSURE(m->resolution[0] == 32 && m->resolution[1] == 9);
  ENSURE_ERR(parse_set(MS(""), "objects.mass_spring0.wind=1"),
             "--set objects.mass_spring0.wind=1: unknown key \"wind\" in objects.mass_spring0",
             "known: type, name, resolution");
  /* Collisions are off unless a thickness is given (issue 17). */
  ENSURE_MSG(parse(MS("")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].mass_spring.thickness == 0 && g_scene.objects[0].mass_spring.friction == 0.5f);
  ENSURE_MSG(parse(MS(", \"thickness\": 0.02, \"friction\": 0.8")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].mass_spring.thickness == 0.02f && g_scene.objects[0].mass_spring.friction == 0.8f);
}

static void test_mass_spring_errors(void)
{
  /* The cases of the task: each one line naming the key path and what was expected. */
  ENSURE_ERR(parse(MS(", \"integrator\": \"RK4\"")),
             "t.json: objects[0].integrator: expected one of: E, HO, JI, IM, HY; got \"RK4\"");
  ENSURE_ERR(parse(MS(", \"resolution\": [1, 8]")),
             "t.json: objects[0].resolution[0]: expected an integer in 2..1024, got 1");
  ENSURE_ERR(parse(MS(", \"resolution\": [8, 2000]")),
             "t.json: objects[0].resolution[1]: expected an integer in 2..1024, got 2000");
  ENSURE_ERR(parse(MS(", \"resolution\": [1025, 8]")), "objects[0].resolution[0]: expected an integer in 2..1024");
  ENSURE_ERR(parse(MS(", \"resolution\": 1")), "objects[0].resolution: expected an array of 2 integers", "got 1");
  ENSURE_ERR(parse(MS(", \"stiffness\": 0")), "t.json: objects[0].stiffness: expected a number > 0 and <= 1e+12, got 0");
  ENSURE_ERR(parse(MS(", \"cg_tolerance\": 1")),
             "t.json: objects[0].cg_tolerance: expected a number > 0 and < 1, got 1");
  ENSURE_ERR(parse(MS(", \"cg_tolerance\": 0")), "objects[0].cg_tolerance: expected a number > 0 and < 1, got 0");
  ENSURE_ERR(parse(MS(", \"cg_tolerance\": 0.99999999999")),
             "t.json: objects[0].cg_tolerance: expected a number > 0 and < 1", "which is 1 as a 32-bit float");
  /* a positive number below the float range would be stored as 0 */
  ENSURE_ERR(parse(MS(", \"stiffness\": 1e-50")), "objects[0].stiffness: expected a number > 0",
             "which is 0 as a 32-bit float");
  ENSURE_ERR(parse(MS(", \"springs\": \"bend\"")),
             "t.json: objects[0].springs: expected one of: structural, structural+shear, "
             "structural+shear+bend; got \"bend\"");
  ENSURE_ERR(parse(MS(", \"self_collision\": true")),
             "t.json: objects[0]: unknown key \"self_collision\" for a mass_spring object",
             "known: type, name, resolution, size");
  /* The other ranges and types. */
  ENSURE_ERR(parse(MS(", \"size\": [1, 0]")), "t.json: objects[0].size[1]: expected a number in 1e-05..10000, got 0");
  ENSURE_ERR(parse(MS(", \"center\": [0, 1]")), "objects[0].center: expected an array of 3 numbers");
  ENSURE_ERR(parse(MS(", \"plane\": \"yz\"")), "t.json: objects[0].plane: expected one of: xz, xy; got \"yz\"");
  ENSURE_ERR(parse(MS(", \"mass\": -1")), "t.json: objects[0].mass: expected a number > 0 and <= 1e+09, got -1");
  ENSURE_ERR(parse(MS(", \"damping\": -0.5")), "t.json: objects[0].damping: expected a number in 0..1e+09, got -0.5");
  ENSURE_ERR(parse(MS(", \"springs\": 7")), "objects[0].springs: expected one of: structural", "got 7");
  ENSURE_ERR(parse(MS(", \"integrator\": \"hy\"")), "objects[0].integrator: expected one of", "got \"hy\"");
  ENSURE_ERR(parse(MS(", \"jacobi_iterations\": 0")),
             "t.json: objects[0].jacobi_iterations: expected an integer in 1..100, got 0");
  ENSURE_ERR(parse(MS(", \"jacobi_iterations\": 101")), "objects[0].jacobi_iterations: expected an integer in 1..100");
  ENSURE_ERR(parse(MS(", \"jacobi_iterations\": 2.5")), "objects[0].jacobi_iterations: expected an integer", "got 2.5");
  ENSURE_ERR(parse(MS(", \"split\": \"equal\"")),
             "t.json: objects[0].split: expected one of: paper, momentum; got \"equal\"");
  ENSURE_ERR(parse(MS(", \"definite_jacobian\": 1")),
             "t.json: objects[0].definite_jacobian: expected true or false, got 1");
  ENSURE_ERR(parse(MS(", \"cg_iterations\": 0")),
             "t.json: objects[0].cg_iterations: expected an integer in 1..10000, got 0");
  ENSURE_ERR(parse(MS(", \"cg_iterations\": 10001")), "objects[0].cg_iterations: expected an integer in 1..10000");
  ENSURE_ERR(parse(MS(", \"divergence_strain\": 0")),
             "t.json: objects[0].divergence_strain: expected a number > 0, got 0");
  ENSURE_ERR(parse(MS(", \"stiffness\": 1e999")), "objects[0].stiffness: expected a number > 0");
  /* Pins: the cloth forms, checked against this grid. */
  ENSURE_ERR(parse(MS(", \"resolution\": [10, 5], \"pin\": [\"top\", \"corner:10,0\"]")),
             "t.json: objects[0].pin[1]: \"corner:10,0\" is outside the 10x5 grid");
  ENSURE_ERR(parse(MS(", \"pin\": [\"middle\"]")), "t.json: objects[0].pin[0]: expected a pin \"corner:i,j\"",
             "got \"middle\"");
  ENSURE_ERR(parse(MS(", \"pin\": \"top\"")), "t.json: objects[0].pin: expected an array of pins");
}

/* The defaults soft bodies and balloons share (scene.h, fl_body_common_desc). */
static void ensure_body_common_defaults(const fl_body_common_desc *c)
{
  ENSURE(c->center[0] == 0 && c->center[1] == 1 && c->center[2] == 0);
  ENSURE(c->radius == 0.5f && c->path[0] == 0 && c->scale == 1);
  ENSURE(c->velocity[0] == 0 && c->velocity[1] == 0 && c->velocity[2] == 0);
  ENSURE(c->damping == 0.1f && c->thickness == 0);
  ENSURE(c->friction[0] == 0.5f && c->friction[1] == 0.4f);
  ENSURE(c->volume_conservation == FL_VOLUME_CONSERVE_NONE && c->volume_alpha == 0.5f);
  ENSURE(c->volume_beta == 1.0f && c->volume_pair_stiffness == 1.0f && !c->volume_velocity);
  ENSURE(c->measure_after == 0);
}

static void test_softbody_defaults(void)
{
  ENSURE_MSG(parse(SB("")), "%s", fl_error_message());
  ENSURE(g_scene.object_count == 1);
  const fl_scene_object *o = &g_scene.objects[0];
  ENSURE(o->type == FL_OBJECT_SOFTBODY && strcmp(o->name, "softbody0") == 0);
  const fl_softbody_desc *b = &o->softbody;
  ensure_body_common_defaults(&b->common);
  ENSURE(b->shape == FL_BODY_SPHERE);
  ENSURE(b->half_extents[0] == 0.3f && b->half_extents[1] == 0.3f && b->half_extents[2] == 0.3f);
  ENSURE(b->minor_radius == 0.2f && b->resolution == 8 && b->density == 1000);
  ENSURE(b->model == FL_SOFT_MODEL_XPBD && b->edge_compliance == 1e-5f && b->volume_compliance == 0);
  ENSURE(b->youngs_modulus == 1e5f && b->poisson_ratio == 0.4f && b->render_detail == 32);
  ENSURE(strcmp(fl_object_type_name(FL_OBJECT_SOFTBODY), "softbody") == 0);
  /* A torus with the default radii (0.2 < 0.5) is fine. */
  ENSURE_MSG(parse(SB(", \"shape\": \"torus\"")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].softbody.shape == FL_BODY_TORUS);
}

static void test_softbody_keys(void)
{
  ENSURE_MSG(parse(SB(", \"name\": \"jelly\", \"shape\": \"torus\", \"center\": [1, 2, 3], \"radius\": 0.8,"
                      " \"minor_radius\": 0.3, \"resolution\": 64, \"density\": 500, \"model\": \"neohookean\","
                      " \"edge_compliance\": 1e-3, \"volume_compliance\": 2e-4, \"youngs_modulus\": 2e6,"
                      " \"poisson_ratio\": 0.49, \"velocity\": [0, -1, 2], \"damping\": 0, \"thickness\": 0.05,"
                      " \"friction\": [0.9, 0.7], \"volume_conservation\": \"local\", \"volume_alpha\": 1,"
                      " \"render_detail\": 256, \"measure_after\": 1.5")),
             "%s", fl_error_message());
  const fl_softbody_desc *b = &g_scene.objects[0].softbody;
  ENSURE(strcmp(g_scene.objects[0].name, "jelly") == 0);
  ENSURE(b->shape == FL_BODY_TORUS && b->model == FL_SOFT_MODEL_NEOHOOKEAN);
  ENSURE(b->common.center[0] == 1 && b->common.center[1] == 2 && b->common.center[2] == 3);
  ENSURE(b->common.radius == 0.8f && b->minor_radius == 0.3f);
  ENSURE(b->resolution == 64 && b->density == 500 && b->render_detail == 256);
  ENSURE(b->edge_compliance == 1e-3f && b->volume_compliance == 2e-4f);
  ENSURE(b->youngs_modulus == 2e6f && b->poisson_ratio == 0.49f);
  ENSURE(b->common.velocity[1] == -1 && b->common.velocity[2] == 2);
  ENSURE(b->common.damping == 0 && b->common.thickness == 0.05f);
  ENSURE(b->common.friction[0] == 0.9f && b->common.friction[1] == 0.7f);
  ENSURE(b->common.volume_conservation == FL_VOLUME_CONSERVE_LOCAL && b->common.volume_alpha == 1);
  ENSURE(b->common.measure_after == 1.5f);
  /* The other ends of the ranges and the other enum values. */
  ENSURE_MSG(parse(SB(", \"shape\": \"box\", \"half_extents\": [0.1, 0.2, 0.3], \"resolution\": 2,"
                      " \"render_detail\": 4, \"model\": \"xpbd\", \"poisson_ratio\": 0, \"volume_alpha\": 0,"
                      " \"volume_conservation\": \"global\", \"thickness\": 0, \"friction\": [0, 0]")),
             "%s", fl_error_message());
  b = &g_scene.objects[0].softbody;
  ENSURE(b->shape == FL_BODY_BOX && b->model == FL_SOFT_MODEL_XPBD);
  ENSURE(b->half_extents[0] == 0.1f && b->half_extents[1] == 0.2f && b->half_extents[2] == 0.3f);
  ENSURE(b->resolution == 2 && b->render_detail == 4 && b->poisson_ratio == 0);
  ENSURE(b->common.volume_conservation == FL_VOLUME_CONSERVE_GLOBAL && b->common.volume_alpha == 0);
  ENSURE_MSG(parse(SB(", \"shape\": \"sphere\", \"radius\": 2, \"volume_conservation\": \"none\"")), "%s",
             fl_error_message());
  ENSURE(g_scene.objects[0].softbody.shape == FL_BODY_SPHERE && g_scene.objects[0].softbody.common.radius == 2);
  ENSURE(g_scene.objects[0].softbody.common.volume_conservation == FL_VOLUME_CONSERVE_NONE);
  /* --set reaches softbody keys; a key of another shape is named once the shape is set. */
  const char *sets[] = {"objects.softbody0.shape=box", "objects.softbody0.half_extents=[1, 2, 3]",
                        "objects.softbody0.model=neohookean"};
  ENSURE_MSG(fl_scene_parse(SB(""), "t.json", sets, 3, &g_scene), "%s", fl_error_message());
  b = &g_scene.objects[0].softbody;
  ENSURE(b->shape == FL_BODY_BOX && b->half_extents[2] == 3 && b->model == FL_SOFT_MODEL_NEOHOOKEAN);
  ENSURE_ERR(parse_set(SB(""), "objects.softbody0.half_extents=[1, 1, 1]"),
             "--set objects.softbody0.half_extents=[1, 1, 1]: unknown key \"half_extents\" in objects.softbody0",
             "known: type, name, shape, center");
}

static void test_softbody_errors(void)
{
  /* Unknown keys, and keys of another shape (as for colliders). */
  ENSURE_ERR(parse(SB(", \"radiuss\": 1")), "t.json: objects[0]: unknown key \"radiuss\" for a sphere softbody",
             "known: type, name, shape, center, density");
  ENSURE_ERR(parse(SB(", \"half_extents\": [1, 1, 1]")),
             "t.json: objects[0]: unknown key \"half_extents\" for a sphere softbody");
  ENSURE_ERR(parse(SB(", \"shape\": \"box\", \"radius\": 1")),
             "t.json: objects[0]: unknown key \"radius\" for a box softbody");
  ENSURE_ERR(parse(SB(", \"minor_radius\": 0.1")), "unknown key \"minor_radius\" for a sphere softbody");
  ENSURE_ERR(parse(SB(", \"path\": \"a.obj\"")), "t.json: objects[0]: unknown key \"path\" for a sphere softbody");
  ENSURE_ERR(parse(SB(", \"scale\": 2")), "unknown key \"scale\" for a sphere softbody");
  ENSURE_ERR(parse(SB(", \"shape\": \"tetgen\", \"path\": \"a.node\", \"resolution\": 8")),
             "t.json: objects[0]: unknown key \"resolution\" for a tetgen softbody");
  ENSURE_ERR(parse(SB(", \"shape\": \"mesh\", \"path\": \"a.obj\", \"render_detail\": 8")),
             "t.json: objects[0]: unknown key \"render_detail\" for a mesh softbody");
  ENSURE_ERR(parse(SB(", \"subdivisions\": 2")), "unknown key \"subdivisions\" for a sphere softbody");
  /* Each enum. */
  ENSURE_ERR(parse(SB(", \"shape\": \"cone\"")),
             "t.json: objects[0].shape: expected one of: sphere, box, torus, mesh, tetgen; got \"cone\"");
  ENSURE_ERR(parse(SB(", \"shape\": \"icosphere\"")), "objects[0].shape: expected one of: sphere, box",
             "got \"icosphere\"");
  ENSURE_ERR(parse(SB(", \"shape\": 1")), "objects[0].shape: expected one of: sphere", "got 1");
  ENSURE_ERR(parse(SB(", \"model\": \"fem\"")), "t.json: objects[0].model: expected one of: xpbd, neohookean; got \"fem\"");
  ENSURE_ERR(parse(SB(", \"volume_conservation\": \"all\"")),
             "t.json: objects[0].volume_conservation: expected one of: none, global, local; got \"all\"");
  /* Ranges, with the exact messages. */
  ENSURE_ERR(parse(SB(", \"radius\": 0")), "t.json: objects[0].radius: expected a number in 1e-05..10000, got 0");
  ENSURE_ERR(parse(SB(", \"radius\": 1e-50")), "t.json: objects[0].radius: expected a number in 1e-05..10000, got 1e-50");
  ENSURE_ERR(parse(SB(", \"shape\": \"box\", \"half_extents\": [1, -1, 1]")),
             "t.json: objects[0].half_extents[1]: expected a number in 1e-05..10000, got -1");
  ENSURE_ERR(parse(SB(", \"shape\": \"torus\", \"minor_radius\": 0")),
             "t.json: objects[0].minor_radius: expected a number in 1e-05..10000, got 0");
  ENSURE_ERR(parse(SB(", \"resolution\": 1")), "t.json: objects[0].resolution: expected an integer in 2..64, got 1");
  ENSURE_ERR(parse(SB(", \"resolution\": 65")), "t.json: objects[0].resolution: expected an integer in 2..64, got 65");
  ENSURE_ERR(parse(SB(", \"resolution\": 8.5")), "t.json: objects[0].resolution: expected an integer in 2..64, got 8.5");
  ENSURE_ERR(parse(SB(", \"density\": 0")), "t.json: objects[0].density: expected a number > 0 and <= 100000, got 0");
  ENSURE_ERR(parse(SB(", \"edge_compliance\": -1e-6")),
             "t.json: objects[0].edge_compliance: expected a number >= 0, got -1e-06");
  ENSURE_ERR(parse(SB(", \"volume_compliance\": -1")),
             "t.json: objects[0].volume_compliance: expected a number >= 0, got -1");
  ENSURE_ERR(parse(SB(", \"youngs_modulus\": 0")), "t.json: objects[0].youngs_modulus: expected a number > 0 and <= 1e+12, got 0");
  ENSURE_ERR(parse(SB(", \"youngs_modulus\": 1e39")),
             "t.json: objects[0].youngs_modulus: expected a number > 0 and <= 1e+12 (finite, within +-3.4e38), got 1e+39");
  ENSURE_ERR(parse(SB(", \"poisson_ratio\": 0.5")),
             "t.json: objects[0].poisson_ratio: expected a number in 0..0.49, got 0.5");
  ENSURE_ERR(parse(SB(", \"poisson_ratio\": 0.4901")),
             "t.json: objects[0].poisson_ratio: expected a number in 0..0.49, got 0.4901");
  ENSURE_ERR(parse(SB(", \"poisson_ratio\": -0.1")),
             "t.json: objects[0].poisson_ratio: expected a number in 0..0.49, got -0.1");
  ENSURE_ERR(parse(SB(", \"render_detail\": 3")),
             "t.json: objects[0].render_detail: expected an integer in 4..256, got 3");
  ENSURE_ERR(parse(SB(", \"render_detail\": 257")),
             "t.json: objects[0].render_detail: expected an integer in 4..256, got 257");
  ENSURE_ERR(parse(SB(", \"damping\": -0.1")), "t.json: objects[0].damping: expected a number in 0..10000, got -0.1");
  ENSURE_ERR(parse(SB(", \"thickness\": -0.01")), "t.json: objects[0].thickness: expected a number in 0..10000, got -0.01");
  ENSURE_ERR(parse(SB(", \"friction\": [0.5, -1]")), "t.json: objects[0].friction[1]: expected a number in 0..100, got -1");
  ENSURE_ERR(parse(SB(", \"friction\": 0.5")),
             "t.json: objects[0].friction: expected an array of 2 numbers, each a number in 0..100, got 0.5");
  ENSURE_ERR(parse(SB(", \"volume_alpha\": 1.5")), "t.json: objects[0].volume_alpha: expected a number in 0..1, got 1.5");
  ENSURE_ERR(parse(SB(", \"volume_alpha\": -0.5")), "t.json: objects[0].volume_alpha: expected a number in 0..1, got -0.5");
  ENSURE_ERR(parse(SB(", \"measure_after\": -1")), "t.json: objects[0].measure_after: expected a number >= 0, got -1");
  ENSURE_ERR(parse(SB(", \"center\": [0, 1]")), "t.json: objects[0].center: expected an array of 3 numbers");
  ENSURE_ERR(parse(SB(", \"velocity\": [0, \"x\", 0]")), "t.json: objects[0].velocity[1]: expected a number in -1000..1000, got \"x\"");
  ENSURE_ERR(parse(SB(", \"shape\": \"mesh\", \"path\": \"a.obj\", \"scale\": 0")),
             "t.json: objects[0].scale: expected a number in 1e-06..1e+06, got 0");
  /* A torus's tube must be thinner than its major radius. */
  ENSURE_ERR(parse(SB(", \"shape\": \"torus\", \"radius\": 0.5, \"minor_radius\": 0.5")),
             "t.json: objects[0].minor_radius: expected a number < radius (0.5), got 0.5");
  ENSURE_ERR(parse(SB(", \"shape\": \"torus\", \"radius\": 0.1")),
             "t.json: objects[0].minor_radius: expected a number < radius (0.1), got 0.2");
  /* mesh and tetgen need a path; tetgen's ends in ".node"; the file must exist. */
  ENSURE_ERR(parse(SB(", \"shape\": \"mesh\"")),
             "t.json: objects[0]: missing required key \"path\" (a mesh softbody needs \"path\": an .obj file)");
  ENSURE_ERR(parse(SB(", \"shape\": \"tetgen\"")),
             "t.json: objects[0]: missing required key \"path\" (a tetgen softbody needs \"path\": a TetGen .node file)");
  ENSURE_ERR(parse(SB(", \"shape\": \"tetgen\", \"path\": \"beam.ele\"")),
             "t.json: objects[0].path: expected a path ending in \".node\", got \"beam.ele\"");
  ENSURE_ERR(parse(SB(", \"shape\": \"tetgen\", \"path\": \".node\"")),
             "t.json: objects[0].path: expected a path ending in \".node\", got \".node\"");
  ENSURE_ERR(parse(SB(", \"shape\": \"mesh\", \"path\": \"\"")),
             "t.json: objects[0].path: expected a string (1..255 bytes, no control characters), got \"\"");
  ENSURE_ERR(parse(SB(", \"shape\": \"mesh\", \"path\": 5")), "t.json: objects[0].path: expected a string, got 5");
  use_source_dir();
  char want[1200];
  snprintf(want, sizeof want, "t.json: objects[0].path: cannot find 'no_such_mesh.obj' (looked next to the scene and in %s)",
           fl_data_dir());
  ENSURE_ERR(parse(SB(", \"shape\": \"mesh\", \"path\": \"no_such_mesh.obj\"")), want);
  ENSURE_ERR(parse(SB(", \"shape\": \"tetgen\", \"path\": \"/nonexistent/dir/x.node\"")),
             "t.json: objects[0].path: cannot find '/nonexistent/dir/x.node'");
  char long_path[300];
  memset(long_path, 'a', sizeof long_path);
  long_path[sizeof long_path - 1] = 0;
  char json[512];
  snprintf(json, sizeof json, SB(", \"shape\": \"mesh\", \"path\": \"%s\""), long_path);
  ENSURE_ERR(parse(json), "t.json: objects[0].path: expected a string (1..255 bytes, no control characters)");
}

static void test_balloon_defaults(void)
{
  ENSURE_MSG(parse(BL("")), "%s", fl_error_message());
  ENSURE(g_scene.object_count == 1);
  const fl_scene_object *o = &g_scene.objects[0];
  ENSURE(o->type == FL_OBJECT_BALLOON && strcmp(o->name, "balloon0") == 0);
  const fl_balloon_desc *b = &o->balloon;
  ensure_body_common_defaults(&b->common);
  ENSURE(b->shape == FL_BODY_ICOSPHERE && b->subdivisions == 3 && b->mass == 0.1f);
  ENSURE(b->stretch_compliance == 1e-4f && b->bend_compliance == 0.1f && b->bending == FL_BENDING_ISOMETRIC);
  ENSURE(b->pressure == 1 && b->pressure_compliance == 0);
  ENSURE(strcmp(fl_object_type_name(FL_OBJECT_BALLOON), "balloon") == 0);
}

static void test_balloon_keys(void)
{
  ENSURE_MSG(parse(BL(", \"name\": \"red\", \"shape\": \"icosphere\", \"subdivisions\": 6, \"center\": [0, 2, 0],"
                      " \"radius\": 0.3, \"mass\": 0.05, \"stretch_compliance\": 0, \"bend_compliance\": 1,"
                      " \"bending\": \"dihedral\", \"pressure\": 10, \"pressure_compliance\": 1e-3,"
                      " \"velocity\": [1, 0, 0], \"damping\": 0.5, \"thickness\": 0.02, \"friction\": [0.3, 0.2],"
                      " \"volume_conservation\": \"global\", \"volume_alpha\": 0.5, \"measure_after\": 0.25,"
                      " \"volume_beta\": 0.75, \"volume_pair_stiffness\": 3, \"volume_velocity\": true")),
             "%s", fl_error_message());
  const fl_balloon_desc *b = &g_scene.objects[0].balloon;
  ENSURE(strcmp(g_scene.objects[0].name, "red") == 0);
  ENSURE(b->shape == FL_BODY_ICOSPHERE && b->subdivisions == 6 && b->common.center[1] == 2);
  ENSURE(b->common.radius == 0.3f && b->mass == 0.05f);
  ENSURE(b->stretch_compliance == 0 && b->bend_compliance == 1 && b->bending == FL_BENDING_DIHEDRAL);
  ENSURE(b->pressure == 10 && b->pressure_compliance == 1e-3f);
  ENSURE(b->common.velocity[0] == 1 && b->common.damping == 0.5f && b->common.thickness == 0.02f);
  ENSURE(b->common.friction[0] == 0.3f && b->common.friction[1] == 0.2f);
  ENSURE(b->common.volume_conservation == FL_VOLUME_CONSERVE_GLOBAL && b->common.volume_alpha == 0.5f);
  ENSURE(b->common.volume_beta == 0.75f && b->common.volume_pair_stiffness == 3 && b->common.volume_velocity);
  ENSURE(b->common.measure_after == 0.25f);
  ENSURE_MSG(parse(BL(", \"subdivisions\": 0, \"pressure\": 0.1, \"bending\": \"none\","
                      " \"volume_conservation\": \"local\"")),
             "%s", fl_error_message());
  b = &g_scene.objects[0].balloon;
  ENSURE(b->subdivisions == 0 && b->pressure == 0.1f && b->bending == FL_BENDING_NONE);
  ENSURE(b->common.volume_conservation == FL_VOLUME_CONSERVE_LOCAL);
  ENSURE_MSG(parse(BL(", \"bending\": \"isometric\", \"volume_conservation\": \"none\"")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].balloon.bending == FL_BENDING_ISOMETRIC);
  /* A mesh balloon from the data directory (any existing file: the parser does not read it). */
  use_source_dir();
  ENSURE_MSG(parse(BL(", \"shape\": \"mesh\", \"path\": \"assets/scenes/particles.json\", \"scale\": 2")), "%s",
             fl_error_message());
  b = &g_scene.objects[0].balloon;
  char want[1200];
  fl_data_path(want, sizeof want, "assets/scenes/particles.json");
  ENSURE_MSG(b->shape == FL_BODY_MESH && strcmp(b->common.path, want) == 0, "%s", b->common.path);
  ENSURE(b->common.scale == 2);
  ENSURE_MSG(parse_set(BL(""), "objects.balloon0.pressure=2"), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].balloon.pressure == 2);
}

static void test_balloon_errors(void)
{
  ENSURE_ERR(parse(BL(", \"shape\": \"sphere\"")),
             "t.json: objects[0].shape: expected one of: icosphere, mesh; got \"sphere\"");
  ENSURE_ERR(parse(BL(", \"bending\": \"cubic\"")),
             "t.json: objects[0].bending: expected one of: isometric, dihedral, none; got \"cubic\"");
  ENSURE_ERR(parse(BL(", \"volume_conservation\": 1")),
             "t.json: objects[0].volume_conservation: expected one of: none, global, local; got 1");
  ENSURE_ERR(parse(BL(", \"density\": 1")), "t.json: objects[0]: unknown key \"density\" for an icosphere balloon",
             "known: type, name, shape, center, mass");
  ENSURE_ERR(parse(BL(", \"path\": \"a.obj\"")), "t.json: objects[0]: unknown key \"path\" for an icosphere balloon");
  ENSURE_ERR(parse(BL(", \"shape\": \"mesh\", \"path\": \"a.obj\", \"subdivisions\": 2")),
             "t.json: objects[0]: unknown key \"subdivisions\" for a mesh balloon");
  ENSURE_ERR(parse(BL(", \"shape\": \"mesh\", \"path\": \"a.obj\", \"radius\": 2")),
             "t.json: objects[0]: unknown key \"radius\" for a mesh balloon");
  ENSURE_ERR(parse(BL(", \"shape\": \"mesh\"")),
             "t.json: objects[0]: missing required key \"path\" (a mesh balloon needs \"path\": an .obj file)");
  ENSURE_ERR(parse(BL(", \"subdivisions\": 7")), "t.json: objects[0].subdivisions: expected an integer in 0..6, got 7");
  ENSURE_ERR(parse(BL(", \"subdivisions\": -1")), "t.json: objects[0].subdivisions: expected an integer in 0..6, got -1");
  ENSURE_ERR(parse(BL(", \"radius\": -1")), "t.json: objects[0].radius: expected a number in 1e-05..10000, got -1");
  ENSURE_ERR(parse(BL(", \"mass\": 0")), "t.json: objects[0].mass: expected a number > 0 and <= 1e+09, got 0");
  ENSURE_ERR(parse(BL(", \"stretch_compliance\": -1")),
             "t.json: objects[0].stretch_compliance: expected a number >= 0, got -1");
  ENSURE_ERR(parse(BL(", \"bend_compliance\": -1")), "t.json: objects[0].bend_compliance: expected a number >= 0, got -1");
  ENSURE_ERR(parse(BL(", \"pressure\": 0.09")), "t.json: objects[0].pressure: expected a number in 0.1..10, got 0.09");
  ENSURE_ERR(parse(BL(", \"pressure\": 10.5")), "t.json: objects[0].pressure: expected a number in 0.1..10, got 10.5");
  ENSURE_ERR(parse(BL(", \"pressure_compliance\": -1")),
             "t.json: objects[0].pressure_compliance: expected a number >= 0, got -1");
  ENSURE_ERR(parse(BL(", \"volume_alpha\": 2")), "t.json: objects[0].volume_alpha: expected a number in 0..1, got 2");
  ENSURE_ERR(parse(BL(", \"volume_beta\": 1.5")), "t.json: objects[0].volume_beta: expected a number in 0..1, got 1.5");
  ENSURE_ERR(parse(BL(", \"volume_pair_stiffness\": -1")),
             "t.json: objects[0].volume_pair_stiffness: expected a number in 0..10000, got -1");
  ENSURE_ERR(parse(BL(", \"volume_velocity\": true")),
             "t.json: objects[0].volume_velocity: the velocity correction needs \"volume_conservation\": \"global\" or "
             "\"local\"");
  ENSURE_ERR(parse(BL(", \"thickness\": -1")), "t.json: objects[0].thickness: expected a number in 0..10000, got -1");
  ENSURE_ERR(parse(BL(", \"damping\": -1")), "t.json: objects[0].damping: expected a number in 0..10000, got -1");
  ENSURE_ERR(parse(BL(", \"measure_after\": 1e999")),
             "t.json: objects[0].measure_after: expected a number >= 0 (finite, within +-3.4e38), got a number too large "
             "to represent");
  ENSURE_ERR(parse(BL(", \"friction\": [-1, 0]")), "t.json: objects[0].friction[0]: expected a number in 0..100, got -1");
  ENSURE_ERR(parse(BL(", \"shape\": \"mesh\", \"path\": \"a.obj\", \"scale\": -2")),
             "t.json: objects[0].scale: expected a number in 1e-06..1e+06, got -2");
  use_source_dir();
  char want[1200];
  snprintf(want, sizeof want, "t.json: objects[0].path: cannot find 'meshes/none.obj' (looked next to the scene and in %s)",
           fl_data_dir());
  ENSURE_ERR(parse(BL(", \"shape\": \"mesh\", \"path\": \"meshes/none.obj\"")), want);
}

/* Writes a small file at dir/rel (making one level of subdirectory when rel has one). */
static bool write_at(const char *dir, const char *rel, const char *text)
{
  char path[512];
  const char *slash = strchr(rel, '/');
  if (slash) {
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)(slash - rel), rel);
    mkdir(path, 0700);
  }
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  return fl_file_write(path, text, strlen(text));
}

static void remove_at(const char *dir, const char *rel)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  unlink(path);
}

static void test_body_paths(void)
{
  use_source_dir();
  char dir[] = "/tmp/flurry_test_paths_XXXXXX";
  ENSURE(mkdtemp(dir));
  ENSURE(write_at(dir, "bear.obj", "v 0 0 0\n"));
  ENSURE(write_at(dir, "meshes/beam.node", "0 3 0 0\n"));
  ENSURE(write_at(dir, "assets/particles.json", "{}"));
  char scene[512], want[1200];
  snprintf(scene, sizeof scene, "%s/scene.json", dir);
  /* Next to the scene file, subdirectories included; stored as the path found. */
  const char text[] =
      "{\"objects\": [{\"type\": \"softbody\", \"shape\": \"mesh\", \"path\": \"bear.obj\"},"
      " {\"type\": \"softbody\", \"shape\": \"tetgen\", \"path\": \"meshes/beam.node\"},"
      " {\"type\": \"balloon\", \"shape\": \"mesh\", \"path\": \"bear.obj\"}]}";
  ENSURE(fl_file_write(scene, text, sizeof text - 1));
  ENSURE_MSG(fl_scene_load(scene, NULL, 0, &g_scene), "%s", fl_error_message());
  snprintf(want, sizeof want, "%s/bear.obj", dir);
  ENSURE_MSG(strcmp(g_scene.objects[0].softbody.common.path, want) == 0, "%s", g_scene.objects[0].softbody.common.path);
  ENSURE(strcmp(g_scene.objects[2].balloon.common.path, want) == 0);
  snprintf(want, sizeof want, "%s/meshes/beam.node", dir);
  ENSURE(g_scene.objects[1].softbody.shape == FL_BODY_TETGEN);
  ENSURE_MSG(strcmp(g_scene.objects[1].softbody.common.path, want) == 0, "%s", g_scene.objects[1].softbody.common.path);
  /* The scene's directory comes before the data directory. */
  const char both[] = "{\"objects\": [{\"type\": \"softbody\", \"shape\": \"mesh\", \"path\": \"assets/particles.json\"},"
                      " {\"type\": \"balloon\", \"shape\": \"mesh\", \"path\": \"assets/scenes/particles.json\"}]}";
  ENSURE(fl_file_write(scene, both, sizeof both - 1));
  ENSURE_MSG(fl_scene_load(scene, NULL, 0, &g_scene), "%s", fl_error_message());
  snprintf(want, sizeof want, "%s/assets/particles.json", dir);
  ENSURE(strcmp(g_scene.objects[0].softbody.common.path, want) == 0);
  fl_data_path(want, sizeof want, "assets/scenes/particles.json");
  ENSURE(strcmp(g_scene.objects[1].balloon.common.path, want) == 0);
  /* Parsing text whose source names the scene file resolves the same way; a source that is no
   * file (a scene from memory) skips that candidate. */
  ENSURE_MSG(fl_scene_parse(text, scene, NULL, 0, &g_scene), "%s", fl_error_message());
  snprintf(want, sizeof want, "%s/bear.obj", dir);
  ENSURE(strcmp(g_scene.objects[0].softbody.common.path, want) == 0);
  snprintf(want, sizeof want, "t.json: objects[0].path: cannot find 'bear.obj' (looked next to the scene and in %s)",
           fl_data_dir());
  ENSURE_ERR(parse(text), want);
  /* Absolute paths are kept as they are. */
  char json[1024];
  snprintf(json, sizeof json, SB(", \"shape\": \"tetgen\", \"path\": \"%s/meshes/beam.node\""), dir);
  ENSURE_MSG(parse(json), "%s", fl_error_message());
  snprintf(want, sizeof want, "%s/meshes/beam.node", dir);
  ENSURE(strcmp(g_scene.objects[0].softbody.common.path, want) == 0);
  /* A missing file in a scene loaded from disk names the scene and the path key. */
  const char missing[] = "{\"objects\": [{\"type\": \"balloon\"}, {\"type\": \"softbody\", \"shape\": \"mesh\","
                         " \"path\": \"gone.obj\"}]}";
  ENSURE(fl_file_write(scene, missing, sizeof missing - 1));
  snprintf(want, sizeof want, "%s: objects[1].path: cannot find 'gone.obj' (looked next to the scene and in %s)", scene,
           fl_data_dir());
  ENSURE_ERR(fl_scene_load(scene, NULL, 0, &g_scene), want);
  /* A directory is not a file. */
  const char directory[] = "{\"objects\": [{\"type\": \"softbody\", \"shape\": \"mesh\", \"path\": \"meshes\"}]}";
  ENSURE(fl_file_write(scene, directory, sizeof directory - 1));
  ENSURE_ERR(fl_scene_load(scene, NULL, 0, &g_scene), "objects[0].path: cannot find 'meshes'");
  remove_at(dir, "scene.json");
  remove_at(dir, "bear.obj");
  remove_at(dir, "meshes/beam.node");
  remove_at(dir, "assets/particles.json");
  remove_at(dir, "meshes");
  remove_at(dir, "assets");
  rmdir(dir);
}

static void test_collider_move_until(void)
{
  ENSURE_MSG(parse(C(", \"shape\": \"sphere\", \"radius\": 1")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].collider.move_until == 0);
  static const char *const shapes[] = {
      C(", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"velocity\": [0, 1, 0], \"move_until\": 2.5"),
      C(", \"shape\": \"sphere\", \"radius\": 1, \"velocity\": [0, 1, 0], \"move_until\": 2.5"),
      C(", \"shape\": \"box\", \"half_extents\": [1, 1, 1], \"velocity\": [0, 1, 0], \"move_until\": 2.5"),
      C(", \"shape\": \"capsule\", \"a\": [0, 0, 0], \"b\": [0, 1, 0], \"radius\": 1, \"velocity\": [0, 1, 0],"
        " \"move_until\": 2.5"),
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    ENSURE_MSG(parse(shapes[i]), "%s", fl_error_message());
    ENSURE(g_scene.objects[0].collider.move_until == 2.5f && g_scene.objects[0].collider.velocity[1] == 1);
  }
  ENSURE_MSG(parse(C(", \"shape\": \"sphere\", \"radius\": 1, \"move_until\": 0")), "%s", fl_error_message());
  ENSURE(g_scene.objects[0].collider.move_until == 0);
  ENSURE_ERR(parse(C(", \"shape\": \"sphere\", \"radius\": 1, \"move_until\": -1")),
             "t.json: objects[0].move_until: expected a number in 0..1e+06, got -1");
  ENSURE_ERR(parse(C(", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"move_until\": 1e999")),
             "t.json: objects[0].move_until: expected a number in 0..1e+06 (finite, within +-3.4e38), got a number too large "
             "to represent");
  ENSURE_ERR(parse(C(", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"move_until\": \"never\"")),
             "t.json: objects[0].move_until: expected a number in 0..1e+06, got \"never\"");
  ENSURE_MSG(parse_set(C(", \"name\": \"lid\", \"shape\": \"plane\", \"normal\": [0, 1, 0]"), "objects.lid.move_until=3"),
             "%s", fl_error_message());
  ENSURE(g_scene.objects[0].collider.move_until == 3);
}

static void test_builtin_particles(void)
{
  use_source_dir();
  ENSURE_MSG(fl_scene_load("particles", NULL, 0, &g_scene), "%s", fl_error_message());
  ENSURE(strstr(g_scene.source, "assets/scenes/particles.json"));
  ENSURE(g_scene.sim.substeps >= 1);
  const fl_sim_desc *sim = &g_scene.sim;
  int particles = 0, colliders = 0;
  for (uint32_t i = 0; i < g_scene.object_count; i++) {
    const fl_scene_object *o = &g_scene.objects[i];
    if (o->type == FL_OBJECT_PARTICLES) {
      particles++;
      ENSURE(o->particles.count >= 4096 && o->particles.count <= 8192);
      for (int k = 0; k < 3; k++) { /* the emitter lies inside the domain */
        ENSURE(o->particles.center[k] - o->particles.half_extents[k] >= sim->domain_min[k]);
        ENSURE(o->particles.center[k] + o->particles.half_extents[k] <= sim->domain_max[k]);
      }
    } else {
      colliders++;
      if (o->collider.shape == FL_SHAPE_BOX && o->collider.inside)
        for (int k = 0; k < 3; k++) { /* a container matches the domain */
          ENSURE_NEAR(o->collider.center[k] - o->collider.half_extents[k], sim->domain_min[k], 1e-5);
          ENSURE_NEAR(o->collider.center[k] + o->collider.half_extents[k], sim->domain_max[k], 1e-5);
        }
    }
  }
  ENSURE(particles >= 1 && colliders >= 2);
  ENSURE(fl_scene_list_builtin());
}

static void test_load_errors(void)
{
  use_source_dir();
  ENSURE_ERR(fl_scene_load("nope", NULL, 0, &g_scene), "unknown scene \"nope\"",
             "(built-in: ", "particles", "or give a path to a .json file)");
  ENSURE_ERR(fl_scene_load("", NULL, 0, &g_scene), "unknown scene \"\"");
  ENSURE_ERR(fl_scene_load("/nonexistent/dir/x.json", NULL, 0, &g_scene),
             "cannot read /nonexistent/dir/x.json: No such file or directory");
  ENSURE_ERR(fl_scene_load("missing.json", NULL, 0, &g_scene), "cannot read missing.json");

  char dir[] = "/tmp/flurry_test_scene_XXXXXX";
  ENSURE(mkdtemp(dir));
  ENSURE_ERR(fl_scene_load(dir, NULL, 0, &g_scene), "cannot read ", dir, "not a regular file");

  char path[256];
  snprintf(path, sizeof path, "%s/bad.json", dir);
  const char bad[] = "{\n\"sim\": {\n  \"substeps\": -3\n}}\n";
  ENSURE(fl_file_write(path, bad, sizeof bad - 1));
  ENSURE_ERR(fl_scene_load(path, NULL, 0, &g_scene), path,
             ": sim.substeps: expected an integer in 1..1000, got -3");
  const char broken[] = "{\n\"sim\": {\n  \"substeps\" 3\n}}\n";
  ENSURE(fl_file_write(path, broken, sizeof broken - 1));
  ENSURE_ERR(fl_scene_load(path, NULL, 0, &g_scene), path, ":3:", "malformed JSON");
  const char nul[] = "{\"name\": \"x\"}\0junk";
  ENSURE(fl_file_write(path, nul, sizeof nul - 1));
  ENSURE_ERR(fl_scene_load(path, NULL, 0, &g_scene), path, "NUL byte");

  char good[256];
  snprintf(good, sizeof good, "%s/good_one.json", dir);
  const char ok[] = "\xEF\xBB\xBF{\"sim\": {\"substeps\": 3}}";
  ENSURE(fl_file_write(good, ok, sizeof ok - 1));
  ENSURE_MSG(fl_scene_load(good, NULL, 0, &g_scene), "%s", fl_error_message());
  ENSURE(g_scene.sim.substeps == 3 && strcmp(g_scene.name, "good_one") == 0);
  unlink(good);
  unlink(path);
  rmdir(dir);
}

static const char SET_SCENE[] =
    "{\"sim\": {\"substeps\": 2},"
    " \"objects\": [{\"type\": \"particles\", \"name\": \"ball\", \"radius\": 0.1},"
    "               {\"type\": \"collider\", \"name\": \"floor\", \"shape\": \"plane\","
    "                \"normal\": [0, 1, 0]},"
    "               {\"type\": \"particles\"}]}";

static void test_set_overrides(void)
{
  const char *sets[] = {"sim.substeps=40", "objects.ball.radius=0.05", "camera.eye=[1,2,3]",
                        "objects.ball.velocity=[1, 0, 0]", "sim.domain.min=[-1,-1,-1]",
                        "camera.eye.1=0.5", "name=Hello world", "objects.floor.offset=-2",
                        "objects.particles2.count=100"};
  int n = (int)(sizeof sets / sizeof sets[0]);
  ENSURE_MSG(fl_scene_parse(SET_SCENE, "t.json", sets, n, &g_scene), "%s", fl_error_message());
  ENSURE(g_scene.sim.substeps == 40);
  ENSURE_NEAR(g_scene.objects[0].particles.radius, 0.05, 1e-7);
  ENSURE_NEAR(g_scene.objects[0].particles.velocity[0], 1, 0);
  ENSURE_NEAR(g_scene.camera.eye[0], 1, 0);
  ENSURE_NEAR(g_scene.camera.eye[1], 0.5, 0); /* camera.eye.1 after camera.eye */
  ENSURE_NEAR(g_scene.camera.eye[2], 3, 0);
  ENSURE_NEAR(g_scene.camera.target[1], 1, 0); /* untouched default */
  ENSURE_NEAR(g_scene.sim.domain_min[1], -1, 0);
  ENSURE_NEAR(g_scene.sim.domain_max[1], 10, 0); /* untouched default */
  ENSURE(strcmp(g_scene.name, "Hello world") == 0);
  ENSURE_NEAR(g_scene.objects[1].collider.offset, -2, 0);
  ENSURE(g_scene.objects[2].particles.count == 100);

  /* Later overrides win; the built-in scene takes them too. */
  use_source_dir();
  const char *twice[] = {"sim.substeps=5", "sim.substeps=7"};
  ENSURE_MSG(fl_scene_load("particles", twice, 2, &g_scene), "%s", fl_error_message());
  ENSURE(g_scene.sim.substeps == 7);
}

static void test_set_errors(void)
{
  ENSURE_ERR(parse_set(SET_SCENE, "objects.ball.radiuss=2"), "t.json: ",
             "--set objects.ball.radiuss=2: unknown key \"radiuss\" in objects.ball",
             "known: type, name, count");
  ENSURE_ERR(parse_set(SET_SCENE, "sim.substepz=3"),
             "--set sim.substepz=3: unknown key \"substepz\" in sim");
  ENSURE_ERR(parse_set(SET_SCENE, "bogus=1"), "--set bogus=1: unknown key \"bogus\" at the top level");
  ENSURE_ERR(parse_set(SET_SCENE, "objects.floor.radius=1"),
             "--set objects.floor.radius=1: unknown key \"radius\" in objects.floor");
  ENSURE_ERR(parse_set(SET_SCENE, "objects.nope.radius=1"),
             "--set objects.nope.radius=1: no object named \"nope\" (objects: ball, floor, particles2)");
  ENSURE_ERR(parse_set(SET_SCENE, "objects.0.radius=1"), "no object named \"0\"");
  ENSURE_ERR(parse_set("{}", "objects.ball.radius=1"),
             "--set objects.ball.radius=1: no object named \"ball\" (the scene has no objects)");
  ENSURE_ERR(parse_set(SET_SCENE, "sim.substeps.x=1"), "--set sim.substeps.x=1: sim.substeps is 2",
             "not an object");
  ENSURE_ERR(parse_set(SET_SCENE, "camera.eye.1=1"), "--set camera.eye.1=1: camera.eye is not in the scene");
  ENSURE_ERR(parse_set("{\"camera\": {\"eye\": [0,1,2]}}", "camera.eye.3=1"),
             "--set camera.eye.3=1: camera.eye is an array of 3 items");
  ENSURE_ERR(parse_set(SET_SCENE, "sim.substeps"), "--set sim.substeps: expected KEY=VALUE");
  ENSURE_ERR(parse_set(SET_SCENE, "=3"), "expected KEY=VALUE");
  ENSURE_ERR(parse_set(SET_SCENE, "sim..dt=3"), "empty part in the key");
  /* Type and range errors after an override name the key path as usual. */
  ENSURE_ERR(parse_set(SET_SCENE, "sim.substeps=four"),
             "t.json: sim.substeps: expected an integer in 1..1000, got \"four\"");
  ENSURE_ERR(parse_set(SET_SCENE, "objects.ball.radius=-1"),
             "t.json: objects[0].radius: expected a number in 1e-05..10000, got -1");
  ENSURE_ERR(parse_set(SET_SCENE, "camera.eye=5"), "t.json: camera.eye: expected an array of 3");
  ENSURE_ERR(parse_set(SET_SCENE, "objects.floor.shape=cone"),
             "t.json: objects[1].shape: unknown collider shape \"cone\"");
}

/* A snow object that does not write grid_spacing takes another snow object's, or the
 * finest of 0.05 * 2^k whose dense grid over sim.domain has at most 2^21 nodes. */
static void test_snow_default_spacing(void)
{
  ENSURE(parse("{\"objects\": [{\"type\": \"snow\"}]}")); /* 10 m domain: 201^3 nodes at 0.05 */
  ENSURE(g_scene.objects[0].snow.grid_spacing == 0.1f);
  ENSURE(parse("{\"sim\": {\"domain\": {\"min\": [-2,0,-2], \"max\": [2,4,2]}},"
               " \"objects\": [{\"type\": \"snow\"}]}")); /* 81^3 nodes */
  ENSURE(g_scene.objects[0].snow.grid_spacing == 0.05f);
  ENSURE(parse("{\"objects\": [{\"type\": \"snow\", \"name\": \"a\"},"
               " {\"type\": \"snow\", \"name\": \"b\", \"grid_spacing\": 0.04}]}"));
  ENSURE(g_scene.objects[0].snow.grid_spacing == 0.04f && g_scene.objects[1].snow.grid_spacing == 0.04f);
}

/* Values each in range that make no sense together (scene_check.c): one line naming the key and a
 * value that works; the limits themselves still parse. */
static void test_scene_checks(void)
{
#define BOX "\"domain\": {\"min\": [-1,0,-1], \"max\": [1,2,1]}"
  /* solver sweeps a frame: substeps x iterations <= 10000 */
  ENSURE(parse("{\"sim\": {\"substeps\": 10, \"iterations\": 1000}}"));
  ENSURE_ERR(parse("{\"sim\": {\"substeps\": 11, \"iterations\": 1000}}"),
             "t.json: sim.iterations: 1000 iterations in each of 11 substeps are 11000 solver sweeps a frame",
             "at most 10000");
  /* a thickness up to a quarter of the domain's smallest side (2 m) */
  ENSURE(parse("{\"sim\": {" BOX "}, \"objects\": [{\"type\": \"cloth\", \"center\": [0,1,0], \"thickness\": 0.5}]}"));
  ENSURE_ERR(parse("{\"sim\": {" BOX "}, \"objects\": [{\"type\": \"cloth\", \"center\": [0,1,0], \"thickness\": 0.6}]}"),
             "t.json: objects[0].thickness: 0.6 m is more than a quarter of sim.domain's smallest side (2 m)",
             "use at most 0.5");
  ENSURE_ERR(parse("{\"sim\": {" BOX "}, \"objects\": [{\"type\": \"softbody\", \"center\": [0,1,0], \"radius\": 0.2,"
                   " \"thickness\": 5}]}"),
             "t.json: objects[0].thickness: 5 m is more than a quarter");
  /* snow at least one cell across */
  ENSURE(parse("{\"objects\": [{\"type\": \"snow\", \"radius\": 0.05, \"grid_spacing\": 0.1}]}"));
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"snow\", \"radius\": 0.05, \"grid_spacing\": 0.11}]}"),
             "t.json: objects[0].grid_spacing: 0.11 m is wider than the snow itself (0.1 m across at its narrowest)",
             "use at most 0.1");
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"snow\", \"shape\": \"box\", \"half_extents\": [1, 0.01, 1],"
                   " \"grid_spacing\": 0.05}]}"),
             "objects[0].grid_spacing: 0.05 m is wider than the snow itself (0.02 m across");
  /* the spacing is shared: the error names the key written, another object's when this one writes none */
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"snow\", \"name\": \"big\", \"radius\": 0.5, \"grid_spacing\": 0.1},"
                   " {\"type\": \"cloth\"}, {\"type\": \"snow\", \"name\": \"small\", \"radius\": 0.04}]}"),
             "t.json: objects[0].grid_spacing: 0.1 m, which every snow object shares, is wider than objects[2] "
             "\"small\" (0.08 m across at its narrowest)", "use at most 0.08");
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"snow\", \"name\": \"big\", \"radius\": 0.5},"
                   " {\"type\": \"snow\", \"name\": \"small\", \"radius\": 0.04, \"grid_spacing\": 0.1}]}"),
             "t.json: objects[1].grid_spacing: 0.1 m is wider than the snow itself (0.08 m across");
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"snow\", \"radius\": 0.04}]}"), /* the 10 m domain's default 0.1 */
             "t.json: objects[0].grid_spacing: not written, and the default for sim.domain (0.1 m) is wider than the "
             "snow itself (0.08 m across", "write one of at most 0.08");
  /* snow inside sim.domain, flush on a wall at most (give or take float rounding): what sticks out is lost */
#define SNOW_AT(shape) "{\"sim\": {" BOX "}, \"objects\": [{\"type\": \"snow\", \"name\": \"s\", \"grid_spacing\": 0.05, " shape "}]}"
  ENSURE(parse(SNOW_AT("\"center\": [0, 0.2, 0], \"radius\": 0.2"))); /* on the ground */
  ENSURE(parse(SNOW_AT("\"shape\": \"box\", \"center\": [0, 1.9, 0], \"half_extents\": [1, 0.1, 1]"))); /* flush */
  ENSURE(parse("{\"sim\": {\"domain\": {\"min\": [-1, 0.1, -1], \"max\": [1, 2, 1]}}, \"objects\": [{\"type\": "
               "\"snow\", \"shape\": \"box\", \"center\": [0, 0.35, 0], \"half_extents\": [1, 0.25, 1]}]}"));
  /* (as floats, 0.35 - 0.25 is 7e-9 m below 0.1: rounding) */
  ENSURE_ERR(parse(SNOW_AT("\"center\": [0, 0.1, 0], \"radius\": 0.2")),
             "t.json: objects[0].center: snow \"s\" starts outside sim.domain: its radius 0.2 about center [0, 0.1, 0] "
             "sticks out by 0.1 m past sim.domain.min[1] = 0, and the snow beyond it would be lost",
             "use center [0, 0.2, 0], radius 0.1, or grow sim.domain");
  ENSURE_ERR(parse(SNOW_AT("\"center\": [0, 0.199, 0], \"radius\": 0.2")), /* 1 mm is not rounding */
             "sticks out by 0.001 m past sim.domain.min[1] = 0");
  ENSURE_ERR(parse(SNOW_AT("\"shape\": \"box\", \"center\": [0.5, 1, 0], \"half_extents\": [1.5, 0.1, 0.1]")),
             "objects[0].center: snow \"s\" starts outside sim.domain: its half_extents [1.5, 0.1, 0.1] about center "
             "[0.5, 1, 0] sticks out by 1 m past sim.domain.max[0] = 1", "use half_extents [0.5, 0.1, 0.1], or grow");
  ENSURE_ERR(parse(SNOW_AT("\"center\": [0, 3, 0], \"radius\": 0.1")),
             "sticks out by 1.1 m past sim.domain.max[1] = 2", "use center [0, 1.9, 0], or grow sim.domain");
  ENSURE(parse(SNOW_AT("\"center\": [0, 0.1, 0], \"radius\": 0.1"))); /* the radius suggested above fits */
  /* a size is suggested only if it stays at least grid_spacing (0.05) across: here 0.02 would not */
  ENSURE_ERR(parse(SNOW_AT("\"center\": [0, 0.01, 0], \"radius\": 0.2")),
             "sticks out by 0.19 m past sim.domain.min[1] = 0, and the snow beyond it would be lost (it is seeded and "
             "kept only inside); use center [0, 0.2, 0], or grow sim.domain");
  /* too wide to move and too thin once shrunk about its center: both, as wide as the domain allows */
  ENSURE_ERR(parse(SNOW_AT("\"shape\": \"box\", \"center\": [0.98, 1, 0], \"half_extents\": [1.5, 0.1, 0.1]")),
             "sticks out by 1.48 m past sim.domain.max[0] = 1", "; use center [0, 1, 0] with half_extents [1, 0.1, 0.1], "
             "or grow sim.domain");
  ENSURE(parse(SNOW_AT("\"shape\": \"box\", \"center\": [0, 1, 0], \"half_extents\": [1, 0.1, 1]")));
  /* a domain thinner than a grid cell: nothing fits in it */
  ENSURE_ERR(parse("{\"sim\": {\"domain\": {\"min\": [-1, 0, -1], \"max\": [1, 0.04, 1]}}, \"objects\": [{\"type\": "
                   "\"snow\", \"center\": [0, 0.02, 0], \"radius\": 0.03, \"grid_spacing\": 0.05}]}"),
             "kept only inside); grow sim.domain");
  /* a suggested center has the digits it needs to pass when written back: 1.23456 (%g) would stick out by
   * 4e-6 m, more than the float rounding allowed at 1.2 m */
#define WIDE_SNOW(center) "{\"sim\": {\"domain\": {\"min\": [-5, 0, -5], \"max\": [5, 10, 5]}}, \"objects\": [{\"type\": " \
  "\"snow\", \"center\": " center ", \"radius\": 1.234564, \"grid_spacing\": 0.05}]}"
  ENSURE_ERR(parse(WIDE_SNOW("[0, 0, 0]")), "use center [0, 1.234564, 0], or grow sim.domain");
  ENSURE(parse(WIDE_SNOW("[0, 1.234564, 0]")));
  ENSURE_ERR(parse(WIDE_SNOW("[0, 1.23456, 0]")),
             "its radius 1.234564 about center [0, 1.23456, 0] sticks out by 3.9", "use center [0, 1.234564, 0], "
             "radius 1.23456, or grow");
#undef WIDE_SNOW
#undef SNOW_AT
  /* an initial speed up to sim.max_speed (default 500 m/s) */
  ENSURE(parse("{\"objects\": [{\"type\": \"softbody\", \"velocity\": [300, -400, 0]}]}"));
  ENSURE_ERR(parse("{\"objects\": [{\"type\": \"softbody\", \"velocity\": [1000, -1000, 0]}]}"),
             "t.json: objects[0].velocity: 1414.21 m/s is faster than sim.max_speed (500 m/s)");
  ENSURE_ERR(parse("{\"sim\": {\"max_speed\": 1}, \"objects\": [{\"type\": \"snow\", \"velocity\": [0, -2, 0]}]}"),
             "t.json: objects[0].velocity: 2 m/s is faster than sim.max_speed (1 m/s)");
  /* a particle box's jitter adds up to velocity_jitter to each component: at worst (|vx|+j, |vy|+j, |vz|+j) */
  ENSURE(parse("{\"sim\": {\"max_speed\": 10}, \"objects\": [{\"type\": \"particles\", \"velocity_jitter\": 5.77}]}"));
  ENSURE_ERR(parse("{\"sim\": {\"max_speed\": 10}, \"objects\": [{\"type\": \"particles\", \"velocity_jitter\": 6}]}"),
             "t.json: objects[0].velocity_jitter: 6 m/s per component on a velocity of 0 m/s starts particles at up "
             "to 10.3923 m/s, faster than sim.max_speed (10 m/s)", "use at most 5.773");
  ENSURE(parse("{\"sim\": {\"max_speed\": 10}, \"objects\": [{\"type\": \"particles\", \"velocity\": [0, -8, 0],"
               " \"velocity_jitter\": 1.7}]}")); /* at worst |(1.7, 9.7, 1.7)| = 9.99 m/s */
  ENSURE_ERR(parse("{\"sim\": {\"max_speed\": 10}, \"objects\": [{\"type\": \"particles\", \"velocity\": [0, -8, 0],"
                   " \"velocity_jitter\": 2}]}"),
             "objects[0].velocity_jitter: 2 m/s per component on a velocity of 8 m/s starts particles at up to 10.3923 "
             "m/s", "use at most 1.704"); /* 1.705, once suggested, starts them at up to 10.00005 m/s */
  ENSURE_ERR(parse("{\"sim\": {\"max_speed\": 10}, \"objects\": [{\"type\": \"particles\", \"velocity\": [0, -11, 0],"
                   " \"velocity_jitter\": 2}]}"),
             "t.json: objects[0].velocity: 11 m/s is faster than sim.max_speed (10 m/s)");
#undef BOX
}

/* `json` is refused with "use at most X" and X, written back with --set `key`=X, passes. */
static void ensure_suggestion_passes(const char *json, const char *key, const char *expect)
{
  ENSURE_MSG(!parse(json), "accepted, expected an error: %s", json);
  const char *at = strstr(fl_error_message(), "use at most ");
  ENSURE_MSG(at, "no suggestion in \"%s\"", fl_error_message());
  char value[32], set[128];
  int n = (int)strcspn(at + 12, " ");
  snprintf(value, sizeof value, "%.*s", n, at + 12);
  if (expect) ENSURE_MSG(strcmp(value, expect) == 0, "suggested %s, expected %s", value, expect);
  snprintf(set, sizeof set, "%s=%s", key, value);
  ENSURE_MSG(parse_set(json, set), "the suggested %s is refused: %s", set, fl_error_message());
}

/* Every "use at most" that scene_check.c prints passes when written back: %g rounds to nearest, up
 * as often as down, and the scene stores the value as a float. */
static void test_check_suggestions_pass(void)
{
  char json[512];
  /* flurry --scene particles --set sim.max_speed=2.139 --set objects.spray.velocity=[0,0,0]
   * --set objects.spray.velocity_jitter=2 suggested 1.235, which was refused in turn */
  ensure_suggestion_passes("{\"sim\": {\"max_speed\": 2.139}, \"objects\": [{\"type\": \"particles\", \"name\": \"p\","
                           " \"velocity\": [0, 0, 0], \"velocity_jitter\": 2}]}",
                           "objects.p.velocity_jitter", "1.234");
  /* a thickness limit of 0.030864175 (a side of 0.1234567): %g said 0.0308642 */
  ensure_suggestion_passes("{\"sim\": {\"domain\": {\"min\": [0, 0, 0], \"max\": [0.1234567, 1, 1]}}, \"objects\": "
                           "[{\"type\": \"cloth\", \"name\": \"c\", \"thickness\": 1}]}",
                           "objects.c.thickness", "0.0308641");
  /* a snow ball 0.024691358 across (radius 0.0123456789): %g said grid_spacing 0.0246914 */
  ensure_suggestion_passes("{\"sim\": {\"domain\": {\"min\": [-1, 0, -1], \"max\": [1, 2, 1]}}, \"objects\": "
                           "[{\"type\": \"snow\", \"name\": \"s\", \"center\": [0, 1, 0], \"radius\": 0.0123456789,"
                           " \"grid_spacing\": 0.05}]}",
                           "objects.s.grid_spacing", "0.0246913");
  /* and over a sweep of limits */
  for (int k = 0; k < 300; k++) {
    snprintf(json, sizeof json, "{\"sim\": {\"max_speed\": %.7g}, \"objects\": [{\"type\": \"particles\", "
             "\"name\": \"p\", \"velocity\": [%g, %.7g, 0], \"velocity_jitter\": 50}]}",
             0.5 + 0.0173457 * k, 0.01 * (k % 5), -0.0017 * k);
    ensure_suggestion_passes(json, "objects.p.velocity_jitter", NULL);
    snprintf(json, sizeof json, "{\"sim\": {\"domain\": {\"min\": [0, 0, 0], \"max\": [%.7g, 2, 2]}}, "
             "\"objects\": [{\"type\": \"cloth\", \"name\": \"c\", \"thickness\": 3}]}", 0.1 + 0.00654321 * k);
    ensure_suggestion_passes(json, "objects.c.thickness", NULL);
    snprintf(json, sizeof json, "{\"sim\": {\"domain\": {\"min\": [-1, 0, -1], \"max\": [1, 2, 1]}}, "
             "\"objects\": [{\"type\": \"snow\", \"name\": \"s\", \"center\": [0, 1, 0], \"shape\": \"box\", "
             "\"half_extents\": [0.5, %.7g, 0.5], \"grid_spacing\": 0.5}]}", 0.01 + 0.000765432 * k);
    ensure_suggestion_passes(json, "objects.s.grid_spacing", NULL);
  }
}

static const fl_test_case TESTS[] = {
    {"snow_default_spacing", test_snow_default_spacing},
    {"scene_checks", test_scene_checks},
    {"check_suggestions_pass", test_check_suggestions_pass},
    {"malformed_json", test_malformed_json},
    {"unknown_keys", test_unknown_keys},
    {"wrong_types", test_wrong_types},
    {"out_of_range", test_out_of_range},
    {"object_types_and_shapes", test_object_types_and_shapes},
    {"duplicate_and_too_many_objects", test_duplicate_and_too_many_objects},
    {"defaults", test_defaults},
    {"solver_keys", test_solver_keys},
    {"cloth_defaults", test_cloth_defaults},
    {"cloth_keys", test_cloth_keys},
    {"cloth_errors", test_cloth_errors},
    {"mass_spring_defaults", test_mass_spring_defaults},
    {"mass_spring_keys", test_mass_spring_keys},
    {"mass_spring_errors", test_mass_spring_errors},
    {"softbody_defaults", test_softbody_defaults},
    {"softbody_keys", test_softbody_keys},
    {"softbody_errors", test_softbody_errors},
    {"balloon_defaults", test_balloon_defaults},
    {"balloon_keys", test_balloon_keys},
    {"balloon_errors", test_balloon_errors},
    {"body_paths", test_body_paths},
    {"collider_move_until", test_collider_move_until},
    {"builtin_particles", test_builtin_particles},
    {"load_errors", test_load_errors},
    {"set_overrides", test_set_overrides},
    {"set_errors", test_set_errors},
};
FL_TEST_MAIN(TESTS)
