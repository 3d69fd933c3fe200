/* core/tetgen_file: the TetGen tetrahedral mesh reader (.node + .ele) and writer.
 * Each file is read twice with the same code: a first pass checks the header and
 * every line, then the arrays are allocated at the header's (checked) counts and
 * a second pass fills them. */
#include "core/tetgen_file.h"

#include "core/file.h"
#include "core/log.h"
#include "core/text_scan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ATTRIBUTES 64
#define MAX_PATH_CHARS 4096

/* One header number: its name, the value when the header stops before it, its range. */
typedef struct {
  const char *name;
  int64_t fallback, min, max;
} header_field;

/* What the .node file declares, and the mesh being filled (NULL while checking). */
typedef struct {
  uint32_t points, attributes, markers, base;
  uint32_t tets, nodes_per_tet, region;
  fl_tetgen_mesh *mesh;
} tetgen_layout;

/* Reads the header: up to `count` integers, the missing ones taking their fallback. */
static bool read_header(fl_text_scan *s, const header_field *fields, size_t count, const char *layout, int64_t *values)
{
  fl_text_span line, token;
  if (!fl_text_next_content_line(s, &line))
    return fl_error_set("%s: empty file (expected a header \"%s\")", s->source, layout);
  size_t n = fl_text_count_tokens(line);
  if (n > count) return fl_text_error(s, "header has %zu numbers (expected \"%s\")", n, layout);
  for (size_t k = 0; k < count; k++) {
    values[k] = fields[k].fallback;
    if (k < n && (!fl_text_next_token(&line, &token) || !fl_text_read_int(s, token, fields[k].name, &values[k])))
      return false;
    if (fields[k].min == fields[k].max && values[k] != fields[k].min)
      return fl_text_error(s, "%s %lld is not %lld", fields[k].name, (long long)values[k], (long long)fields[k].min);
    if (values[k] < fields[k].min || values[k] > fields[k].max)
      return fl_text_error(s, "%s %lld is out of range (%lld to %lld)", fields[k].name, (long long)values[k],
                           (long long)fields[k].min, (long long)fields[k].max);
  }
  return true;
}

/* Reads `count` records of `fields` tokens each, then checks nothing but comments follow. */
static bool read_records(fl_text_scan *s, uint32_t count, size_t fields, const char *what, tetgen_layout *l,
                         bool (*record)(fl_text_scan *, fl_text_span, uint32_t, tetgen_layout *))
{
  fl_text_span line;
  for (uint32_t i = 0; i < count; i++) {
    if (!fl_text_next_content_line(s, &line))
      return fl_text_error(s, "the file ends after %u of the %u %s the header declares", i, count, what);
    size_t n = fl_text_count_tokens(line);
    if (n != fields) return fl_text_error(s, "line has %zu numbers (expected %zu for one of the %s)", n, fields, what);
    if (!record(s, line, i, l)) return false;
  }
  if (fl_text_next_content_line(s, &line))
    return fl_text_error(s, "more lines than the %u %s the header declares", count, what);
  return true;
}

/* "<index> x y z [attributes] [marker]": the first index sets the numbering base. */
static bool read_point(fl_text_scan *s, fl_text_span line, uint32_t i, tetgen_layout *l)
{
  static const char *const axes[] = {"x coordinate", "y coordinate", "z coordinate"};
  fl_text_span token;
  int64_t index, marker;
  float xyz[3], attribute;
  fl_text_next_token(&line, &token);
  if (!fl_text_read_int(s, token, "point index", &index)) return false;
  if (i == 0 && index != 0 && index != 1)
    return fl_text_error(s, "the first point is numbered %lld (expected 0 or 1)", (long long)index);
  if (i == 0) l->base = (uint32_t)index;
  if (index != (int64_t)l->base + i)
    return fl_text_error(s, "point numbered %lld, expected %lld (points are numbered consecutively)",
                         (long long)index, (long long)l->base + i);
  for (int k = 0; k < 3; k++)
    if (!fl_text_next_token(&line, &token) || !fl_text_read_float(s, token, axes[k], &xyz[k])) return false;
  for (uint32_t k = 0; k < l->attributes; k++)
    if (!fl_text_next_token(&line, &token) || !fl_text_read_float(s, token, "attribute", &attribute)) return false;
  if (l->markers && (!fl_text_next_token(&line, &token) || !fl_text_read_int(s, token, "boundary marker", &marker)))
    return false;
  if (l->mesh) memcpy(l->mesh->positions[i], xyz, sizeof xyz);
  return true;
}

/* One node of a tet: an existing point, returned 0-based. */
static bool read_corner(fl_text_scan *s, fl_text_span token, const tetgen_layout *l, uint32_t *out)
{
  int64_t index;
  if (!fl_text_read_int(s, token, "corner", &index)) return false;
  int64_t at = index - (int64_t)l->base;
  if (at < 0 || at >= (int64_t)l->points)
    return fl_text_error(s, "corner %lld is not a point (%u points, numbered from %u)", (long long)index, l->points,
                         l->base);
  *out = (uint32_t)at;
  return true;
}

