/* core/log: leveled logging to stderr and the one recorded error message. */
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_log_level g_level = FL_LOG_INFO;
static char g_error[1024];

void fl_log_set_level(fl_log_level level) { g_level = level; }

void fl_log(fl_log_level level, const char *fmt, ...)
{
  if (level < g_level) return;
  static const char *names[] = {"debug", "info", "warn", "error"};
  fprintf(stderr, "flurry: [%s] ", names[level]);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/* Repeated warnings: a few kinds, each counted per object (names truncated to fit). */
#define REPEAT_KINDS 16
#define REPEAT_OBJECTS 16
typedef struct {
  char kind[96];
  char objects[REPEAT_OBJECTS][32];
  unsigned long counts[REPEAT_OBJECTS];
  unsigned long total, other;  /* other: objects past REPEAT_OBJECTS */
  unsigned object_count;
} repeat_kind;
static repeat_kind g_repeats[REPEAT_KINDS];
static unsigned g_repeat_count;

static repeat_kind *repeat_find(const char *kind, bool add)
{
  for (unsigned i = 0; i < g_repeat_count; i++)
    if (strncmp(g_repeats[i].kind, kind, sizeof g_repeats[i].kind - 1) == 0) return &g_repeats[i];
  if (!add || g_repeat_count == REPEAT_KINDS) return NULL;
  repeat_kind *k = &g_repeats[g_repeat_count++];
  memset(k, 0, sizeof *k);
  snprintf(k->kind, sizeof k->kind, "%s", kind);
  return k;
}

void fl_warn_repeated(const char *kind, const char *object, const char *fmt, ...)
{
  repeat_kind *k = repeat_find(kind, true);
  if (k && k->total++ > 0) { /* seen before: count it, quietly */
    unsigned i = 0;
    while (i < k->object_count && strncmp(k->objects[i], object, sizeof k->objects[i] - 1) != 0) i++;
    if (i == k->object_count && i < REPEAT_OBJECTS) snprintf(k->objects[k->object_count++], sizeof k->objects[0], "%s", object);
    if (i < REPEAT_OBJECTS) k->counts[i]++;
    else k->other++;
    return;
  }
  if (k) {
    snprintf(k->objects[0], sizeof k->objects[0], "%s", object);
    k->counts[0] = 1;
    k->object_count = 1;
  }
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fl_warn("%s (repeats are counted and summarized at exit)", line);
}

unsigned long fl_warn_repeated_count(const char *kind)
{
  const repeat_kind *k = repeat_find(kind, false);
  return k ? k->total : 0;
}

void fl_warn_summary(void)
{
  for (unsigned i = 0; i < g_repeat_count; i++) {
    const repeat_kind *k = &g_repeats[i];
    if (k->total < 2) continue;
    char list[512];
    size_t n = 0;
    for (unsigned j = 0; j < k->object_count && n < sizeof list; j++)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s %lu", j ? ", " : "", k->objects[j], k->counts[j]);
    if (k->other && n < sizeof list) snprintf(list + n, sizeof list - n, ", others %lu", k->other);
    unsigned objects = k->object_count + (k->other ? 1 : 0);
    fl_warn("%s %lu times in %u object%s (%s)", k->kind, k->total, objects, objects == 1 ? "" : "s", list);
  }
  g_repeat_count = 0;
}

bool fl_error_set(const char *fmt, ...)
{
  if (g_error[0]) return false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_error, sizeof g_error, fmt, ap);
  va_end(ap);
  return false;
}

bool fl_error_wrap(const char *fmt, ...)
{
  char prefix[512], inner[sizeof g_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  snprintf(inner, sizeof inner, "%s", g_error);
  size_t used = strlen(prefix);
  if (used > sizeof g_error - 3) used = sizeof g_error - 3;
  memcpy(g_error, prefix, used);
  memcpy(g_error + used, ": ", 2);
  const char *rest = inner[0] ? inner : "failed";
  size_t room = sizeof g_error - used - 3, rest_len = strlen(rest);
  if (rest_len > room) rest_len = room;
  memcpy(g_error + used + 2, rest, rest_len);
  g_error[used + 2 + rest_len] = 0;
  return false;
}

const char *fl_error_message(void) { return g_error; }

void fl_error_clear(void) { g_error[0] = 0; }

void fl_error_print(void)
{
  if (g_error[0]) fprintf(stderr, "flurry: error: %s\n", g_error);
  else fprintf(stderr, "flurry: error: internal error: a failure recorded no message (a bug: please report it with the command line)\n");
}
