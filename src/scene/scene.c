/* scene/scene: loads a scene (built-in name or .json path), applies --set
 * overrides, validates the top level, "sim" and "camera" sections and hands each
 * object to scene_objects.c; also lists the built-in scenes. */
#include "scene/scene.h"
#include "scene/scene_list.h"

#include "core/file.h"
#include "core/log.h"
#include "scene/json_read.h"
#include "scene/scene_check.h"
#include "scene/scene_set.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCENE_BYTES ((size_t)4 << 20)
#define MAX_BUILTIN 64

static const char *const TOP_KEYS[] = {"name", "sim", "camera", "objects", NULL};
static const char *const SIM_KEYS[] = {"dt",     "substeps", "iterations", "gravity",
                                        "domain", "solver",   "relaxation", "collider_normals",
                                        "mpm_atomics", "max_speed", "max_strain", "integrator", "snow_grid_slack",
                                        "collider_triangles", "snow_transfer", "coupling_substeps", "contact_guard", NULL};
/* Indexed by fl_solver. */
static const char *const SOLVER_NAMES[] = {"coloring", "jacobi", "symmetric", NULL};
static const char *const DOMAIN_KEYS[] = {"min", "max", NULL};
static const char *const CAMERA_KEYS[] = {"eye", "target", NULL};

const char *const *fl_scene_section_keys(const char *section)
{
  if (strcmp(section, "") == 0) return TOP_KEYS;
  if (strcmp(section, "sim") == 0) return SIM_KEYS;
  if (strcmp(section, "sim.domain") == 0) return DOMAIN_KEYS;
  if (strcmp(section, "camera") == 0) return CAMERA_KEYS;
  return NULL;
}

/* Writes the file stem of `path` ("a/b/foo.json" -> "foo") into out. */
static void file_stem(const char *path, char *out, size_t out_size)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  const char *dot = strrchr(base, '.');
  if (dot && dot != base) len = (size_t)(dot - base);
  if (len >= out_size) len = out_size - 1;
  memcpy(out, base, len);
  out[len] = 0;
}

static void set_defaults(fl_scene *s, const char *source)
{
  memset(s, 0, sizeof *s);
  snprintf(s->source, sizeof s->source, "%s", source);
  file_stem(source, s->name, sizeof s->name);
  if (!s->name[0]) snprintf(s->name, sizeof s->name, "scene");
  s->sim = (fl_sim_desc){
      .dt = 1.0f / 60.0f,
      .substeps = 1,
      .iterations = 1,
      .gravity = {0, -9.81f, 0},
      .domain_min = {-5, 0, -5},
      .domain_max = {5, 10, 5},
      .solver = FL_SOLVER_COLORING,
      .relaxation = 1.5f,
      .collider_triangles = true,
      .contact_guard = false,
      .max_speed = 500.0f,
      .max_strain = 10.0f,
      .snow_grid_slack = 4.0f,
  };
  s->camera = (fl_camera_desc){.eye = {0, 3, 8}, .target = {0, 1, 0}};
}

