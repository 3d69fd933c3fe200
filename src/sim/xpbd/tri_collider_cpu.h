/* sim/xpbd/tri_collider_cpu: the CPU reference of colliders against cloth
 * triangles (shaders/xpbd/tri_collider.glsl and tri_collider.comp; docs/CLOTH.md,
 * "Colliders against triangles"). */
#pragma once
#include <stdint.h>

#include "sim/xpbd/tri_contact_cpu.h"

/* Weights (bary) of the point of triangle (a, b, c) nearest segment p-q; returns
 * that distance, 0 where the segment crosses the triangle (fl_tri_nearest_segment). */
float fl_tri_nearest_segment_cpu(const float p[3], const float q[3], const float a[3], const float b[3],
                                 const float c[3], float bary[3]);
/* Every cloth triangle against every collider (tri_collider.comp): the contact at
 * the triangle's point nearest the collider's features, summed in accum (applied
 * by fl_tri_apply_cpu). */
void fl_tri_colliders_cpu(const fl_xpbd_build *b, const fl_tri_colliders *cols, float (*x)[4],
                          const float (*prev)[4], int32_t (*accum)[4]);
