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
  vec4 params;      /* x: time at the end of the substep (s), y: friction scale, z: 1 = tetrahedral normals */
  uvec4 counts;     /* x: particle count, y: collider count */
FL_STRUCT_END(fl_particles_push)

/* Push constants of shaders/common/mesh_normals.comp and copy.comp. */
FL_STRUCT_BEGIN(fl_count_push)
  uvec4 counts;     /* x: element count, y: secondary count (triangles) */
FL_STRUCT_END(fl_count_push)

/* ---- XPBD cloth (src/sim/cloth/cloth.h has the algorithm) ---- */

/* Distance constraint (stretch or shear) between particles i and j. */
FL_STRUCT_BEGIN(fl_gpu_distance)
  uvec4 ij;         /* x: i, y: j, z: kind (FL_DISTANCE_STRETCH or FL_DISTANCE_SHEAR), w: unused */
  vec4 params;      /* x: rest length (m), y: compliance (m/N), zw: unused */
FL_STRUCT_END(fl_gpu_distance)

#define FL_DISTANCE_STRETCH 0
#define FL_DISTANCE_SHEAR 1
#define FL_DISTANCE_EDGE 2     /* a soft body tet edge, or a balloon edge */

/* Bending constraint on the stencil of an interior edge: idx.x, idx.y are the
 * edge's particles, idx.z and idx.w the two opposite ones. */
FL_STRUCT_BEGIN(fl_gpu_bend)
  uvec4 idx;
  vec4 k;           /* isometric: K = (c03 + c04, c01 + c02, -c01 - c03, -c02 - c04) (cloth_spec.h); dihedral: unused */
  vec4 params;      /* x: dihedral rest angle (rad) | isometric 3/(A0 + A1); y: compliance; z: model (FL_BEND_*) */
FL_STRUCT_END(fl_gpu_bend)

#define FL_BEND_DIHEDRAL 0
#define FL_BEND_ISOMETRIC 1

/* Per cloth object parameters, indexed by the per-particle object id. */
FL_STRUCT_BEGIN(fl_gpu_cloth_object)
  vec4 contact;     /* x: static friction, y: kinetic friction, z: thickness (m), w: damping (1/s) */
  vec4 wind;        /* xyz: wind velocity (m/s), w: drag coefficient */
  vec4 params;      /* x: lift coefficient, y: damping model (0 point, 1 edge), z: self-collision (0/1),
                     * w: 1 = a body (soft body or balloon: collides with every other object) */
  uvec4 grid;       /* x: first particle, y: particle count, z: nx, w: ny */
FL_STRUCT_END(fl_gpu_cloth_object)

/* Push constants of the kernels in shaders/cloth/. */
FL_STRUCT_BEGIN(fl_cloth_push)
  vec4 gravity_dt;  /* xyz: gravity, w: substep length h (s) */
  vec4 domain_min;  /* xyz: domain min, w: time at the end of the substep (s) */
  vec4 domain_max;  /* xyz: domain max, w: Jacobi over-relaxation omega */
  uvec4 range;      /* x: first element, y: element count, z: collider count, w: particle count */
  vec4 hash;        /* x: 1 / hash cell size, y: hash table size (a power of two) (self-collision);
                     * z: 1 = tetrahedral collider normals */
FL_STRUCT_END(fl_cloth_push)

/* Push constants of common/pick.comp and common/drag.comp (any vec4 positions). */
FL_STRUCT_BEGIN(fl_pick_push)
  vec4 origin;      /* xyz: ray origin, w: pick radius (m) around the ray */
  vec4 direction;   /* xyz: unit ray direction | drag: target point; w: drag compliance */
  uvec4 counts;     /* x: particle count, y: pass (0: nearest key, 1: its index) | drag: particle index; z: first;
                     * w: pick: the target (its result is result[2w], result[2w + 1]) */
FL_STRUCT_END(fl_pick_push)

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

/* Push constants of the snow passes: render/snow (impostors shaded by density),
 * render/snow_bricks.comp and snow_brick_distance.comp (the occupied bricks of
 * the density grid and each brick's distance to them) and render/snow_volume
 * (the grid's density ray-marched through the occupied bricks' box). */
FL_STRUCT_BEGIN(fl_snow_push)
  vec4 color;       /* rgb: colour of packed snow, a: alpha */
  vec4 offset;      /* impostors: xyz translation added to positions, w: particle radius (m) */
  vec4 grid;        /* volume: xyz position of node (0,0,0), w: node spacing h (m) */
  uvec4 dims;       /* xyz: nodes per axis; w: volume: the most ray-march steps | brick distance: the axis */
  vec4 params;      /* x: rest density rho0 (kg/m^3), y: volume extinction at rho0 (1/m),
                     * z: volume step length (m), w: density below which the volume is empty (kg/m^3) */
FL_STRUCT_END(fl_snow_push)

/* Cells per side of a brick of the snow volume's empty-space skipping, and
 * the largest brick distance it computes (Chebyshev, in bricks). */