static bool parse_sim(const fl_jr *top, const cJSON *root, fl_sim_desc *sim)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "sim");
  if (!v) return true;
  fl_jr r = fl_jr_child(top, "sim");
  int solver = (int)sim->solver, normals = (int)sim->collider_normals, atomics = (int)sim->mpm_atomics,
      integrator = (int)sim->integrator, fuse = (int)sim->snow_transfer,
      coupling = (int)sim->coupling_substeps;
  static const char *const INTEGRATOR_NAMES[] = {"euler", "bdf2", NULL}; /* fl_xpbd_integrator */
  static const char *const NORMAL_NAMES[] = {"analytic", "tetrahedral", NULL};
  static const char *const ATOMICS_NAMES[] = {"auto", "float", "fixed", NULL}; /* fl_mpm_atomics */
  static const char *const FUSE_NAMES[] = {"separate", "g2p2g", NULL}; /* fl_snow_fuse */
  static const char *const COUPLING_NAMES[] = {"snow", "xpbd", NULL}; /* fl_coupling_substeps */
  if (!fl_jr_object(&r, v, SIM_KEYS, NULL) ||
      !fl_jr_enum(&r, v, "solver", SOLVER_NAMES, &solver) ||
      !fl_jr_enum(&r, v, "collider_normals", NORMAL_NAMES, &normals) ||
      !fl_jr_enum(&r, v, "mpm_atomics", ATOMICS_NAMES, &atomics) ||
      !fl_jr_enum(&r, v, "snow_transfer", FUSE_NAMES, &fuse) ||
      !fl_jr_enum(&r, v, "coupling_substeps", COUPLING_NAMES, &coupling) ||
      !fl_jr_enum(&r, v, "integrator", INTEGRATOR_NAMES, &integrator) ||
      !fl_jr_bool(&r, v, "collider_triangles", &sim->collider_triangles) ||
      !fl_jr_bool(&r, v, "contact_guard", &sim->contact_guard) ||
      !fl_jr_number(&r, v, "relaxation", FL_JR_CLOSED(1, 2), &sim->relaxation) ||
      !fl_jr_number(&r, v, "max_speed", (fl_jr_range){0.0, 3e8, true, false}, &sim->max_speed) ||
      !fl_jr_number(&r, v, "max_strain", (fl_jr_range){0.0, 1e6, true, false}, &sim->max_strain) ||
      !fl_jr_number(&r, v, "snow_grid_slack", FL_JR_CLOSED(1, 64), &sim->snow_grid_slack) ||
      !fl_jr_number(&r, v, "dt", (fl_jr_range){0.0, 0.1, true, false}, &sim->dt) ||
      !fl_jr_uint(&r, v, "substeps", 1, 1000, &sim->substeps) ||
      !fl_jr_uint(&r, v, "iterations", 1, 1000, &sim->iterations) ||
      !fl_jr_vec3(&r, v, "gravity", FL_JR_ACCELERATION, sim->gravity))
    return false;
  sim->solver = (fl_solver)solver;
  sim->collider_normals = (fl_collider_normals)normals;
  sim->mpm_atomics = (fl_mpm_atomics)atomics;
  sim->snow_transfer = (fl_snow_fuse)fuse;
  sim->integrator = (fl_xpbd_integrator)integrator;
  sim->coupling_substeps = (fl_coupling_substeps)coupling;
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(v, "domain");
  if (!d) return true;
  fl_jr rd = fl_jr_child(&r, "domain");
  if (!fl_jr_object(&rd, d, DOMAIN_KEYS, NULL) ||
      !fl_jr_vec3(&rd, d, "min", FL_JR_COORD, sim->domain_min) ||
      !fl_jr_vec3(&rd, d, "max", FL_JR_COORD, sim->domain_max))
    return false;
  for (int i = 0; i < 3; i++)
    if (!(sim->domain_min[i] < sim->domain_max[i]))
      return fl_jr_fail(&rd, NULL,
                        "expected min < max on every axis, got min [%g, %g, %g], max [%g, %g, %g]",
                        (double)sim->domain_min[0], (double)sim->domain_min[1],
                        (double)sim->domain_min[2], (double)sim->domain_max[0],
                        (double)sim->domain_max[1], (double)sim->domain_max[2]);
  return true;
}

static bool parse_camera(const fl_jr *top, const cJSON *root, fl_camera_desc *cam)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "camera");
  if (!v) return true;
  fl_jr r = fl_jr_child(top, "camera");
  if (!fl_jr_object(&r, v, CAMERA_KEYS, NULL) ||
      !fl_jr_vec3(&r, v, "eye", FL_JR_CLOSED(-1e6, 1e6), cam->eye) ||
      !fl_jr_vec3(&r, v, "target", FL_JR_CLOSED(-1e6, 1e6), cam->target))
    return false;
  if (cam->eye[0] == cam->target[0] && cam->eye[1] == cam->target[1] &&
      cam->eye[2] == cam->target[2])
    return fl_jr_fail(&r, NULL, "expected eye and target to differ, both are [%g, %g, %g]",
                      (double)cam->eye[0], (double)cam->eye[1], (double)cam->eye[2]);
  return true;
}

/* The snow grid spacing where no snow object writes one: the one another snow object
 * writes (they must share it), else 0.05 m doubled until the dense grid over
 * sim.domain has at most SNOW_DEFAULT_MAX_NODES nodes, so that a bare snow object
 * in the default 10 m domain runs on a device with 128 MiB storage buffers. */
