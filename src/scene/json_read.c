/* scene/json_read: typed, range-checked readers over cJSON that report bad
 * values as one line "SOURCE: KEY.PATH: expected ..., got ...". */
#include "scene/json_read.h"

#include "core/log.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

fl_jr fl_jr_child(const fl_jr *parent, const char *key)
{
  fl_jr r = {.source = parent->source};
  if (parent->path[0])
    snprintf(r.path, sizeof r.path, "%.80s.%.40s", parent->path, key);
  else
    snprintf(r.path, sizeof r.path, "%.40s", key);
  return r;
}

fl_jr fl_jr_index(const fl_jr *parent, int index)
{
  fl_jr r = {.source = parent->source};
  snprintf(r.path, sizeof r.path, "%.100s[%d]", parent->path, index);
  return r;
}

bool fl_jr_error(const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (char *p = msg; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
  return fl_error_set("%s", msg);
}

bool fl_jr_fail(const fl_jr *r, const char *key, const char *fmt, ...)
{
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *sep = r->path[0] && key ? "." : "";
  if (r->path[0] || key)
    return fl_jr_error("%s: %s%s%s: %s", r->source, r->path, sep, key ? key : "", msg);
  return fl_jr_error("%s: %s", r->source, msg);
}

/* Copies `s` into out as a quoted string, escaping quotes and control bytes and
 * shortening it to about 40 bytes. */
static void describe_string(const char *s, char *out, size_t out_size)
{
  size_t n = 0;
  if (out_size < 8) {
    if (out_size) out[0] = 0;
    return;
  }
  out[n++] = '"';
  for (size_t i = 0; s[i]; i++) {
    if (i >= 40 || n + 6 >= out_size) {
      out[n++] = '.', out[n++] = '.', out[n++] = '.';
      break;
    }
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      out[n++] = '\\';
      out[n++] = (char)c;
    } else if (c < 0x20 || c == 0x7f) {
      out[n++] = '?';
    } else {
      out[n++] = (char)c;
    }
  }
  out[n++] = '"';
  out[n] = 0;
}

void fl_jr_describe(const cJSON *v, char *out, size_t out_size)
{
  if (!v) {
    snprintf(out, out_size, "nothing");
  } else if (cJSON_IsNumber(v)) {
    if (isfinite(v->valuedouble))
      snprintf(out, out_size, "%.9g", v->valuedouble);
    else
      snprintf(out, out_size, "a number too large to represent");
  } else if (cJSON_IsString(v)) {
    describe_string(v->valuestring, out, out_size);
  } else if (cJSON_IsTrue(v)) {
    snprintf(out, out_size, "true");
  } else if (cJSON_IsFalse(v)) {
    snprintf(out, out_size, "false");
  } else if (cJSON_IsNull(v)) {
    snprintf(out, out_size, "null");
  } else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
    bool array = cJSON_IsArray(v);
    int count = cJSON_GetArraySize(v);
    if (array && count <= 4) {
      /* Short arrays of scalars print in full: [1, "x", 3]. */
      size_t n = (size_t)snprintf(out, out_size, "[");
      const cJSON *e;
      int i = 0;
      cJSON_ArrayForEach(e, v)
      {
        char item[64];
        if (cJSON_IsArray(e) || cJSON_IsObject(e))
          snprintf(item, sizeof item, "%s", cJSON_IsArray(e) ? "[...]" : "{...}");
        else
          fl_jr_describe(e, item, sizeof item);
        if (n < out_size) n += (size_t)snprintf(out + n, out_size - n, "%s%s", i++ ? ", " : "", item);
      }
      if (n < out_size) snprintf(out + n, out_size - n, "]");
    } else if (array) {
      snprintf(out, out_size, "an array of %d items", count);
    } else {
      snprintf(out, out_size, "an object");
    }
  } else {
    snprintf(out, out_size, "an invalid value");
  }
}

void fl_jr_join(const char *const *keys, char *out, size_t out_size)
{
  size_t n = 0;
  out[0] = 0;
  for (int i = 0; keys[i] && n < out_size; i++)
    n += (size_t)snprintf(out + n, out_size - n, "%s%s", i ? ", " : "", keys[i]);
}

bool fl_jr_in(const char *const *keys, const char *key)
{
  for (int i = 0; keys[i]; i++)
    if (strcmp(keys[i], key) == 0) return true;
  return false;
}

