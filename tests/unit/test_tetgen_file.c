/* tests/unit/test_tetgen_file.c: the TetGen reader and writer: 0- and 1-based
 * files, 10-node tets, attributes, markers and comments are read; short files,
 * bad headers, bad numbers and bad corners fail with one line naming the file
 * and line; a written mesh reads back exactly; the shipped beam sample loads. */
#define _GNU_SOURCE
#include "test.h"

#include "core/file.h"
#include "core/log.h"
#include "core/tetgen_file.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static fl_tetgen_mesh g_mesh;

static bool parse(const char *node, const char *ele)
{
  fl_tetgen_mesh_free(&g_mesh);
  return fl_tetgen_parse(node, strlen(node), "t.node", ele, strlen(ele), "t.ele", &g_mesh);
}

/* Fails the test unless `call` returned false, left the mesh zeroed, and the
 * one-line message holds every string. */
#define ENSURE_ERR(call, ...)                                                               \
  do {                                                                                      \
    ENSURE_MSG(!(call), "succeeded, expected an error");                                    \
    ENSURE(g_mesh.positions == NULL && g_mesh.tets == NULL && g_mesh.point_count == 0);    \
    const char *const subs_[] = {__VA_ARGS__};                                              \
    const char *msg_ = fl_error_message();                                                  \
    ENSURE_MSG(!strchr(msg_, '\n'), "message has a newline: %s", msg_);                    \
    for (size_t k_ = 0; k_ < sizeof subs_ / sizeof subs_[0]; k_++)                          \
      ENSURE_MSG(strstr(msg_, subs_[k_]), "message \"%s\" lacks \"%s\"", msg_, subs_[k_]); \
  } while (0)

static bool tet_is(uint32_t t, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  const uint32_t *v = g_mesh.tets[t];
  return t < g_mesh.tet_count && v[0] == a && v[1] == b && v[2] == c && v[3] == d;
}

/* Six times the signed volume of tet t. */
static double tet_volume6(const float (*p)[3], const uint32_t tet[4])
{
  double e[3][3];
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) e[k][i] = (double)p[tet[k + 1]][i] - p[tet[0]][i];
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

#define NODE1 "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n"
#define ELE1 "1 4 0\n1 1 2 3 4\n"

static void test_zero_based(void)
{
  ENSURE_MSG(parse("5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n", "2 4 0\n0 0 1 2 3\n1 1 2 3 4\n"), "%s",
             fl_error_message());
  ENSURE(g_mesh.point_count == 5 && g_mesh.tet_count == 2);
  ENSURE(tet_is(0, 0, 1, 2, 3) && tet_is(1, 1, 2, 3, 4));
  ENSURE(g_mesh.positions[4][0] == 1 && g_mesh.positions[4][1] == 1 && g_mesh.positions[4][2] == 1);
  ENSURE(g_mesh.positions[1][0] == 1 && g_mesh.positions[1][1] == 0);
}

static void test_one_based(void)
{
  ENSURE_MSG(parse(NODE1, ELE1), "%s", fl_error_message());
  ENSURE(g_mesh.point_count == 4 && g_mesh.tet_count == 1 && tet_is(0, 0, 1, 2, 3));
  ENSURE(g_mesh.positions[3][2] == 1);
  ENSURE_NEAR(tet_volume6((const float(*)[3])g_mesh.positions, g_mesh.tets[0]), 1, 1e-12);
  /* Orientation is kept as written. */
  ENSURE(parse(NODE1, "1 4 0\n7 1 3 2 4\n") && tet_is(0, 0, 2, 1, 3));
  ENSURE_NEAR(tet_volume6((const float(*)[3])g_mesh.positions, g_mesh.tets[0]), -1, 1e-12);
  /* The header may stop early: dimension 3, no attributes, no markers, 4 nodes, no region. */
  ENSURE(parse("4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", "1\n1 1 2 3 4\n") && tet_is(0, 0, 1, 2, 3));
}

static void test_ten_node_tets(void)
{
  ENSURE_MSG(parse("10 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 .5 0 0\n6 .5 .5 0\n7 0 .5 0\n"
                   "8 0 0 .5\n9 .5 0 .5\n10 0 .5 .5\n",
                   "1 10 0\n1 1 2 3 4 5 6 7 8 9 10\n"),
             "%s", fl_error_message());
  ENSURE(g_mesh.point_count == 10 && g_mesh.tet_count == 1 && tet_is(0, 0, 1, 2, 3));
  ENSURE_ERR(parse("4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", "1 10 0\n1 1 2 3 4 5 6 7 8 9 10\n"),
             "t.ele:2: corner 5 is not a point (4 points, numbered from 1)");
  ENSURE_ERR(parse(NODE1, "1 10 0\n1 1 2 3 4\n"), "t.ele:2: line has 5 numbers (expected 11 for one of the tets)");
  ENSURE_ERR(parse(NODE1, "1 5 0\n1 1 2 3 4 1\n"), "t.ele:1: nodes per tet is 5 (expected 4 or 10)");
}