#define SNOW_DEFAULT_SPACING 0.05
#define SNOW_DEFAULT_MAX_NODES (1u << 21)
static double dense_grid_nodes(const fl_sim_desc *sim, double h)
{
  double nodes = 1;
  for (int a = 0; a < 3; a++) nodes *= ceil((sim->domain_max[a] - sim->domain_min[a]) / h) + 1;
  return nodes;
}

static void default_snow_spacing(fl_scene *s)
{
  double h = 0; /* the spacing a snow object writes (the snow builder checks that they match) */
  for (uint32_t i = 0; i < s->object_count && h == 0; i++)
    if (s->objects[i].type == FL_OBJECT_SNOW) h = s->objects[i].snow.grid_spacing;
  if (h == 0)
    for (h = SNOW_DEFAULT_SPACING; dense_grid_nodes(&s->sim, h) > SNOW_DEFAULT_MAX_NODES;) h *= 2;
  for (uint32_t i = 0; i < s->object_count; i++)
    if (s->objects[i].type == FL_OBJECT_SNOW && s->objects[i].snow.grid_spacing == 0)
      s->objects[i].snow.grid_spacing = (float)h;
}

static bool parse_objects(const fl_jr *top, const cJSON *root, fl_scene *s)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "objects");
  if (!v) return true;
  fl_jr r = fl_jr_child(top, "objects");
  char got[128];
  if (!cJSON_IsArray(v)) {
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(&r, NULL, "expected an array of objects [{...}, ...], got %s", got);
  }
  int count = cJSON_GetArraySize(v);
  if (count > FL_SCENE_MAX_OBJECTS)
    return fl_jr_fail(&r, NULL, "expected at most %d objects, got %d", FL_SCENE_MAX_OBJECTS,
                      count);
  int i = 0;
  for (const cJSON *o = v->child; o; o = o->next, i++) {
    fl_jr ro = fl_jr_index(&r, i);
    fl_scene_object *obj = &s->objects[i];
    if (!fl_scene_parse_object(&ro, o, i, obj)) return false;
    for (int j = 0; j < i; j++)
      if (strcmp(s->objects[j].name, obj->name) == 0)
        return fl_jr_fail(&ro, "name", "duplicate object name \"%s\" (also objects[%d])",
                          obj->name, j);
    s->object_count = (uint32_t)i + 1;
  }
  default_snow_spacing(s);
  return true;
}

/* Formats "FILE:LINE:COL: malformed JSON near ..." from cJSON's error position. */
static bool malformed(const char *source, const char *text, const char *at)
{
  if (!at || at < text) at = text;
  size_t len = strlen(text);
  if ((size_t)(at - text) > len) at = text + len;
  int line = 1, col = 1, depth = 0;
  bool in_string = false;
  for (const char *p = text; p < at; p++) {
    if (*p == '\n')
      line++, col = 1;
    else
      col++;
    /* The nesting depth where cJSON stopped: past its limit the text may be well formed. */
    if (in_string && *p == '\\' && p + 1 < at) p++, col++;
    else if (*p == '"') in_string = !in_string;
    else if (!in_string && (*p == '[' || *p == '{')) depth++;
    else if (!in_string && (*p == ']' || *p == '}')) depth--;
  }
  if (depth >= CJSON_NESTING_LIMIT)
    return fl_jr_error("%s:%d:%d: the JSON is nested too deeply (more than %d levels of [ and {)", source, line, col,
                       CJSON_NESTING_LIMIT);
  if (!*at) return fl_jr_error("%s:%d:%d: malformed JSON: unexpected end of input", source, line, col);
  char near[40];
  size_t n = 0;
  for (const char *p = at; *p && *p != '\n' && n < 24; p++)
    near[n++] = (*p == '"' || *p == '\\') ? '\'' : ((unsigned char)*p < 0x20 ? ' ' : *p);
  near[n] = 0;
  return fl_jr_error("%s:%d:%d: malformed JSON near \"%s\"", source, line, col, near);
}

