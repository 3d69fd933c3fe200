/* sim/common/placement: where objects start. Every simulated object must start
 * inside sim.domain, whose walls would otherwise crush it into a corner at the
 * first step (snow instead clips its shape to the domain, sim/mpm/snow_build.c). */
#pragma once
#include "scene/scene.h"

#include <stdbool.h>
#include <stdint.h>

/* Fails with one line naming the object, the box its `count` points span and
 * the domain, unless every point (xyz of each vec4) lies inside sim.domain. */
bool fl_check_inside_domain(const char *type, const char *name, const float (*points)[4], uint32_t count,
                            const fl_sim_desc *sim);
