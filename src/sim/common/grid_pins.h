/* sim/common/grid_pins: the "pin" key of grid materials (cloth, mass_spring)
 * resolved on an nx x ny particle grid: checked against the grid, and each
 * pinned particle (local index j * nx + i) visited. */
#pragma once
#include "scene/scene.h"

typedef void (*fl_pin_visit)(void *context, uint32_t index);

/* Checks every pin against the grid (one line naming the object on failure)
 * and, with a visitor, calls it for each pinned particle (a particle may be
 * visited more than once when pins overlap). */
bool fl_grid_pins_apply(const fl_cloth_pin *pins, uint32_t count, uint32_t nx, uint32_t ny, const char *what,
                        const char *name, fl_pin_visit visit, void *context);