bool fl_jr_object(const fl_jr *r, const cJSON *v, const char *const *known, const char *what)
{
  char got[128];
  if (!cJSON_IsObject(v)) {
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(r, NULL, "expected an object {...}, got %s", got);
  }
  for (const cJSON *e = v->child; e; e = e->next) {
    const char *key = e->string ? e->string : "";
    if (!fl_jr_in(known, key)) {
      char list[384];
      fl_jr_join(known, list, sizeof list);
      describe_string(key, got, sizeof got);
      return fl_jr_fail(r, NULL, "unknown key %s%s%s (known: %s)", got, what ? " " : "",
                        what ? what : "", list);
    }
    for (const cJSON *f = v->child; f != e; f = f->next)
      if (f->string && strcmp(f->string, key) == 0) {
        describe_string(key, got, sizeof got);
        return fl_jr_fail(r, NULL, "duplicate key %s", got);
      }
  }
  return true;
}

bool fl_jr_require(const fl_jr *r, const cJSON *obj, const char *key, const char *hint)
{
  if (cJSON_GetObjectItemCaseSensitive(obj, key)) return true;
  return fl_jr_fail(r, NULL, "missing required key \"%s\"%s%s", key, hint ? " " : "",
                    hint ? hint : "");
}

/* Writes "a number > 0", "a number in 0..1", ... for `range`. */
static void describe_range(fl_jr_range range, char *out, size_t out_size)
{
  bool lo = range.min > -1e299, hi = range.max < 1e299;
  if (lo && hi && !range.min_open && !range.max_open)
    snprintf(out, out_size, "a number in %g..%g", range.min, range.max);
  else if (lo && hi)
    snprintf(out, out_size, "a number %s %g and %s %g", range.min_open ? ">" : ">=", range.min,
             range.max_open ? "<" : "<=", range.max);
  else if (lo)
    snprintf(out, out_size, "a number %s %g", range.min_open ? ">" : ">=", range.min);
  else if (hi)
    snprintf(out, out_size, "a number %s %g", range.max_open ? "<" : "<=", range.max);
  else
    snprintf(out, out_size, "a number");
}

/* Checks one number value against `range` (and float's range). */
static bool check_number(const fl_jr *r, const char *key, const cJSON *v, fl_jr_range range,
                         float *out)
{
  char want[96], got[128];
  describe_range(range, want, sizeof want);
  fl_jr_describe(v, got, sizeof got);
  if (!cJSON_IsNumber(v)) return fl_jr_fail(r, key, "expected %s, got %s", want, got);
  double x = v->valuedouble;
  if (!isfinite(x) || fabs(x) > FLT_MAX)
    return fl_jr_fail(r, key, "expected %s (finite, within +-3.4e38), got %s", want, got);
  bool ok = (range.min_open ? x > range.min : x >= range.min) &&
            (range.max_open ? x < range.max : x <= range.max);
  if (!ok) return fl_jr_fail(r, key, "expected %s, got %s", want, got);
  /* The range again on the stored float, against the bounds as floats too: what the
   * user wrote is compared in the type they wrote it (0.1 is inside "<= 0.1", 1e-05
   * inside 1e-05..), while a value that rounds onto an open bound or past a bound
   * (1e-50 to 0, 0.999999999 to 1) is still refused. */
  float f = (float)x, lo = (float)range.min, hi = (float)range.max;
  bool lo_ok = range.min < -FLT_MAX || (range.min_open ? f > lo : f >= lo);
  bool hi_ok = range.max > FLT_MAX || (range.max_open ? f < hi : f <= hi);
  if (!lo_ok || !hi_ok)
    return fl_jr_fail(r, key, "expected %s, got %s, which is %g as a 32-bit float", want, got, (double)f);
  *out = f;
  return true;
}

bool fl_jr_number(const fl_jr *r, const cJSON *obj, const char *key, fl_jr_range range, float *out)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return !v || check_number(r, key, v, range, out);
}

bool fl_jr_uint(const fl_jr *r, const cJSON *obj, const char *key, uint32_t min, uint32_t max,
                uint32_t *out)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return true;
  double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!isfinite(x) || x != floor(x) || x < (double)min || x > (double)max) {
    char got[128];
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(r, key, "expected an integer in %u..%u, got %s", (unsigned)min,
                      (unsigned)max, got);
  }
  *out = (uint32_t)x;
  return true;
}

bool fl_jr_bool(const fl_jr *r, const cJSON *obj, const char *key, bool *out)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return true;
  if (!cJSON_IsBool(v)) {
    char got[128];
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(r, key, "expected true or false, got %s", got);
  }
  *out = cJSON_IsTrue(v);
  return true;
}

