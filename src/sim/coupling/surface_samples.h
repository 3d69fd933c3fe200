/* sim/coupling/surface_samples: the surface samples of the closed bodies that couple with the snow
 * (docs/COUPLING.md, "Surface samples"): quadrature points on their surface triangles, dense enough
 * (about half a grid cell apart) that the snow cannot pass between a coarse body's vertices. */
#pragma once
#include "coupling_shared.h"

#include <stdbool.h>
#include <stdint.h>

/* The samples of every triangle whose three vertices are all soft-body particles (coupled word
 * FL_COUPLING_VOLUME) or all balloon particles (FL_COUPLING_CLOSED): the centroids of the n x n
 * sub-triangles, n = ceil(longest edge at `pos` /
 * (FL_COUPLING_SAMPLE_SPACING h)) in [1, FL_COUPLING_SAMPLE_MAX_N]; each a uvec4 (triangle, bits of
 * b0, bits of b1, bits of its scale: its rest area / h^2; coupling_shared.h). *out is malloc'd (NULL when there are none);
 * false: out of memory. */
bool fl_coupling_surface_samples(const float (*pos)[4], const uint32_t *triangles, uint32_t triangle_count,
                                 const uint32_t *coupled, float h, uint32_t (**out)[4], uint32_t *count);
