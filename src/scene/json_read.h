/* scene/json_read: typed readers over a cJSON tree (number, integer, bool,
 * vec3, fixed-length number and integer arrays, enum string, string, name)
 * with range checks, each failing with one line
 * "SOURCE: KEY.PATH: expected ..., got ..." through fl_error_set. Also the
 * internal interface the scene loader's files share (scene.c, scene_objects.c,
 * scene_set.c); nothing outside src/scene should include this. */
#pragma once
#include "scene/scene.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a reader is in the document: the source name and the key path so far
 * ("" at the top, "sim", "objects[2]"). */
typedef struct {
  const char *source;
  char path[128];
} fl_jr;

/* An allowed interval for a number; open ends exclude the bound. */
typedef struct {
  double min, max;
  bool min_open, max_open;
} fl_jr_range;

#define FL_JR_ANY ((fl_jr_range){-1e300, 1e300, false, false})
#define FL_JR_POSITIVE ((fl_jr_range){0.0, 1e300, true, false})
#define FL_JR_NONNEG ((fl_jr_range){0.0, 1e300, false, false})
#define FL_JR_CLOSED(lo, hi) ((fl_jr_range){(lo), (hi), false, false})
/* Physical ranges: wide enough for any scene that makes sense, narrow enough
 * that a typo of magnitude (3e38 for 3) is an error rather than a NaN. */
#define FL_JR_COORD FL_JR_CLOSED(-1e4, 1e4)        /* a position (m): within 10 km */
#define FL_JR_LENGTH FL_JR_CLOSED(1e-5, 1e4)       /* a size (m): 10 um .. 10 km */
#define FL_JR_VELOCITY FL_JR_CLOSED(-1e3, 1e3)     /* a velocity component (m/s) */
#define FL_JR_ACCELERATION FL_JR_CLOSED(-1e3, 1e3) /* m/s^2: about 100 g */
#define FL_JR_MASS ((fl_jr_range){0.0, 1e9, true, false})     /* kg */
#define FL_JR_DENSITY ((fl_jr_range){0.0, 1e5, true, false})  /* kg/m^3 (osmium: 2.3e4) */
#define FL_JR_MODULUS ((fl_jr_range){0.0, 1e12, true, false}) /* Pa or N/m (diamond: 1.2e12 Pa) */
#define FL_JR_SCALE FL_JR_CLOSED(1e-6, 1e6)        /* a factor on a file's coordinates */
#define FL_JR_COEFFICIENT FL_JR_CLOSED(0, 100)     /* friction, drag, lift, hardening */
#define FL_JR_RATE FL_JR_CLOSED(0, 1e4)            /* a damping rate (1/s) */

/* A reader for the child `key` of `parent` (path "parent.key", or "key" at the top). */
fl_jr fl_jr_child(const fl_jr *parent, const char *key);
/* A reader for element `index` of the array at `parent` (path "parent[index]"). */
fl_jr fl_jr_index(const fl_jr *parent, int index);
/* Records a one-line error message (control characters become '?') and returns false. */
bool fl_jr_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Records "SOURCE: PATH[.key]: message" (key may be NULL) and returns false. */
bool fl_jr_fail(const fl_jr *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Writes a short description of a JSON value for "got ...": -1, "four", [1,2], true. */
void fl_jr_describe(const cJSON *v, char *out, size_t out_size);
/* Writes the NULL-terminated list `keys` as "a, b, c" into out. */
void fl_jr_join(const char *const *keys, char *out, size_t out_size);
/* True when `key` is in the NULL-terminated list. */
bool fl_jr_in(const char *const *keys, const char *key);

/* Checks that `v` is an object whose keys are all in `known` and none repeats;
 * `what` (may be NULL) qualifies the unknown-key message, e.g. "for a plane collider". */
bool fl_jr_object(const fl_jr *r, const cJSON *v, const char *const *known, const char *what);
/* Fails with "missing required key" unless `obj` has `key`; `hint` (may be NULL) is appended. */
bool fl_jr_require(const fl_jr *r, const cJSON *obj, const char *key, const char *hint);

/* The readers leave *out untouched when `key` is absent from `obj` and return true. */
bool fl_jr_number(const fl_jr *r, const cJSON *obj, const char *key, fl_jr_range range, float *out);
/* An integral number in min..max. */
bool fl_jr_uint(const fl_jr *r, const cJSON *obj, const char *key, uint32_t min, uint32_t max,
                uint32_t *out);
bool fl_jr_bool(const fl_jr *r, const cJSON *obj, const char *key, bool *out);
/* An array of exactly 3 numbers, each in `range`. */
bool fl_jr_vec3(const fl_jr *r, const cJSON *obj, const char *key, fl_jr_range range, float out[3]);
/* An array of exactly `count` (1..4) numbers, each in `range`. */
bool fl_jr_floats(const fl_jr *r, const cJSON *obj, const char *key, int count, fl_jr_range range,
                  float *out);
/* An array of exactly `count` (1..4) integers, each in min..max. */
bool fl_jr_uints(const fl_jr *r, const cJSON *obj, const char *key, int count, uint32_t min,
                 uint32_t max, uint32_t *out);
/* A string that is one of the NULL-terminated `names`; *out is its index. */
bool fl_jr_enum(const fl_jr *r, const cJSON *obj, const char *key, const char *const *names,
                int *out);
/* A string of 1..out_size-1 bytes without control characters. */
bool fl_jr_string(const fl_jr *r, const cJSON *obj, const char *key, char *out, size_t out_size);
/* A name for --set paths: 1..out_size-1 of letters, digits, '_' and '-'. */
bool fl_jr_name(const fl_jr *r, const cJSON *obj, const char *key, char *out, size_t out_size);

/* ---- Scene module internals (defined in scene.c / scene_objects.c) ---- */

/* The keys allowed at the top level (""), in "sim", "sim.domain" or "camera"; NULL otherwise. */
const char *const *fl_scene_section_keys(const char *section);
/* The keys allowed in an object JSON of this "type" (and collider "shape"); NULL when
 * the type or shape is missing or unknown. */
const char *const *fl_scene_object_keys(const cJSON *object);
/* The object's name as addressed by --set and checked for duplicates: its "name"
 * string, else "<type><index>"; "" when neither can be formed. */
void fl_scene_object_name(const cJSON *object, int index, char *out, size_t out_size);
/* Parses and validates objects[index] into *out (defaults applied). */
bool fl_scene_parse_object(const fl_jr *r, const cJSON *object, int index, fl_scene_object *out);
