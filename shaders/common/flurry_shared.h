/* shaders/common/flurry_shared.h: struct layouts and workgroup sizes shared by
 * C and GLSL. Every field has a name: a value keeps its name from the scene
 * key to the shader. Layouts follow std430 (push constants, storage buffers)
 * and std140 (the frame uniforms) by construction: members are 4-byte scalars,
 * vec4s, and vec3/uvec3s that start a 16-byte row and are followed by one
 * scalar; so C (cglm's vec3 is float[3]) and GLSL agree. Each struct's size
 * and field offsets are checked by static asserts in src/sim/shared_layout.c. */
#ifndef FLURRY_SHARED_H
#define FLURRY_SHARED_H

#ifdef VULKAN /* GLSL */
#define FL_STRUCT_BEGIN(name) struct name {
#define FL_STRUCT_END(name) };
#else /* C */
#include <cglm/cglm.h>
#include <stdint.h>
typedef CGLM_ALIGN(16) uint32_t uvec4[4];
typedef uint32_t uvec3[3];
typedef uint32_t uint;
#define FL_STRUCT_BEGIN(name) typedef struct name {
#define FL_STRUCT_END(name) } name;
#endif

/* Default workgroup size of the 1D compute kernels; the real one is a
 * specialization constant (constant_id 0) chosen at pipeline creation. */
#define FL_WORKGROUP_SIZE 64

/* Colliders live in one read-only storage buffer (the collider block): this
 * many records, then a tail of floats holding the keyframes and the baked
 * mesh SDF grids the records point into (shaders/common/sdf.glsl). */
#define FL_MAX_COLLIDERS 64

/* Collider features: which collider code the kernels that include
 * shaders/common/sdf.glsl keep, a specialization constant (constant_id 1,
 * FL_COLLIDER_FEATURES_SPEC_ID) folded at pipeline creation, so that llvmpipe,
 * which runs both sides of every branch, does not pay for what the scene lacks.
 * 0: translation only (position - velocity * moved time). fl_gpu.collider_features
 * holds the value; the world sets it from its colliders (fl_collider_features). */
#define FL_COLLIDER_FEATURES_SPEC_ID 1
#define FL_COLLIDER_FEATURE_ROTATION 1u /* angular velocity or keyframes */
#define FL_COLLIDER_FEATURE_MESH 2u     /* mesh shapes (the baked SDF grid in the tail) */
#define FL_COLLIDER_FEATURES_ALL 3u

/* Collider shapes (the values of fl_collider_shape, checked in src/gpu/shared_layout.c). */
#define FL_GPU_SHAPE_PLANE 0
#define FL_GPU_SHAPE_SPHERE 1
#define FL_GPU_SHAPE_BOX 2
#define FL_GPU_SHAPE_CAPSULE 3
#define FL_GPU_SHAPE_MESH 4

/* Floats per keyframe in the block's tail: t, position xyz, rotation quaternion xyzw,
 * then the rotation vector (world axes, rad) that turns it into the next keyframe's
 * the shorter way round (zero for the last), and one unused. */
#define FL_COLLIDER_KEYFRAME_FLOATS 12

/* One collider, as every material sees it through shaders/common/sdf.glsl.
 * The shape (a, b, r, or the grid) is given at rest, as the scene places it.
 * Its pose at time t is a rigid motion about the pivot: a point x of the rest
 * shape is at R(t) (x - pivot) + pivot + d(t). Without keyframes, d(t) =
 * velocity * m and R(t) = rotation by angular_velocity * m, m being t or
 * move_until once the collider stopped; with keyframes, d and R interpolate
 * the keyframes (linear, and slerp at constant angular velocity). */
