/* sim/xpbd/xpbd_build: everything about the XPBD system that is decided
 * once, on the CPU, at load: particles, pins, triangles, constraints
 * (xpbd_spec.h) of the cloth objects, then the soft bodies and balloons
 * appended after them (sim/xpbd/body_build.h, softbody_spec.h), the greedy
 * graph colouring of each constraint family, and the particle-to-constraint
 * lists of the Jacobi solver. The result is plain arrays, uploaded as they are. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "flurry_shared.h"
#include "scene/scene.h"
#include "sim/xpbd/body_build.h"
#include "sim/xpbd/hierarchy.h"

/* The most colours a family may need (the greedy colouring fails past it). */
#define FL_XPBD_MAX_COLOURS 64

/* A family of constraints (distance or bend) ordered by colour, with its CSR. */
typedef struct {
  uint32_t count;
  uint32_t color_count;
  uint32_t *color_offsets;      /* color_count + 1 entries into the (colour-ordered) array */
  uint32_t *particle_first;     /* particles + 1 entries: CSR over particles */
  uint32_t *particle_items;     /* constraint indices (into the colour-ordered array) */
} fl_constraint_family;

typedef struct {
  uint32_t particle_count, object_count, triangle_count;
  float (*positions)[4];        /* xyz, w = inverse mass (0 pinned) */
  uint32_t *particle_object;    /* object index per particle */
  fl_gpu_xpbd_object *objects; /* object_count entries */
  uint8_t *self_collision;      /* object_count entries: 1 where "self_collision" is on */
  uint32_t *triangles;          /* 3 per triangle, global particle indices */
  uint32_t *triangle_object;    /* object per triangle */
  fl_gpu_distance *distances;   /* colour-ordered */
  fl_constraint_family distance;
  fl_gpu_bend *bends;           /* colour-ordered */
  fl_constraint_family bend;
  fl_gpu_tet *tets;             /* colour-ordered (soft bodies) */
  fl_constraint_family tet;
  fl_gpu_area *areas;           /* colour-ordered (cloth with area constraints, docs/AREA.md) */
  fl_constraint_family area;
  float (*velocities)[4];       /* initial velocity per particle (xyz) */
  uint32_t cloth_count;         /* objects [0, cloth_count) are cloth grids, the rest bodies */
  uint32_t body_count;
  fl_gpu_body *bodies;          /* body b is object cloth_count + b */
  float *body_measure_after;    /* per body: the time from which volume loss is tracked */
  uint32_t *opposite;           /* per particle: Diziol's opposite particle (opposite_pairs.h), itself when none */
  uint32_t *capacity;           /* per object: its particle slots; a tearing cloth's (tear_strain > 0) slots
                                 * [first + count, first + capacity) are spares the splits take (sim/xpbd/tear.h) */
  float *tear_strain;           /* per object: the cloth's tear_strain, 0: never tears */
  fl_gpu_tether *tethers;       /* per particle: its two long range attachments (FL_TETHER_NONE: none; cloth "tethers") */
  bool any_tether;              /* some particle has one: xpbd/contacts applies them (push.tethers) */
  fl_hierarchy hier;             /* the cloths' coarse levels (hierarchy_levels > 1; sim/xpbd/hierarchy.h) */
  uint32_t distance_capacity;   /* distance records allocated: count + 2 per spare (a split copies at
                                 * most the two constraints on the edges its plane cuts, tear.c) */
} fl_xpbd_build;

/* The fine distance family of build b, as the hierarchy's carry reads it (sim/xpbd/hierarchy.h). */
#define FL_HIERARCHY_FINE(b)                                                                                       \
  ((fl_hierarchy_fine){(b)->distances, (b)->distance.color_count, (b)->distance.color_offsets,                     \
                       (b)->distance.particle_first, (b)->distance.particle_items})

/* The spare particles a tearing cloth of nx x ny particles reserves: a cut across
 * the sheet splits about max(nx, ny) vertices; a jagged one, or several, more. */
uint32_t fl_tear_spares(uint32_t nx, uint32_t ny);
/* Recolours every constraint family from its current records (after a tear changed them): frees and
 * rebuilds the colour offsets and CSR lists as the load did. */
bool fl_xpbd_build_recolour(fl_xpbd_build *b);

/* Builds every cloth object of `descs` (count of them) into one set of arrays.
 * Returns false with a one-line error naming `names[i]` on bad pins or sizes. */
bool fl_cloth_build_create(const fl_cloth_desc *descs, const char (*names)[FL_SCENE_NAME_MAX], uint32_t count,
                           fl_xpbd_build *out);
/* The same, with `body_count` soft bodies and balloons appended after the cloth objects. */
bool fl_xpbd_build_create(const fl_cloth_desc *descs, const char (*names)[FL_SCENE_NAME_MAX], uint32_t count,
                          const fl_body_build *bodies, uint32_t body_count, fl_xpbd_build *out);
/* Frees every array and zeroes *b. */
void fl_xpbd_build_destroy(fl_xpbd_build *b);
/* True when no two constraints of one colour share a particle (for tests). */
bool fl_xpbd_colouring_valid(const fl_xpbd_build *b);
/* Fills the rest-shape data of bend `b` (params.z holds its model) from the stencil x
 * (x0..x3, xyz each): dihedral params.x = acos(d); isometric k = K, params.x = 3/(A0 + A1). */
void fl_xpbd_bend_rest(fl_gpu_bend *b, const float x[12]);