/* "<index> n1 .. n4 [n5 .. n10] [region]": the four corners are kept and must differ. */
static bool read_tet(fl_text_scan *s, fl_text_span line, uint32_t i, tetgen_layout *l)
{
  fl_text_span token;
  int64_t index;
  uint32_t nodes[10];
  float region;
  fl_text_next_token(&line, &token);
  if (!fl_text_read_int(s, token, "tet index", &index)) return false;
  for (uint32_t k = 0; k < l->nodes_per_tet; k++)
    if (!fl_text_next_token(&line, &token) || !read_corner(s, token, l, &nodes[k])) return false;
  for (int a = 0; a < 4; a++)
    for (int b = a + 1; b < 4; b++)
      if (nodes[a] == nodes[b])
        return fl_text_error(s, "tet %lld repeats corner %lld", (long long)index, (long long)nodes[a] + l->base);
  if (l->region && (!fl_text_next_token(&line, &token) || !fl_text_read_float(s, token, "region attribute", &region)))
    return false;
  if (l->mesh) memcpy(l->mesh->tets[i], nodes, sizeof l->mesh->tets[i]);
  return true;
}

static bool read_node(const char *text, size_t length, const char *source, tetgen_layout *l)
{
  static const header_field fields[] = {
    {"point count", 0, 1, FL_TETGEN_MAX_POINTS},
    {"dimension", 3, 3, 3},
    {"attribute count", 0, 0, MAX_ATTRIBUTES},
    {"boundary marker flag", 0, 0, 1},
  };
  fl_text_scan s;
  int64_t h[4];
  if (!fl_text_scan_init(&s, text, length, source) ||
      !read_header(&s, fields, 4, "<points> <dimension 3> <attributes> <boundary markers 0|1>", h))
    return false;
  l->points = (uint32_t)h[0], l->attributes = (uint32_t)h[2], l->markers = (uint32_t)h[3];
  return read_records(&s, l->points, 4 + l->attributes + l->markers, "points", l, read_point);
}

static bool read_ele(const char *text, size_t length, const char *source, tetgen_layout *l)
{
  static const header_field fields[] = {
    {"tet count", 0, 1, FL_TETGEN_MAX_TETS},
    {"nodes per tet", 4, 4, 10},
    {"region attribute flag", 0, 0, 1},
  };
  fl_text_scan s;
  int64_t h[3];
  if (!fl_text_scan_init(&s, text, length, source) ||
      !read_header(&s, fields, 3, "<tets> <nodes per tet 4|10> <region attribute 0|1>", h))
    return false;
  if (h[1] != 4 && h[1] != 10) return fl_text_error(&s, "nodes per tet is %lld (expected 4 or 10)", (long long)h[1]);
  l->tets = (uint32_t)h[0], l->nodes_per_tet = (uint32_t)h[1], l->region = (uint32_t)h[2];
  return read_records(&s, l->tets, 1 + l->nodes_per_tet + l->region, "tets", l, read_tet);
}

bool fl_tetgen_parse(const char *node_text, size_t node_length, const char *node_source, const char *ele_text,
                     size_t ele_length, const char *ele_source, fl_tetgen_mesh *out)
{
  fl_error_clear();
  *out = (fl_tetgen_mesh){0};
  tetgen_layout l = {0};
  if (!read_node(node_text, node_length, node_source, &l) || !read_ele(ele_text, ele_length, ele_source, &l))
    return false;
  fl_tetgen_mesh m = {.positions = malloc(l.points * sizeof *m.positions), .tets = malloc(l.tets * sizeof *m.tets)};
  if (!m.positions || !m.tets) {
    fl_tetgen_mesh_free(&m);
    return fl_error_set("%s: out of memory for %u points and %u tets", node_source ? node_source : "(text)", l.points,
                        l.tets);
  }
  l.mesh = &m;
  if (!read_node(node_text, node_length, node_source, &l) || !read_ele(ele_text, ele_length, ele_source, &l)) {
    fl_tetgen_mesh_free(&m);
    return false;
  }
  m.point_count = l.points;
  m.tet_count = l.tets;
  *out = m;
  return true;
}

/* PATH with its last `drop` characters replaced by `ext`, or false when it does not fit. */
static bool swap_extension(const char *path, size_t drop, const char *ext, char out[MAX_PATH_CHARS])
{
  size_t keep = strlen(path) - drop, ext_len = strlen(ext);
  if (keep + ext_len >= MAX_PATH_CHARS) return fl_error_set("%.200s...: path is too long", path);
  memcpy(out, path, keep);
  memcpy(out + keep, ext, ext_len + 1);
  return true;
}

