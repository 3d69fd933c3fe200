/* tests/unit/test_obj_file.c: the OBJ reader: a quad cube triangulates into 12
 * triangles, every face vertex form and negative indices resolve, CRLF and
 * comments are accepted, and every class of bad input fails with one line
 * naming the source and line. */
#define _GNU_SOURCE
#include "test.h"

#include "core/file.h"
#include "core/log.h"
#include "core/obj_file.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static fl_obj_mesh g_mesh;

static bool parse(const char *text)
{
  fl_obj_mesh_free(&g_mesh);
  return fl_obj_parse(text, strlen(text), "t.obj", &g_mesh);
}

/* Fails the test unless `call` returned false, left the mesh zeroed, and the
 * one-line message holds every string. */
#define ENSURE_ERR(call, ...)                                                               \
  do {                                                                                      \
    ENSURE_MSG(!(call), "succeeded, expected an error");                                    \
    ENSURE(g_mesh.positions == NULL && g_mesh.triangles == NULL && g_mesh.vertex_count == 0); \
    const char *const subs_[] = {__VA_ARGS__};                                              \
    const char *msg_ = fl_error_message();                                                  \
    ENSURE_MSG(!strchr(msg_, '\n'), "message has a newline: %s", msg_);                    \
    for (size_t k_ = 0; k_ < sizeof subs_ / sizeof subs_[0]; k_++)                          \
      ENSURE_MSG(strstr(msg_, subs_[k_]), "message \"%s\" lacks \"%s\"", msg_, subs_[k_]); \
  } while (0)

/* Triangle t is (a, b, c). */
static bool tri_is(uint32_t t, uint32_t a, uint32_t b, uint32_t c)
{
  const uint32_t *v = g_mesh.triangles + 3 * t;
  return t < g_mesh.triangle_count && v[0] == a && v[1] == b && v[2] == c;
}

#define TRI3 "v 0 0 0\nv 1 0 0\nv 0 1 0\n"

static const char cube_obj[] =
  "# a unit cube of quads\n"
  "mtllib cube.mtl\n"
  "o cube\n"
  "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
  "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
  "vn 0 0 -1\nvt 0 0\n"
  "g sides\ns off\nusemtl grey\n"
  "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

static void test_cube_quads(void)
{
  ENSURE_MSG(parse(cube_obj), "%s", fl_error_message());
  ENSURE(g_mesh.vertex_count == 8 && g_mesh.triangle_count == 12);
  ENSURE(tri_is(0, 0, 3, 2) && tri_is(1, 0, 2, 1)); /* fan from the first vertex */
  ENSURE(tri_is(2, 4, 5, 6) && tri_is(3, 4, 6, 7));
  ENSURE(tri_is(10, 3, 0, 4) && tri_is(11, 3, 4, 7));
  ENSURE(g_mesh.positions[6][0] == 1 && g_mesh.positions[6][1] == 1 && g_mesh.positions[6][2] == 1);
  for (uint32_t i = 0; i < 3 * g_mesh.triangle_count; i++) ENSURE(g_mesh.triangles[i] < 8);
  /* Every edge of the closed cube is shared by exactly two triangles, in opposite directions. */
  int uses[8][8] = {{0}};
  for (uint32_t t = 0; t < 12; t++)
    for (int e = 0; e < 3; e++) uses[g_mesh.triangles[3 * t + e]][g_mesh.triangles[3 * t + (e + 1) % 3]]++;
  for (int a = 0; a < 8; a++)
    for (int b = 0; b < 8; b++) ENSURE(uses[a][b] <= 1 && uses[a][b] == uses[b][a]);
  fl_obj_mesh_free(&g_mesh);
  ENSURE(g_mesh.positions == NULL && g_mesh.triangle_count == 0);
  fl_obj_mesh_free(&g_mesh); /* a zeroed mesh is fine */
}

static void test_face_forms(void)
{
  ENSURE(parse(TRI3 "vt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n"
               "f 1 2 3\nf 1/1 2/2 3/3\nf 1//1 2//1 3//1\nf 1/1/1 2/2/1 3/3/1\nf 1/1/1 2//1 3/3\n"));
  ENSURE(g_mesh.triangle_count == 5);
  for (uint32_t t = 0; t < 5; t++) ENSURE(tri_is(t, 0, 1, 2));
  ENSURE(parse("v 1 2 3 1\nv 4 5 6 0.5\nv 7 8 9 1 0.5 0.25\nf 1 2 3\n")); /* w, colours */
  ENSURE(g_mesh.vertex_count == 3 && g_mesh.positions[2][0] == 7 && g_mesh.positions[2][2] == 9);
  ENSURE(parse("v -1.5e-3 +2. .25E+2\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"));
  ENSURE(g_mesh.positions[0][0] == -1.5e-3f && g_mesh.positions[0][1] == 2 && g_mesh.positions[0][2] == 25);
}

