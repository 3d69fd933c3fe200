/* scene/scene_objects: the object types of a scene, their key tables and
 * parsers (particles, collider, cloth, mass_spring, softbody, balloon, snow).
 * A new object type adds a row in TYPES, a key table and a parse function here,
 * and is owned by a row of the material table (sim/material.h). */
#include "scene/json_read.h"

#include "core/file.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  fl_object_type type;
} type_entry;

static const type_entry TYPES[] = {
    {"particles", FL_OBJECT_PARTICLES}, {"collider", FL_OBJECT_COLLIDER},       {"cloth", FL_OBJECT_CLOTH},
    {"softbody", FL_OBJECT_SOFTBODY},   {"balloon", FL_OBJECT_BALLOON},         {"mass_spring", FL_OBJECT_MASS_SPRING},
    {"snow", FL_OBJECT_SNOW},
};
#define TYPE_COUNT ((int)(sizeof TYPES / sizeof TYPES[0]))
static const char *const TYPE_NAMES[] = {"particles", "collider", "cloth",
                                         "softbody",  "balloon",  "mass_spring",
                                         "snow",      NULL};

static const char *const PARTICLE_KEYS[] = {
    "type",   "name",   "count", "center",      "half_extents", "velocity", "velocity_jitter",
    "radius", "mass",   "restitution", "friction", "seed", NULL};

static const char *const SHAPE_NAMES[] = {"plane", "sphere", "box", "capsule", "mesh", NULL};
#define COLLIDER_MOTION_KEYS "friction", "velocity", "angular_velocity", "move_until", "pivot", "keyframes"
static const char *const PLANE_KEYS[] = {"type", "name", "shape", "normal", "offset", COLLIDER_MOTION_KEYS, NULL};
static const char *const SPHERE_KEYS[] = {"type", "name", "shape", "center", "radius", COLLIDER_MOTION_KEYS,
                                          "inside", NULL};
static const char *const BOX_KEYS[] = {"type", "name", "shape", "center", "half_extents", COLLIDER_MOTION_KEYS,
                                       "inside", NULL};
static const char *const CAPSULE_KEYS[] = {"type", "name", "shape", "a", "b", "radius", COLLIDER_MOTION_KEYS, NULL};
static const char *const MESH_COLLIDER_KEYS[] = {"type",       "name", "shape", "path", "scale", "center",
                                                 "resolution", COLLIDER_MOTION_KEYS,     "inside", NULL};
static const char *const KEYFRAME_KEYS[] = {"t", "position", "rotation", NULL};
/* Indexed by fl_collider_shape. */
static const char *const *const SHAPE_KEYS[] = {PLANE_KEYS, SPHERE_KEYS, BOX_KEYS, CAPSULE_KEYS, MESH_COLLIDER_KEYS};

/* tear_strain (cloth, balloon): 0 < s <= 10. */
#define FL_TEAR_STRAIN_RANGE ((fl_jr_range){0.0, 10.0, true, false})

static const char *const CLOTH_KEYS[] = {
    "type",      "name",          "resolution",         "size",             "center",
    "plane",     "mass",          "pin",                "stretch_compliance", "shear_compliance",
    "bend_compliance", "bending", "damping",            "damping_model",    "thickness",
    "friction",  "self_collision", "wind",              "drag",             "lift",
    "gust",      "gust_period",   "gust_length",        "coupling",         "area_compliance",
    "tear_strain", "hierarchy_levels", "sag",  "tethers", NULL};
/* Indexed by fl_cloth_plane, fl_bending_model and fl_damping_model. */
static const char *const PLANE_NAMES[] = {"xz", "xy", NULL};
static const char *const BENDING_NAMES[] = {"isometric", "dihedral", "none", NULL};
static const char *const DAMPING_NAMES[] = {"point", "edge", "global", NULL};
static const char *const COLLISION_NAMES[] = {"particles", "triangles", NULL};

/* "self_collision": true / false (particles or none), "particles" or "triangles". */
static bool parse_self_collision(const fl_jr *r, const cJSON *o, fl_cloth_desc *c)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "self_collision");
  if (!v || cJSON_IsBool(v)) return fl_jr_bool(r, o, "self_collision", &c->self_collision);
  int mode = -1;
  for (int i = 0; cJSON_IsString(v) && v->valuestring && COLLISION_NAMES[i]; i++)
    if (strcmp(COLLISION_NAMES[i], v->valuestring) == 0) mode = i;
  if (mode < 0) {
    char got[128];
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(r, "self_collision", "expected true, false, \"particles\" or \"triangles\", got %s", got);
  }
  c->self_collision = true;
  c->triangle_contacts = mode == 1;
  return true;
}

static const char *const MASS_SPRING_KEYS[] = {
    "type",       "name",        "resolution",        "size",         "center",
    "plane",      "mass",        "stiffness",         "damping",      "springs",
    "pin",        "integrator",  "jacobi_iterations", "split",        "definite_jacobian",
    "jacobi_start", "cg_iterations", "cg_tolerance", "divergence_strain", "thickness", "friction", NULL};
/* Indexed by fl_ms_integrator and fl_ms_split_key. SPRINGS_NAMES[k] is the mask
 * (2 << k) - 1: each adds the next FL_MS_SPRINGS_* group. */
static const char *const INTEGRATOR_NAMES[] = {"E", "HO", "JI", "IM", "HY", NULL};
static const char *const JACOBI_START_NAMES[] = {"zero", "explicit", NULL};
static const char *const SPLIT_NAMES[] = {"paper", "momentum", NULL};
static const char *const SPRINGS_NAMES[] = {"structural", "structural+shear", "structural+shear+bend",
                                            NULL};

/* Soft bodies and balloons: each shape accepts only its own placement keys (as colliders do).
 * Indexed by fl_body_shape; softbodies take the first five, balloons ICOSPHERE and MESH. */
static const char *const BODY_SHAPE_NAMES[] = {"sphere", "box", "torus", "mesh", "tetgen", "icosphere",
                                               NULL};
static const char *const SOFTBODY_SHAPE_NAMES[] = {"sphere", "box", "torus", "mesh", "tetgen", NULL};
static const char *const BALLOON_SHAPE_NAMES[] = {"icosphere", "mesh", NULL};
/* Indexed by fl_soft_model and fl_volume_conservation. */
static const char *const SOFT_MODEL_NAMES[] = {"xpbd", "neohookean", NULL};
static const char *const VOLUME_CONSERVATION_NAMES[] = {"none", "global", "local", NULL};

#define SOFTBODY_COMMON_KEYS                                                                       \
  "type", "name", "shape", "center", "density", "model", "edge_compliance", "volume_compliance",    \
      "youngs_modulus", "poisson_ratio", "velocity", "damping", "thickness", "friction",            \
      "volume_conservation", "volume_alpha", "volume_beta", "volume_pair_stiffness", "volume_velocity",     \
      "measure_after", "coupling"