FL_STRUCT_BEGIN(fl_gpu_collider)
  vec3 a;           /* plane: unit normal | sphere, box: centre | capsule: first end */
  float r;          /* plane: offset along the normal | sphere, capsule: radius (m) */
  vec3 b;           /* box: half extents | capsule: second end */
  float move_until; /* the collider stops moving at this time (s); 0: never */
  vec3 velocity;    /* m/s */
  float friction;   /* Coulomb coefficient */
  vec3 angular_velocity; /* rad/s about the pivot (world axes) */
  uint keyframe_count;   /* > 0: the pose follows the keyframes instead */
  vec3 pivot;       /* the rest point rotations turn about (m) */
  uint keyframe_offset;  /* first float of its keyframes in the block's tail */
  vec3 grid_min;    /* mesh: the rest position of SDF grid node (0,0,0) */
  float grid_cell;  /* mesh: node spacing (m) */
  uvec3 grid_dims;  /* mesh: nodes per axis */
  uint grid_offset; /* mesh: first float of its grid (x fastest) in the block's tail */
  uint shape;       /* FL_GPU_SHAPE_* */
  uint inside;      /* 1: a container (solid outside) */
  uint index;       /* its place in the block (the CPU mirror finds the tail through it) */
  uint unused0;
FL_STRUCT_END(fl_gpu_collider)

/* Push constants of the kernels in shaders/particles/. */
FL_STRUCT_BEGIN(fl_particles_push)
  vec3 gravity;     /* m/s^2 */
  float h;          /* substep length (s) */
  vec3 domain_min;
  float radius;     /* particle radius (m) */
  vec3 domain_max;
  float restitution;
  float time;       /* at the end of the substep (s) */
  float friction;   /* scales each collider's friction coefficient */
  uint tetrahedral_normals; /* 1: collider normals from the tetrahedral SDF gradient */
  uint count;       /* particles */
  uint collider_count;
  uint unused0, unused1, unused2;
FL_STRUCT_END(fl_particles_push)

/* Push constants of kernels that need only a count: common/face_normals,
 * vertex_normals, copy, particles/publish, mpm/svd_test. */
FL_STRUCT_BEGIN(fl_count_push)
  uint count;       /* elements (triangles, vertices, vec4s, particles) */
  uint mode;        /* mpm/svd_test: 1 = the polar decomposition */
  uint unused0, unused1;
FL_STRUCT_END(fl_count_push)

/* ---- XPBD cloth (src/sim/xpbd/xpbd.h has the algorithm) ---- */

/* Distance constraint (stretch or shear) between particles i and j. */
FL_STRUCT_BEGIN(fl_gpu_distance)
  uint i, j;        /* the particles */
  uint kind;        /* FL_DISTANCE_* */
  uint unused0;
  float rest;       /* rest length (m) */
  float compliance; /* m/N */
  float unused1, unused2;
FL_STRUCT_END(fl_gpu_distance)

#define FL_DISTANCE_STRETCH 0u
#define FL_DISTANCE_SHEAR 1u
#define FL_DISTANCE_EDGE 2u    /* a soft body tet edge, or a balloon edge */

/* The long range attachments of particle k (xpbd/tether.glsl): it may be no farther than rest0 from pinned
 * particle pin0, its nearest pin across the sheet at rest (that distance), nor than rest1 from pin1, the
 * nearest pin on the other side of it (the rest directions to the two at more than 90 degrees: the far
 * edge of a hammock); FL_TETHER_NONE: no such pin. */
FL_STRUCT_BEGIN(fl_gpu_tether)
  uint pin0, pin1;
  float rest0, rest1; /* m */
FL_STRUCT_END(fl_gpu_tether)

#define FL_TETHER_NONE 0xFFFFFFFFu
#define FL_TETHER_ROUNDS 4 /* projections onto the two in turn (xpbd/tether.glsl) */

/* Bending constraint on the stencil of an interior edge: idx.x, idx.y are the
 * edge's particles, idx.z and idx.w the two opposite ones. */
FL_STRUCT_BEGIN(fl_gpu_bend)
  uvec4 idx;
  vec4 k;           /* isometric: K = (c03 + c04, c01 + c02, -c01 - c03, -c02 - c04) (xpbd_spec.h); dihedral: unused */
  float rest;       /* dihedral: the rest angle (rad) | isometric: 3 / (A0 + A1) */
  float compliance;
  uint model;       /* FL_BEND_* */
  float rest_s;     /* isometric: |sum K_k x_k| of the rest shape (m), 0 for a flat stencil; dihedral: unused */
FL_STRUCT_END(fl_gpu_bend)

