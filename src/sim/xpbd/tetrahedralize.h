/* sim/xpbd/tetrahedralize: the project's voxel tetrahedralizer, and the
 * tetrahedral meshes soft bodies simulate.
 *
 * Method: a grid of cubic cells of edge `spacing` over the solid's bounding
 * box, centred on it: ceil(extent / spacing) cells per axis or one more (a
 * half-cell shift of the cell faces), whichever of those 8 grids keeps the
 * volume nearest the solid's (up to 2^18 cells; beyond, the per-axis parity of
 * round(extent / spacing), which puts a box's faces within half a cell of
 * cell faces); a cell is kept
 * when at least half of its 4x4x4 sample points are inside the solid; where
 * kept cells (or empty ones) would meet only along an edge or at a vertex, the
 * cells around that grid vertex are kept too, so the boundary is a closed
 * 2-manifold; each kept cell is split into the six tets of the Kuhn
 * (Freudenthal) triangulation around its main diagonal (0,0,0)-(1,1,1), which
 * conform across neighbouring cells, so the tets of all cells share vertices
 * and faces. Tets are positively oriented.
 * Unused grid vertices are dropped. Quality (documented in docs/SOFTBODY.md):
 * every tet has the same shape (edges s, s sqrt2, s sqrt3; volume s^3/6), so no
 * slivers; the boundary is a staircase of step s, so the volume differs from
 * the solid's by an amount that shrinks with s and features thinner than about
 * one cell are lost or thickened.
 *
 * A mesh's boundary is the list of faces that belong to exactly one tet,
 * oriented counter-clockwise seen from outside. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "sim/common/solid.h"

typedef struct {
  float (*positions)[3];
  uint32_t vertex_count;
  uint32_t (*tets)[4];          /* positive volume: (x1-x0) x (x2-x0) . (x3-x0) > 0 */
  uint32_t tet_count;
  uint32_t (*surface)[3];       /* boundary faces, counter-clockwise from outside */
  uint32_t surface_count;
} fl_tet_mesh;

/* Largest grid a tetrahedralization may make: cells along one axis and in all. */
#define FL_TETRAHEDRALIZE_MAX_CELLS_AXIS 256u
#define FL_TETRAHEDRALIZE_MAX_CELLS (1u << 21)

/* Tetrahedralizes `solid` with cells of `spacing` metres. Errors (one line,
 * fl_error_set) when the grid would be too large, or when no cell is inside
 * ("the shape is thinner than one cell: raise the resolution"). */
bool fl_tetrahedralize(const fl_solid *solid, float spacing, fl_tet_mesh *out);
/* Builds a tet mesh from given tets (e.g. a TetGen file): copies them, flips
 * negative tets to positive volume, and fails on a degenerate tet (|volume|
 * below 1e-12 of the bounding box volume) naming its index. */
bool fl_tet_mesh_from_tets(const float (*positions)[3], uint32_t vertex_count, const uint32_t (*tets)[4],
                           uint32_t tet_count, fl_tet_mesh *out);
/* Fills the boundary faces (m->surface, replacing any) from m->tets: the tet
 * faces used once, found by sorting the faces' sorted vertex triples. */
bool fl_tet_mesh_find_surface(fl_tet_mesh *m);
/* Signed volume of tet (a, b, c, d): (b-a) x (c-a) . (d-a) / 6. */
double fl_tet_volume(const float a[3], const float b[3], const float c[3], const float d[3]);
/* Sum of the tets' volumes. */
double fl_tet_mesh_volume(const fl_tet_mesh *m);
void fl_tet_mesh_free(fl_tet_mesh *m);
