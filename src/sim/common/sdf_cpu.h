/* sim/common/sdf_cpu: the CPU mirror of shaders/common/sdf.glsl (same shapes,
 * same rigid poses, same baked mesh grids, same tetrahedral gradient), for CPU
 * references and tests; and packing scene colliders into the GPU layout.
 *
 * A record that names keyframes or a mesh grid reads them from the tail of the
 * collider block it sits in (fl_collider_block, the GPU buffer's bytes; it finds
 * the block through its `index`); a record of an analytic shape that moves at
 * constant velocities reads nothing else and may stand alone. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "flurry_shared.h"
#include "scene/scene.h"

/* The collider buffer's contents: the records, then the tail the records point into. */
typedef struct {
  fl_gpu_collider records[FL_MAX_COLLIDERS];
  float tail[];
} fl_collider_block;

/* Fills the GPU record of a scene collider that needs no tail (no keyframes, not a mesh). */
void fl_collider_pack(const fl_collider_desc *desc, fl_gpu_collider *out);
/* Builds the block of `count` scene colliders (keyframes copied, mesh SDFs baked);
 * *bytes is its size. False with a one-line error naming the collider (names may
 * be NULL) when a mesh cannot bound a solid, or out of memory. Free with free(). */
bool fl_collider_block_build(const fl_collider_desc *descs, const char *const *names, uint32_t count,
                             fl_collider_block **out, size_t *bytes);
/* The collider's pose at time t: the pivot's displacement d, the rotation q (xyzw),
 * the pivot's velocity v and the angular velocity w (sdf.glsl, fl_collider_pose_at). */
/* The collider features (FL_COLLIDER_FEATURE_*, flurry_shared.h) these colliders need:
 * the OR over them; the value for fl_gpu.collider_features. */
uint32_t fl_collider_features(const fl_gpu_collider *colliders, uint32_t count);
void fl_collider_pose_cpu(const fl_gpu_collider *c, float t, float d[3], float q[4], float v[3], float w[3]);
/* How long collider c has moved by time t (it stops at move_until, when > 0). */
float fl_collider_moved_time_cpu(const fl_gpu_collider *c, float t);
/* The velocity of the collider's material point at p at time t: v + w x (p - pivot(t)). */
void fl_collider_velocity_cpu(const fl_gpu_collider *c, const float p[3], float t, float v_out[3]);
/* p taken into c's rest frame at time t (sdf.glsl, fl_collider_rest_point at fl_collider_pose_at). */
void fl_collider_rest_point_cpu(const fl_gpu_collider *c, const float p[3], float t, float out[3]);
/* Signed distance from p to collider c at time t (negative inside the solid). */
float fl_collider_sdf_cpu(const fl_gpu_collider *c, const float p[3], float t);
/* Unit outward normal: the shape's analytic gradient (+y where undefined); meshes: the tetrahedral one. */
void fl_collider_normal_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3]);
/* The generic normal: four-point tetrahedral gradient of the SDF (note 002). */
void fl_collider_normal_tetra_cpu(const fl_gpu_collider *c, const float p[3], float t, float n_out[3]);
/* The normal a material uses: the tetrahedral one when `tetrahedral`, else analytic. */
void fl_collider_normal_select_cpu(const fl_gpu_collider *c, const float p[3], float t, bool tetrahedral,
                                   float n_out[3]);
/* The rotation vector (axis * angle, rad, world axes) of the shorter turn from rotation
 * q0 to q1 (quaternions xyzw): the turn of a keyframe segment. */
void fl_quat_turn_cpu(const float q0[4], const float q1[4], float turn[3]);
/* Rotates v by the unit quaternion q (xyzw). */
void fl_quat_rotate_cpu(const float q[4], const float v[3], float out[3]);
/* The unit quaternion of the rotation vector w (axis * angle, radians). */
void fl_quat_from_rotvec_cpu(const float w[3], float q[4]);
