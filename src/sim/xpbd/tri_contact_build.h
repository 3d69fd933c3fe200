/* sim/xpbd/tri_contact_build: what triangle contacts (docs/CLOTH.md) decide
 * once, at load: which objects take part (cloth with self_collision
 * "triangles", and every soft body and balloon once one such cloth exists),
 * the unique edges of their meshes, which triangle owns each edge, and the
 * cell size of the triangle hash.
 *
 * The triangle hash holds triangle centroids. A vertex within reach r of a
 * triangle lies within r + R of its centroid, R the triangle's largest
 * centroid-to-vertex distance; an edge of half-length L within r of a
 * triangle's edge has its midpoint within r + L + R of the centroid. So with
 *   cell = FL_TRI_STRETCH (R_max + L_max) + 2 r_max
 * (maxima over the rest shape of the colliding triangles; r_max the largest
 * thickness) the 27 cells around a vertex or an edge midpoint hold every
 * candidate while no triangle stretches past FL_TRI_STRETCH and the contact
 * passes of a substep move a particle by less than r_max. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "sim/xpbd/xpbd_build.h"

#define FL_TRI_STRETCH 1.25f     /* the largest stretch of a triangle the broad phase allows */
#define FL_TRI_CONTACT_PASSES 2u /* vertex-triangle + edge-edge + apply, per substep */

typedef struct {
  bool any;                     /* some object has self_collision "triangles" */
  uint32_t edge_count;
  uint32_t (*edges)[2];         /* unique edges (a < b) of the colliding triangles, ascending */
  uint32_t *owned;              /* per triangle (all of the build's): bit k when it owns edge (v[k], v[k+1]) */
  float cell_size;              /* of the triangle hash (m) */
} fl_tri_contacts;

/* True when object o takes part in triangle contacts (`any`: some cloth has "triangles"). */
bool fl_tri_object_collides(const fl_gpu_xpbd_object *o, bool any);
/* Builds the edges, owners and cell size for the build; all empty when no
 * object has self_collision "triangles". False (an error set) when out of memory. */
bool fl_tri_contacts_create(const fl_xpbd_build *b, fl_tri_contacts *out);
/* Frees the arrays and zeroes *t. */
void fl_tri_contacts_destroy(fl_tri_contacts *t);
