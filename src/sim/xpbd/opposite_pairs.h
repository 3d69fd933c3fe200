/* sim/xpbd/opposite_pairs: Diziol et al. 2011's opposite particle pairs for
 * local surface volume conservation (survey "Surface mesh volume
 * conservation", the alternative local weight w_i^l; softbody_spec.h). At
 * load, a ray from each surface vertex along its inward normal finds the
 * first triangle of the same closed surface it crosses; the triangle's vertex
 * nearest that crossing is the vertex's opposite. Its distance change over a
 * substep carries a squeeze through the body to the far side. CPU, once. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

/* Writes opposite[i] for each of the `count` particles: the opposite vertex,
 * or i itself for a particle on no triangle or whose ray leaves the surface
 * without a crossing. Triangles are counter-clockwise from outside, local
 * indices. O(surface vertices x triangles), with a bounding-sphere test first. */
void fl_opposite_pairs(const float (*positions)[4], uint32_t count, const uint32_t (*triangles)[3],
                       uint32_t triangle_count, uint32_t *opposite);
