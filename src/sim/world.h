/* sim/world: every simulated object of a scene, the shared collider buffer,
 * and the per-frame step. The world keeps one instance of each material the
 * scene uses (the material table, sim/material.h) and loops over them: it
 * records one frame of simulation (every substep of every material, then the
 * render snapshots of the frame slot), exposes what render draws
 * (fl_render_view), and reads state back for reports and dumps (never on the
 * hot path). Descriptor sets of everything the world records come from its
 * own cache, freed with it. */
#pragma once
#include "gpu/gpu.h"
#include "gpu/profiler.h"
#include "gpu/rec.h"
#include "scene/scene.h"
#include "sim/material.h"

typedef struct fl_world fl_world;

/* Builds the scene's objects and colliders on the GPU. */
bool fl_world_create(fl_gpu *gpu, const fl_scene *scene, fl_world **out);
/* Frees everything; the GPU must be done with it (the app waits for the frames in flight first). */
void fl_world_destroy(fl_world *world);
/* A rec for the world's work on `cmd` (its descriptor sets, the profiler and the frame slot). */
fl_rec fl_world_rec(fl_world *world, VkCommandBuffer cmd, fl_profiler *prof, uint32_t slot);
/* Records one frame of simulation (when `simulate`; a paused world only
 * republishes) and the render snapshot of the rec's slot. False (with the
 * reason) when a pass could not be recorded. */
bool fl_world_record_frame(fl_world *world, fl_rec *r, bool simulate);
/* The views of frame slot `slot` (as last recorded); returns how many were written. */
uint32_t fl_world_views(const fl_world *world, uint32_t slot, fl_render_view *out, uint32_t max);
/* Height of the ground plane to draw (the upward plane collider, else the domain floor). */
float fl_world_ground_height(const fl_world *world);
/* After the slot's fence: reads the slot's asynchronous readbacks (snow stats,
 * mass-spring divergence resets, each new one logged, the health watch);
 * returns how many objects the health watch found unstable since the last call. */
uint32_t fl_world_collect(fl_world *w, uint32_t slot);
/* Whether an object outgrew what was allocated for it (the snow's grid blocks, fl_snow_wants_grow) in
 * the frames collected so far. Then fl_world_grow reallocates it, with no frame in flight: the caller
 * waits for every frame first (an event of a run, not of each frame). */
bool fl_world_wants_grow(const fl_world *w);
bool fl_world_grow(fl_world *w);
/* True when an object went unstable (a NaN or a blow-up, sim/common/health.h);
 * `message` names the first one and the frame by which it did. */
bool fl_world_unstable(const fl_world *w, char *message, size_t size);
/* Number of simulated objects (not colliders), in scene order. */
uint32_t fl_world_object_count(const fl_world *world);
/* Total particles over all objects. */
uint64_t fl_world_particle_count(const fl_world *world);
/* Fixed substeps recorded so far (sim.substeps a simulated frame). */
uint64_t fl_world_substeps(const fl_world *world);
/* Largest simulation buffer in bytes (sizes the copy-ceiling benchmark). */
uint64_t fl_world_largest_buffer(const fl_world *world);
/* Reads object `index`'s positions and velocities (malloc'd, count vec4 each). Waits for the GPU. */
bool fl_world_read_state(fl_world *world, uint32_t index, float (**pos)[4], float (**vel)[4], uint32_t *count);
/* Computes the report stats of object `index` (reads back; waits). */
bool fl_world_stats(fl_world *world, uint32_t index, fl_object_stats *out);
/* Each material's scene-level figures after a run (reads back; waits): writes
 * up to `max` summaries, returns how many, or -1 on a readback failure. */
int fl_world_summaries(fl_world *world, const fl_profiler *prof, bool bench, fl_material_summary *out, uint32_t max);
/* The instance of material `row` in this world, or NULL (tests look inside). */
void *fl_world_material(const fl_world *world, const fl_material_ops *row);
/* The snow <-> XPBD coupling (sim/coupling/coupling.h; its gpu is NULL when nothing couples): tests. */
struct fl_coupling *fl_world_coupling(fl_world *world);
/* Asks to grab the particle nearest the camera within `radius` of a ray (unit
 * direction); recorded into the next frame, read back when its slot is done. */
void fl_world_pick(fl_world *world, const float origin[3], const float direction[3], float radius);
/* Reads the slot's pick result (after its fence): true when a particle was grabbed,
 * with its distance along the pick ray. */
bool fl_world_pick_collect(fl_world *world, uint32_t slot, float *distance);
/* Pulls the held particle towards `target` from the next substep on. */
void fl_world_drag_to(fl_world *world, const float target[3]);
/* Lets go of the held particle. */
void fl_world_release(fl_world *world);
/* True while a particle is held. */
bool fl_world_holding(const fl_world *world);
/* The scene the world was made from. */
const fl_scene *fl_world_scene(const fl_world *world);
