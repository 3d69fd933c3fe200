/* sim/coupling/coupling: two-way coupling of MPM snow with the XPBD system
 * (cloth, soft bodies, balloons) through the snow's grid. The scheme, its
 * source and the substep order: docs/COUPLING.md.
 *
 * The coupling lives between the two materials (DESIGN.md): it reads the XPBD
 * particles (positions, velocities) and the snow grid (velocities, block hash)
 * through the systems' buffers, and the snow calls it once per snow substep,
 * after the grid update (and the semi-implicit solve) and before G2P
 * (fl_snow_system.couple). The XPBD substeps run inside the snow's: a coupling
 * substep is
 *   coupling/normals  the sheets' vertex normals at the XPBD state (common/face_normals, vertex_normals),
 *                     once per XPBD state (a run's holds and its contact share them)
 *   coupling/weights  each coupled XPBD particle adds its B-spline weights to W_i
 *   coupling/surface_weights  so does each surface sample of a soft body's triangles (when it has any)
 *   coupling/surface_contact  each sample meets its parcel; the triangle's free vertices carry it by
 *                     their barycentric weights (added mass and momentum, coupling/contact joins them)
 *   coupling/contact  each particle meets its share of the nearby snow mass (a parcel):
 *                     the snow's friction rule against the sheet's normal; a free particle carries
 *                     its parcel (its inverse mass becomes 1 / (m_p + M)), the parcel keeping its
 *                     slip; a pinned one gives
 *                     the parcel the impulse J of an immovable boundary
 *   XPBD substeps     those covering the snow substep's time (the world leaves them to the coupling);
 *                     with sim.coupling_substeps "xpbd", one covering a run of snow substeps, and the
 *                     run's snow substeps before its last hold (fl_coupling_xpbd_substeps): clear,
 *                     weights, then coupling/surface_hold and coupling/hold (the contact kernels with
 *                     push.hold: every particle an immovable boundary, the free ones' reactions deferred
 *                     to the run's coupled contact in its last substep) and apply
 *   coupling/release  each carried parcel gets back the velocity change the XPBD
 *                     substeps gave the pair; the particle its own mass
 *   coupling/surface_release  each carried sample's parcel gets its triangle's velocity there back
 *   coupling/apply    each node: v_i += dP_i / m_i
 * Once a frame, coupling/sum totals the impulses of the frame (the report's
 * momentum exchanged per frame), read back after the slot's fence. */
#pragma once
#include "coupling_shared.h"
#include "sim/material.h"
#include "sim/mpm/snow.h"
#include "sim/xpbd/xpbd.h"

/* The report's figures of the frames collected so far. */
typedef struct {
  double last[3];             /* impulse the snow gave the XPBD particles in the latest collected frame (N s) */
  double last_magnitude;      /* sum of |J| over that frame's contacts (N s) */
  double total_magnitude;     /* the same, summed over every collected frame */
  double max_magnitude;       /* the largest frame sum */
  uint32_t last_contacts;     /* particles that touched snow in that frame */
  uint64_t frames;            /* frames collected */
} fl_coupling_figures;

typedef struct fl_coupling {
  fl_gpu *gpu;                /* NULL: nothing to couple (no snow, no XPBD object, or every one opted out) */
  fl_snow_system *snow;
  fl_xpbd_system *xpbd;
  uint32_t particle_count;    /* XPBD particles */
  uint32_t coupled_count;     /* of them, those whose object couples */
  uint32_t sample_count;      /* surface samples of the soft bodies' triangles (surface_samples.h) */
  float friction;             /* the snow's (first material's) Coulomb coefficient */
  float momentum_scale;       /* accumulator units per kg m/s */
  float min_mass;             /* kg */
  double xpbd_time;           /* the time of the XPBD state the snow meets, in the contact's convention
                               * (lag = xpbd_time - t: 0 in a run's first snow substep, -(k - run[0]) h
                               * in its substep k; coupling.c's hook) */
  fl_step frame;              /* the frame being recorded (its XPBD substeps are recorded in the snow's) */
  bool normals_current;       /* coupling/normals already holds the XPBD state's normals (recorded this
                               * frame since the last coupled substep's release) */
  fl_buffer coupled;          /* uint per XPBD particle: 1 where its object couples */
  fl_buffer accum;            /* FL_COUPLING_NODE_WORDS int32 per snow grid node */
  fl_buffer impulse;          /* vec4 per XPBD particle, then per surface sample: the frame's -J (xyz) and |J| (w) */
  fl_buffer samples;          /* uvec4 per surface sample (coupling_shared.h) */
  fl_buffer sample_attach;    /* FL_COUPLING_SAMPLE_VEC4S vec4 per surface sample */
  fl_buffer surface_accum;    /* 4 int32 per XPBD particle: the added mass and momentum its samples give it */
  fl_buffer attach;           /* FL_COUPLING_ATTACH_VEC4S vec4 per XPBD particle (coupling_shared.h) */
  fl_buffer deferred;         /* FL_COUPLING_DEFERRED_WORDS int32 per XPBD particle: the hold substeps' reactions */
  fl_buffer sums;             /* 2 vec4: coupling/sum's output */
  fl_buffer normals;          /* vec4 per XPBD particle: its surface's normal at the substep (coupling/normals) */
  fl_buffer face_normals;     /* vec4 per XPBD triangle: coupling/normals' scratch */
  fl_buffer readback[FL_GPU_FRAMES_IN_FLIGHT];
  bool pending[FL_GPU_FRAMES_IN_FLIGHT];
  uint64_t substeps;          /* coupling substeps recorded */
  uint64_t hold_substeps;     /* hold substeps recorded ("xpbd" order) */
  uint64_t xpbd_substeps;     /* XPBD substeps recorded inside them */
  uint32_t xpbd_most;         /* the most XPBD substeps a frame its particles' start resolves (placement.h) */
  double xpbd_far;            /* their largest start coordinate (the warning's figure) */
  fl_coupling_figures figures;
} fl_coupling;

