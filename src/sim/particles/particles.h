/* sim/particles: free particles under gravity that collide with every
 * collider (through common/sdf.glsl) and the domain walls.
 *
 * Design: state is structure-of-arrays in two vec4 buffers (position with
 * inverse mass in w, velocity). One substep is two dispatches:
 *   integrate  (shaders/particles/integrate.comp)  v += g h, x += v h
 *   collide    (shaders/particles/collide.comp)    push-out, restitution, Coulomb friction
 * and once per frame `publish` writes the render snapshot of the frame slot.
 * CPU references: sim/particles/particles_cpu.c. */
#pragma once
#include "gpu/gpu.h"
#include "gpu/profiler.h"
#include "scene/scene.h"
#include "flurry_shared.h"

typedef struct {
  fl_pipeline integrate, collide, publish;
} fl_particles_pipelines;

typedef struct {
  char name[FL_SCENE_NAME_MAX];
  fl_particles_desc desc;
  uint32_t count;
  fl_buffer pos, vel;                              /* simulation state */
  fl_buffer snapshot[FL_GPU_FRAMES_IN_FLIGHT];     /* render copy per frame slot: xyz, speed */
  VkDescriptorSet integrate_set, collide_set, publish_set[FL_GPU_FRAMES_IN_FLIGHT];
} fl_particles;

/* Creates the three pipelines shared by every particles object. */
bool fl_particles_pipelines_create(fl_gpu *gpu, fl_particles_pipelines *pp);
void fl_particles_pipelines_destroy(fl_gpu *gpu, fl_particles_pipelines *pp);
/* Allocates and seeds one object (positions uniform in the emitter box, seeded). */
bool fl_particles_create(fl_gpu *gpu, const fl_particles_pipelines *pp, const char *name,
                         const fl_particles_desc *desc, const fl_buffer *colliders, fl_particles *out);
void fl_particles_destroy(fl_gpu *gpu, fl_particles *p);
/* Fills the push constants of one substep ending at `time`. */
void fl_particles_push_fill(const fl_particles *p, const fl_sim_desc *sim, uint32_t collider_count,
                            float h, float time, fl_particles_push *out);
/* Records one substep (integrate, collide) with barriers and profiler scopes. */
void fl_particles_record_substep(const fl_particles *p, const fl_particles_pipelines *pp,
                                 VkCommandBuffer cmd, const fl_particles_push *push, fl_profiler *prof,
                                 uint32_t slot);
/* Records the snapshot write for frame slot `slot`. */
void fl_particles_record_publish(const fl_particles *p, const fl_particles_pipelines *pp,
                                 VkCommandBuffer cmd, fl_profiler *prof, uint32_t slot);
/* Bytes a substep's passes must move: integrate and collide each read and write 2 vec4s. */
uint64_t fl_particles_pass_bytes(const fl_particles *p);
/* The initial state the object is seeded with (CPU), for resets and tests. */
bool fl_particles_initial_state(const fl_particles_desc *desc, float (**pos)[4], float (**vel)[4]);
