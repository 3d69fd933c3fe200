/* core/obj_file: the Wavefront OBJ surface reader (positions and triangulated
 * faces). The text is read twice with the same code: a first pass checks every
 * line and counts vertices and triangles, then the arrays are allocated at
 * exactly those sizes and a second pass fills them. */
#include "core/obj_file.h"

#include "core/file.h"
#include "core/log.h"
#include "core/text_scan.h"

#include <stdlib.h>
#include <string.h>

/* One pass over the text; `mesh` is NULL while counting. */
typedef struct {
  fl_text_scan scan;
  fl_obj_mesh *mesh;
  uint32_t vertex_count, triangle_count, face_count;
} obj_pass;

static bool is_ignored_statement(fl_text_span keyword)
{
  static const char *const ignored[] = {"vt", "vn", "vp", "g", "o", "s", "usemtl", "mtllib", "l"};
  for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
    if (fl_text_span_is(keyword, ignored[i])) return true;
  return false;
}

/* "v x y z [w]" or "v x y z r g b"; only x y z are kept, every number must be finite. */
static bool parse_vertex(obj_pass *p, fl_text_span rest)
{
  static const char *const names[] = {"x coordinate", "y coordinate", "z coordinate", "w or colour", "colour", "colour"};
  size_t n = fl_text_count_tokens(rest);
  if (n != 3 && n != 4 && n != 6)
    return fl_text_error(&p->scan, "v has %zu numbers (expected x y z [w], or x y z r g b)", n);
  if (p->vertex_count >= FL_OBJ_MAX_VERTICES)
    return fl_text_error(&p->scan, "more than %u vertices", FL_OBJ_MAX_VERTICES);
  float values[6];
  fl_text_span token;
  for (size_t k = 0; k < n && fl_text_next_token(&rest, &token); k++)
    if (!fl_text_read_float(&p->scan, token, names[k], &values[k])) return false;
  if (p->mesh) memcpy(p->mesh->positions[p->vertex_count], values, sizeof p->mesh->positions[0]);
  p->vertex_count++;
  return true;
}

/* Splits "a/t/n" at its slashes into at most 4 parts; returns the number of parts. */
static size_t split_slashes(fl_text_span token, fl_text_span parts[4])
{
  size_t count = 0;
  for (;;) {
    const char *slash = memchr(token.at, '/', token.length);
    size_t len = slash ? (size_t)(slash - token.at) : token.length;
    if (count < 4) parts[count] = (fl_text_span){token.at, len};
    count++;
    if (!slash || count > 4) return count;
    token = (fl_text_span){slash + 1, token.length - len - 1};
  }
}

/* True for the forms a, a/t, a//n and a/t/n, with integers for t and n. */
static bool is_face_vertex_form(const fl_text_span parts[4], size_t count)
{
  int64_t ignored;
  if (count > 3 || (count == 2 && parts[1].length == 0) || (count == 3 && parts[2].length == 0)) return false;
  for (size_t k = 1; k < count; k++)
    if (parts[k].length && !fl_text_parse_int(parts[k], &ignored)) return false;
  return true;
}

/* Turns a 1-based or negative (relative) OBJ index into a 0-based vertex index. */
static bool resolve_index(obj_pass *p, int64_t index, uint32_t *out)
{
  if (index == 0) return fl_text_error(&p->scan, "face index 0 is invalid (OBJ indices start at 1)");
  int64_t count = p->vertex_count;
  if (index > count || -index > count)
    return fl_text_error(&p->scan, "face index %lld is out of range (%u vertices)", (long long)index, p->vertex_count);
  *out = (uint32_t)(index > 0 ? index - 1 : count + index);
  return true;
}

/* One face vertex "a", "a/t", "a//n" or "a/t/n": the position index a, 0-based. */
static bool parse_face_vertex(obj_pass *p, fl_text_span token, uint32_t *out)
{
  char q[FL_TEXT_QUOTE_SIZE];
  fl_text_span parts[4];
  size_t count = split_slashes(token, parts);
  if (!is_face_vertex_form(parts, count))
    return fl_text_error(&p->scan, "face vertex \"%s\" is not a, a/t, a//n or a/t/n", fl_text_quote(token, q));
  int64_t index;
  return fl_text_read_int(&p->scan, parts[0], "face index", &index) && resolve_index(p, index, out);
}

