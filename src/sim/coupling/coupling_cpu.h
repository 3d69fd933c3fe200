/* sim/coupling/coupling_cpu: the CPU reference of one coupling substep
 * (coupling/weights, coupling/contact, coupling/apply; docs/COUPLING.md) on a
 * dense snow grid, the layout of fl_snow_read_grid_dense: node (x, y, z) at
 * (z dims_y + y) dims_x + x, 8 floats each (v_{n+1}, m, v_n, 0). The tests
 * compare the GPU passes with it. */
#pragma once
#include "coupling_shared.h"

#include <stdbool.h>
#include <stdint.h>

/* One substep: reads pos (xyz, w = 1/m), coupled (flag per particle) and the grid; updates vel,
 * adds the particles' -J and |J| to impulse, and the nodes' impulses to the grid's v_{n+1}.
 * Returns false (out of memory) only. */
bool fl_coupling_cpu_substep(const fl_coupling_push *push, uint32_t particle_count, const float (*pos)[4],
                             float (*vel)[4], const uint32_t *coupled, float (*impulse)[4], float (*grid)[8]);