static const char *const SOFTBODY_SPHERE_KEYS[] = {SOFTBODY_COMMON_KEYS, "radius", "resolution",
                                                   "render_detail", NULL};
static const char *const SOFTBODY_BOX_KEYS[] = {SOFTBODY_COMMON_KEYS, "half_extents", "resolution",
                                                "render_detail", NULL};
static const char *const SOFTBODY_TORUS_KEYS[] = {SOFTBODY_COMMON_KEYS, "radius", "minor_radius",
                                                  "resolution", "render_detail", NULL};
static const char *const SOFTBODY_MESH_KEYS[] = {SOFTBODY_COMMON_KEYS, "path", "scale", "resolution",
                                                 NULL};
static const char *const SOFTBODY_TETGEN_KEYS[] = {SOFTBODY_COMMON_KEYS, "path", "scale", NULL};

#define BALLOON_COMMON_KEYS                                                                        \
  "type", "name", "shape", "center", "mass", "stretch_compliance", "bend_compliance", "bending",     \
      "pressure", "pressure_compliance", "tear_strain", "velocity", "damping", "thickness", "friction", \
      "volume_conservation", "volume_alpha", "volume_beta", "volume_pair_stiffness", "volume_velocity",     \
      "measure_after", "coupling"
static const char *const BALLOON_ICOSPHERE_KEYS[] = {BALLOON_COMMON_KEYS, "radius", "subdivisions",
                                                     NULL};
static const char *const BALLOON_MESH_KEYS[] = {BALLOON_COMMON_KEYS, "path", "scale", NULL};

/* Indexed by fl_body_shape; NULL where the type has no such shape. */
static const char *const *const SOFTBODY_SHAPE_KEYS[] = {SOFTBODY_SPHERE_KEYS, SOFTBODY_BOX_KEYS,
                                                         SOFTBODY_TORUS_KEYS,  SOFTBODY_MESH_KEYS,
                                                         SOFTBODY_TETGEN_KEYS, NULL};
static const char *const *const BALLOON_SHAPE_KEYS[] = {NULL, NULL, NULL, BALLOON_MESH_KEYS, NULL,
                                                        BALLOON_ICOSPHERE_KEYS};

/* Snow: each shape accepts its own placement keys. Indexed by fl_snow_shape and fl_snow_transfer. */
static const char *const SNOW_SHAPE_NAMES[] = {"sphere", "box", "mesh", NULL};
static const char *const SNOW_TRANSFER_NAMES[] = {"pic_flip", "apic", NULL};
#define SNOW_COMMON_KEYS                                                                           \
  "type", "name", "shape", "center", "velocity", "particles_per_cell", "grid_spacing", "density",   \
      "E0", "nu", "xi", "theta_c", "theta_s", "flip", "beta", "friction", "transfer", "seed",  \
      "coupling"
static const char *const SNOW_SPHERE_KEYS[] = {SNOW_COMMON_KEYS, "radius", NULL};
static const char *const SNOW_BOX_KEYS[] = {SNOW_COMMON_KEYS, "half_extents", NULL};
static const char *const SNOW_MESH_KEYS[] = {SNOW_COMMON_KEYS, "path", "scale", NULL};
static const char *const *const SNOW_SHAPE_KEYS[] = {SNOW_SPHERE_KEYS, SNOW_BOX_KEYS, SNOW_MESH_KEYS};

/* Named pins: -1 stands for the last row or column. */
typedef struct {
  const char *name;
  fl_cloth_pin pin;
} named_pin;
static const named_pin PIN_NAMES[] = {
    {"top", {FL_PIN_ROW, -1, 0}},
    {"bottom", {FL_PIN_ROW, 0, 0}},
    {"left", {FL_PIN_COLUMN, 0, 0}},
    {"right", {FL_PIN_COLUMN, -1, 0}},
    {"top-left", {FL_PIN_PARTICLE, 0, -1}},
    {"top-right", {FL_PIN_PARTICLE, -1, -1}},
    {"bottom-left", {FL_PIN_PARTICLE, 0, 0}},
    {"bottom-right", {FL_PIN_PARTICLE, -1, 0}},
};
#define PIN_NAME_COUNT ((int)(sizeof PIN_NAMES / sizeof PIN_NAMES[0]))
#define CLOTH_MAX_PARTICLES (16u << 20)

const char *fl_object_type_name(fl_object_type type)
{
  for (int i = 0; i < TYPE_COUNT; i++)
    if (TYPES[i].type == type) return TYPES[i].name;
  return "unknown";
}

/* The index of string `s` in the NULL-terminated `names`, or -1. */
static int find_name(const char *const *names, const char *s)
{
  for (int i = 0; s && names[i]; i++)
    if (strcmp(names[i], s) == 0) return i;
  return -1;
}

