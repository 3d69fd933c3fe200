/* sim/xpbd/tri_contact_build: what triangle contacts (docs/CLOTH.md) decide
 * once, at load: which objects take part (cloth with self_collision
 * "triangles", and every soft body and balloon once one such cloth exists),
 * the unique edges of their meshes, which triangle owns each edge, and the
 * cell size of the triangle hash.
 *
 * The triangle hash: each colliding triangle is entered in every cell its
 * bounding box, grown by margin = r_max (r_max the largest thickness; with the
 * contact guard FL_TRI_GUARD_LIST r_max, its listing radius),
 * overlaps (xpbd/tri_keys.comp). With
 *   cell = FL_TRI_STRETCH e_max + 2 margin,
 * e_max the longest edge of a colliding triangle at rest (it bounds the box's
 * extent on every axis however the triangle turns; the box's extent at rest
 * did not: a soft body's triangle turned 0.063 m wide against 0.060), a grown
 * box spans at most two cells per axis (8 entries) while no edge stretches
 * past FL_TRI_STRETCH. A vertex within reach <= r_max of a triangle lies in
 * the triangle's grown box, so one cell (the vertex's) holds every candidate;
 * an edge's box overlaps the grown box of every triangle with an edge within
 * reach, so the cells of the edge's box hold them. Only xpbd/tri_pairs reads
 * the hash, from the positions it was built from, so no second margin covers
 * later motion (it was 2 r_max while the contact passes walked the hash).
 *
 * A tear (tear.h) re-indexes triangles and adds particles: the edges and
 * owners are then rebuilt from the new triangles (fl_tri_contacts_rebuild, on
 * the CPU in the tear batch; xpbd_tear.c uploads them with the topology). The
 * cell size, margin and pair room stay the load's (the triangles' rest shape
 * does not change); the edge buffers have room for every colliding triangle's
 * three edges when an object tears (a cut copies the edges along it).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "sim/xpbd/xpbd_build.h"

#define FL_TRI_STRETCH 1.25f     /* the largest stretch of a triangle the broad phase allows */
/* Vertex-triangle + edge-edge + apply, per substep, over the substep's pair list. Three, edge-edge in each:
 * with two (edge-edge in the first only), a 64x64 cloth on a soft body had body vertices and ridges through
 * its triangles for some substeps (docs/CLOTH.md "Cloth on bodies"). */
#define FL_TRI_CONTACT_PASSES 3u

typedef struct {
  bool any;                     /* some object has self_collision "triangles" */
  uint32_t edge_count;
  uint32_t edge_capacity;       /* the room of edges (and of the GPU's edge buffer and pair list) */
  uint32_t (*edges)[2];         /* unique edges (a < b) of the colliding triangles, ascending */
  uint32_t *owned;              /* per triangle (all of the build's): bit k when it owns edge (v[k], v[k+1]),
                                 * FL_TRI_COLLIDES when it takes part */
  float cell_size;              /* of the triangle hash (m) */
  float margin;                 /* the growth of a triangle's box before it is hashed (m) */
  uint32_t pairs_per;           /* the pair list's room per particle and per edge (pairs; xpbd/tri_pairs) */
  float guard;                  /* the contact guard (docs/CLOTH.md): the bound on every colliding vertex's move
                                 * in a substep, FL_TRI_GUARD_SHARE x FL_TRI_GUARD_LIST x the smallest thickness
                                 * (m); 0: off (sim.contact_guard false) */
  void *refs;                   /* scratch of a rebuild: 3 edge references a triangle */
} fl_tri_contacts;

/* True when object o takes part in triangle contacts (`any`: some cloth has "triangles"). */
bool fl_tri_object_collides(const fl_gpu_xpbd_object *o, bool any);
/* Builds the edges, owners and cell size for the build; all empty when no
 * object has self_collision "triangles". False (an error set) when out of memory. */
bool fl_tri_contacts_create(const fl_xpbd_build *b, fl_tri_contacts *out);
/* Rebuilds the edges and owners from b's triangles (after a tear), in place; nothing when !t->any. */
void fl_tri_contacts_rebuild(const fl_xpbd_build *b, fl_tri_contacts *t);
/* Frees the arrays and zeroes *t. */
void fl_tri_contacts_destroy(fl_tri_contacts *t);
