/* sim/shared_layout: compile-time checks that the C view of the structs shared
 * with GLSL (shaders/common: flurry_shared.h and the *_shared.h files) has the std430 /
 * std140 layout the shaders use: every struct's size and its fields' offsets.
 * It lives in sim because it also checks the scene's shape numbering. */
#include <stddef.h>

#include "flurry_shared.h"
#include "hash_shared.h"
#include "mpm_shared.h"
#include "reduce_shared.h"
#include "scan_shared.h"
#include "scene/scene.h"
#include "sort_shared.h"

#define OFFSET(type, field, bytes) _Static_assert(offsetof(type, field) == (bytes), #type "." #field " offset")
#define SIZE(type, bytes) _Static_assert(sizeof(type) == (bytes), #type " size")

SIZE(fl_gpu_collider, 128);
OFFSET(fl_gpu_collider, velocity, 32);
OFFSET(fl_gpu_collider, angular_velocity, 48);
OFFSET(fl_gpu_collider, keyframe_count, 60);
OFFSET(fl_gpu_collider, pivot, 64);
OFFSET(fl_gpu_collider, keyframe_offset, 76);
OFFSET(fl_gpu_collider, grid_min, 80);
OFFSET(fl_gpu_collider, grid_cell, 92);
OFFSET(fl_gpu_collider, grid_dims, 96);
OFFSET(fl_gpu_collider, grid_offset, 108);
OFFSET(fl_gpu_collider, shape, 112);
OFFSET(fl_gpu_collider, index, 120);

SIZE(fl_particles_push, 80);
OFFSET(fl_particles_push, h, 12);
OFFSET(fl_particles_push, radius, 28);
OFFSET(fl_particles_push, restitution, 44);
OFFSET(fl_particles_push, time, 48);
OFFSET(fl_particles_push, tetrahedral_normals, 56);
OFFSET(fl_particles_push, count, 60);
OFFSET(fl_particles_push, collider_count, 64);

SIZE(fl_count_push, 16);
OFFSET(fl_count_push, mode, 4);

SIZE(fl_xpbd_push, 128);
OFFSET(fl_xpbd_push, distance_mode, 112);
OFFSET(fl_xpbd_push, tri_margin, 96);
OFFSET(fl_xpbd_push, inv_tri_cell, 80);
OFFSET(fl_xpbd_push, integrator, 100);
OFFSET(fl_xpbd_push, solve_h, 104);
OFFSET(fl_xpbd_push, tri_pairs_per, 108);
OFFSET(fl_xpbd_push, triangle_count, 92);
OFFSET(fl_xpbd_push, h, 12);
OFFSET(fl_xpbd_push, time, 28);
OFFSET(fl_xpbd_push, omega, 44);
OFFSET(fl_xpbd_push, first, 48);
OFFSET(fl_xpbd_push, particle_count, 60);
OFFSET(fl_xpbd_push, inv_hash_cell, 64);
OFFSET(fl_xpbd_push, body_pass, 76);

SIZE(fl_pick_push, 64);
OFFSET(fl_pick_push, radius, 12);
OFFSET(fl_pick_push, h, 28);
OFFSET(fl_pick_push, compliance, 44);
OFFSET(fl_pick_push, first, 48);
OFFSET(fl_pick_push, index, 60);

SIZE(fl_health_push, 16);
OFFSET(fl_health_push, max_speed, 12);

SIZE(fl_strain_health_push, 8);
OFFSET(fl_strain_health_push, max_strain, 4);

SIZE(fl_ms_push, 112);
OFFSET(fl_ms_push, h, 12);
OFFSET(fl_ms_push, kappa, 16);
OFFSET(fl_ms_push, cg_tolerance2, 28);
OFFSET(fl_ms_push, count, 32);
OFFSET(fl_ms_push, cg_rr_old, 40);
OFFSET(fl_ms_push, cg_iteration, 48);
OFFSET(fl_ms_push, nx, 52);
OFFSET(fl_ms_push, classes, 60);
OFFSET(fl_ms_push, rest0, 64);
OFFSET(fl_ms_push, rest1, 80);
OFFSET(fl_ms_push, step, 96);