static const char *string_at(const cJSON *obj, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The shape names a softbody or balloon accepts (the first is its default). */
static const char *const *body_shape_names(fl_object_type type)
{
  return type == FL_OBJECT_SOFTBODY ? SOFTBODY_SHAPE_NAMES : BALLOON_SHAPE_NAMES;
}

/* The fl_body_shape of shape name `name`, one of body_shape_names(). */
static fl_body_shape body_shape_of(const char *name)
{
  return (fl_body_shape)find_name(BODY_SHAPE_NAMES, name);
}

/* The key table of a softbody or balloon of `shape`. */
static const char *const *body_keys(fl_object_type type, fl_body_shape shape)
{
  return type == FL_OBJECT_SOFTBODY ? SOFTBODY_SHAPE_KEYS[shape] : BALLOON_SHAPE_KEYS[shape];
}

const char *const *fl_scene_object_keys(const cJSON *object)
{
  int t = find_name(TYPE_NAMES, string_at(object, "type"));
  if (t < 0) return NULL;
  fl_object_type type = TYPES[t].type;
  if (type == FL_OBJECT_PARTICLES) return PARTICLE_KEYS;
  if (type == FL_OBJECT_CLOTH) return CLOTH_KEYS;
  if (type == FL_OBJECT_MASS_SPRING) return MASS_SPRING_KEYS;
  if (type == FL_OBJECT_COLLIDER) {
    int s = find_name(SHAPE_NAMES, string_at(object, "shape"));
    return s < 0 ? NULL : SHAPE_KEYS[s];
  }
  if (type == FL_OBJECT_SNOW) {
    const char *shape = cJSON_GetObjectItemCaseSensitive(object, "shape") ? string_at(object, "shape") : "sphere";
    int s = find_name(SNOW_SHAPE_NAMES, shape);
    return s < 0 ? NULL : SNOW_SHAPE_KEYS[s];
  }
  if (type == FL_OBJECT_SOFTBODY || type == FL_OBJECT_BALLOON) {
    const char *const *names = body_shape_names(type);
    const char *shape = cJSON_GetObjectItemCaseSensitive(object, "shape") ? string_at(object, "shape")
                                                                           : names[0];
    return find_name(names, shape) < 0 ? NULL : body_keys(type, body_shape_of(shape));
  }
  return NULL;
}

void fl_scene_object_name(const cJSON *object, int index, char *out, size_t out_size)
{
  const char *name = string_at(object, "name");
  const char *type = string_at(object, "type");
  if (name)
    snprintf(out, out_size, "%s", name);
  else if (type)
    snprintf(out, out_size, "%s%d", type, index);
  else if (out_size)
    out[0] = 0;
}

static bool parse_particles(const fl_jr *r, const cJSON *o, fl_particles_desc *p)
{
  *p = (fl_particles_desc){
      .count = 4096,
      .center = {0, 1, 0},
      .half_extents = {0.5f, 0.5f, 0.5f},
      .radius = 0.02f,
      .mass = 1.0f,
      .restitution = 0.3f,
      .friction = 0.2f,
      .seed = 1,
  };
  return fl_jr_object(r, o, PARTICLE_KEYS, "for a particles object") &&
         fl_jr_uint(r, o, "count", 1, 16u << 20, &p->count) &&
         fl_jr_vec3(r, o, "center", FL_JR_COORD, p->center) &&
         fl_jr_vec3(r, o, "half_extents", FL_JR_LENGTH, p->half_extents) &&
         fl_jr_vec3(r, o, "velocity", FL_JR_VELOCITY, p->velocity) &&
         fl_jr_number(r, o, "velocity_jitter", FL_JR_CLOSED(0, 1e3), &p->velocity_jitter) &&
         fl_jr_number(r, o, "radius", FL_JR_LENGTH, &p->radius) &&
         fl_jr_number(r, o, "mass", FL_JR_MASS, &p->mass) &&
         fl_jr_number(r, o, "restitution", FL_JR_CLOSED(0, 1), &p->restitution) &&
         fl_jr_number(r, o, "friction", FL_JR_COEFFICIENT, &p->friction) &&
         fl_jr_uint(r, o, "seed", 0, UINT32_MAX, &p->seed);
}

static bool resolve_path(const fl_jr *r, const cJSON *o, const char *suffix, char out[FL_SCENE_PATH_MAX]);

/* "keyframes": [{t, position, rotation}, ...]: 1..FL_COLLIDER_MAX_KEYFRAMES of them, t strictly
 * increasing; position defaults to the pivot, rotation (a rotation vector, degrees) to none. */
static bool parse_keyframes(const fl_jr *r, const cJSON *o, fl_collider_desc *c)
{
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "keyframes");
  if (!list) return true;
  fl_jr lr = fl_jr_child(r, "keyframes");
  int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
  if (n < 1 || n > FL_COLLIDER_MAX_KEYFRAMES) {
    char got[128];
    fl_jr_describe(list, got, sizeof got);
    return fl_jr_fail(r, "keyframes", "expected a list of 1 to %d keyframes {\"t\", \"position\", \"rotation\"}, got %s",
                      FL_COLLIDER_MAX_KEYFRAMES, got);
  }
  static const char *const MOTION[] = {"velocity", "angular_velocity", "move_until", NULL};
  for (int m = 0; MOTION[m]; m++)
    if (cJSON_GetObjectItemCaseSensitive(o, MOTION[m]))
      return fl_jr_fail(r, MOTION[m], "a collider with \"keyframes\" moves along them only: remove \"%s\"", MOTION[m]);
  for (int k = 0; k < n; k++) {
    const cJSON *e = cJSON_GetArrayItem(list, k);
    fl_jr er = fl_jr_index(&lr, k);
    fl_collider_keyframe *f = &c->keyframes[k];
    float degrees[3] = {0, 0, 0};
    memcpy(f->position, c->pivot, sizeof f->position);
    if (!fl_jr_object(&er, e, KEYFRAME_KEYS, "for a keyframe") ||
        !fl_jr_require(&er, e, "t", "(a keyframe needs \"t\", the time in s)") ||
        !fl_jr_number(&er, e, "t", FL_JR_CLOSED(0, 1e6), &f->t) ||
        !fl_jr_vec3(&er, e, "position", FL_JR_COORD, f->position) ||
        !fl_jr_vec3(&er, e, "rotation", FL_JR_CLOSED(-1e5, 1e5), degrees))
      return false;
    if (k > 0 && !(f->t > c->keyframes[k - 1].t))
      return fl_jr_fail(&er, "t", "keyframe times must increase: %g follows %g", (double)f->t,
                        (double)c->keyframes[k - 1].t);
    for (int a = 0; a < 3; a++) f->rotation[a] = degrees[a] * (float)(3.14159265358979323846 / 180.0);
  }
  c->keyframe_count = (uint32_t)n;
  return true;
}

/* The default pivot: the shape's centre. */
static void default_pivot(fl_collider_desc *c)
{
  for (int a = 0; a < 3; a++)
    c->pivot[a] = c->shape == FL_SHAPE_PLANE     ? c->normal[a] * c->offset
                  : c->shape == FL_SHAPE_CAPSULE ? 0.5f * (c->a[a] + c->b[a])
                                                 : c->center[a];
}

/* The keys every shape shares: friction, its motion (velocity, angular_velocity,
 * move_until or keyframes) and the pivot (after the shape, whose centre is its default). */
static bool parse_collider_motion(const fl_jr *r, const cJSON *o, fl_collider_desc *c)
{
  default_pivot(c);
  return fl_jr_number(r, o, "friction", FL_JR_COEFFICIENT, &c->friction) &&
         fl_jr_vec3(r, o, "velocity", FL_JR_VELOCITY, c->velocity) &&
         fl_jr_vec3(r, o, "angular_velocity", FL_JR_CLOSED(-1e3, 1e3), c->angular_velocity) &&
         fl_jr_number(r, o, "move_until", FL_JR_CLOSED(0, 1e6), &c->move_until) &&
         fl_jr_vec3(r, o, "pivot", FL_JR_COORD, c->pivot) && parse_keyframes(r, o, c);
}