static void test_attributes_markers_comments(void)
{
  ENSURE_MSG(parse("# points\r\n4 3 2 1 # header\r\n\r\n"
                   "1 0 0 0 0.5 -7 1\r\n2 1 0 0 0 0 0\r\n# a comment between points\r\n"
                   "3 0 1 0 1e3 2 -1\r\n  4\t0 0 1 0 0 0 # last\r\n# tetgen -pq1.4 ...\r\n",
                   "# tets\n1 4 1\n1 1 2 3 4 -3.5\n\n# the end"),
             "%s", fl_error_message());
  ENSURE(g_mesh.point_count == 4 && g_mesh.tet_count == 1 && tet_is(0, 0, 1, 2, 3));
  ENSURE(g_mesh.positions[3][2] == 1 && g_mesh.positions[2][1] == 1);
  ENSURE_ERR(parse("4 3 1 1\n1 0 0 0 0.5\n", ELE1), "t.node:2: line has 5 numbers (expected 6 for one of the points)");
  ENSURE_ERR(parse("4 3 0 1\n1 0 0 0 1.5\n", ELE1), "t.node:2: boundary marker \"1.5\" is not an integer");
  ENSURE_ERR(parse("4 3 1 0\n1 0 0 0 x\n", ELE1), "t.node:2: attribute \"x\" is not a number");
  ENSURE_ERR(parse(NODE1, "1 4 1\n1 1 2 3 4 r\n"), "t.ele:2: region attribute \"r\" is not a number");
}

static void test_short_files(void)
{
  ENSURE_ERR(parse("5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", ELE1),
             "t.node:5: the file ends after 4 of the 5 points the header declares");
  ENSURE_ERR(parse(NODE1, "2 4 0\n1 1 2 3 4\n# no second tet\n"),
             "t.ele:3: the file ends after 1 of the 2 tets the header declares");
  ENSURE_ERR(parse("", ELE1), "t.node: empty file (expected a header");
  ENSURE_ERR(parse("# just a comment\n\n", ELE1), "t.node: empty file");
  ENSURE_ERR(parse(NODE1, ""), "t.ele: empty file (expected a header");
  ENSURE_ERR(parse(NODE1 "5 1 1 1\n", ELE1), "t.node:6: more lines than the 4 points the header declares");
  ENSURE_ERR(parse(NODE1, ELE1 "2 1 2 3 4\n"), "t.ele:3: more lines than the 1 tets the header declares");
  ENSURE_ERR(parse("4 3 0 0\n1 0 0\n", ELE1), "t.node:2: line has 3 numbers (expected 4 for one of the points)");
  /* Not NUL-terminated: the length ends the text. */
  const char node[] = NODE1 "5 1 1 1\n";
  fl_tetgen_mesh_free(&g_mesh);
  ENSURE(fl_tetgen_parse(node, strlen(NODE1), "t.node", ELE1, strlen(ELE1), "t.ele", &g_mesh));
  fl_tetgen_mesh_free(&g_mesh);
  ENSURE_ERR(fl_tetgen_parse(node, strlen(NODE1) - 3, "t.node", ELE1, strlen(ELE1), "t.ele", &g_mesh),
             "t.node:5: line has 3 numbers");
}

