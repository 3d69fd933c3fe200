/* sim/stats: named figures a material reports, for one object (its section of
 * the report's object) or for the scene (entries of the report itself). Each
 * figure carries its report key, so a material states a figure once, where it
 * computes it, and the report writes any material's figures the same way;
 * tests look figures up by the same key. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define FL_STATS_MAX 32

typedef enum { FL_STAT_NUMBER, FL_STAT_TEXT, FL_STAT_VEC3 } fl_stat_kind;

typedef struct {
  const char *group;   /* NULL, or the nested object it goes in ("snow_system") */
  const char *key;     /* the report key ("max_strain"); a string literal */
  fl_stat_kind kind;
  double value[3];     /* NUMBER: [0]; VEC3: all three */
  const char *text;    /* TEXT: a string literal */
} fl_stat;

typedef struct {
  fl_stat items[FL_STATS_MAX];
  uint32_t count;
} fl_stats;

/* Adds a number, a text or a vector (group NULL: top level); past FL_STATS_MAX they are dropped. */
void fl_stats_number(fl_stats *s, const char *group, const char *key, double value);
void fl_stats_text(fl_stats *s, const char *group, const char *key, const char *text);
void fl_stats_vec3(fl_stats *s, const char *group, const char *key, const double value[3]);
/* The figure with this key in this group (NULL: top level), or NULL. */
const fl_stat *fl_stats_find(const fl_stats *s, const char *group, const char *key);
/* A number's value (a vector's x), or NaN when there is none: a test of a missing figure fails. */
double fl_stats_value(const fl_stats *s, const char *group, const char *key);
/* A text's value, or "" when there is none. */
const char *fl_stats_string(const fl_stats *s, const char *group, const char *key);