static bool parse_collider_shape(const fl_jr *r, const cJSON *o, fl_collider_desc *c)
{
  switch (c->shape) {
  case FL_SHAPE_PLANE: {
    if (!fl_jr_require(r, o, "normal", "(a plane needs \"normal\": [x, y, z])") ||
        !fl_jr_vec3(r, o, "normal", FL_JR_ANY, c->normal) ||
        !fl_jr_number(r, o, "offset", FL_JR_COORD, &c->offset))
      return false;
    double len = sqrt((double)c->normal[0] * c->normal[0] + (double)c->normal[1] * c->normal[1] +
                      (double)c->normal[2] * c->normal[2]);
    if (!(len > 1e-6))
      return fl_jr_fail(r, "normal", "expected a non-zero vector, got [%g, %g, %g]",
                        (double)c->normal[0], (double)c->normal[1], (double)c->normal[2]);
    for (int i = 0; i < 3; i++) c->normal[i] = (float)(c->normal[i] / len);
    return true;
  }
  case FL_SHAPE_SPHERE:
    return fl_jr_require(r, o, "radius", "(a sphere needs \"radius\")") &&
           fl_jr_vec3(r, o, "center", FL_JR_COORD, c->center) &&
           fl_jr_number(r, o, "radius", FL_JR_LENGTH, &c->radius) &&
           fl_jr_bool(r, o, "inside", &c->inside);
  case FL_SHAPE_BOX:
    return fl_jr_require(r, o, "half_extents", "(a box needs \"half_extents\": [x, y, z])") &&
           fl_jr_vec3(r, o, "center", FL_JR_COORD, c->center) &&
           fl_jr_vec3(r, o, "half_extents", FL_JR_LENGTH, c->half_extents) &&
           fl_jr_bool(r, o, "inside", &c->inside);
  case FL_SHAPE_CAPSULE:
    return fl_jr_require(r, o, "a", "(a capsule needs \"a\", \"b\" and \"radius\")") &&
           fl_jr_require(r, o, "b", "(a capsule needs \"a\", \"b\" and \"radius\")") &&
           fl_jr_require(r, o, "radius", "(a capsule needs \"a\", \"b\" and \"radius\")") &&
           fl_jr_vec3(r, o, "a", FL_JR_COORD, c->a) && fl_jr_vec3(r, o, "b", FL_JR_COORD, c->b) &&
           fl_jr_number(r, o, "radius", FL_JR_LENGTH, &c->radius);
  case FL_SHAPE_MESH:
    return fl_jr_require(r, o, "path", "(a mesh collider needs \"path\": a closed .obj file)") &&
           resolve_path(r, o, ".obj", c->path) && fl_jr_number(r, o, "scale", FL_JR_SCALE, &c->scale) &&
           fl_jr_vec3(r, o, "center", FL_JR_COORD, c->center) &&
           fl_jr_uint(r, o, "resolution", 4, 128, &c->resolution) && fl_jr_bool(r, o, "inside", &c->inside);
  }
  return false;
}

static bool parse_collider(const fl_jr *r, const cJSON *o, fl_collider_desc *c)
{
  static const char SHAPE_HINT[] = "(one of: plane, sphere, box, capsule, mesh)";
  *c = (fl_collider_desc){.friction = 0.3f, .scale = 1.0f, .resolution = 32};
  if (!fl_jr_require(r, o, "shape", SHAPE_HINT)) return false;
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
  int s = find_name(SHAPE_NAMES, cJSON_IsString(shape) ? shape->valuestring : NULL);
  if (s < 0) {
    char got[128];
    fl_jr_describe(shape, got, sizeof got);
    return fl_jr_fail(r, "shape", "unknown collider shape %s %s", got, SHAPE_HINT);
  }
  c->shape = (fl_collider_shape)s;
  char what[64];
  snprintf(what, sizeof what, "for a %s collider", SHAPE_NAMES[s]);
  return fl_jr_object(r, o, SHAPE_KEYS[s], what) && parse_collider_shape(r, o, c) && parse_collider_motion(r, o, c);
}

/* Reads 1..10 decimal digits at *s into *out and advances *s; false otherwise. */
static bool read_digits(const char **s, uint64_t *out)
{
  const char *p = *s;
  uint64_t v = 0;
  int n = 0;
  while (*p >= '0' && *p <= '9' && n < 11) v = v * 10 + (uint64_t)(*p++ - '0'), n++;
  if (n == 0 || n > 10) return false;
  *out = v;
  *s = p;
  return true;
}

/* Parses one pin string ("corner:i,j", "row:j", "column:i", "index:k" or a name) and
 * checks its numbers against the nx x ny grid. */
static bool parse_pin(const fl_jr *r, const cJSON *v, uint32_t nx, uint32_t ny, fl_cloth_pin *out)
{
  char got[128];
  fl_jr_describe(v, got, sizeof got);
  const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
  for (int i = 0; s && i < PIN_NAME_COUNT; i++)
    if (strcmp(s, PIN_NAMES[i].name) == 0) {
      *out = PIN_NAMES[i].pin;
      return true;
    }
  static const struct {
    const char *prefix;
    fl_pin_kind kind;
    int numbers;
  } FORMS[] = {{"corner:", FL_PIN_PARTICLE, 2},
               {"row:", FL_PIN_ROW, 1},
               {"column:", FL_PIN_COLUMN, 1},
               {"index:", FL_PIN_INDEX, 1}};
  for (int f = 0; s && f < (int)(sizeof FORMS / sizeof FORMS[0]); f++) {
    size_t len = strlen(FORMS[f].prefix);
    if (strncmp(s, FORMS[f].prefix, len) != 0) continue;
    const char *p = s + len;
    uint64_t a = 0, b = 0;
    bool ok = read_digits(&p, &a);
    if (ok && FORMS[f].numbers == 2) ok = *p++ == ',' && read_digits(&p, &b);
    if (!ok || *p) break;
    bool inside;
    switch (FORMS[f].kind) {
    case FL_PIN_PARTICLE: inside = a < nx && b < ny; break;
    case FL_PIN_ROW: inside = a < ny; break;
    case FL_PIN_COLUMN: inside = a < nx; break;
    default: inside = a < (uint64_t)nx * ny; break;
    }
    if (!inside)
      return fl_jr_fail(r, NULL, "%s is outside the %ux%u grid", got, (unsigned)nx, (unsigned)ny);
    *out = (fl_cloth_pin){FORMS[f].kind, (int32_t)a, (int32_t)b};
    return true;
  }
  return fl_jr_fail(r, NULL,
                    "expected a pin \"corner:i,j\", \"row:j\", \"column:i\", \"index:k\" (i, j, k "
                    "non-negative integers) or one of top, bottom, left, right, top-left, top-right, "
                    "bottom-left, bottom-right; got %s",
                    got);
}

/* Reads "pin" into pins[0..*count) (untouched when absent), each checked against the
 * nx x ny grid `resolution`. */
