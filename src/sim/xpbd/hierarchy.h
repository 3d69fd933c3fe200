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
 * CARRY (docs/HIERARCHY.md, "Compliant constraints"). The fine XPBD solve
 * converges to C(x) + alpha~ lambda = 0 (survey Eq. 22-24) and keeps
 * M (x - x~) = grad C^T lambda (Macklin 2016, Eq. 8-9): the particles move only
 * by their constraints' multipliers. Coarse corrections moved them without a
 * fine multiplier, so with compliant constraints they acted as extra springs.
 * So the coarse pass hands the fine solve multipliers, not positions: every
 * fine constraint a coarse one covers (a fine spring on the straight or 45-degree
 * path between the coarse constraint's particles: springs in series carry the
 * same tension) starts with lambda_f = sum over the levels of its covering
 * coarse lambda_c; the positions go back to x0 and move by those multipliers,
 * x += w grad C_f lambda_f, in one Gauss-Seidel sweep of the fine colours. The
 * invariant holds again, so a converged solve is the flat solve's answer.
 * The price: the tension moves a particle only where it changes, so the coarse
 * levels spread far less than the prolonged positions do (docs/HIERARCHY.md:
 * on the falling 128x128 sheet 5 levels at 8 iterations leave 21 % mean strain
 * with the carry, 1.2 % without). Without it the equilibrium is off by about
 * alpha~ / (w_i + w_j) relatively (the extra force M delta / dt^2 against the
 * spring's C / alpha), which is nothing for hard or nearly hard constraints. So
 * the carry runs only when the largest alpha~ / (w_i + w_j) of the fine distance
 * constraints of the hierarchical cloths is FL_HIER_CARRY_RATIO or more
 * (fl_hierarchy_carries).
 *
 * ONE SUBSTEP, after predict (fine lambdas = 0) and before the fine iterations:
 * lambdas of the coarse constraints = 0, x0 = x; for l = L-1 down to 1:
 * sim.iterations Gauss-Seidel sweeps of level l's colours, then the
 * prolongation to the particles that level l-1 adds; then the carry (fine
 * lambdas from the coarse ones, x = x0, the apply sweep). Then the fine solve
 * as without levels, its lambdas not zeroed again. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "flurry_shared.h"
#include "../xpbd/hier_shared.h" /* found through the shaders/common include path */
#include "scene/scene.h"

#define FL_HIER_MAX_LEVELS 8
#define FL_HIER_COLORS 8 /* per coarse level */
#define FL_HIER_CARRY_RATIO 1e-3f /* alpha~ / (w_i + w_j) from which the carry runs (above) */

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
  /* The carry: (fine distance constraint, coarse constraint) pairs, level l's in
   * [carry_first[l], carry_first[l + 1]); a fine constraint appears once per level at most. */
  uint32_t (*carry)[2];
  uint32_t carry_count;
  uint32_t carry_first[FL_HIER_MAX_LEVELS + 1];
  float compliance_per_w; /* the largest alpha / (w_i + w_j) of the hierarchical cloths' fine distance constraints */
} fl_hierarchy;

/* The fine distance constraints (sim/xpbd/xpbd_build.h: colour-ordered, with the
 * particle CSR), which the carry maps coarse constraints onto. */
typedef struct {
  const fl_gpu_distance *constraints;
  uint32_t color_count;
  const uint32_t *color_offsets, *particle_first, *particle_items;
} fl_hierarchy_fine;

/* Builds the coarse levels of the cloth objects [0, count) whose descs have
 * hierarchy_levels > 1. first[o]: the object's first particle; rest: every
 * particle's rest position (xyz, w = inverse mass). */
bool fl_hierarchy_create(const fl_cloth_desc *descs, uint32_t count, const uint32_t *first, const float (*rest)[4],
                         const fl_hierarchy_fine *fine, fl_hierarchy *out);
void fl_hierarchy_destroy(fl_hierarchy *h);

/* Whether a substep with compliance step solve_h runs the carry: alpha~ / (w_i + w_j) >= FL_HIER_CARRY_RATIO. */
bool fl_hierarchy_carries(const fl_hierarchy *h, float solve_h);

/* The CPU reference of the GPU passes (shaders/xpbd/hier_*.comp), in the same order: */
/* one Gauss-Seidel sweep of level l's colours (unilateral XPBD updates, lambda per coarse constraint); */
void fl_hierarchy_cpu_sweep(const fl_hierarchy *h, uint32_t level, float (*x)[4], float *lambda, float solve_h);
/* the prolongation after level l; */
void fl_hierarchy_cpu_prolong(const fl_hierarchy *h, uint32_t level, float (*x)[4], const float (*x0)[4]);
/* the carry: fine_lambda += the coarse lambdas, x = x0, one apply sweep of the fine colours
 * (fl_hierarchy_cpu_substep runs it when fl_hierarchy_carries); */
void fl_hierarchy_cpu_carry(const fl_hierarchy *h, const fl_hierarchy_fine *fine, uint32_t particle_count,
                            float (*x)[4], const float (*x0)[4], const float *lambda, float *fine_lambda);
/* the whole coarse-to-fine pass of a substep; scratch_x0: particle_count vec4s, lambda: constraint_count floats,
 * fine_lambda: the fine distance multipliers (zero on entry, the carried ones on return). */
void fl_hierarchy_cpu_substep(const fl_hierarchy *h, const fl_hierarchy_fine *fine, uint32_t particle_count,
                              float (*x)[4], float (*scratch_x0)[4], float *lambda, float *fine_lambda,
                              uint32_t iterations, float solve_h);