/* Couples the scene's snow with its cloth, soft bodies and balloons (either system may be NULL:
 * then nothing couples and out->gpu stays NULL). An object with "coupling": false opts out.
 * Hooks itself into the snow's substeps; `snow` and `xpbd` must outlive it. */
bool fl_coupling_create(fl_gpu *gpu, const fl_scene *scene, fl_snow_system *snow, fl_xpbd_system *xpbd,
                        fl_coupling *out);
/* (Re)builds the surface samples from the coupled word of every XPBD particle (FL_COUPLING_VOLUME
 * and FL_COUPLING_CLOSED triangles are sampled) at the rest positions `pos`, and the buffers sized
 * by them (the impulses zeroed). fl_coupling_create calls it; a test may again with other words. */
bool fl_coupling_set_samples(fl_coupling *c, const float (*pos)[4], const uint32_t *coupled);
/* Unhooks and frees; accepts a zeroed coupling. */
void fl_coupling_destroy(fl_coupling *c);
/* Makes the node accumulator as large as the snow's grid again after the grid grew (fl_snow_grow);
 * no frame may be in flight. Accepts a zeroed coupling. */
bool fl_coupling_fit_grid(fl_coupling *c);
/* Before the frame's materials: clears the frame's impulses and keeps the frame's step, from which
 * the XPBD substeps inside each snow substep are made. */
void fl_coupling_record_begin(fl_coupling *c, fl_rec *r, const fl_step *frame);
/* Whether the coupling records the substeps of the material instance `m` (the XPBD system's,
 * inside the snow's), so the world's fixed substeps leave them out. */
bool fl_coupling_records_substeps(const fl_coupling *c, const void *m);
/* The XPBD substeps recorded in snow substep k of `snow` (sim.coupling_substeps `mode`, `substeps` the
 * scene's fixed count): their count (0: none in this snow substep), the first's index among the
 * frame's `of`, and the snow substeps [run[0], run[1]) whose time they cover (coupling.c). */
uint32_t fl_coupling_xpbd_substeps(fl_coupling_substeps mode, uint32_t snow, uint32_t substeps, uint32_t k,
                                   uint32_t *first, uint32_t *of, uint32_t run[2]);
/* After the frame's materials: sums the frame's impulses and copies the sums to the slot's readback. */
void fl_coupling_record_end(fl_coupling *c, fl_rec *r);
/* The push of a coupling substep of length h ending at time t (lag = xpbd_time - t: the boundary is
 * x_p - lag v_p; gravity_h = g h). */
void fl_coupling_push_fill(const fl_coupling *c, float h, float t, fl_coupling_push *out);
/* The first half of a coupling substep with that push: normals (unless already recorded for the
 * current XPBD state), clear, weights, contact (push->hold: the hold, named coupling/hold and
 * coupling/surface_hold). */
void fl_coupling_record_contact(fl_coupling *c, fl_rec *r, const fl_coupling_push *push);
/* The second half: release, apply (push->hold: apply only). */
void fl_coupling_record_release(fl_coupling *c, fl_rec *r, const fl_coupling_push *push);
/* After the slot's fence: reads its sums into the figures. */
void fl_coupling_collect(fl_coupling *c, uint32_t slot);
/* The report's "coupling" group and a printed line. */
void fl_coupling_summary(const fl_coupling *c, fl_material_summary *out);
/* Bytes each pass must move (for GB/s and the ceiling fraction). */
uint64_t fl_coupling_weights_bytes(const fl_coupling *c);
uint64_t fl_coupling_particle_bytes(const fl_coupling *c, bool hold); /* coupling/contact, coupling/hold */
uint64_t fl_coupling_release_bytes(const fl_coupling *c);
uint64_t fl_coupling_apply_bytes(const fl_coupling *c);
uint64_t fl_coupling_surface_weights_bytes(const fl_coupling *c);
uint64_t fl_coupling_surface_bytes(const fl_coupling *c); /* surface_contact and surface_release, each */