static bool parse_pins(const fl_jr *r, const cJSON *o, const uint32_t resolution[2],
                       fl_cloth_pin pins[FL_CLOTH_MAX_PINS], uint32_t *count)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "pin");
  if (!v) return true;
  fl_jr rp = fl_jr_child(r, "pin");
  char got[128];
  if (!cJSON_IsArray(v)) {
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(&rp, NULL, "expected an array of pins, e.g. [\"top-left\", \"corner:5,0\"], got %s",
                      got);
  }
  int n = cJSON_GetArraySize(v);
  if (n > FL_CLOTH_MAX_PINS)
    return fl_jr_fail(&rp, NULL, "expected at most %d pins, got %d", FL_CLOTH_MAX_PINS, n);
  int i = 0;
  for (const cJSON *e = v->child; e; e = e->next, i++) {
    fl_jr at = fl_jr_index(&rp, i);
    if (!parse_pin(&at, e, resolution[0], resolution[1], &pins[i])) return false;
  }
  *count = (uint32_t)n;
  return true;
}

/* The keys a particle sheet (cloth, mass_spring) shares, read into the desc's fields
 * with their defaults: "resolution" (each side 2..max_side, default [32, 32]), "size"
 * ([1, 1]), "center" ([0, 1, 0]), "plane" ("xz"), "mass" (1) and "pin" (none). */
typedef struct {
  uint32_t *resolution;
  float *size, *center;
  fl_cloth_plane *plane;
  float *mass;
  fl_cloth_pin *pins;
  uint32_t *pin_count;
} sheet_fields;

static bool parse_sheet(const fl_jr *r, const cJSON *o, uint32_t max_side, sheet_fields f)
{
  f.resolution[0] = f.resolution[1] = 32;
  f.size[0] = f.size[1] = 1.0f;
  f.center[0] = f.center[2] = 0.0f;
  f.center[1] = 1.0f;
  *f.mass = 1.0f;
  *f.pin_count = 0;
  int plane = FL_PLANE_XZ;
  if (!fl_jr_uints(r, o, "resolution", 2, 2, max_side, f.resolution)) return false;
  uint64_t particles = (uint64_t)f.resolution[0] * f.resolution[1];
  if (particles > CLOTH_MAX_PARTICLES)
    return fl_jr_fail(r, "resolution", "expected at most %u particles, got %ux%u", CLOTH_MAX_PARTICLES,
                      (unsigned)f.resolution[0], (unsigned)f.resolution[1]);
  if (!fl_jr_floats(r, o, "size", 2, FL_JR_LENGTH, f.size) ||
      !fl_jr_vec3(r, o, "center", FL_JR_COORD, f.center) ||
      !fl_jr_enum(r, o, "plane", PLANE_NAMES, &plane) ||
      !fl_jr_number(r, o, "mass", FL_JR_MASS, f.mass) ||
      !parse_pins(r, o, f.resolution, f.pins, f.pin_count))
    return false;
  *f.plane = (fl_cloth_plane)plane;
  return true;
}

static bool parse_cloth(const fl_jr *r, const cJSON *o, fl_cloth_desc *c)
{
  *c = (fl_cloth_desc){
      .stretch_compliance = 0.0f,
      .shear_compliance = 1e-6f,
      .bend_compliance = 1e-3f,
      .bending = FL_BENDING_ISOMETRIC,
      .damping = 0.1f,
      .damping_model = FL_DAMPING_POINT,
      .thickness = 0.01f,
      .friction = {0.5f, 0.4f},
      .gust_period = 2.0f,
      .gust_length = 3.0f,
      .hierarchy_levels = 1,
  };
  int bending = (int)c->bending, damping_model = (int)c->damping_model;
  if (!fl_jr_object(r, o, CLOTH_KEYS, "for a cloth object") ||
      !parse_sheet(r, o, 4096,
                   (sheet_fields){c->resolution, c->size, c->center, &c->plane, &c->mass, c->pins,
                                  &c->pin_count}) ||
      !fl_jr_number(r, o, "stretch_compliance", FL_JR_NONNEG, &c->stretch_compliance) ||
      !fl_jr_number(r, o, "shear_compliance", FL_JR_NONNEG, &c->shear_compliance) ||
      !fl_jr_number(r, o, "bend_compliance", FL_JR_NONNEG, &c->bend_compliance) ||
      !fl_jr_enum(r, o, "bending", BENDING_NAMES, &bending) ||
      !fl_jr_number(r, o, "damping", FL_JR_RATE, &c->damping) ||
      !fl_jr_enum(r, o, "damping_model", DAMPING_NAMES, &damping_model) ||
      !fl_jr_number(r, o, "thickness", FL_JR_LENGTH, &c->thickness) ||
      !fl_jr_floats(r, o, "friction", 2, FL_JR_COEFFICIENT, c->friction) ||
      !parse_self_collision(r, o, c) ||
      !fl_jr_vec3(r, o, "wind", FL_JR_VELOCITY, c->wind) ||
      !fl_jr_number(r, o, "drag", FL_JR_COEFFICIENT, &c->drag) ||
      !fl_jr_number(r, o, "lift", FL_JR_COEFFICIENT, &c->lift) ||
      !fl_jr_number(r, o, "gust", FL_JR_CLOSED(0, 1), &c->gust) ||
      !fl_jr_number(r, o, "gust_period", FL_JR_CLOSED(0.05, 60), &c->gust_period) ||
      !fl_jr_number(r, o, "gust_length", FL_JR_CLOSED(0.05, 100), &c->gust_length) ||
      !fl_jr_number(r, o, "area_compliance", FL_JR_NONNEG, &c->area_compliance) ||
      !fl_jr_number(r, o, "tear_strain", FL_TEAR_STRAIN_RANGE, &c->tear_strain) ||
      !fl_jr_uint(r, o, "hierarchy_levels", 1, 8, &c->hierarchy_levels) ||
      !fl_jr_number(r, o, "sag", FL_JR_NONNEG, &c->sag) || !fl_jr_bool(r, o, "tethers", &c->tethers))
    return false;
  if (c->tethers && c->tear_strain > 0) /* a torn piece would hang on its old pin */
    return fl_jr_fail(r, "tethers", "a tearing cloth (tear_strain) cannot have tethers");
  if (c->sag > (float)FL_SHEET_MAX_SAG * c->size[0])
    return fl_jr_fail(r, "sag", "expected at most %g x size[0] = %g m (deeper than an arc can hang), got %g",
                      FL_SHEET_MAX_SAG, FL_SHEET_MAX_SAG * c->size[0], (double)c->sag);
  if (!fl_cloth_hierarchy_fits(c->resolution, c->hierarchy_levels))
    return fl_jr_fail(r, "hierarchy_levels", "%u levels need at least %u particles per side (every 2nd row and column "
                      "per level)", (unsigned)c->hierarchy_levels, (1u << (c->hierarchy_levels - 1)) + 1);
  if (c->hierarchy_levels > 1 && c->tear_strain > 0) /* the coarse levels are built once, at load */
    return fl_jr_fail(r, "hierarchy_levels", "a tearing cloth (tear_strain) cannot have coarse levels");
  c->area = cJSON_GetObjectItemCaseSensitive(o, "area_compliance") != NULL; /* the key turns them on */
  c->bending = (fl_bending_model)bending;
  c->damping_model = (fl_damping_model)damping_model;
  return true;
}