#define FL_BEND_DIHEDRAL 0u
#define FL_BEND_ISOMETRIC 1u

/* Triangle area constraint of a cloth triangle (survey "Triangle area
 * conservation"; docs/AREA.md): C = |(x1 - x0) x (x2 - x0)| / 2 - A0 on
 * idx.x, idx.y, idx.z (idx.w unused: the family has three particles). */
FL_STRUCT_BEGIN(fl_gpu_area)
  uvec4 idx;
  float rest;       /* A0 (m^2) */
  float compliance; /* m^3/N (C is an area: the energy C^2 / (2 compliance) is in J) */
  uint unused0, unused1;
FL_STRUCT_END(fl_gpu_area)

/* Per object parameters of the XPBD system (cloth, soft bodies, balloons),
 * indexed by the per-particle object id. */
FL_STRUCT_BEGIN(fl_gpu_xpbd_object)
  float static_friction, kinetic_friction;
  float thickness;  /* m */
  float damping;    /* 1/s */
  vec3 wind;        /* wind velocity (m/s) */
  float drag;       /* drag coefficient */
  float lift;       /* lift coefficient */
  uint damping_model; /* FL_DAMPING_MODEL_* */
  uint self_collision; /* FL_SELF_PARTICLES or FL_SELF_TRIANGLES: collides with itself, 0: not */
  uint body;        /* 1: a soft body or balloon (collides with every other object) */
  uint first;       /* first particle */
  uint count;       /* particles */
  uint nx, ny;      /* cloth: the grid */
  float gust;       /* gust amplitude a (0: steady wind), gust_shared.h */
  float gust_inv_period; /* 1 / gust period (1/s) */
  float gust_inv_length; /* 1 / gust length (1/m) */
  uint contact_guard; /* 1: sim.contact_guard asked for the contact guard (docs/CLOTH.md "The contact guard") */
FL_STRUCT_END(fl_gpu_xpbd_object)
/* Its size in vec4 rows (xpbd/contact_rows.glsl reads it as rows). */
#define FL_XPBD_OBJECT_ROWS 5u

#define FL_DAMPING_MODEL_POINT 0u
#define FL_DAMPING_MODEL_EDGE 1u
#define FL_DAMPING_MODEL_GLOBAL 2u

/* Push constants of the kernels in shaders/xpbd/ (the XPBD system). */
FL_STRUCT_BEGIN(fl_xpbd_push)
  vec3 gravity;     /* m/s^2 */
  float h;          /* substep length (s) */
  vec3 domain_min;
  float time;       /* at the end of the substep (s) */
  vec3 domain_max;
  float omega;      /* Jacobi over-relaxation: the weight of averaged corrections */
  uint first;       /* the pass's first element (constraint of a colour); a one-workgroup sweep: 1 backward */
  uint count;       /* the pass's elements (constraints, triangles, bodies, drawn vertices); a sweep: its colours */
  uint collider_count;
  uint particle_count;
  float inv_hash_cell; /* self-collision: 1 / hash cell size (m^-1) */
  uint hash_table_size; /* self-collision: entries of the spatial hash (a power of two) */
  uint tetrahedral_normals; /* 1: collider normals from the tetrahedral SDF gradient */
  uint body_pass;   /* body_volume: FL_BODY_PASS_SOLVE or FL_BODY_PASS_MEASURE */
  float inv_tri_cell; /* triangle contacts: 1 / cell size of the triangle hash (m^-1) */
  uint tri_table_size; /* triangle contacts: entries of the triangle hash */
  uint edge_count;  /* triangle contacts: unique edges of the colliding meshes */
  uint triangle_count; /* every triangle of the system */
  float tri_margin; /* triangle contacts: how far a triangle's box is grown before it is hashed (m) */
  uint integrator;  /* FL_XPBD_EULER, FL_XPBD_BDF2_START (an Euler step that starts BDF2's history) or FL_XPBD_BDF2 */
  float solve_h;    /* the step of the compliance term alpha / solve_h^2: h for Euler, 2 h / 3 for BDF2 */
  uint tri_pairs_per; /* triangle contacts: the pair list's room per particle and per edge (fl_tri_contacts) */
  uint distance_mode; /* xpbd/distance_gs and distance_sweep: FL_DISTANCE_* below (0: the fine solve) */
  uint tethers;     /* 1: some particle has tethers, which xpbd/contacts applies first (xpbd/tether.glsl) */
  uint unused_push1; /* to 128 bytes, the guaranteed push-constant size */
  float tri_guard;  /* triangle contacts: the contact guard's bound on every vertex's move in a substep (m), 0: off */
