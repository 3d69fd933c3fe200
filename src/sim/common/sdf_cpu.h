/* sim/common/sdf_cpu: the CPU mirror of shaders/common/sdf.glsl (same shapes,
 * same tetrahedral gradient), for CPU references and tests; and packing scene
 * colliders into the GPU layout. */
#pragma once
#include <stdbool.h>

#include "flurry_shared.h"
#include "scene/scene.h"

/* Fills the GPU record of a scene collider. */
void fl_collider_pack(const fl_collider_desc *desc, fl_gpu_collider *out);
/* How long collider c has moved by time t (it stops at move_until, p1[3], when > 0). */
float fl_collider_moved_time_cpu(const fl_gpu_collider *c, float t);
/* The collider's velocity at time t (zero once it stopped). */
void fl_collider_velocity_cpu(const fl_gpu_collider *c, float t, float v_out[3]);
/* Signed distance from p to collider c at time t (negative inside the solid). */
float fl_collider_sdf_cpu(const fl_gpu_collider *c, const float p[3], float t);
/* Unit outward normal: the shape's analytic gradient (+y where undefined). */
void fl_collider_normal_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3]);
/* The generic normal: four-point tetrahedral gradient of the SDF (note 002). */
void fl_collider_normal_tetra_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3]);
/* The normal a material uses: the tetrahedral one when `tetrahedral`, else analytic. */
void fl_collider_normal_select_cpu(const fl_gpu_collider *c, const float p[3], float t, bool tetrahedral,
                                   float n_out[3]);