static bool parse_mass_spring(const fl_jr *r, const cJSON *o, fl_mass_spring_desc *m)
{
  *m = (fl_mass_spring_desc){
      .stiffness = 1000.0f,
      .damping = 0.5f,
      .springs = FL_MS_SPRINGS_STRUCTURAL | FL_MS_SPRINGS_SHEAR | FL_MS_SPRINGS_BEND,
      .integrator = FL_MS_INTEGRATOR_HY,
      .jacobi_iterations = 3,
      .split = FL_MS_SPLIT_KEY_PAPER,
      .definite_jacobian = true,
      .cg_iterations = 100,
      .cg_tolerance = 1e-5f,
      .divergence_strain = 2.0f,
      .friction = 0.5f,
  };
  static const fl_jr_range UNIT_OPEN = {0.0, 1.0, true, true};
  int springs = 2 /* structural+shear+bend */, integrator = (int)m->integrator, split = (int)m->split,
      jacobi_start = m->jacobi_explicit_start ? 1 : 0;
  if (!fl_jr_object(r, o, MASS_SPRING_KEYS, "for a mass_spring object") ||
      !parse_sheet(r, o, 1024,
                   (sheet_fields){m->resolution, m->size, m->center, &m->plane, &m->mass, m->pins,
                                  &m->pin_count}) ||
      !fl_jr_number(r, o, "stiffness", FL_JR_MODULUS, &m->stiffness) ||
      !fl_jr_number(r, o, "damping", FL_JR_CLOSED(0, 1e9), &m->damping) ||
      !fl_jr_enum(r, o, "springs", SPRINGS_NAMES, &springs) ||
      !fl_jr_enum(r, o, "integrator", INTEGRATOR_NAMES, &integrator) ||
      !fl_jr_uint(r, o, "jacobi_iterations", 1, 100, &m->jacobi_iterations) ||
      !fl_jr_enum(r, o, "split", SPLIT_NAMES, &split) ||
      !fl_jr_bool(r, o, "definite_jacobian", &m->definite_jacobian) ||
      !fl_jr_enum(r, o, "jacobi_start", JACOBI_START_NAMES, &jacobi_start) ||
      !fl_jr_uint(r, o, "cg_iterations", 1, 10000, &m->cg_iterations) ||
      !fl_jr_number(r, o, "cg_tolerance", UNIT_OPEN, &m->cg_tolerance) ||
      !fl_jr_number(r, o, "divergence_strain", FL_JR_POSITIVE, &m->divergence_strain) ||
      !fl_jr_number(r, o, "thickness", FL_JR_CLOSED(0, 1e4), &m->thickness) ||
      !fl_jr_number(r, o, "friction", FL_JR_COEFFICIENT, &m->friction))
    return false;
  m->springs = (2u << springs) - 1u;
  m->integrator = (fl_ms_integrator)integrator;
  m->split = (fl_ms_split_key)split;
  m->jacobi_explicit_start = jacobi_start == 1;
  return true;
}

/* Stores `found` (the file that "path" `given` names) into out, if it fits. */
static bool store_path(const fl_jr *r, const char *given, const char *found, char out[FL_SCENE_PATH_MAX])
{
  size_t len = strlen(found);
  if (len >= FL_SCENE_PATH_MAX)
    return fl_jr_fail(r, "path", "'%s' is the file %.400s, a path longer than %d bytes; give a shorter path",
                      given, found, FL_SCENE_PATH_MAX - 1);
  memcpy(out, found, len + 1);
  return true;
}

/* Reads "path" (when present), which must end in `suffix` (NULL: anything), into out as the
 * first existing file of: the path itself when absolute; else the path next to the scene file
 * (only when the source names an existing file, so not for a scene parsed from memory), then
 * in the data directory. The file is only looked for here; the simulation reads it. */
static bool resolve_path(const fl_jr *r, const cJSON *o, const char *suffix, char out[FL_SCENE_PATH_MAX])
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "path");
  char given[FL_SCENE_PATH_MAX];
  if (!v) return true;
  if (!fl_jr_string(r, o, "path", given, sizeof given)) return false;
  size_t len = strlen(given), suffix_len = suffix ? strlen(suffix) : 0;
  if (suffix && (len <= suffix_len || strcmp(given + len - suffix_len, suffix) != 0)) {
    char got[128];
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(r, "path", "expected a path ending in \"%s\", got %s", suffix, got);
  }
  if (given[0] == '/') {
    if (fl_file_exists(given)) return store_path(r, given, given, out);
    return fl_jr_fail(r, "path", "cannot find '%s'", given);
  }
  char candidate[4096 + FL_SCENE_PATH_MAX];
  if (fl_file_exists(r->source)) {
    const char *slash = strrchr(r->source, '/');
    if (slash)
      snprintf(candidate, sizeof candidate, "%.*s/%s", (int)(slash - r->source), r->source, given);
    else
      snprintf(candidate, sizeof candidate, "%s", given);
    if (fl_file_exists(candidate)) return store_path(r, given, candidate, out);
  }
  fl_data_path(candidate, sizeof candidate, given);
  if (fl_file_exists(candidate)) return store_path(r, given, candidate, out);
  return fl_jr_fail(r, "path", "cannot find '%s' (looked next to the scene and in %s)", given,
                    fl_data_dir());
}

/* The keys soft bodies and balloons share, read into *c with their defaults. The key table
 * (checked before) admits "radius", "path" and "scale" only for the shapes that use them;
 * "path" must end in `path_suffix` (NULL: anything). */
