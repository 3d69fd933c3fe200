/* scene/scene_set: applies --set KEY=VALUE overrides to a scene's JSON tree.
 * Paths are checked against the section and object key tables so that a typo
 * names the override; values are checked later by the normal validation. */
#include "scene/scene_set.h"

#include "core/log.h"
#include "scene/json_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEGMENTS 16

/* What a node in the walk is, which decides its key table. */
typedef enum { CTX_TOP, CTX_SIM, CTX_DOMAIN, CTX_CAMERA, CTX_OBJECTS, CTX_OBJECT, CTX_OTHER } ctx;

static bool set_fail(const char *source, const char *override, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool set_fail(const char *source, const char *override, const char *fmt, ...)
{
  char msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fl_jr_error("%s: --set %.160s: %s", source, override, msg);
}

static ctx child_ctx(ctx parent, const char *key)
{
  if (parent == CTX_TOP && strcmp(key, "sim") == 0) return CTX_SIM;
  if (parent == CTX_TOP && strcmp(key, "camera") == 0) return CTX_CAMERA;
  if (parent == CTX_TOP && strcmp(key, "objects") == 0) return CTX_OBJECTS;
  if (parent == CTX_SIM && strcmp(key, "domain") == 0) return CTX_DOMAIN;
  return CTX_OTHER;
}

static const char *const *ctx_keys(ctx c, const cJSON *node)
{
  switch (c) {
  case CTX_TOP: return fl_scene_section_keys("");
  case CTX_SIM: return fl_scene_section_keys("sim");
  case CTX_DOMAIN: return fl_scene_section_keys("sim.domain");
  case CTX_CAMERA: return fl_scene_section_keys("camera");
  case CTX_OBJECT: return fl_scene_object_keys(node);
  default: return NULL;
  }
}

/* The index of the object named `name` in the objects array, or -1. */
static int find_object(const cJSON *objects, const char *name)
{
  int i = 0;
  for (const cJSON *o = objects->child; o; o = o->next, i++) {
    char n[FL_SCENE_NAME_MAX + 16];
    fl_scene_object_name(o, i, n, sizeof n);
    if (strcmp(n, name) == 0) return i;
  }
  return -1;
}

/* Writes the names of all objects as "a, b, c" (or "none"). */
static void list_objects(const cJSON *objects, char *out, size_t out_size)
{
  size_t n = 0;
  int i = 0;
  snprintf(out, out_size, "none");
  for (const cJSON *o = objects->child; o && n < out_size; o = o->next, i++) {
    char name[FL_SCENE_NAME_MAX + 16];
    fl_scene_object_name(o, i, name, sizeof name);
    n += (size_t)snprintf(out + n, out_size - n, "%s%s", i ? ", " : "", name);
  }
}

/* Applies one override; `value` is consumed. */
static bool apply_one(cJSON *root, const char *source, const char *override, char *key,
                      cJSON *value)
{
  char *segs[MAX_SEGMENTS];
  int n = 0;
  for (char *p = key;; p++) {
    char *dot = strchr(p, '.');
    if (n == MAX_SEGMENTS) {
      cJSON_Delete(value);
      return set_fail(source, override, "key has more than %d parts", MAX_SEGMENTS);
    }
    segs[n++] = p;
    if (!dot) break;
    *dot = 0;
    p = dot;
  }
  char where[256] = "";
  cJSON *node = root;
  ctx c = CTX_TOP;
  for (int i = 0; i < n; i++) {
    const char *seg = segs[i];
    bool last = i == n - 1;
    char got[128];
    if (!seg[0]) {
      cJSON_Delete(value);
      return set_fail(source, override, "empty part in the key (expected a.b.c)");
    }
    if (c == CTX_OBJECTS && cJSON_IsArray(node)) {
      int idx = find_object(node, seg);
      if (idx < 0) {
        char names[384];
        list_objects(node, names, sizeof names);
        cJSON_Delete(value);
        return set_fail(source, override, "no object named \"%.64s\" (objects: %s)", seg, names);
      }
      if (last) return cJSON_ReplaceItemInArray(node, idx, value);
      node = cJSON_GetArrayItem(node, idx);
      c = CTX_OBJECT;
    } else if (cJSON_IsArray(node)) {
      int size = cJSON_GetArraySize(node);
      char *end = NULL;
      long idx = strtol(seg, &end, 10);
      if (seg[0] < '0' || seg[0] > '9' || *end || idx >= size) {
        cJSON_Delete(value);
        return set_fail(source, override, "%s is an array of %d items; \"%.64s\" is not an index 0..%d",
                        where, size, seg, size - 1);
      }
      if (last) return cJSON_ReplaceItemInArray(node, (int)idx, value);
      node = cJSON_GetArrayItem(node, (int)idx);
      c = CTX_OTHER;
    } else if (cJSON_IsObject(node)) {
      const char *const *known = ctx_keys(c, node);
      if (known && !fl_jr_in(known, seg)) {
        char list[384];
        fl_jr_join(known, list, sizeof list);
        cJSON_Delete(value);
        return set_fail(source, override, "unknown key \"%.64s\" %s%s (known: %s)", seg,
                        where[0] ? "in " : "at the top level", where, list);
      }
      ctx next = child_ctx(c, seg);
      cJSON *child = cJSON_GetObjectItemCaseSensitive(node, seg);
      if (last) {
        if (child) return cJSON_ReplaceItemInObjectCaseSensitive(node, seg, value);
        return cJSON_AddItemToObject(node, seg, value);
      }
      if (!child && next == CTX_OBJECTS) {
        cJSON_Delete(value);
        return set_fail(source, override, "no object named \"%.64s\" (the scene has no objects)",
                        segs[i + 1]);
      }
      if (!child) {
        if (next != CTX_SIM && next != CTX_CAMERA && next != CTX_DOMAIN) {
          cJSON_Delete(value);
          return set_fail(source, override, "%s%s%s is not in the scene; set it whole instead",
                          where, where[0] ? "." : "", seg);
        }
        child = cJSON_CreateObject();
        if (!child || !cJSON_AddItemToObject(node, seg, child)) {
          cJSON_Delete(child);
          cJSON_Delete(value);
          return set_fail(source, override, "out of memory");
        }
      }
      node = child;
      c = next;
    } else {
      fl_jr_describe(node, got, sizeof got);
      cJSON_Delete(value);
      return set_fail(source, override, "%s is %s, not an object or array", where, got);
    }
    size_t len = strlen(where);
    snprintf(where + len, sizeof where - len, "%s%.64s", len ? "." : "", seg);
  }
  cJSON_Delete(value);
  return set_fail(source, override, "internal error");
}

bool fl_scene_apply_sets(cJSON *root, const char *source, const char *const *overrides, int count)
{
  for (int i = 0; i < count; i++) {
    const char *o = overrides[i];
    if (!o) continue;
    const char *eq = strchr(o, '=');
    size_t key_len = eq ? (size_t)(eq - o) : 0;
    char key[256];
    if (!eq || key_len == 0)
      return set_fail(source, o, "expected KEY=VALUE, e.g. sim.substeps=4");
    if (key_len >= sizeof key) return set_fail(source, o, "key is too long");
    memcpy(key, o, key_len);
    key[key_len] = 0;
    cJSON *value = cJSON_Parse(eq + 1);
    if (!value) value = cJSON_CreateString(eq + 1);
    if (!value) return set_fail(source, o, "out of memory");
    if (!apply_one(root, source, o, key, value)) {
      if (!fl_error_message()[0]) return set_fail(source, o, "out of memory");
      return false;
    }
  }
  return true;
}
