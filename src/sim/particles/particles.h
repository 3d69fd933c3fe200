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
#include "gpu/rec.h"
#include "scene/scene.h"
#include "sim/step.h"
#include "flurry_shared.h"

typedef struct {
  char name[FL_SCENE_NAME_MAX];
  fl_particles_desc desc;
  uint32_t count;
  fl_buffer pos, vel;                              /* simulation state */
  fl_buffer snapshot[FL_GPU_FRAMES_IN_FLIGHT];     /* render copy per frame slot: xyz, speed */
} fl_particles;

/* Allocates and seeds one object (positions uniform in the emitter box, seeded). */
bool fl_particles_create(fl_gpu *gpu, const char *name, const fl_particles_desc *desc, fl_particles *out);
void fl_particles_destroy(fl_gpu *gpu, fl_particles *p);
/* Fills the push constants of a substep. */
void fl_particles_push_fill(const fl_particles *p, const fl_step *step, fl_particles_push *out);
/* Records the integrate pass alone (then a barrier), scope "particles/integrate". */
void fl_particles_record_integrate(const fl_particles *p, fl_rec *r, const fl_particles_push *push);
/* Records the collide pass alone against `colliders` (then a barrier), scope "particles/collide". */
void fl_particles_record_collide(const fl_particles *p, fl_rec *r, const fl_particles_push *push,
                                 const fl_buffer *colliders);
/* Records one substep: integrate, collide, and the drag when the grabbed particle is this object's. */
void fl_particles_record_substep(const fl_particles *p, fl_rec *r, const fl_step *step);
/* Records the snapshot write for the rec's frame slot. */
void fl_particles_record_publish(const fl_particles *p, fl_rec *r);
/* Bytes a substep's passes must move: integrate and collide each read and write 2 vec4s. */
uint64_t fl_particles_pass_bytes(const fl_particles *p);
/* The initial state the object is seeded with (CPU), for resets and tests. */
bool fl_particles_initial_state(const fl_particles_desc *desc, float (**pos)[4], float (**vel)[4]);