static void test_header_errors(void)
{
  ENSURE_ERR(parse("4 2 0 0\n", ELE1), "t.node:1: dimension 2 is not 3");
  ENSURE_ERR(parse("0 3 0 0\n", ELE1), "t.node:1: point count 0 is out of range (1 to 4194304)");
  ENSURE_ERR(parse("4194305 3 0 0\n1 0 0 0\n", ELE1), "t.node:1: point count 4194305 is out of range");
  ENSURE_ERR(parse("99999999999999999999 3 0 0\n", ELE1), "t.node:1: point count \"99999999999999999999\" is not an integer");
  ENSURE_ERR(parse("-4 3 0 0\n", ELE1), "point count -4 is out of range");
  ENSURE_ERR(parse("4 3 65 0\n", ELE1), "t.node:1: attribute count 65 is out of range (0 to 64)");
  ENSURE_ERR(parse("4 3 0 2\n", ELE1), "t.node:1: boundary marker flag 2 is out of range (0 to 1)");
  ENSURE_ERR(parse("4 3 0 0 0\n", ELE1), "t.node:1: header has 5 numbers (expected");
  ENSURE_ERR(parse("4.0 3 0 0\n", ELE1), "t.node:1: point count \"4.0\" is not an integer");
  ENSURE_ERR(parse(NODE1, "0 4 0\n"), "t.ele:1: tet count 0 is out of range (1 to 8388608)");
  ENSURE_ERR(parse(NODE1, "8388609 4 0\n"), "t.ele:1: tet count 8388609 is out of range");
  ENSURE_ERR(parse(NODE1, "1 4 2\n"), "t.ele:1: region attribute flag 2 is out of range (0 to 1)");
  ENSURE_ERR(parse(NODE1, "1 4 0 0\n"), "t.ele:1: header has 4 numbers");
}

static void test_point_errors(void)
{
  ENSURE_ERR(parse("4 3 0 0\n2 0 0 0\n", ELE1), "t.node:2: the first point is numbered 2 (expected 0 or 1)");
  ENSURE_ERR(parse("4 3 0 0\n1 0 0 0\n3 1 0 0\n", ELE1),
             "t.node:3: point numbered 3, expected 2 (points are numbered consecutively)");
  ENSURE_ERR(parse("4 3 0 0\n1 0 0 0\n2 1 0 0.5.\n", ELE1), "t.node:3: z coordinate \"0.5.\" is not a number");
  ENSURE_ERR(parse("4 3 0 0\n1 0 nan 0\n", ELE1), "t.node:2: y coordinate \"nan\" is not a finite float");
  ENSURE_ERR(parse("4 3 0 0\n1 -inf 0 0\n", ELE1), "t.node:2: x coordinate \"-inf\" is not a finite float");
  ENSURE_ERR(parse("4 3 0 0\n1 0 0 1e40\n", ELE1), "t.node:2: z coordinate \"1e40\" is not a finite float");
  ENSURE_ERR(parse("4 3 0 0\nx 0 0 0\n", ELE1), "t.node:2: point index \"x\" is not an integer");
}

static void test_bad_corners(void)
{
  ENSURE_ERR(parse(NODE1, "1 4 0\n1 1 2 3 99\n"), "t.ele:2: corner 99 is not a point (4 points, numbered from 1)");
  ENSURE_ERR(parse(NODE1, "1 4 0\n1 0 1 2 3\n"), "t.ele:2: corner 0 is not a point (4 points, numbered from 1)");
  ENSURE_ERR(parse(NODE1, "1 4 0\n1 -1 1 2 3\n"), "t.ele:2: corner -1 is not a point");
  ENSURE_ERR(parse("4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n", "1 4 0\n0 0 1 2 4\n"),
             "t.ele:2: corner 4 is not a point (4 points, numbered from 0)");
  ENSURE_ERR(parse(NODE1, "1 4 0\n1 1 2 3 2\n"), "t.ele:2: tet 1 repeats corner 2");
  ENSURE_ERR(parse(NODE1, "1 4 0\n1 1 2 3 4.\n"), "t.ele:2: corner \"4.\" is not an integer");
  ENSURE_ERR(parse(NODE1, "1 4 0\n1 1 2 3\n"), "t.ele:2: line has 4 numbers (expected 5 for one of the tets)");
  ENSURE_ERR(parse(NODE1, "1 4 0\nt 1 2 3 4\n"), "t.ele:2: tet index \"t\" is not an integer");
}

static void test_beam_sample(void)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/assets/meshes/beam.node", fl_test_source_dir());
  fl_tetgen_mesh_free(&g_mesh);
  ENSURE_MSG(fl_tetgen_load(path, &g_mesh), "%s", fl_error_message());
  ENSURE(g_mesh.point_count == 16 && g_mesh.tet_count == 18);
  double total = 0;
  for (uint32_t t = 0; t < g_mesh.tet_count; t++) {
    double v = tet_volume6((const float(*)[3])g_mesh.positions, g_mesh.tets[t]) / 6;
    ENSURE_MSG(v > 0, "tet %u has volume %g", t, v);
    total += v;
  }
  ENSURE_NEAR(total, 0.003, 1e-6);
  for (int k = 0; k < 3; k++) { /* centred at the origin, 0.1 x 0.1 x 0.3 */
    float lo = 1e9f, hi = -1e9f;
    for (uint32_t i = 0; i < g_mesh.point_count; i++) {
      lo = fminf(lo, g_mesh.positions[i][k]);
      hi = fmaxf(hi, g_mesh.positions[i][k]);
    }
    ENSURE_NEAR(lo + hi, 0, 1e-7);
    ENSURE_NEAR(hi - lo, k == 2 ? 0.3 : 0.1, 1e-7);
  }
  fl_tetgen_mesh_free(&g_mesh);
}