static bool parse_body_common(const fl_jr *r, const cJSON *o, const char *path_suffix,
                              fl_body_common_desc *c)
{
  *c = (fl_body_common_desc){
      .center = {0, 1, 0},
      .radius = 0.5f,
      .scale = 1.0f,
      .damping = 0.1f,
      .thickness = 0.0f,
      .friction = {0.5f, 0.4f},
      .volume_conservation = FL_VOLUME_CONSERVE_NONE,
      .volume_alpha = 0.5f,
      .volume_beta = 1.0f,
      .volume_pair_stiffness = 1.0f,
      .measure_after = 0.0f,
  };
  int conservation = (int)c->volume_conservation;
  if (!fl_jr_vec3(r, o, "center", FL_JR_COORD, c->center) ||
      !fl_jr_number(r, o, "radius", FL_JR_LENGTH, &c->radius) ||
      !fl_jr_number(r, o, "scale", FL_JR_SCALE, &c->scale) ||
      !fl_jr_vec3(r, o, "velocity", FL_JR_VELOCITY, c->velocity) ||
      !fl_jr_number(r, o, "damping", FL_JR_RATE, &c->damping) ||
      !fl_jr_number(r, o, "thickness", FL_JR_CLOSED(0, 1e4), &c->thickness) ||
      !fl_jr_floats(r, o, "friction", 2, FL_JR_COEFFICIENT, c->friction) ||
      !fl_jr_enum(r, o, "volume_conservation", VOLUME_CONSERVATION_NAMES, &conservation) ||
      !fl_jr_number(r, o, "volume_alpha", FL_JR_CLOSED(0, 1), &c->volume_alpha) ||
      !fl_jr_number(r, o, "volume_beta", FL_JR_CLOSED(0, 1), &c->volume_beta) ||
      !fl_jr_number(r, o, "volume_pair_stiffness", FL_JR_CLOSED(0, 1e4), &c->volume_pair_stiffness) ||
      !fl_jr_bool(r, o, "volume_velocity", &c->volume_velocity) ||
      !fl_jr_number(r, o, "measure_after", FL_JR_NONNEG, &c->measure_after) ||
      !resolve_path(r, o, path_suffix, c->path))
    return false;
  c->volume_conservation = (fl_volume_conservation)conservation;
  if (c->volume_velocity && c->volume_conservation == FL_VOLUME_CONSERVE_NONE)
    return fl_jr_fail(r, "volume_velocity", "the velocity correction needs \"volume_conservation\": "
                      "\"global\" or \"local\"");
  return true;
}

/* Reads a softbody's or balloon's "shape" (default: the type's first shape name), checks the
 * object's keys against that shape's table and, for "mesh" and "tetgen", requires "path". */
static bool parse_body_shape(const fl_jr *r, const cJSON *o, fl_object_type type, fl_body_shape *shape)
{
  const char *const *names = body_shape_names(type);
  const char *type_name = fl_object_type_name(type);
  int s = 0;
  if (!fl_jr_enum(r, o, "shape", names, &s)) return false;
  *shape = body_shape_of(names[s]);
  char what[64];
  bool vowel = strchr("aeiou", names[s][0]) != NULL;
  snprintf(what, sizeof what, "for a%s %s %s", vowel ? "n" : "", names[s], type_name);
  if (!fl_jr_object(r, o, body_keys(type, *shape), what)) return false;
  if (*shape == FL_BODY_MESH || *shape == FL_BODY_TETGEN) {
    char hint[96];
    snprintf(hint, sizeof hint, "(a %s %s needs \"path\": %s)", names[s], type_name,
             *shape == FL_BODY_MESH ? "an .obj file" : "a TetGen .node file");
    return fl_jr_require(r, o, "path", hint);
  }
  return true;
}

static bool parse_softbody(const fl_jr *r, const cJSON *o, fl_softbody_desc *b)
{
  *b = (fl_softbody_desc){
      .shape = FL_BODY_SPHERE,
      .half_extents = {0.3f, 0.3f, 0.3f},
      .minor_radius = 0.2f,
      .resolution = 8,
      .density = 1000.0f,
      .model = FL_SOFT_MODEL_XPBD,
      .edge_compliance = 1e-5f,
      .volume_compliance = 0.0f,
      .youngs_modulus = 1e5f,
      .poisson_ratio = 0.4f,
      .render_detail = 32,
  };
  /* 0.49 rounds up to a float above the double 0.49; the bound is that float, so 0.49 passes. */
  static const fl_jr_range POISSON = {0.0, (double)0.49f, false, false};
  int model = (int)b->model;
  if (!parse_body_shape(r, o, FL_OBJECT_SOFTBODY, &b->shape) ||
      !parse_body_common(r, o, b->shape == FL_BODY_TETGEN ? ".node" : NULL, &b->common) ||
      !fl_jr_vec3(r, o, "half_extents", FL_JR_LENGTH, b->half_extents) ||
      !fl_jr_number(r, o, "minor_radius", FL_JR_LENGTH, &b->minor_radius) ||
      !fl_jr_uint(r, o, "resolution", 2, 64, &b->resolution) ||
      !fl_jr_number(r, o, "density", FL_JR_DENSITY, &b->density) ||
      !fl_jr_enum(r, o, "model", SOFT_MODEL_NAMES, &model) ||
      !fl_jr_number(r, o, "edge_compliance", FL_JR_NONNEG, &b->edge_compliance) ||
      !fl_jr_number(r, o, "volume_compliance", FL_JR_NONNEG, &b->volume_compliance) ||
      !fl_jr_number(r, o, "youngs_modulus", FL_JR_MODULUS, &b->youngs_modulus) ||
      !fl_jr_number(r, o, "poisson_ratio", POISSON, &b->poisson_ratio) ||
      !fl_jr_uint(r, o, "render_detail", 4, 256, &b->render_detail))
    return false;
  b->model = (fl_soft_model)model;
  if (b->shape == FL_BODY_TORUS && !(b->minor_radius < b->common.radius))
    return fl_jr_fail(r, "minor_radius", "expected a number < radius (%g), got %g",
                      (double)b->common.radius, (double)b->minor_radius);
  return true;
}

static bool parse_balloon(const fl_jr *r, const cJSON *o, fl_balloon_desc *b)
{
  *b = (fl_balloon_desc){
      .shape = FL_BODY_ICOSPHERE,
      .subdivisions = 3,
      .mass = 0.1f,
      .stretch_compliance = 1e-4f,
      .bend_compliance = 0.1f,
      .bending = FL_BENDING_ISOMETRIC,
      .pressure = 1.0f,
      .pressure_compliance = 0.0f,
  };
  int bending = (int)b->bending;
  if (!parse_body_shape(r, o, FL_OBJECT_BALLOON, &b->shape) ||
      !parse_body_common(r, o, NULL, &b->common) ||
      !fl_jr_uint(r, o, "subdivisions", 0, 6, &b->subdivisions) ||
      !fl_jr_number(r, o, "mass", FL_JR_MASS, &b->mass) ||
      !fl_jr_number(r, o, "stretch_compliance", FL_JR_NONNEG, &b->stretch_compliance) ||
      !fl_jr_number(r, o, "bend_compliance", FL_JR_NONNEG, &b->bend_compliance) ||
      !fl_jr_enum(r, o, "bending", BENDING_NAMES, &bending) ||
      !fl_jr_number(r, o, "pressure", FL_JR_CLOSED(0.1, 10), &b->pressure) ||
      !fl_jr_number(r, o, "pressure_compliance", FL_JR_NONNEG, &b->pressure_compliance) ||
      !fl_jr_number(r, o, "tear_strain", FL_TEAR_STRAIN_RANGE, &b->tear_strain))
    return false;
  b->bending = (fl_bending_model)bending;
  return true;
}

