/* core/tetgen_file: reading TetGen tetrahedral meshes (.node + .ele).
 *
 * .node: a header "<points> <dimension = 3> <attributes> <boundary markers 0|1>",
 * then one line per point "<index> x y z [attributes...] [marker]".
 * .ele: a header "<tets> <nodes per tet: 4 or 10> <region attribute 0|1>", then
 * "<index> n1 n2 n3 n4 [n5..n10] [attribute]" (only the four corners are kept).
 * '#' starts a comment; blank lines are skipped. Indices start at 0 or 1, as
 * the first point's index says; points must be numbered consecutively. Every
 * tet corner must name an existing point, and a tet's corners must differ.
 * Anything else (a short line, a bad number, a non-finite coordinate, counts
 * above FL_TETGEN_MAX_POINTS / FL_TETGEN_MAX_TETS, fewer lines than the header
 * says) is an error naming the file and line: "body.ele:7: corner 99 is not a
 * point (12 points, numbered from 1)". Sizes are checked before allocating.
 * Tets keep the file's orientation (callers that need positive volumes fix it). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FL_TETGEN_MAX_POINTS (1u << 22)
#define FL_TETGEN_MAX_TETS (1u << 23)

typedef struct {
  float (*positions)[3];
  uint32_t (*tets)[4]; /* 0-based point indices */
  uint32_t point_count, tet_count;
} fl_tetgen_mesh;

/* Parses the two files' texts (not necessarily NUL-terminated); the sources name them in errors. */
bool fl_tetgen_parse(const char *node_text, size_t node_length, const char *node_source, const char *ele_text,
                     size_t ele_length, const char *ele_source, fl_tetgen_mesh *out);
/* Reads PATH.node and PATH.ele beside it: `node_path` ends in ".node". */
bool fl_tetgen_load(const char *node_path, fl_tetgen_mesh *out);
/* Writes a mesh as PATH.node / PATH.ele (0-based, no attributes); `base` has no extension. */
bool fl_tetgen_write(const char *base, const float (*positions)[3], uint32_t point_count, const uint32_t (*tets)[4],
                     uint32_t tet_count);
/* Frees the arrays and zeroes *m (accepts a zeroed mesh). */
void fl_tetgen_mesh_free(fl_tetgen_mesh *m);
