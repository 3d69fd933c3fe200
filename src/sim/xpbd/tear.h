/* sim/xpbd/tear: tearing a cloth on the CPU, the topology half (docs/CLOTH.md
 * "Tearing"). A stretch or shear constraint (a, b) whose strain passes its
 * cloth's tear_strain splits a vertex, as in Müller et al. 2007 (Position Based
 * Dynamics, the tearing paragraph of its results: "a split plane through that vertex perpendicular to the edge direction"): a plane through the vertex, normal to the
 * constraint, in the rest shape, divides the vertex's triangles in two; the
 * side toward b moves to a new particle (a spare of the cloth, xpbd_build.h)
 * at the same place with the same velocity, and the two halves share the
 * vertex's mass (each w doubles). Distance, bend and area constraints follow
 * (tear.c says how); a bend whose two triangles end on different sides is
 * removed. A balloon that tears loses its pressure and volume conservation
 * (the air escapes). The colouring and CSR lists are rebuilt by the caller once
 * per batch (fl_xpbd_build_recolour). The GPU half is tear_gpu.h. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "sim/xpbd/xpbd_build.h"

/* One split: `dst` took `src`'s triangles on one side; both now have inverse mass w. */
typedef struct {
  uint32_t src, dst;
  float w;
} fl_tear_split;

/* Splits vertex a of the constraint (a, b) (the side toward b leaves) in b's arrays.
 * False, changing nothing, when it cannot: a is pinned, its cloth has no spare left,
 * or one side of the plane holds none of a's triangles. */
bool fl_tear_split_vertex(fl_xpbd_build *b, uint32_t a, uint32_t other, fl_tear_split *out);
/* Tears the constraint (i, j): splits i, or else j, away from the other. */
bool fl_tear_constraint(fl_xpbd_build *b, uint32_t i, uint32_t j, fl_tear_split *out);
/* True when some distance constraint of b joins particles i and j (either order). */
bool fl_tear_has_distance(const fl_xpbd_build *b, uint32_t i, uint32_t j);
