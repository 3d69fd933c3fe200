/* sim/stats: named figures (see stats.h). */
#include "sim/stats.h"

#include <math.h>
#include <string.h>

static fl_stat *add(fl_stats *s, const char *group, const char *key, fl_stat_kind kind)
{
  if (s->count == FL_STATS_MAX) return NULL;
  fl_stat *f = &s->items[s->count++];
  *f = (fl_stat){.group = group, .key = key, .kind = kind};
  return f;
}

void fl_stats_number(fl_stats *s, const char *group, const char *key, double value)
{
  fl_stat *f = add(s, group, key, FL_STAT_NUMBER);
  if (f) f->value[0] = value;
}

void fl_stats_text(fl_stats *s, const char *group, const char *key, const char *text)
{
  fl_stat *f = add(s, group, key, FL_STAT_TEXT);
  if (f) f->text = text;
}

void fl_stats_vec3(fl_stats *s, const char *group, const char *key, const double value[3])
{
  fl_stat *f = add(s, group, key, FL_STAT_VEC3);
  if (f) memcpy(f->value, value, sizeof f->value);
}

static bool same(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

const fl_stat *fl_stats_find(const fl_stats *s, const char *group, const char *key)
{
  for (uint32_t i = 0; i < s->count; i++)
    if (same(s->items[i].group, group) && strcmp(s->items[i].key, key) == 0) return &s->items[i];
  return NULL;
}

double fl_stats_value(const fl_stats *s, const char *group, const char *key)
{
  const fl_stat *f = fl_stats_find(s, group, key);
  return f && f->kind != FL_STAT_TEXT ? f->value[0] : NAN;
}

const char *fl_stats_string(const fl_stats *s, const char *group, const char *key)
{
  const fl_stat *f = fl_stats_find(s, group, key);
  return f && f->kind == FL_STAT_TEXT ? f->text : "";
}