/* Parses without clearing the recorded error first. */
static bool parse_text(const char *text, const char *source, const char *const *overrides,
                       int override_count, fl_scene *out)
{
  if (!source) source = "<scene>";
  if (!text) return fl_jr_error("%s: no scene text", source);
  if ((unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
      (unsigned char)text[2] == 0xBF)
    text += 3; /* UTF-8 byte order mark */
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  if (!root) return malformed(source, text, end);
  fl_jr top = {.source = source};
  fl_scene *s = malloc(sizeof *s);
  bool ok = s != NULL;
  if (!ok) fl_jr_error("%s: out of memory", source);
  if (ok && !cJSON_IsObject(root)) {
    char got[128];
    fl_jr_describe(root, got, sizeof got);
    ok = fl_jr_fail(&top, NULL, "expected a JSON object {\"name\": ..., ...} at the top, got %s",
                    got);
  }
  ok = ok && fl_scene_apply_sets(root, source, overrides, override_count);
  if (ok) set_defaults(s, source);
  ok = ok && fl_jr_object(&top, root, TOP_KEYS, "at the top level") &&
       fl_jr_string(&top, root, "name", s->name, sizeof s->name) &&
       parse_sim(&top, root, &s->sim) && parse_camera(&top, root, &s->camera) &&
       parse_objects(&top, root, s) && fl_scene_check(&top, root, s);
  for (uint32_t k = 0; ok && k < s->object_count; k++) /* the cloth build sees the sim's choice */
    if (s->objects[k].type == FL_OBJECT_CLOTH) s->objects[k].cloth.contact_guard = s->sim.contact_guard;
  if (ok) *out = *s;
  free(s);
  cJSON_Delete(root);
  return ok;
}

bool fl_scene_parse(const char *json_text, const char *source, const char *const *overrides,
                    int override_count, fl_scene *out)
{
  fl_error_clear();
  return parse_text(json_text, source, overrides, override_count, out);
}

bool fl_scene_load(const char *name_or_path, const char *const *overrides, int override_count,
                   fl_scene *out)
{
  fl_error_clear();
  if (!name_or_path) name_or_path = "";
  size_t len = strlen(name_or_path);
  bool is_path = strchr(name_or_path, '/') || (len >= 5 && strcmp(name_or_path + len - 5, ".json") == 0);
  char path[1024];
  if (is_path) {
    snprintf(path, sizeof path, "%s", name_or_path);
  } else {
    char rel[256];
    snprintf(rel, sizeof rel, "assets/scenes/%.200s.json", name_or_path);
    fl_data_path(path, sizeof path, rel);
    if (!name_or_path[0] || !fl_file_exists(path)) {
      char names[MAX_BUILTIN][FL_SCENE_NAME_MAX], list[1024] = "none found";
      int n = fl_scene_builtin_names(names, MAX_BUILTIN);
      size_t used = 0;
      for (int i = 0; i < n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
      return fl_jr_error("unknown scene \"%.200s\" (built-in: %s; or give a path to a .json file)",
                          name_or_path, list);
    }
  }
  size_t size = 0;
  char *text = fl_file_read(path, &size, MAX_SCENE_BYTES);
  if (!text) return false;
  bool ok;
  if (strlen(text) != size)
    ok = fl_jr_error("%s: contains a NUL byte; expected JSON text", path);
  else
    ok = parse_text(text, path, overrides, override_count, out);
  free(text);
  return ok;
}

bool fl_scene_list_builtin(void)
{
  char names[MAX_BUILTIN][FL_SCENE_NAME_MAX];
  int n = fl_scene_builtin_names(names, MAX_BUILTIN);
  if (n < 0) {
    char dir[1024];
    return fl_error_set("cannot list built-in scenes: cannot open %s",
                        fl_data_path(dir, sizeof dir, "assets/scenes"));
  }
  for (int i = 0; i < n; i++) {
    char rel[256], path[1024], title[FL_SCENE_NAME_MAX] = "";
    snprintf(rel, sizeof rel, "assets/scenes/%.63s.json", names[i]);
    fl_data_path(path, sizeof path, rel);
    char *text = fl_file_read(path, NULL, MAX_SCENE_BYTES);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (cJSON_IsString(name)) snprintf(title, sizeof title, "%s", name->valuestring);
    printf("  %-16s %s\n", names[i], title[0] ? title : (root ? "" : "(unreadable or malformed)"));
    cJSON_Delete(root);
    free(text);
  }
  return true;
}
