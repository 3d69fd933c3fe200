/* sim/xpbd/xpbd: the XPBD system on the GPU: cloth (the algorithm: xpbd_spec.h),
 * soft bodies and balloons (sim/xpbd/softbody_spec.h).
 *
 * Design: every cloth, soft body and balloon object of a scene lives in one
 * system: one particle array, one array per constraint family (distance:
 * stretch + shear + body edges; bend: dihedral or isometric; tet: volume or
 * Neo-Hookean), coloured at load (xpbd_build.c), and one record per closed
 * body. A substep is an explicit list of passes, one kernel each (shaders/xpbd/):
 *   wind_faces + wind_gather  (objects with drag or lift)
 *   predict
 *   per iteration: distance, area (cloth/area, docs/AREA.md), bend, tet, by colour (*_gs: one dispatch per
 *     colour) or Jacobi (*_lambda, *_gather, add_delta); then body_volume
 *     (overpressure and surface volume conservation, one workgroup per body)
 *   contacts                  (colliders through common/sdf.glsl, domain walls, friction)
 *   particle collisions       (spatial hash; self-colliding cloth and every body)
 *   triangle contacts         (self_collision "triangles": tri_keys, a hash of the
 *     triangles by cell, tri_pairs (the candidate pairs, once a substep), then
 *     FL_TRI_CONTACT_PASSES x tri_vertex + tri_edge
 *     + tri_collider (when the scene has colliders) + tri_apply (the last pass: tri_apply_colliders,
 *     where the colliders and walls have priority: every particle projected out of them); docs/CLOTH.md)
 *   collider triangles        (other cloth, when the scene has colliders and sim.collider_triangles:
 *     tri_collider + tri_apply once; docs/CLOTH.md "Colliders against triangles")
 *   velocity (+ edge_damping, add_delta for the momentum-conserving model)
 *   body_volume velocity      (Diziol's dV/dt = 0 correction, bodies with volume_velocity)
 *   body_volume measure       (each body's volume and its worst loss so far)
 * Tearing cloth (tear_gpu.h, docs/CLOTH.md): the first substep after a tear starts with the
 * topology upload and tear_split; once a frame tear_flag reports the overstretched constraints.
 * Once a frame the positions are copied into the slot's render snapshot and the
 * mesh normals computed from it (common/face_normals, vertex_normals); soft
 * bodies draw a finer surface skinned to their tets (skin.comp).
 * Kernels declare their buffers at fixed binding numbers (xpbd/buffers.glsl);
 * each pass hands fl_rec_pass the table of the system's buffers by number. */
#pragma once
#include "gpu/rec.h"
#include "sim/xpbd/hierarchy_gpu.h"
#include "sim/xpbd/tear_gpu.h"
#include "sim/xpbd/tri_contact_build.h"
#include "sim/xpbd/xpbd_build.h"
#include "sim/common/gpu_mesh.h"
#include "sim/common/spatial_hash.h"
#include "sim/step.h"

/* One constraint family's GPU buffers. */
typedef struct {
  fl_buffer constraints, lambda, dlambda, first, items;
  fl_buffer colours; /* the colour offsets (FL_XPBD_MAX_COLOURS + 1 uints): the one-workgroup sweep's */
} fl_xpbd_family;

/* A soft body's drawn surface: skinning records and one skinned mesh per frame slot. */
typedef struct {
  uint32_t object;               /* the system object it draws */
  fl_buffer skin;                /* fl_gpu_skin per vertex (global particle indices) */
  fl_gpu_mesh mesh[FL_GPU_FRAMES_IN_FLIGHT];
} fl_xpbd_skin;