#define FL_SNOW_BRICK 2
#define FL_SNOW_BRICK_FAR 8

/* ---- XPBD soft bodies and balloons (src/sim/softbody/softbody_spec.h has the algorithm) ---- */

/* A tetrahedron constraint on particles idx (positive rest volume). The
 * "volume" model is one record per tet; the Neo-Hookean model (Macklin &
 * Müller 2021) is two records per tet, a hydrostatic and a deviatoric one. */
FL_STRUCT_BEGIN(fl_gpu_tet)
  uvec4 idx;
  vec4 params;      /* x: rest volume V0 (m^3), y: compliance, z: model (FL_TET_*), w: NH hydrostatic gamma */
  vec4 dm_inv[3];   /* NH: rows of the inverse rest shape matrix Dm^-1 (xyz) */
FL_STRUCT_END(fl_gpu_tet)

#define FL_TET_VOLUME 0        /* C = V - V0 */
#define FL_TET_NH_HYDROSTATIC 1 /* C = det F - gamma, compliance 1/(lambda V0) */
#define FL_TET_NH_DEVIATORIC 2  /* C = sqrt(tr F^T F), compliance 1/(mu V0) */

/* A closed body (softbody surface or balloon): its particles and surface
 * triangles (ranges into the system's arrays) and its volume constraints. */
FL_STRUCT_BEGIN(fl_gpu_body)
  uvec4 range;      /* x: first particle, y: particle count, z: first triangle, w: triangle count */
  vec4 volume;      /* x: rest volume V0 (m^3), y: target factor k (pressure; 1 for soft bodies),
                     * z: pressure compliance, w: 1 = the overpressure constraint is on (balloons) */
  vec4 conserve;    /* x: FL_CONSERVE_*, y: local mixing alpha, z: measure_after (s), w: unused */
FL_STRUCT_END(fl_gpu_body)

/* cloth/body_volume.comp: one workgroup per body (shared arrays sized for at most this). */
#define FL_BODY_WORKGROUP 256
#define FL_BODY_PASS_SOLVE 0u   /* range.x: overpressure then conservation, every iteration */
#define FL_BODY_PASS_MEASURE 1u /* range.x: volume into the state after the substep */

#define FL_CONSERVE_NONE 0
#define FL_CONSERVE_GLOBAL 1
#define FL_CONSERVE_LOCAL 2

/* Per body state on the GPU: vec4 x: volume after the last substep, y: the
 * overpressure lambda of this substep, z: the smallest volume / (k V0) seen
 * since measure_after, w: the largest (start at 1e30 and 0). */
#define FL_BODY_STATE_VEC4S 1

/* A render vertex skinned to a tet: p = sum_k weights[k] x[idx[k]]. */
FL_STRUCT_BEGIN(fl_gpu_skin)
  uvec4 idx;
  vec4 weights;
FL_STRUCT_END(fl_gpu_skin)

/* ---- Mass-spring cloth, Kang 2018 (src/sim/massspring/ms_spec.h has the algorithm) ---- */

/* Flags of fl_ms_push.counts.y. */
#define FL_MS_FLAG_HYBRID 1u     /* setup: b = (b + phi) / 2 (HY, Eq. 32) */
#define FL_MS_FLAG_MOMENTUM 2u   /* HO impulse split: +phi / -phi (else the paper's Eq. 22) */
#define FL_MS_FLAG_DEFINITE 4u   /* Jacobian: clamp 1 - l0/l to >= 0 */
#define FL_MS_FLAG_CG 8u         /* setup: start CG (dv = 0, r = p = b) instead of Jacobi */

/* Result slots of the CG reductions (floats in the results buffer). */
#define FL_MS_SLOT_BB 0          /* b . b */
#define FL_MS_SLOT_PQ 1          /* p . A p */
#define FL_MS_SLOT_RR0 2         /* r . r, two slots used alternately */
#define FL_MS_SLOT_RR1 3
#define FL_MS_SLOT_ITERATIONS 4  /* CG iterations that changed dv this step */
#define FL_MS_SLOT_STOP 5        /* 1 after a breakdown (p . A p <= 0) */
#define FL_MS_SLOT_COUNT 6

/* Words of the status buffer. */
#define FL_MS_STATUS_DIVERGED 0  /* set by check (atomicOr); cleared each frame when resetting */
#define FL_MS_STATUS_RESETS 1    /* resets so far */
#define FL_MS_STATUS_WORDS 4

/* Push constants of every kernel in shaders/massspring/. */
FL_STRUCT_BEGIN(fl_ms_push)
  vec4 gravity_h;   /* xyz: gravity, w: step h (s) */
  vec4 params;      /* x: stiffness kappa, y: damping c_d, z: divergence strain, w: CG tolerance^2 */
  uvec4 counts;     /* x: particle count, y: FL_MS_FLAG_*, zw: unused */
  uvec4 cg;         /* x: slot of r.r before the iteration, y: after, z: iteration, w: unused */
FL_STRUCT_END(fl_ms_push)

#endif
