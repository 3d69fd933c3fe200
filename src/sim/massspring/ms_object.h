/* sim/massspring/ms_object: a scene's "mass_spring" object in the world: the
 * grid built from its scene desc (ms_cpu.c), its GPU simulation (ms_gpu.h),
 * the render snapshot of each frame slot (a grid mesh with GPU normals), and
 * the divergence watch: every substep the object is checked (E: inside the
 * step, on the state it starts from; after the frame's last substep), and one
 * that diverged is frozen as it blew up (drawn red) for FL_MS_RESET_HOLD_FRAMES
 * frames, then reset on the GPU; the status words are copied to a per-slot
 * readback buffer and read after the slot's fence (no stall), so the app can
 * show the state and the count (the label, the panel) and the report can count it.
 * IM's CG budget adapts the same way: the iterations the solve needed (read
 * two frames later) plus a quarter set the next frame's count, doubled after
 * a solve that used its whole budget, never above the scene's cg_iterations. */
#pragma once
#include "scene/scene.h"
#include "sim/common/gpu_mesh.h"
#include "sim/massspring/ms_gpu.h"
#include "sim/step.h"

typedef struct {
  fl_ms_gpu sim;
  fl_ms_spring *springs;        /* the springs (rest lengths) for the report's strain */
  uint32_t spring_count, nx, ny;
  fl_gpu_mesh mesh[FL_GPU_FRAMES_IN_FLIGHT]; /* per slot: positions snapshot, normals */
  fl_buffer status_readback[FL_GPU_FRAMES_IN_FLIGHT]; /* status words, then the CG iterations (float) */
  bool status_pending[FL_GPU_FRAMES_IN_FLIGHT];
  uint32_t resets;              /* resets seen so far */
  bool frozen;                  /* diverged and frozen, as of the latest status read */
  uint32_t frozen_frames;       /* frames it has been frozen, as of the latest status read */
  float thickness, friction;    /* collisions (scene desc): none when thickness is 0 */
} fl_ms_object;

/* What the app shows of a mass-spring object, read without waiting. */
typedef struct {
  const char *name;
  uint32_t resets;
  bool frozen;
  uint32_t frozen_frames;
} fl_ms_watch;

/* Builds the CPU grid of a scene desc (pins applied, gravity from sim), for the GPU or a test. */
bool fl_ms_object_build(const fl_mass_spring_desc *d, const fl_sim_desc *sim, const char *name, fl_ms_system *out);
/* The GPU params of a scene desc. */
fl_ms_gpu_params fl_ms_object_params(const fl_mass_spring_desc *d, const fl_sim_desc *sim);
bool fl_ms_object_create(fl_gpu *gpu, const fl_mass_spring_desc *d, const fl_sim_desc *sim, const char *name,
                         fl_ms_object *out);
void fl_ms_object_destroy(fl_ms_object *o);
/* Records a frame's `substeps` substeps of the object (frame: the world's frame step; each
 * substep fl_step_sub of it), one after the other: the step (profiler scopes
 * "ms/<integrator>/<pass>"), then, with a thickness, the collisions ("ms/collide": the
 * colliders every material shares, through the shared particles/collide kernel, and the domain
 * walls), the drag when the grabbed particle is its, and the divergence check between
 * substeps ("ms/<integrator>/watch"); after the last substep the whole watch
 * (fl_ms_gpu_record_watch). E checks inside its step and has no check between substeps: its
 * substeps, collisions included, are one scope "ms/E/explicit" (no timestamp per step on a
 * driver where each costs a flush), its bytes counted for every substep. Nothing else reads
 * the object's buffers, so recording its substeps together is recording them between the
 * other materials'. No substeps: nothing. */
void fl_ms_object_record_frame(fl_ms_object *o, fl_rec *r, const fl_step *frame, uint32_t substeps);
/* Once a frame: the status copy, the slot's snapshot and normals. */
void fl_ms_object_record_publish(fl_ms_object *o, fl_rec *r);
/* The watch state of every object of a mass-spring material instance
 * (fl_world_material(world, &fl_material_mass_spring)); returns how many were written. */
uint32_t fl_ms_material_watch(const void *instance, fl_ms_watch *out, uint32_t max);
/* After the slot's fence: reads its status copy; true when a new reset happened since the last collect. */
bool fl_ms_object_collect(fl_ms_object *o, uint32_t slot);
/* Largest and mean |l - l0| / l0 over the springs, from positions read back. */
void fl_ms_object_strain(const fl_ms_object *o, const float (*pos)[4], double *max_strain, double *mean_strain);