FL_STRUCT_END(fl_xpbd_push)

/* fl_xpbd_push.distance_mode: what xpbd/distance_gs does with a colour of constraints. */
#define FL_DISTANCE_SOLVE 0u     /* the XPBD update (Macklin 2016), both ways */
#define FL_DISTANCE_STRETCHED 1u /* the same, only where C > 0 (hierarchical PBD's unilateral coarse constraints) */
#define FL_DISTANCE_APPLY 2u     /* x += w grad C lambda with the stored lambda, unchanged (hierarchy.h: the carry) */

/* fl_xpbd_push.integrator: how predict and velocity step the XPBD system (survey, NOTES.md "BDF2 variant"). */
#define FL_XPBD_EULER 0u
#define FL_XPBD_BDF2_START 1u
#define FL_XPBD_BDF2 2u

/* fl_gpu_xpbd_object.self_collision: particle contacts, or particle and triangle contacts. */
#define FL_SELF_PARTICLES 1u
#define FL_SELF_TRIANGLES 2u
/* Triangle contacts (docs/CLOTH.md) sum their corrections in fixed point, 2^24
 * units per metre, with integer atomics: the sum does not depend on the order. */
#define FL_TRI_FIXED 16777216.0
/* Triangle contacts: the bit of a triangle's owner word set when it collides (bits 0-2: its edges). */
#define FL_TRI_COLLIDES 8u
/* Triangle contacts: the bit of a triangle's box meta word (xpbd/tri_keys) set for a body's triangle. */
#define FL_TRI_BODY 16u
/* Triangle contacts: the candidate pair list (xpbd/tri_pairs; binding
 * FL_XPBD_B_TRI_LIST): a head of FL_TRI_LIST_HEAD words, then room for
 * tri_pairs_per (at least FL_TRI_PAIRS_PER) vertex-triangle pairs per
 * particle, then as many edge pairs per unique edge (uvec2 each). The head's words: */
#define FL_TRI_PAIRS_PER 16u
#define FL_TRI_LIST_HEAD 16u
#define FL_TRI_LIST_VERTEX_ARGS 0u /* 3 words: the dispatch of tri_vertex, one thread a pair */
#define FL_TRI_LIST_EDGE_ARGS 3u   /* 3 words: the dispatch of tri_edge */
#define FL_TRI_LIST_VERTEX_COUNT 6u /* vertex-triangle pairs found this substep (may exceed the room) */
#define FL_TRI_LIST_EDGE_COUNT 7u  /* edge-edge pairs found */
#define FL_TRI_LIST_OVERFLOW 8u    /* sticky: nonzero once a list had more pairs than room */
/* The contact guard (docs/CLOTH.md "The contact guard"; Wu, Wang and Wang 2021):
 * the pair list is found at the substep's start within FL_TRI_GUARD_LIST x
 * reach, and each vertex moves at most FL_TRI_GUARD_SHARE (< 1/2) of the start
 * distance of every listed pair it is in, and of the smallest listing radius. */
#define FL_TRI_GUARD_LIST 2.0
#define FL_TRI_GUARD_SHARE 0.45
/* ... less FL_TRI_GUARD_ULPS float epsilons of the vertex's largest coordinate:
 * the rounding of the distances and of the clamp (a pair closer than that is
 * held still). */
#define FL_TRI_GUARD_ULPS 8.0

/* Push constants of common/pick.comp and common/drag.comp (any vec4 positions). */
FL_STRUCT_BEGIN(fl_pick_push)
  vec3 origin;      /* pick: the ray's origin */
  float radius;     /* pick: how far from the ray a particle may be (m) */
  vec3 direction;   /* pick: the ray's unit direction */
  float h;          /* drag: the substep length (s) */
  vec3 target;      /* drag: where the held particle is pulled */
  float compliance; /* drag: XPBD compliance of the attachment (m/N) */
  uint first;       /* the positions' first particle */
  uint count;       /* and how many */
  uint pass;        /* pick: 0 finds the nearest distance, 1 the smallest index at it */
  uint index;       /* pick: the target's result slot (result[2 index], result[2 index + 1]) | drag: the particle */