/* "friction": a number >= 0, or "sticky" (mu = infinity). */
static bool parse_snow_friction(const fl_jr *r, const cJSON *o, fl_snow_desc *s)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "friction");
  if (cJSON_IsString(v)) {
    if (strcmp(v->valuestring, "sticky") == 0) return s->sticky = true;
    return fl_jr_fail(r, "friction", "expected a number >= 0 or \"sticky\", got \"%s\"", v->valuestring);
  }
  return fl_jr_number(r, o, "friction", FL_JR_COEFFICIENT, &s->friction);
}

static bool parse_snow(const fl_jr *r, const cJSON *o, fl_snow_desc *s)
{
  *s = (fl_snow_desc){
      .shape = FL_SNOW_SHAPE_SPHERE,
      .center = {0, 1, 0},
      .radius = 0.2f,
      .half_extents = {0.2f, 0.2f, 0.2f},
      .scale = 1.0f,
      .particles_per_cell = 8,
      .grid_spacing = 0.0f, /* not written: fl_scene_default_snow_spacing picks it */
      .density = 400.0f,
      .E0 = 1.4e5f,
      .nu = 0.2f,
      .xi = 10.0f,
      .theta_c = 2.5e-2f,
      .theta_s = 7.5e-3f,
      .flip = 0.95f,
      .beta = 0.0f,
      .friction = 0.3f,
      .transfer = FL_SNOW_PIC_FLIP,
      .seed = 1,
  };
  static const fl_jr_range POISSON = {0.0, (double)0.49f, false, false};
  int shape = 0, transfer = 0;
  if (!fl_jr_enum(r, o, "shape", SNOW_SHAPE_NAMES, &shape)) return false;
  s->shape = (fl_snow_shape)shape;
  char what[64];
  snprintf(what, sizeof what, "for a %s snow", SNOW_SHAPE_NAMES[shape]);
  if (!fl_jr_object(r, o, SNOW_SHAPE_KEYS[shape], what)) return false;
  if (s->shape == FL_SNOW_SHAPE_MESH && !fl_jr_require(r, o, "path", "(a mesh snow needs \"path\": an .obj file)"))
    return false;
  if (!fl_jr_vec3(r, o, "center", FL_JR_COORD, s->center) ||
      !fl_jr_number(r, o, "radius", FL_JR_LENGTH, &s->radius) ||
      !fl_jr_vec3(r, o, "half_extents", FL_JR_LENGTH, s->half_extents) ||
      !resolve_path(r, o, NULL, s->path) ||
      !fl_jr_number(r, o, "scale", FL_JR_SCALE, &s->scale) ||
      !fl_jr_vec3(r, o, "velocity", FL_JR_VELOCITY, s->velocity) ||
      !fl_jr_uint(r, o, "particles_per_cell", 1, 64, &s->particles_per_cell) ||
      !fl_jr_number(r, o, "grid_spacing", FL_JR_LENGTH, &s->grid_spacing) ||
      !fl_jr_number(r, o, "density", FL_JR_DENSITY, &s->density) ||
      !fl_jr_number(r, o, "E0", FL_JR_MODULUS, &s->E0) ||
      !fl_jr_number(r, o, "nu", POISSON, &s->nu) ||
      !fl_jr_number(r, o, "xi", FL_JR_COEFFICIENT, &s->xi) ||
      !fl_jr_number(r, o, "theta_c", FL_JR_CLOSED(0, 1), &s->theta_c) ||
      !fl_jr_number(r, o, "theta_s", FL_JR_CLOSED(0, 1), &s->theta_s) ||
      !fl_jr_number(r, o, "flip", FL_JR_CLOSED(0, 1), &s->flip) ||
      !fl_jr_number(r, o, "beta", FL_JR_CLOSED(0, 1), &s->beta) ||
      !parse_snow_friction(r, o, s) ||
      !fl_jr_enum(r, o, "transfer", SNOW_TRANSFER_NAMES, &transfer) ||
      !fl_jr_uint(r, o, "seed", 0, UINT32_MAX, &s->seed))
    return false;
  s->transfer = (fl_snow_transfer)transfer;
  return true;
}

bool fl_scene_parse_object(const fl_jr *r, const cJSON *object, int index, fl_scene_object *out)
{
  char got[128], list[256];
  memset(out, 0, sizeof *out);
  if (!cJSON_IsObject(object)) {
    fl_jr_describe(object, got, sizeof got);
    return fl_jr_fail(r, NULL, "expected an object {\"type\": ..., ...}, got %s", got);
  }
  fl_jr_join(TYPE_NAMES, list, sizeof list);
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(object, "type");
  if (!type) return fl_jr_fail(r, NULL, "missing required key \"type\" (one of: %s)", list);
  int t = find_name(TYPE_NAMES, cJSON_IsString(type) ? type->valuestring : NULL);
  if (t < 0) {
    fl_jr_describe(type, got, sizeof got);
    return fl_jr_fail(r, "type", "unknown object type %s (known: %s)", got, list);
  }
  out->type = TYPES[t].type;
  snprintf(out->name, sizeof out->name, "%s%d", TYPES[t].name, index);
  if (!fl_jr_name(r, object, "name", out->name, sizeof out->name)) return false;
  /* "coupling" (default true): snow <-> cloth, soft body and balloon coupling (docs/COUPLING.md). */
  bool coupling = true;
  if ((out->type == FL_OBJECT_CLOTH || out->type == FL_OBJECT_SOFTBODY || out->type == FL_OBJECT_BALLOON ||
       out->type == FL_OBJECT_SNOW) &&
      !fl_jr_bool(r, object, "coupling", &coupling))
    return false;
  out->no_coupling = !coupling;
  switch (out->type) {
  case FL_OBJECT_PARTICLES: return parse_particles(r, object, &out->particles);
  case FL_OBJECT_COLLIDER: return parse_collider(r, object, &out->collider);
  case FL_OBJECT_CLOTH: return parse_cloth(r, object, &out->cloth);
  case FL_OBJECT_MASS_SPRING: return parse_mass_spring(r, object, &out->mass_spring);
  case FL_OBJECT_SOFTBODY: return parse_softbody(r, object, &out->softbody);
  case FL_OBJECT_BALLOON: return parse_balloon(r, object, &out->balloon);
  case FL_OBJECT_SNOW: return parse_snow(r, object, &out->snow);
  }
  return fl_jr_fail(r, "type", "object type '%s' has no parser", TYPES[t].name); /* a TYPES row without a case */
}