SIZE(fl_mpm_push, 128);
OFFSET(fl_mpm_push, h, 12);
OFFSET(fl_mpm_push, grid_dims, 16);
OFFSET(fl_mpm_push, node_count, 28);
OFFSET(fl_mpm_push, dt, 44);
OFFSET(fl_mpm_push, time, 60);
OFFSET(fl_mpm_push, mass_scale, 76);
OFFSET(fl_mpm_push, momentum_scale, 80);
OFFSET(fl_mpm_push, beta, 92);
OFFSET(fl_mpm_push, count, 96);
OFFSET(fl_mpm_push, arg, 108);
OFFSET(fl_mpm_push, block_capacity, 112);
OFFSET(fl_mpm_push, block_grid_y, 124);

SIZE(fl_hash_push, 16);
OFFSET(fl_hash_push, table_size, 12);
SIZE(fl_scan_push, 16);
OFFSET(fl_scan_push, flags, 4);
SIZE(fl_sort_push, 16);
OFFSET(fl_sort_push, shift, 8);
SIZE(fl_reduce_push, 16);
OFFSET(fl_reduce_push, flags, 12);

SIZE(fl_frame_uniforms, 4 * 64 + 4 * 16);
OFFSET(fl_frame_uniforms, light_view_proj, 240);
OFFSET(fl_frame_uniforms, shadow_size, 304);
OFFSET(fl_frame_uniforms, shadow_strength, 312);
OFFSET(fl_frame_uniforms, eye, 192);
OFFSET(fl_frame_uniforms, time, 204);
OFFSET(fl_frame_uniforms, ground_height, 220);
OFFSET(fl_frame_uniforms, viewport, 224);

SIZE(fl_draw_push, 64);
OFFSET(fl_draw_push, rotation, 32);
OFFSET(fl_draw_push, radius, 28);
OFFSET(fl_draw_push, look, 48);

SIZE(fl_snow_push, 96);
OFFSET(fl_snow_push, radius, 28);
OFFSET(fl_snow_push, h, 44);
OFFSET(fl_snow_push, dims, 48);
OFFSET(fl_snow_push, max_steps, 60);
OFFSET(fl_snow_push, rest_density, 64);
OFFSET(fl_snow_push, axis, 80);

SIZE(fl_gpu_distance, 32);
SIZE(fl_gpu_bend, 48);
SIZE(fl_gpu_area, 32);
SIZE(fl_gpu_tether, 16);
OFFSET(fl_xpbd_push, tethers, 116);
OFFSET(fl_gpu_tether, rest0, 8);
SIZE(fl_gpu_xpbd_object, 80);
_Static_assert(sizeof(fl_gpu_xpbd_object) == 16 * FL_XPBD_OBJECT_ROWS, "xpbd/contact_rows.glsl's row count");
/* xpbd/contact_rows.glsl reads these as rows 0 and 2 of the record. */
OFFSET(fl_gpu_xpbd_object, static_friction, 0);
OFFSET(fl_gpu_xpbd_object, kinetic_friction, 4);
OFFSET(fl_gpu_xpbd_object, thickness, 8);
OFFSET(fl_gpu_xpbd_object, self_collision, 40);
OFFSET(fl_gpu_xpbd_object, body, 44);
SIZE(fl_gpu_tet, 80);
SIZE(fl_gpu_body, 64);
SIZE(fl_gpu_skin, 32);

_Static_assert(sizeof(fl_particles_push) <= 128 && sizeof(fl_mpm_push) <= 128 && sizeof(fl_snow_push) <= 128,
               "push constants beyond the guaranteed 128 bytes");
_Static_assert(FL_SCENE_MAX_OBJECTS <= FL_MAX_COLLIDERS, "every scene object could be a collider");
_Static_assert(FL_GPU_SHAPE_PLANE == FL_SHAPE_PLANE && FL_GPU_SHAPE_SPHERE == FL_SHAPE_SPHERE &&
                   FL_GPU_SHAPE_BOX == FL_SHAPE_BOX && FL_GPU_SHAPE_CAPSULE == FL_SHAPE_CAPSULE &&
                   FL_GPU_SHAPE_MESH == FL_SHAPE_MESH,
               "shape numbering differs between C and GLSL");