FL_STRUCT_END(fl_pick_push)

/* The health watch (src/sim/common/health.h): each particle of an object is
 * checked once a frame; a bad one sets bits of the object's sticky flag word. */
#define FL_HEALTH_NOT_FINITE 1u /* a position or velocity is NaN or infinite */
#define FL_HEALTH_TOO_FAST 2u   /* a speed above max_speed: a blow-up */
#define FL_HEALTH_GRID_FULL 4u  /* snow: the sparse grid had no block left for some particles */
#define FL_HEALTH_CONTACTS_FULL 8u /* cloth: more triangle-contact candidate pairs than the list holds */
#define FL_HEALTH_STRETCHED 16u    /* XPBD: a distance constraint strained past max_strain, (L - L0) / L0 */
FL_STRUCT_BEGIN(fl_health_push)
  uint first;       /* the buffers' first particle of the object */
  uint count;       /* and how many */
  uint word;        /* the object's flag word (snow: the first snow object's; + its material) */
  float max_speed;  /* m/s (sim.max_speed) */
FL_STRUCT_END(fl_health_push)

/* xpbd/strain_health: every XPBD object's distance constraints against sim.max_strain. */
FL_STRUCT_BEGIN(fl_strain_health_push)
  uint constraints;  /* the distance family's records, every object's */
  float max_strain;  /* sim.max_strain: (L - L0) / L0 */
FL_STRUCT_END(fl_strain_health_push)

/* Per-frame camera and lighting, a uniform buffer read by every render pass. */
FL_STRUCT_BEGIN(fl_frame_uniforms)
  mat4 view;
  mat4 proj;
  mat4 view_proj;
  vec3 eye;         /* camera position */
  float time;       /* simulated time of the frame (s) */
  vec3 light_dir;   /* towards the light, normalized */
  float ground_height; /* y of the ground plane drawn */
  vec2 viewport;    /* size in pixels */
  float unused0, unused1;
  mat4 light_view_proj; /* world -> the shadow map's clip space (orthographic, render/shadow.h) */
  uint shadow_size;     /* the shadow map's side in texels; 0: no shadows */
  float shadow_bias;    /* depth bias of the lookup, in the map's depth units */
  float shadow_strength; /* 0..1: how much of the direct light a shadow removes */
  float unused2;
FL_STRUCT_END(fl_frame_uniforms)

/* Push constants of the mesh and particle draws. */
FL_STRUCT_BEGIN(fl_draw_push)
  vec4 color;       /* rgb: base colour, a: alpha */
  vec3 offset;      /* translation added to positions (moving colliders) */
  float radius;     /* particle radius (m) */
  vec4 rotation;    /* meshes: unit quaternion xyzw turning positions and normals before
                     * the offset (moving colliders); zero: none */
  uint look;        /* meshes: FL_LOOK_*, how render/mesh.frag shades the material */
  uint unused0, unused1, unused2;
FL_STRUCT_END(fl_draw_push)
#define FL_LOOK_PLAIN 0u  /* colliders: matte */
#define FL_LOOK_FABRIC 1u /* cloth: light wraps around the thin sheet, sheen at grazing angles */
#define FL_LOOK_GLOSSY 2u /* soft bodies and balloons: a sharp highlight and a bright rim */

/* Push constants of the snow passes: render/snow (impostors shaded by density),
 * render/snow_bricks.comp and snow_brick_distance.comp (the occupied bricks of
 * the density grid and each brick's distance to them) and render/snow_volume
 * (the grid's density ray-marched through the occupied bricks' box). */