typedef struct {
  fl_gpu *gpu;
  fl_xpbd_build build;          /* the CPU arrays (kept for stats: rest lengths, grids) */
  fl_buffer pos, prev, vel, accel, delta, object_of, objects;
  fl_buffer triangles, tri_object, face_force, tri_first, tri_items, face_normals;
  fl_xpbd_family distance, bend, tet, area;
  fl_buffer contact, bodies, body_state, scratch; /* contact flags; closed bodies (softbody_spec.h) */
  fl_xpbd_skin skins[FL_SCENE_MAX_OBJECTS];
  uint32_t skin_count;
  fl_buffer snapshot[FL_GPU_FRAMES_IN_FLIGHT], normals[FL_GPU_FRAMES_IN_FLIGHT];
  uint32_t object_first_triangle[FL_SCENE_MAX_OBJECTS], object_triangles[FL_SCENE_MAX_OBJECTS]; /* per object */
  fl_spatial_hash hash;           /* particle collisions: built over every particle */
  bool any_wind, any_edge_damping, any_global_damping, any_self_collision;
  bool any_body_solve;           /* a body has overpressure or volume conservation */
  uint32_t neohookean_tets;      /* FL_TET_NEOHOOKEAN records: each moves two multipliers (the tets pass's bytes) */
  bool any_body_velocity;        /* a body has Diziol's velocity correction (body_volume, FL_BODY_PASS_VELOCITY) */
  fl_buffer opposite;            /* uint per particle: Diziol's opposite particle (opposite_pairs.h) */
  fl_buffer tethers;             /* fl_gpu_tether per particle (cloth "tethers"; 0 bytes when none has one) */
  fl_buffer load; /* vec4 per particle: body_volume's spared correction, the contacts' normal load (softbody_spec.h) */
  fl_buffer contact_corrections; /* vec4 per particle: xpbd/self_friction's pushes and friction (self-collision) */
  fl_buffer self_sorted;         /* vec4 per particle: xpbd/self_sort's positions in hash order, w the index */
  float self_cell_size;          /* the largest thickness of the colliding objects */
  fl_tri_contacts tri;           /* triangle contacts: edges, owners, cell size */
  fl_spatial_hash tri_hash;      /* triangles by the cells their grown boxes overlap */
  fl_buffer tri_box, edges, tri_owned, accum;
  fl_buffer tri_list;            /* the candidate pairs of a substep (xpbd/tri_pairs, tri_list.glsl) */
  fl_buffer guard;               /* the contact guard's bound per particle (float bits, +inf between substeps) */
  fl_buffer older, vel_old;      /* BDF2: positions and velocities one substep before prev and vel */
  bool bdf2_history;             /* BDF2: a substep has recorded older and vel_old (the next may use them) */
  fl_tear tear;                  /* cloth tearing (tear_gpu.h): off unless a cloth has tear_strain */
  fl_hierarchy_gpu hier;         /* hierarchical PBD (hierarchy_gpu.h): off unless a cloth has hierarchy_levels > 1 */
  uint32_t sweep_max;            /* a family of at most this many constraints sweeps in one workgroup
                                  * (xpbd/gs_sweep.glsl), else one dispatch per colour: 0 on GPUs */
  uint32_t body_workgroup;       /* xpbd/body_volume's workgroup (at most FL_BODY_WORKGROUP): smaller on CPU drivers */
} fl_xpbd_system;

/* Builds the GPU system for `count` cloth objects (names for error messages)
 * and `body_count` soft bodies and balloons (objects count.. after them). */
bool fl_xpbd_create(fl_gpu *gpu, const fl_cloth_desc *descs, const char (*names)[FL_SCENE_NAME_MAX],
                            uint32_t count, const fl_body_build *bodies, uint32_t body_count, fl_xpbd_system *out);
/* Reads every body's state (FL_BODY_STATE_VEC4S vec4s each; body_count of them). Waits for the GPU. */
bool fl_xpbd_read_body_state(fl_xpbd_system *s, float (*state)[4]);
void fl_xpbd_destroy(fl_xpbd_system *s);
/* Records one substep. When the step's picker holds one of the system's
 * particles, the drag constraint runs after the constraint iterations. */
void fl_xpbd_record_substep(fl_xpbd_system *s, fl_rec *r, const fl_step *step);
/* Copies positions into the rec's slot's snapshot and computes its normals. */
void fl_xpbd_record_publish(fl_xpbd_system *s, fl_rec *r);
/* After the slot's fence: tears what the slot's report found (sim/xpbd/xpbd_tear.c); returns the splits. */
uint32_t fl_xpbd_collect_tears(fl_xpbd_system *s, uint32_t slot);
/* Uploads the topology the last tears made and gives the new particles their state (first in a frame). */
void fl_xpbd_record_topology(fl_xpbd_system *s, fl_rec *r);
/* The push constants every cloth kernel gets for a substep. */
void fl_xpbd_push_fill(const fl_xpbd_system *s, const fl_step *step, fl_xpbd_push *out);