static void test_negative_indices(void)
{
  /* Relative to the vertices read so far: -1 is the last one. */
  ENSURE(parse(TRI3 "f -3 -2 -1\nv 1 1 0\nf -1 -2 -3/1/1 -4//2\n"));
  ENSURE(g_mesh.vertex_count == 4 && g_mesh.triangle_count == 3);
  ENSURE(tri_is(0, 0, 1, 2) && tri_is(1, 3, 2, 1) && tri_is(2, 3, 1, 0));
}

static void test_crlf_comments_blank(void)
{
  ENSURE(parse("# header\r\n\r\nv 0 0 0\r\nv 1 0 0 # trailing comment\r\n  \t\r\nv 0 1 0\r\n"
               "f 1 2 3\r\n# the end, no newline"));
  ENSURE(g_mesh.vertex_count == 3 && g_mesh.triangle_count == 1 && tri_is(0, 0, 1, 2));
  ENSURE(parse(TRI3 "f 1 2 3")); /* the last line without a newline */
  ENSURE(g_mesh.triangle_count == 1);
}

static void test_degenerate_faces_dropped(void)
{
  ENSURE(parse(TRI3 "v 1 1 0\nf 1 2 2\nf 1 2 3 1\nf 1 2 -1 4\n"));
  /* f 1 2 2 -> nothing; 1 2 3 1 -> (1 2 3); 1 2 4(-1) 4 -> (1 2 4) */
  ENSURE(g_mesh.triangle_count == 2 && tri_is(0, 0, 1, 2) && tri_is(1, 0, 1, 3));
  ENSURE_ERR(parse(TRI3 "f 1 1 1\n"), "t.obj: every face is degenerate");
}

static void test_not_nul_terminated(void)
{
  /* The parser must stop at the length: the bytes after it are not the text. */
  const char text[] = TRI3 "f 1 2 3\nthis is not OBJ";
  size_t length = strlen(TRI3 "f 1 2 3\n");
  fl_obj_mesh_free(&g_mesh);
  ENSURE(fl_obj_parse(text, length, "t.obj", &g_mesh));
  ENSURE(g_mesh.triangle_count == 1);
  fl_obj_mesh_free(&g_mesh);
  ENSURE(fl_obj_parse(text, length - 1, "t.obj", &g_mesh)); /* "f 1 2 3" without the newline */
  fl_obj_mesh_free(&g_mesh);
  ENSURE_ERR(fl_obj_parse(text, length - 2, "t.obj", &g_mesh), "t.obj:4: face has 2 vertices");
}

static void test_index_errors(void)
{
  ENSURE_ERR(parse(TRI3 "f 1 2 40\n"), "t.obj:4: face index 40 is out of range (3 vertices)");
  ENSURE_ERR(parse(TRI3 "f 1 2 -4\n"), "t.obj:4: face index -4 is out of range (3 vertices)");
  ENSURE_ERR(parse("v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n"), "t.obj:2: face index 2 is out of range (1 vertices)");
  ENSURE_ERR(parse(TRI3 "f 0 1 2\n"), "t.obj:4: face index 0 is invalid (OBJ indices start at 1)");
  ENSURE_ERR(parse(TRI3 "f 1 2 x\n"), "t.obj:4: face index \"x\" is not an integer");
  ENSURE_ERR(parse(TRI3 "f 1 2 3.0\n"), "t.obj:4: face index \"3.0\" is not an integer");
  ENSURE_ERR(parse(TRI3 "f 1 2 99999999999999999999\n"), "t.obj:4: face index", "is not an integer");
  ENSURE_ERR(parse(TRI3 "f 1 2 3/\n"), "t.obj:4: face vertex \"3/\" is not a, a/t, a//n or a/t/n");
  ENSURE_ERR(parse(TRI3 "f 1 2 3//\n"), "face vertex \"3//\" is not");
  ENSURE_ERR(parse(TRI3 "f 1 2 3/1/1/1\n"), "face vertex \"3/1/1/1\" is not");
  ENSURE_ERR(parse(TRI3 "f 1 2 3/x\n"), "face vertex \"3/x\" is not");
  ENSURE_ERR(parse(TRI3 "f /1 2 3\n"), "t.obj:4: face index \"\" is not an integer");
}

static void test_face_size_errors(void)
{
  ENSURE_ERR(parse(TRI3 "f 1 2\n"), "t.obj:4: face has 2 vertices (at least 3 needed)");
  ENSURE_ERR(parse(TRI3 "f\n"), "t.obj:4: face has 0 vertices");
  ENSURE_ERR(parse(TRI3 "f 1 # 2 3\n"), "t.obj:4: face has 1 vertices");
}