bool fl_tetgen_load(const char *node_path, fl_tetgen_mesh *out)
{
  fl_error_clear();
  *out = (fl_tetgen_mesh){0};
  size_t len = strlen(node_path), node_length = 0, ele_length = 0;
  char ele_path[MAX_PATH_CHARS];
  if (len < 5 || strcmp(node_path + len - 5, ".node") != 0)
    return fl_error_set("%s: a TetGen mesh path must end in .node", node_path);
  if (!swap_extension(node_path, 5, ".ele", ele_path)) return false;
  char *node = fl_file_read(node_path, &node_length, FL_TEXT_MAX_LENGTH);
  char *ele = node ? fl_file_read(ele_path, &ele_length, FL_TEXT_MAX_LENGTH) : NULL;
  bool ok = ele && fl_tetgen_parse(node, node_length, node_path, ele, ele_length, ele_path, out);
  free(node);
  free(ele);
  return ok;
}

void fl_tetgen_mesh_free(fl_tetgen_mesh *m)
{
  free(m->positions);
  free(m->tets);
  *m = (fl_tetgen_mesh){0};
}

/* ---- writing ---- */

/* The longest line the writer makes: an index and ten %.9g numbers or indices. */
#define MAX_LINE_CHARS 192

/* A text buffer sized up front for `lines` lines. */
typedef struct {
  char *data;
  size_t used, capacity;
} text_out;

static bool text_out_init(text_out *t, uint32_t lines)
{
  t->used = 0;
  t->capacity = ((size_t)lines + 4) * MAX_LINE_CHARS;
  t->data = malloc(t->capacity);
  return t->data != NULL;
}

static void put(text_out *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text_out *t, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->data + t->used, t->capacity - t->used, fmt, ap);
  va_end(ap);
  if (n > 0 && (size_t)n < t->capacity - t->used) t->used += (size_t)n;
}

/* Everything the reader would reject, caught before anything is written. */
static bool check_writable(const char *base, const float (*positions)[3], uint32_t point_count,
                           const uint32_t (*tets)[4], uint32_t tet_count)
{
  if (!base || !positions || !tets) return fl_error_set("cannot write a TetGen mesh: no %s", !base ? "path" : "data");
  if (point_count == 0 || point_count > FL_TETGEN_MAX_POINTS || tet_count == 0 || tet_count > FL_TETGEN_MAX_TETS)
    return fl_error_set("cannot write %s: %u points and %u tets (1 to %u and 1 to %u)", base, point_count, tet_count,
                        FL_TETGEN_MAX_POINTS, FL_TETGEN_MAX_TETS);
  for (uint32_t i = 0; i < point_count; i++)
    for (int k = 0; k < 3; k++)
      if (!isfinite(positions[i][k])) return fl_error_set("cannot write %s: point %u is not finite", base, i);
  for (uint32_t i = 0; i < tet_count; i++)
    for (int a = 0; a < 4; a++) {
      if (tets[i][a] >= point_count)
        return fl_error_set("cannot write %s: tet %u corner %u is not a point (%u points)", base, i, tets[i][a],
                            point_count);
      for (int b = a + 1; b < 4; b++)
        if (tets[i][a] == tets[i][b]) return fl_error_set("cannot write %s: tet %u repeats corner %u", base, i, tets[i][a]);
    }
  return true;
}

static bool write_text(const char *path, text_out *t)
{
  bool ok = fl_file_write(path, t->data, t->used);
  free(t->data);
  return ok;
}

static bool write_node(const char *path, const float (*positions)[3], uint32_t count)
{
  text_out t;
  if (!text_out_init(&t, count)) return fl_error_set("cannot write %s: out of memory", path);
  put(&t, "# TetGen nodes written by flurry: <points> <dimension> <attributes> <boundary markers>\n");
  put(&t, "%u 3 0 0\n", count);
  for (uint32_t i = 0; i < count; i++)
    put(&t, "%u %.9g %.9g %.9g\n", i, (double)positions[i][0], (double)positions[i][1], (double)positions[i][2]);
  return write_text(path, &t);
}

static bool write_ele(const char *path, const uint32_t (*tets)[4], uint32_t count)
{
  text_out t;
  if (!text_out_init(&t, count)) return fl_error_set("cannot write %s: out of memory", path);
  put(&t, "# TetGen tets written by flurry: <tets> <nodes per tet> <region attribute>\n");
  put(&t, "%u 4 0\n", count);
  for (uint32_t i = 0; i < count; i++) put(&t, "%u %u %u %u %u\n", i, tets[i][0], tets[i][1], tets[i][2], tets[i][3]);
  return write_text(path, &t);
}

bool fl_tetgen_write(const char *base, const float (*positions)[3], uint32_t point_count, const uint32_t (*tets)[4],
                     uint32_t tet_count)
{
  char node_path[MAX_PATH_CHARS], ele_path[MAX_PATH_CHARS];
  fl_error_clear();
  return check_writable(base, positions, point_count, tets, tet_count) &&
         swap_extension(base, 0, ".node", node_path) && swap_extension(base, 0, ".ele", ele_path) &&
         write_node(node_path, positions, point_count) && write_ele(ele_path, tets, tet_count);
}
