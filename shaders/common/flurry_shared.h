/* shaders/common/flurry_shared.h: struct layouts and workgroup sizes shared by
 * C and GLSL. Every struct is std430/std140-compatible (vec4 members only) and
 * its C size is checked by a static assert in src/gpu/shared_layout.c. */
#ifndef FLURRY_SHARED_H
#define FLURRY_SHARED_H

#ifdef VULKAN /* GLSL */
#define FL_STRUCT_BEGIN(name) struct name {
#define FL_STRUCT_END(name) };
#else /* C */
#include <cglm/cglm.h>
#include <stdint.h>
typedef CGLM_ALIGN(16) uint32_t uvec4[4];
#define FL_STRUCT_BEGIN(name) typedef struct name {
#define FL_STRUCT_END(name) } name;
#endif

/* Default workgroup size of the 1D compute kernels; the real one is a
 * specialization constant (constant_id 0) chosen at pipeline creation. */
#define FL_WORKGROUP_SIZE 64

/* Colliders live in a uniform buffer of this many records (4 KiB): read by
 * every thread at the same index, they take the constant-cache path. */
#define FL_MAX_COLLIDERS 64

/* Collider shapes (the values of fl_collider_shape, checked in src/gpu/shared_layout.c). */
#define FL_GPU_SHAPE_PLANE 0
#define FL_GPU_SHAPE_SPHERE 1
#define FL_GPU_SHAPE_BOX 2
#define FL_GPU_SHAPE_CAPSULE 3

/* One collider, as every material sees it through shaders/common/sdf.glsl.
 * Position at time t: the stored shape translated by velocity.xyz * t. */
FL_STRUCT_BEGIN(fl_gpu_collider)
  vec4 p0;       /* plane: normal.xyz, offset | sphere/box: center.xyz, radius | capsule: a.xyz, radius */
  vec4 p1;       /* box: half_extents.xyz | capsule: b.xyz */
  vec4 velocity; /* xyz: velocity (m/s), w: friction coefficient */
  uvec4 info;    /* x: shape, y: 1 = container (solid outside), zw: unused */
FL_STRUCT_END(fl_gpu_collider)

/* Push constants of the kernels in shaders/particles/. */
FL_STRUCT_BEGIN(fl_particles_push)
  vec4 gravity_dt;  /* xyz: gravity, w: substep length (s) */
  vec4 domain_min;  /* xyz: domain min, w: particle radius */
  vec4 domain_max;  /* xyz: domain max, w: restitution */
  vec4 params;      /* x: time at the end of the substep (s), y: friction scale */
  uvec4 counts;     /* x: particle count, y: collider count */
FL_STRUCT_END(fl_particles_push)

/* Push constants of shaders/common/mesh_normals.comp and copy.comp. */
FL_STRUCT_BEGIN(fl_count_push)
  uvec4 counts;     /* x: element count, y: secondary count (triangles) */
FL_STRUCT_END(fl_count_push)

/* Per-frame camera and lighting, a uniform buffer read by every render pass. */
FL_STRUCT_BEGIN(fl_frame_uniforms)
  mat4 view;
  mat4 proj;
  mat4 view_proj;
  vec4 eye;         /* xyz: camera position */
  vec4 light_dir;   /* xyz: direction towards the light, normalized */
  vec4 viewport;    /* xy: size in pixels, z: time (s), w: ground height */
FL_STRUCT_END(fl_frame_uniforms)

/* Push constants of the mesh and particle draws. */
FL_STRUCT_BEGIN(fl_draw_push)
  vec4 color;       /* rgb: base colour, a: alpha */
  vec4 offset;      /* xyz: translation added to positions, w: particle radius */
FL_STRUCT_END(fl_draw_push)

#endif