FL_STRUCT_BEGIN(fl_snow_push)
  vec4 color;       /* rgb: colour of packed snow, a: alpha */
  vec3 offset;      /* impostors: translation added to positions */
  float radius;     /* impostors: particle radius (m) */
  vec3 grid_origin; /* position of node (0,0,0) */
  float h;          /* node spacing (m) */
  uvec3 dims;       /* nodes per axis */
  uint max_steps;   /* volume: the most ray-march steps */
  float rest_density; /* rho0 (kg/m^3) */
  float extinction; /* volume: extinction at rho0 (1/m) */
  float step;       /* volume: ray-march step length (m) */
  float empty_density; /* volume: density below which it is empty space (kg/m^3) */
  uint axis;        /* brick distance: the axis of this pass */
  float iso;        /* surface: the density ratio rho / rho0 of the drawn iso-surface */
  float loose_q;    /* impostors: > 0 draws only particles of density ratio below it (spray) */
  uint unused2;
FL_STRUCT_END(fl_snow_push)

/* Cells per side of a brick of the snow volume's empty-space skipping, and
 * the largest brick distance it computes (Chebyshev, in bricks). */
#define FL_SNOW_BRICK 2
#define FL_SNOW_BRICK_FAR 8

/* ---- XPBD soft bodies and balloons (src/sim/xpbd/softbody_spec.h has the algorithm) ---- */

/* A tetrahedron constraint on particles idx (positive rest volume), one record
 * per tet: the "volume" model, or both Neo-Hookean constraints of the tet
 * (Macklin & Müller 2021), solved together. The tet family keeps two
 * multipliers per record on the GPU, at lambda[2c] (volume or deviatoric) and
 * lambda[2c + 1] (hydrostatic; unused by the volume model). */
FL_STRUCT_BEGIN(fl_gpu_tet)
  uvec4 idx;
  float rest;       /* rest volume V0 (m^3) */
  float compliance; /* volume: of C = V - V0; Neo-Hookean: of the deviatoric constraint, 1/(mu V0) */
  uint model;       /* FL_TET_* */
  float gamma;      /* Neo-Hookean: the rest value of det F, 1 + mu/lambda */
  vec4 dm_inv[3];   /* NH: rows of the inverse rest shape matrix Dm^-1 (xyz); dm_inv[0].w: the
                     * hydrostatic constraint's compliance 1/(lambda V0) */
FL_STRUCT_END(fl_gpu_tet)

#define FL_TET_VOLUME 0u     /* C = V - V0 */
#define FL_TET_NEOHOOKEAN 1u /* C_D = sqrt(tr F^T F) and C_H = det F - gamma, one 2x2 solve */

/* A closed body (softbody surface or balloon): its particles and surface
 * triangles (ranges into the system's arrays) and its volume constraints. */
FL_STRUCT_BEGIN(fl_gpu_body)
  uint first_particle, particle_count;
  uint first_triangle, triangle_count;
  float rest_volume; /* V0 (m^3) */
  float pressure;   /* the target volume factor k (1 for soft bodies) */
  float pressure_compliance;
  uint overpressure; /* 1: the overpressure constraint is on (balloons) */
  uint conservation; /* FL_CONSERVE_* */
  float local_alpha; /* local conservation: the mixing weight */
  float measure_after; /* the worst volume loss is tracked from this time on (s) */
  uint velocity_correction; /* 1: Diziol's velocity correction dC/dt = 0 after the velocity update */
  float pair_beta;      /* local weights: the share beta of the opposite pair's distance change */
  float pair_stiffness; /* local weights: the pairs' stiffness s */
  float contact_radius; /* half its object's thickness: its particles' collider contact distance (m) */
  uint unused1;
FL_STRUCT_END(fl_gpu_body)

/* cloth/body_volume.comp: one workgroup per body (shared arrays sized for at most this). */
#define FL_BODY_WORKGROUP 256
#define FL_BODY_PASS_SOLVE 0u   /* body_pass: overpressure then conservation, every iteration */
#define FL_BODY_PASS_MEASURE 1u /* body_pass: volume into the state after the substep */
#define FL_BODY_PASS_VELOCITY 2u /* body_pass: Diziol's velocity correction, after the velocity update */

#define FL_CONSERVE_NONE 0u
#define FL_CONSERVE_GLOBAL 1u
#define FL_CONSERVE_LOCAL 2u

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