bool fl_jr_vec3(const fl_jr *r, const cJSON *obj, const char *key, fl_jr_range range, float out[3])
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return true;
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) {
    char want[96], got[128];
    describe_range(range, want, sizeof want);
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(r, key, "expected an array of 3 numbers [x, y, z]%s%s, got %s",
                      range.min > -1e299 || range.max < 1e299 ? ", each " : "",
                      range.min > -1e299 || range.max < 1e299 ? want : "", got);
  }
  fl_jr elem = fl_jr_child(r, key);
  float tmp[3];
  for (int i = 0; i < 3; i++) {
    fl_jr at = fl_jr_index(&elem, i);
    if (!check_number(&at, NULL, cJSON_GetArrayItem(v, i), range, &tmp[i])) return false;
  }
  memcpy(out, tmp, sizeof tmp);
  return true;
}

/* Reads a string at key into out; `name` restricts it to name characters. */
static bool read_string(const fl_jr *r, const cJSON *obj, const char *key, char *out,
                        size_t out_size, bool name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return true;
  const char *want = name ? "a name of letters, digits, '_' or '-'" : "a string";
  char got[128];
  fl_jr_describe(v, got, sizeof got);
  if (!cJSON_IsString(v) || !v->valuestring)
    return fl_jr_fail(r, key, "expected %s, got %s", want, got);
  const char *s = v->valuestring;
  size_t len = strlen(s);
  bool ok = len >= 1 && len < out_size;
  for (size_t i = 0; ok && i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (name)
      ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
    else
      ok = c >= 0x20 && c != 0x7f;
  }
  if (!ok)
    return fl_jr_fail(r, key, "expected %s (1..%zu bytes%s), got %s", want, out_size - 1,
                      name ? "" : ", no control characters", got);
  memcpy(out, s, len + 1);
  return true;
}

bool fl_jr_string(const fl_jr *r, const cJSON *obj, const char *key, char *out, size_t out_size)
{
  return read_string(r, obj, key, out, out_size, false);
}

bool fl_jr_name(const fl_jr *r, const cJSON *obj, const char *key, char *out, size_t out_size)
{
  return read_string(r, obj, key, out, out_size, true);
}

bool fl_jr_floats(const fl_jr *r, const cJSON *obj, const char *key, int count, fl_jr_range range,
                  float *out)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return true;
  if (count < 1 || count > 4) return fl_jr_fail(r, key, "internal error: bad array length %d", count);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != count) {
    char want[96], got[128];
    describe_range(range, want, sizeof want);
    fl_jr_describe(v, got, sizeof got);
    bool ranged = range.min > -1e299 || range.max < 1e299;
    return fl_jr_fail(r, key, "expected an array of %d numbers%s%s, got %s", count,
                      ranged ? ", each " : "", ranged ? want : "", got);
  }
  fl_jr elem = fl_jr_child(r, key);
  float tmp[4];
  for (int i = 0; i < count; i++) {
    fl_jr at = fl_jr_index(&elem, i);
    if (!check_number(&at, NULL, cJSON_GetArrayItem(v, i), range, &tmp[i])) return false;
  }
  memcpy(out, tmp, (size_t)count * sizeof tmp[0]);
  return true;
}

bool fl_jr_uints(const fl_jr *r, const cJSON *obj, const char *key, int count, uint32_t min,
                 uint32_t max, uint32_t *out)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return true;
  if (count < 1 || count > 4) return fl_jr_fail(r, key, "internal error: bad array length %d", count);
  char got[128];
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != count) {
    fl_jr_describe(v, got, sizeof got);
    return fl_jr_fail(r, key, "expected an array of %d integers, each in %u..%u, got %s", count,
                      (unsigned)min, (unsigned)max, got);
  }
  fl_jr elem = fl_jr_child(r, key);
  uint32_t tmp[4];
  for (int i = 0; i < count; i++) {
    const cJSON *e = cJSON_GetArrayItem(v, i);
    double x = cJSON_IsNumber(e) ? e->valuedouble : NAN;
    if (!isfinite(x) || x != floor(x) || x < (double)min || x > (double)max) {
      fl_jr at = fl_jr_index(&elem, i);
      fl_jr_describe(e, got, sizeof got);
      return fl_jr_fail(&at, NULL, "expected an integer in %u..%u, got %s", (unsigned)min,
                        (unsigned)max, got);
    }
    tmp[i] = (uint32_t)x;
  }
  memcpy(out, tmp, (size_t)count * sizeof tmp[0]);
  return true;
}

bool fl_jr_enum(const fl_jr *r, const cJSON *obj, const char *key, const char *const *names,
                int *out)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return true;
  for (int i = 0; cJSON_IsString(v) && v->valuestring && names[i]; i++)
    if (strcmp(names[i], v->valuestring) == 0) {
      *out = i;
      return true;
    }
  char list[256], got[128];
  fl_jr_join(names, list, sizeof list);
  fl_jr_describe(v, got, sizeof got);
  return fl_jr_fail(r, key, "expected one of: %s; got %s", list, got);
}
