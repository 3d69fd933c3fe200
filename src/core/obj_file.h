/* core/obj_file: reading Wavefront OBJ surfaces (positions and faces only).
 *
 * Accepted: "v x y z [w]" (w ignored; also "v x y z r g b", colours ignored),
 * "f a b c ..." with the forms a, a/t, a//n, a/t/n and negative (relative)
 * indices; an index names a vertex defined above the face (-1 is the last one
 * read so far). Polygons of more than three vertices are split as a fan from
 * their first vertex. Ignored: vt, vn, vp, g, o, s, usemtl, mtllib, l,
 * comments (# to the end of a line) and blank lines. Lines may end in \r\n.
 * Numbers are decimal ([sign] digits [. digits] [e [sign] digits]).
 * Everything else (an unknown statement, a bad number, an index out of range
 * or 0, a face of fewer than 3 vertices, a non-finite coordinate or one beyond
 * the float range, more than FL_OBJ_MAX_VERTICES vertices or
 * FL_OBJ_MAX_TRIANGLES triangles, no triangle at all) is an error naming the
 * source and the line: "mesh.obj:12: face index 40 is out of range (30
 * vertices)". The text is checked and counted in a first pass, so nothing is
 * allocated beyond what it holds. Degenerate triangles (a repeated index) are
 * dropped, not errors. Parse and load clear the recorded error first. */
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
