/* sim/xpbd/body_lift: a body that starts within its contact radius of a
 * collider or a domain wall is moved out at load, rigidly (softbody_spec.h,
 * LOAD-TIME OVERLAP), so that its first contact pass does not turn the overlap
 * into a launch speed (overlap / h: 3 m/s for 6 mm at h = 2.08 ms). */
#pragma once
#include <stdint.h>

#include "flurry_shared.h"
#include "sim/xpbd/body_build.h"

/* Moves body b (its particles and drawn surface) along the normal of its deepest overlap at time 0,
 * by that depth, up to 8 times, until no particle with w > 0 lies within b->body.contact_radius of
 * a collider or of the box [domain_min, domain_max]'s walls. A particle inside a collider or outside
 * the box (deeper than the radius) stops it: that is a placement error, not a contact. Returns the
 * total distance moved (m). */
double fl_body_lift_out(fl_body_build *b, const fl_gpu_collider *colliders, uint32_t collider_count,
                        const float domain_min[3], const float domain_max[3]);
