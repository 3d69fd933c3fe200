/* core/tetgen_file: reading TetGen tetrahedral meshes (.node + .ele).
 *
 * .node: a header "<points> <dimension = 3> <attributes> <boundary markers 0|1>",
 * then one line per point "<index> x y z [attributes...] [marker]".
 * .ele: a header "<tets> <nodes per tet: 4 or 10> <region attribute 0|1>", then
 * "<index> n1 n2 n3 n4 [n5..n10] [attribute]" (only the four corners are kept).
 * A header may stop early: the missing fields read as dimension 3, no
 * attributes, no markers, 4 nodes per tet, no region attribute.
 * '#' starts a comment; blank lines are skipped; lines may end in \r\n.
 * Indices start at 0 or 1, as the first point's index says; points must be
 * numbered consecutively (tet indices are not checked). Every tet node must
 * name an existing point, and a tet's four corners must differ.
 * Anything else (a line with too few or too many numbers, a bad number, a
 * non-finite coordinate, a count of 0 or above FL_TETGEN_MAX_POINTS /
 * FL_TETGEN_MAX_TETS, more than 64 attributes, fewer or more lines than the
 * header says) is an error naming the file and line: "body.ele:7: corner 99 is
 * not a point (12 points, numbered from 1)". Both texts are checked in a first
 * pass before the header's counts are allocated. Tets keep the file's
 * orientation (callers that need positive volumes fix it). Parse, load and
 * write clear the recorded error first. */
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
/* Writes a mesh as BASE.node / BASE.ele (0-based, no attributes, %.9g so floats read
 * back exactly); `base` has no extension. A mesh the reader would reject (no points
 * or tets, a non-finite point, a bad or repeated corner) is an error and writes nothing.
 * (C17 does not convert float (*)[3] to const float (*)[3]: callers cast.) */
bool fl_tetgen_write(const char *base, const float (*positions)[3], uint32_t point_count, const uint32_t (*tets)[4],
                     uint32_t tet_count);
/* Frees the arrays and zeroes *m (accepts a zeroed mesh). */
void fl_tetgen_mesh_free(fl_tetgen_mesh *m);
