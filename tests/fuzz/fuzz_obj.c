/* tests/fuzz/fuzz_obj.c: libFuzzer target for the OBJ reader. The input bytes are
 * the OBJ text (not NUL-terminated, so any read past the end is caught). Every
 * input must either give a mesh whose indices name its vertices and whose
 * coordinates are finite, or fail with one non-empty line. */
#include "core/log.h"
#include "core/obj_file.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
  if (!ok) __builtin_trap();
}

static void check_mesh(const fl_obj_mesh *m)
{
  check(m->vertex_count >= 1 && m->vertex_count <= FL_OBJ_MAX_VERTICES);
  check(m->triangle_count >= 1 && m->triangle_count <= FL_OBJ_MAX_TRIANGLES);
  for (uint32_t i = 0; i < m->vertex_count; i++)
    for (int k = 0; k < 3; k++) check(isfinite(m->positions[i][k]));
  for (uint32_t t = 0; t < m->triangle_count; t++) {
    const uint32_t *v = m->triangles + 3 * (size_t)t;
    check(v[0] < m->vertex_count && v[1] < m->vertex_count && v[2] < m->vertex_count);
    check(v[0] != v[1] && v[1] != v[2] && v[0] != v[2]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fl_obj_mesh mesh;
  if (fl_obj_parse((const char *)data, size, "fuzz.obj", &mesh)) {
    check_mesh(&mesh);
  } else {
    const char *msg = fl_error_message();
    check(msg[0] && !strchr(msg, '\n'));
    check(!mesh.positions && !mesh.triangles && !mesh.vertex_count && !mesh.triangle_count);
  }
  fl_obj_mesh_free(&mesh);
  return 0;
}
