/* core/obj_file: reading Wavefront OBJ surfaces (positions and faces only).
 *
 * Accepted: "v x y z [w]" (w ignored), "f a b c ..." with the forms a, a/t,
 * a//n, a/t/n and negative (relative) indices; polygons of more than three
 * vertices are split as a fan from their first vertex. Ignored: vt, vn, vp, g,
 * o, s, usemtl, mtllib, l, comments (#) and blank lines. Lines may end in
 * \r\n. Everything else (an unknown statement, a bad number, an index out of
 * range or 0, a face of fewer than 3 vertices, a non-finite coordinate, more
 * than FL_OBJ_MAX_VERTICES vertices or FL_OBJ_MAX_TRIANGLES triangles) is an
 * error naming the source and the line: "mesh.obj:12: face index 40 is out of
 * range (30 vertices)". Sizes are checked before anything is allocated.
 * Degenerate faces (repeated indices) are dropped, not errors. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FL_OBJ_MAX_VERTICES (1u << 22)
#define FL_OBJ_MAX_TRIANGLES (1u << 23)

typedef struct {
  float (*positions)[3];
  uint32_t *triangles; /* 3 per triangle, 0-based, in file order */
  uint32_t vertex_count, triangle_count;
} fl_obj_mesh;

/* Parses OBJ text of `length` bytes (need not be NUL-terminated); `source`
 * names it in errors. On failure records one line (fl_error_set) and leaves *out zeroed. */
bool fl_obj_parse(const char *text, size_t length, const char *source, fl_obj_mesh *out);
/* Reads and parses the file at `path` (at most 256 MiB). */
bool fl_obj_load(const char *path, fl_obj_mesh *out);
/* Frees the arrays and zeroes *m (accepts a zeroed mesh). */
void fl_obj_mesh_free(fl_obj_mesh *m);
