/* sim/xpbd/hierarchy_gpu: the coarse levels of hierarchical PBD on the GPU
 * (sim/xpbd/hierarchy.h has the algorithm; shaders/xpbd/hier_*.comp and
 * xpbd/distance_gs.comp in its FL_DISTANCE_STRETCHED and FL_DISTANCE_APPLY modes). */
#pragma once
#include "gpu/rec.h"
#include "sim/xpbd/hierarchy.h"

typedef struct {
  fl_buffer constraints, lambda, prolong, x0; /* x0: the positions before the coarse levels */
  fl_buffer carry;                            /* (fine, coarse) constraint pairs */
  bool on;
} fl_hierarchy_gpu;

/* Uploads h's records (nothing when h has no coarse level); particle_count sizes x0. */
bool fl_hierarchy_gpu_create(fl_gpu *gpu, const fl_hierarchy *h, uint32_t particle_count, fl_hierarchy_gpu *out);
void fl_hierarchy_gpu_destroy(fl_gpu *gpu, fl_hierarchy_gpu *g);
/* The fine distance constraints on the GPU: their records and multipliers (zero before the pass). */
typedef struct {
  const fl_buffer *constraints, *lambda;
} fl_hierarchy_gpu_fine;

/* Records the coarse-to-fine pass of one substep on `pos` in scope "cloth/hierarchy",
 * with the carry into the fine multipliers: push's solve_h is the compliance step;
 * `iterations` sweeps per level; fine: the fine family's colours (hierarchy.h). */
void fl_hierarchy_gpu_record(const fl_hierarchy_gpu *g, const fl_hierarchy *h, fl_rec *r, const fl_buffer *pos,
                             uint32_t particle_count, fl_xpbd_push push, uint32_t iterations,
                             const fl_hierarchy_fine *fine, fl_hierarchy_gpu_fine fine_gpu);
