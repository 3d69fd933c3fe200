/* sim/common/placement: where objects start. Every simulated object must start
 * inside sim.domain, whose walls would otherwise crush it into a corner at the
 * first step (snow clips its shape to the domain, sim/mpm/snow_build.c; a sphere
 * or box sticking out past a wall, beyond float rounding, is refused at load, scene_check.c);
 * and XPBD's substeps must be long enough for float positions where it starts. */
#pragma once
#include "scene/scene.h"

#include <stdbool.h>
#include <stdint.h>

/* Fails with one line naming the object, the box its `count` points span and
 * the domain, unless every point (xyz of each vec4) lies inside sim.domain. */
bool fl_check_inside_domain(const char *type, const char *name, const float (*points)[4], uint32_t count,
                            const fl_sim_desc *sim);

/* XPBD takes a velocity from its positions, (x - x_prev) / h, so a particle at rest moves only when
 * gravity's h^2 |g| (h = sim.dt / sim.substeps) is more than half the spacing of floats at its
 * coordinates: otherwise the step rounds away and it never falls (a cloth hung frozen in mid-air at
 * 300 substeps). Fails, naming sim.substeps (or sim.dt) and a value that works, unless h^2 |g| is
 * more than half the spacing at the largest coordinate of the `count` points. */
bool fl_check_substep_resolution(const float (*points)[4], uint32_t count, const fl_sim_desc *sim);
/* The most substeps of sim.dt that the check above passes for these points (UINT32_MAX: any count;
 * the coupling's "snow" order checks the snow's count against it, coupling.c), and *far, their
 * largest coordinate. */
uint32_t fl_substep_resolution_most(const float (*points)[4], uint32_t count, const fl_sim_desc *sim, double *far);
