/* sim/xpbd/hierarchy: hierarchical PBD for cloth grids (the cloth key
 * "hierarchy_levels", docs/HIERARCHY.md; the PBD survey, Bender/Müller/Macklin
 * 2017, "Hierarchical solver", after Müller 2008, NOTES.md).
 *
 * LEVELS. Level 0 is the cloth grid. Level l keeps the rows and columns whose
 * index is a multiple of 2^l, and always the last row and column, so that every
 * particle of level l-1 lies in a cell of level l. A cloth with L levels has
 * coarse levels 1..L-1.
 *
 * CONSTRAINTS of a coarse level: between neighbours in its grid, structural
 * (a,b)-(a+1,b), (a,b)-(a,b+1) and shear (a,b)-(a+1,b+1), (a+1,b)-(a,b+1),
 * rest length from the rest shape, compliance the fine one times the number
 * of fine springs the coarse one spans (springs in series). Unilateral: they act
 * only when stretched (C > 0), so that they do not keep the cloth from bending.
 * Eight colours per level (four directions, two parities: of b for (a,b)-(a,b+1), of a for the others).
 *
 * PROLONGATION. Every particle of level l-1 that level l does not hold has up
 * to four level-l parents (the corners of its level-l cell) with bilinear
 * weights; after level l is solved it moves by their interpolated correction:
 *   x_i += sum_k w_k (x_pk - x0_pk),   x0: the positions before the hierarchy.
 * (Its own position has not changed since x0: no coarser level holds it.)
 *
 * ONE SUBSTEP, after predict and before the fine iterations: lambdas of the
 * coarse constraints = 0, x0 = x; for l = L-1 down to 1: sim.iterations
 * Gauss-Seidel sweeps of level l's colours, then the prolongation to the
 * particles that level l-1 adds. Then the fine solve as without levels. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "flurry_shared.h"
#include "../xpbd/hier_shared.h" /* found through the shaders/common include path */
#include "scene/scene.h"

#define FL_HIER_MAX_LEVELS 8
#define FL_HIER_COLORS 8 /* per coarse level */

typedef struct {
  uint32_t levels;                  /* the most levels of any cloth; 1: no hierarchy */
  fl_gpu_distance *constraints;     /* coarse constraints, by level (1 first), then colour */
  uint32_t constraint_count;
  /* Level l's colour c is [color_offsets[(l-1) FL_HIER_COLORS + c], the next offset). */
  uint32_t color_offsets[(FL_HIER_MAX_LEVELS - 1) * FL_HIER_COLORS + 1];
  fl_gpu_prolong *prolong;          /* by level */
  uint32_t prolong_count;
  /* The targets after level l (particles of level l-1 not in l): [prolong_first[l], prolong_first[l + 1]). */
  uint32_t prolong_first[FL_HIER_MAX_LEVELS + 1];
} fl_hierarchy;

/* Builds the coarse levels of the cloth objects [0, count) whose descs have
 * hierarchy_levels > 1. first[o]: the object's first particle; rest: every
 * particle's rest position (xyz, w = inverse mass). */
bool fl_hierarchy_create(const fl_cloth_desc *descs, uint32_t count, const uint32_t *first, const float (*rest)[4],
                         fl_hierarchy *out);
void fl_hierarchy_destroy(fl_hierarchy *h);

/* The CPU reference of the GPU passes (shaders/xpbd/hier_*.comp), in the same order: */
/* one Gauss-Seidel sweep of level l's colours (unilateral XPBD updates, lambda per coarse constraint); */
void fl_hierarchy_cpu_sweep(const fl_hierarchy *h, uint32_t level, float (*x)[4], float *lambda, float solve_h);
/* the prolongation after level l; */
void fl_hierarchy_cpu_prolong(const fl_hierarchy *h, uint32_t level, float (*x)[4], const float (*x0)[4]);
/* the whole coarse-to-fine pass of a substep; scratch_x0: particle_count vec4s, lambda: constraint_count floats. */
void fl_hierarchy_cpu_substep(const fl_hierarchy *h, uint32_t particle_count, float (*x)[4], float (*scratch_x0)[4],
                              float *lambda, uint32_t iterations, float solve_h);