static void test_load_errors(void)
{
  ENSURE_ERR(fl_tetgen_load("mesh.ele", &g_mesh), "mesh.ele: a TetGen mesh path must end in .node");
  ENSURE_ERR(fl_tetgen_load("node", &g_mesh), "node: a TetGen mesh path must end in .node");
  ENSURE_ERR(fl_tetgen_load("/nonexistent/flurry/m.node", &g_mesh), "cannot read /nonexistent/flurry/m.node");
  char dir[] = "/tmp/flurry-test-tetgen.XXXXXX", path[256];
  ENSURE(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/only.node", dir);
  bool wrote = fl_file_write(path, NODE1, strlen(NODE1));
  bool ok = fl_tetgen_load(path, &g_mesh);
  unlink(path);
  rmdir(dir);
  ENSURE(wrote);
  ENSURE_ERR(ok, "cannot read", "only.ele");
}

static void test_write_read_round_trip(void)
{
  enum { N = 50, T = 40 };
  static float points[N][3];
  static uint32_t tets[T][4];
  uint32_t seed = 12345;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 3; k++) {
      seed = seed * 1664525u + 1013904223u;
      points[i][k] = ((float)(seed >> 8) / (float)(1u << 24) - 0.5f) * (k == 0 ? 1e-6f : k == 1 ? 3.0f : 1e7f);
    }
  points[0][0] = -0.0f, points[1][1] = 1.0f / 3.0f, points[2][2] = 3.4e38f;
  for (uint32_t t = 0; t < T; t++)
    for (uint32_t c = 0; c < 4; c++) tets[t][c] = (t * 7 + c * 11) % N;
  char dir[] = "/tmp/flurry-test-tetgen.XXXXXX", base[256], node[300], ele[300];
  ENSURE(mkdtemp(dir));
  snprintf(base, sizeof base, "%s/mesh", dir);
  snprintf(node, sizeof node, "%s.node", base);
  snprintf(ele, sizeof ele, "%s.ele", base);
  bool wrote = fl_tetgen_write(base, (const float(*)[3])points, N, (const uint32_t(*)[4])tets, T);
  fl_tetgen_mesh_free(&g_mesh);
  bool read = wrote && fl_tetgen_load(node, &g_mesh);
  unlink(node);
  unlink(ele);
  rmdir(dir);
  ENSURE_MSG(wrote && read, "%s", fl_error_message());
  ENSURE(g_mesh.point_count == N && g_mesh.tet_count == T);
  ENSURE(memcmp(g_mesh.positions, points, sizeof points) == 0); /* %.9g is exact for floats */
  ENSURE(memcmp(g_mesh.tets, tets, sizeof tets) == 0);
  fl_tetgen_mesh_free(&g_mesh);
  /* What the reader would reject is not written. */
  tets[3][2] = N;
  ENSURE_ERR(fl_tetgen_write(base, (const float(*)[3])points, N, (const uint32_t(*)[4])tets, T),
             "cannot write", "tet 3 corner 50 is not a point (50 points)");
  tets[3][2] = tets[3][1];
  ENSURE_ERR(fl_tetgen_write(base, (const float(*)[3])points, N, (const uint32_t(*)[4])tets, T), "tet 3 repeats corner");
  ENSURE_ERR(fl_tetgen_write(base, (const float(*)[3])points, 0, (const uint32_t(*)[4])tets, 0), "0 points and 0 tets");
  ENSURE(!fl_file_exists(node));
}

static const fl_test_case cases[] = {
  {"zero_based", test_zero_based},
  {"one_based", test_one_based},
  {"ten_node_tets", test_ten_node_tets},
  {"attributes_markers_comments", test_attributes_markers_comments},
  {"short_files", test_short_files},
  {"header_errors", test_header_errors},
  {"point_errors", test_point_errors},
  {"bad_corners", test_bad_corners},
  {"beam_sample", test_beam_sample},
  {"load_errors", test_load_errors},
  {"write_read_round_trip", test_write_read_round_trip},
};
FL_TEST_MAIN(cases)
