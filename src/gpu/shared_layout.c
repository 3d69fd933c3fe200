/* gpu/shared_layout: compile-time checks that the C view of
 * shaders/common/flurry_shared.h matches the std430/std140 layout GLSL uses. */
#include <stddef.h>

#include "flurry_shared.h"
#include "scene/scene.h"

_Static_assert(sizeof(fl_gpu_collider) == 64, "fl_gpu_collider must be 4 vec4s");
_Static_assert(offsetof(fl_gpu_collider, velocity) == 32, "fl_gpu_collider.velocity offset");
_Static_assert(sizeof(fl_particles_push) == 80, "fl_particles_push must be 5 vec4s");
_Static_assert(sizeof(fl_particles_push) <= 128, "push constants beyond the guaranteed 128 bytes");
_Static_assert(sizeof(fl_count_push) == 16, "fl_count_push must be 1 uvec4");
_Static_assert(sizeof(fl_frame_uniforms) == 3 * 64 + 3 * 16, "fl_frame_uniforms layout");
_Static_assert(sizeof(fl_draw_push) == 32, "fl_draw_push must be 2 vec4s");
_Static_assert(sizeof(fl_snow_push) == 80, "fl_snow_push must be 5 vec4s");
_Static_assert(offsetof(fl_snow_push, dims) == 48, "fl_snow_push.dims offset");
_Static_assert(sizeof(fl_gpu_distance) == 32, "fl_gpu_distance must be 2 vec4s");
_Static_assert(sizeof(fl_gpu_bend) == 48, "fl_gpu_bend must be 3 vec4s");
_Static_assert(sizeof(fl_gpu_cloth_object) == 64, "fl_gpu_cloth_object must be 4 vec4s");
_Static_assert(sizeof(fl_gpu_tet) == 80, "fl_gpu_tet must be 5 vec4s");
_Static_assert(sizeof(fl_gpu_body) == 48, "fl_gpu_body must be 3 vec4s");
_Static_assert(sizeof(fl_gpu_skin) == 32, "fl_gpu_skin must be 2 vec4s");
_Static_assert(sizeof(fl_cloth_push) == 80, "fl_cloth_push must be 5 vec4s");
_Static_assert(sizeof(fl_ms_push) == 64, "fl_ms_push must be 4 vec4s");
_Static_assert(sizeof(fl_pick_push) == 48, "fl_pick_push must be 3 vec4s");
_Static_assert(FL_SCENE_MAX_OBJECTS <= FL_MAX_COLLIDERS, "every scene object could be a collider");
_Static_assert(FL_GPU_SHAPE_PLANE == FL_SHAPE_PLANE && FL_GPU_SHAPE_SPHERE == FL_SHAPE_SPHERE &&
                   FL_GPU_SHAPE_BOX == FL_SHAPE_BOX && FL_GPU_SHAPE_CAPSULE == FL_SHAPE_CAPSULE,
               "shape numbering differs between C and GLSL");
