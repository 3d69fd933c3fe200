/* sim/xpbd/cloth_stats: what the report says of a cloth object, computed on
 * the CPU from read-back positions (end of run only). */
#pragma once
#include "sim/xpbd/xpbd_build.h"

typedef struct {
  double max_strain, mean_strain; /* |l/l0 - 1| over the object's stretch constraints */
  double min_distance_nonneighbor;/* closest pair of particles that are not mesh neighbours
                                   * (xpbd_spec.h step 6), this object against every object;
                                   * at least `search_radius` when none is closer */
  uint32_t stretch_count;
} fl_cloth_stats;

/* Stats of object `object` from positions `x` of the whole system; pairs are
 * searched up to `search_radius` (> 0) with a uniform grid. */
bool fl_cloth_stats_compute(const fl_xpbd_build *b, const float (*x)[4], uint32_t object, float search_radius,
                            fl_cloth_stats *out);
/* True when particles p and q are mesh neighbours (same object, |di| <= 2 and |dj| <= 2). */
bool fl_cloth_mesh_neighbors(const fl_xpbd_build *b, uint32_t p, uint32_t q);