/* Flags of fl_ms_push.flags. */
#define FL_MS_FLAG_HYBRID 1u     /* setup: b = (b + phi) / 2 (HY, Eq. 32) */
#define FL_MS_FLAG_MOMENTUM 2u   /* HO impulse split: +phi / -phi (else the paper's Eq. 22) */
#define FL_MS_FLAG_DEFINITE 4u   /* Jacobian: clamp 1 - l0/l to >= 0 */
#define FL_MS_FLAG_CG 8u         /* setup: start CG (dv = 0, r = p = b) instead of Jacobi */
#define FL_MS_FLAG_EXPLICIT_START 16u /* setup: Jacobi starts from dv = b / m (the explicit step), not from 0 */

/* Result slots of the CG reductions (floats in the results buffer). */
#define FL_MS_SLOT_BB 0          /* b . b */
#define FL_MS_SLOT_PQ 1          /* p . A p */
#define FL_MS_SLOT_RR0 2         /* r . r, two slots used alternately */
#define FL_MS_SLOT_RR1 3
#define FL_MS_SLOT_ITERATIONS 4  /* CG iterations that changed dv this step */
#define FL_MS_SLOT_STOP 5        /* 1 after a breakdown (p . A p <= 0) */
#define FL_MS_SLOT_COUNT 6

/* Words of the status buffer. */
#define FL_MS_STATUS_DIVERGED 0  /* set by check (atomicOr): the object is frozen; cleared by hold at its reset */
#define FL_MS_STATUS_RESETS 1    /* resets so far */
#define FL_MS_STATUS_HOLD 2      /* frames the object has been frozen since it diverged */
#define FL_MS_STATUS_FOUND 3     /* E: fl_ms_push.step of the step after the one whose kernel found a
                                  * divergence in the state it started from (atomicMax) */
#define FL_MS_STATUS_WORDS 4
/* A diverged object is shown frozen, as it blew up, for this many frames, then reset. */
#define FL_MS_RESET_HOLD_FRAMES 90

/* Push constants of every kernel in shaders/massspring/. */
FL_STRUCT_BEGIN(fl_ms_push)
  vec3 gravity;     /* m/s^2 */
  float h;          /* step length (s) */
  float kappa;      /* spring stiffness (N/m) */
  float damping;    /* spring damping c_d (N s/m) */
  float divergence_strain; /* check: |l - l0| / l0 above this is a divergence */
  float cg_tolerance2; /* IM: (relative residual tolerance)^2 */
  uint count;       /* particles */
  uint flags;       /* FL_MS_FLAG_* */
  uint cg_rr_old;   /* IM: result slot of r.r before the iteration */
  uint cg_rr_new;   /* IM: and after it */
  uint cg_iteration; /* IM: this CG iteration */
  uint nx, ny;      /* E on a grid (explicit_offset.comp): particles per row, rows (k = j nx + i) */
  uint classes;     /* E on a grid: bit c, the springs of class c (FL_MS_CLASS_*) exist */
  vec4 rest0;       /* E on a grid: rest lengths of classes 0..3 */
  vec4 rest1;       /* E on a grid: rest lengths of classes 4, 5 (zw unused) */
  uint step;        /* E: this step's number, from 1 (fl_ms_gpu.steps_recorded) */
  uint unused0, unused1, unused2;
FL_STRUCT_END(fl_ms_push)

/* Spring classes of the grid kernel (fl_ms_push.classes bits, rest0/rest1 index): the
 * groups of ms_spec.h, each seen from a particle as two neighbours at opposite offsets. */
#define FL_MS_CLASS_X 0      /* structural (i,j)-(i+1,j) */
#define FL_MS_CLASS_Y 1      /* structural (i,j)-(i,j+1) */
#define FL_MS_CLASS_DIAG 2   /* shear (i,j)-(i+1,j+1) */
#define FL_MS_CLASS_ANTI 3   /* shear (i+1,j)-(i,j+1) */
#define FL_MS_CLASS_X2 4     /* bend (i,j)-(i+2,j) */
#define FL_MS_CLASS_Y2 5     /* bend (i,j)-(i,j+2) */
#define FL_MS_CLASS_COUNT 6

#endif
