/* tests/fuzz/fuzz_tetgen.c: libFuzzer target for the TetGen reader. The input up
 * to the first NUL byte is the .node text, the rest the .ele text; each is
 * copied into a buffer of exactly its length, so any read past the end is
 * caught. Every input must either give a mesh whose tets name four different
 * points and whose coordinates are finite, or fail with one non-empty line. */
#include "core/log.h"
#include "core/tetgen_file.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
  if (!ok) __builtin_trap();
}

static void check_mesh(const fl_tetgen_mesh *m)
{
  check(m->point_count >= 1 && m->point_count <= FL_TETGEN_MAX_POINTS);
  check(m->tet_count >= 1 && m->tet_count <= FL_TETGEN_MAX_TETS);
  for (uint32_t i = 0; i < m->point_count; i++)
    for (int k = 0; k < 3; k++) check(isfinite(m->positions[i][k]));
  for (uint32_t t = 0; t < m->tet_count; t++)
    for (int a = 0; a < 4; a++) {
      check(m->tets[t][a] < m->point_count);
      for (int b = a + 1; b < 4; b++) check(m->tets[t][a] != m->tets[t][b]);
    }
}

/* A malloc'd copy of `size` bytes (at least one byte allocated, none readable past size). */
static char *copy(const uint8_t *data, size_t size)
{
  char *out = malloc(size ? size : 1);
  if (out && size) memcpy(out, data, size);
  return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const uint8_t *nul = memchr(data, 0, size);
  size_t node_size = nul ? (size_t)(nul - data) : size;
  size_t ele_size = nul ? size - node_size - 1 : 0;
  char *node = copy(data, node_size), *ele = copy(data + size - ele_size, ele_size);
  fl_tetgen_mesh mesh;
  if (node && ele) {
    if (fl_tetgen_parse(node, node_size, "fuzz.node", ele, ele_size, "fuzz.ele", &mesh)) {
      check_mesh(&mesh);
    } else {
      const char *msg = fl_error_message();
      check(msg[0] && !strchr(msg, '\n'));
      check(!mesh.positions && !mesh.tets && !mesh.point_count && !mesh.tet_count);
    }
    fl_tetgen_mesh_free(&mesh);
  }
  free(node);
  free(ele);
  return 0;
}