/* Appends a triangle unless two of its corners are the same vertex. */
static bool add_triangle(obj_pass *p, uint32_t a, uint32_t b, uint32_t c)
{
  if (a == b || b == c || a == c) return true;
  if (p->triangle_count >= FL_OBJ_MAX_TRIANGLES)
    return fl_text_error(&p->scan, "more than %u triangles", FL_OBJ_MAX_TRIANGLES);
  if (p->mesh) {
    uint32_t *t = p->mesh->triangles + 3 * (size_t)p->triangle_count;
    t[0] = a, t[1] = b, t[2] = c;
  }
  p->triangle_count++;
  return true;
}

/* "f v1 v2 v3 ...": a fan of triangles from the first vertex. */
static bool parse_face(obj_pass *p, fl_text_span rest)
{
  size_t n = fl_text_count_tokens(rest);
  if (n < 3) return fl_text_error(&p->scan, "face has %zu vertices (at least 3 needed)", n);
  uint32_t first = 0, previous = 0, current = 0;
  fl_text_span token;
  for (size_t k = 0; fl_text_next_token(&rest, &token); k++) {
    if (!parse_face_vertex(p, token, &current)) return false;
    if (k == 0) first = current;
    else if (k >= 2 && !add_triangle(p, first, previous, current)) return false;
    previous = current;
  }
  p->face_count++;
  return true;
}

static bool parse_line(obj_pass *p, fl_text_span line)
{
  fl_text_span keyword;
  fl_text_next_token(&line, &keyword);
  if (fl_text_span_is(keyword, "v")) return parse_vertex(p, line);
  if (fl_text_span_is(keyword, "f")) return parse_face(p, line);
  if (is_ignored_statement(keyword)) return true;
  char q[FL_TEXT_QUOTE_SIZE];
  return fl_text_error(&p->scan, "unknown statement \"%s\"", fl_text_quote(keyword, q));
}

static bool run_pass(obj_pass *p, const char *text, size_t length, const char *source)
{
  if (!fl_text_scan_init(&p->scan, text, length, source)) return false;
  fl_text_span line;
  while (fl_text_next_content_line(&p->scan, &line))
    if (!parse_line(p, line)) return false;
  return true;
}

/* A surface needs a triangle: an OBJ with none is an error. */
static bool check_has_triangles(const obj_pass *p)
{
  if (p->triangle_count > 0) return true;
  if (p->face_count > 0) return fl_error_set("%s: every face is degenerate (no triangles)", p->scan.source);
  return fl_error_set("%s: no faces (an OBJ surface needs at least one \"f\" line)", p->scan.source);
}

bool fl_obj_parse(const char *text, size_t length, const char *source, fl_obj_mesh *out)
{
  fl_error_clear();
  *out = (fl_obj_mesh){0};
  obj_pass count = {0};
  if (!run_pass(&count, text, length, source) || !check_has_triangles(&count)) return false;
  fl_obj_mesh m = {
    .positions = malloc(count.vertex_count * sizeof *m.positions),
    .triangles = malloc(count.triangle_count * 3 * sizeof *m.triangles),
  };
  obj_pass fill = {.mesh = &m};
  if (!m.positions || !m.triangles) {
    fl_obj_mesh_free(&m);
    return fl_error_set("%s: out of memory for %u vertices and %u triangles", count.scan.source,
                        count.vertex_count, count.triangle_count);
  }
  if (!run_pass(&fill, text, length, source)) {
    fl_obj_mesh_free(&m);
    return false;
  }
  m.vertex_count = fill.vertex_count;
  m.triangle_count = fill.triangle_count;
  *out = m;
  return true;
}

bool fl_obj_load(const char *path, fl_obj_mesh *out)
{
  fl_error_clear();
  *out = (fl_obj_mesh){0};
  size_t length = 0;
  char *text = fl_file_read(path, &length, FL_TEXT_MAX_LENGTH);
  if (!text) return false;
  bool ok = fl_obj_parse(text, length, path, out);
  free(text);
  return ok;
}

void fl_obj_mesh_free(fl_obj_mesh *m)
{
  free(m->positions);
  free(m->triangles);
  *m = (fl_obj_mesh){0};
}