static void test_number_errors(void)
{
  ENSURE_ERR(parse("v 0 0 0\nv 1 0 1.0x\n"), "t.obj:2: z coordinate \"1.0x\" is not a number");
  ENSURE_ERR(parse("v 0 0x10 0\n"), "t.obj:1: y coordinate \"0x10\" is not a number");
  ENSURE_ERR(parse("v 1e 0 0\n"), "t.obj:1: x coordinate \"1e\" is not a number");
  ENSURE_ERR(parse("v . 0 0\n"), "t.obj:1: x coordinate \".\" is not a number");
  ENSURE_ERR(parse("v 1,5 0 0\n"), "t.obj:1: x coordinate \"1,5\" is not a number");
  ENSURE_ERR(parse("v 0 0\n"), "t.obj:1: v has 2 numbers (expected x y z [w], or x y z r g b)");
  ENSURE_ERR(parse("v 0 0 0 1 2\n"), "t.obj:1: v has 5 numbers");
  ENSURE_ERR(parse("v 0 0 0 x\n"), "t.obj:1: w or colour \"x\" is not a number");
  /* A token longer than any number is cut short in the message. */
  ENSURE_ERR(parse("v 0 0 1111111111111111111111111111111111111111111111111111111111111111111111\n"),
             "z coordinate \"1111111111111111111111111111111111111111...\" is not a number");
}

static void test_nonfinite(void)
{
  ENSURE_ERR(parse("v 0 inf 0\n"), "t.obj:1: y coordinate \"inf\" is not a finite float");
  ENSURE_ERR(parse("v 0 0 -NaN\n"), "t.obj:1: z coordinate \"-NaN\" is not a finite float");
  ENSURE_ERR(parse("v Infinity 0 0\n"), "x coordinate \"Infinity\" is not a finite float");
  ENSURE_ERR(parse("v 1e39 0 0\n"), "x coordinate \"1e39\" is not a finite float");
  ENSURE_ERR(parse("v 0 0 -1e400\n"), "z coordinate \"-1e400\" is not a finite float");
  ENSURE(parse("v 1e-50 3.4e38 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")); /* underflow to 0 and FLT_MAX are fine */
  ENSURE(g_mesh.positions[0][0] == 0 && isfinite(g_mesh.positions[0][1]));
}

static void test_statement_errors(void)
{
  ENSURE_ERR(parse(TRI3 "f 1 2 3\nvx 1 2 3\n"), "t.obj:5: unknown statement \"vx\"");
  ENSURE_ERR(parse("curv 0 1 2\n"), "t.obj:1: unknown statement \"curv\"");
  ENSURE_ERR(parse("\x01\x02\n"), "t.obj:1: unknown statement \"??\"");
  ENSURE_ERR(parse("V 1 2 3\n"), "unknown statement \"V\"");
  ENSURE_ERR(parse(""), "t.obj: no faces");
  ENSURE_ERR(parse("# only comments\n\n"), "t.obj: no faces");
  ENSURE_ERR(parse(TRI3), "t.obj: no faces");
}

static void test_embedded_nul(void)
{
  const char text[] = "v 0 0 0\nv 1\0 0 0\n";
  fl_obj_mesh_free(&g_mesh);
  ENSURE_ERR(fl_obj_parse(text, sizeof text - 1, "t.obj", &g_mesh), "t.obj:2: x coordinate \"1?\" is not a number");
}

/* Writes `text` to a new temporary DIR/NAME, loads it, and removes both. */
static bool load_text(const char *name, const char *text)
{
  char dir[] = "/tmp/flurry-test-obj.XXXXXX", path[256];
  if (!mkdtemp(dir)) return false;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  fl_obj_mesh_free(&g_mesh);
  bool ok = fl_file_write(path, text, strlen(text)) && fl_obj_load(path, &g_mesh);
  unlink(path);
  rmdir(dir);
  return ok;
}

static void test_load(void)
{
  ENSURE_MSG(load_text("cube.obj", cube_obj), "%s", fl_error_message());
  ENSURE(g_mesh.vertex_count == 8 && g_mesh.triangle_count == 12);
  ENSURE_ERR(load_text("bad.obj", "v 0 0 0\nf 1 2 3\n"), "bad.obj:2: face index 2 is out of range (1 vertices)");
  ENSURE_ERR(fl_obj_load("/nonexistent/flurry/cube.obj", &g_mesh), "cannot read /nonexistent/flurry/cube.obj");
}

static const fl_test_case cases[] = {
  {"cube_quads", test_cube_quads},
  {"face_forms", test_face_forms},
  {"negative_indices", test_negative_indices},
  {"crlf_comments_blank", test_crlf_comments_blank},
  {"degenerate_faces_dropped", test_degenerate_faces_dropped},
  {"not_nul_terminated", test_not_nul_terminated},
  {"index_errors", test_index_errors},
  {"face_size_errors", test_face_size_errors},
  {"number_errors", test_number_errors},
  {"nonfinite", test_nonfinite},
  {"statement_errors", test_statement_errors},
  {"embedded_nul", test_embedded_nul},
  {"load", test_load},
};
FL_TEST_MAIN(cases)
