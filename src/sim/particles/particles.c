/* sim/particles: the particle material module (see particles.h). */
#include "sim/particles/particles.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* xorshift32: a small seeded generator, so a scene starts the same every run. */
static float next_unit(uint32_t *state)
{
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return (float)(x >> 8) / 16777216.0f * 2.0f - 1.0f; /* [-1, 1) */
}

bool fl_particles_initial_state(const fl_particles_desc *d, float (**pos_out)[4], float (**vel_out)[4])
{
  float (*pos)[4] = malloc((size_t)d->count * sizeof *pos);
  float (*vel)[4] = malloc((size_t)d->count * sizeof *vel);
  if (!pos || !vel) {
    free(pos);
    free(vel);
    return fl_error_set("out of host memory for %u particles", d->count);
  }
  uint32_t state = d->seed ? d->seed : 1;
  float inv_mass = (float)d->count / d->mass;
  for (uint32_t i = 0; i < d->count; i++) {
    for (int a = 0; a < 3; a++) {
      pos[i][a] = d->center[a] + d->half_extents[a] * next_unit(&state);
      vel[i][a] = d->velocity[a] + d->velocity_jitter * next_unit(&state);
    }
    pos[i][3] = inv_mass;
    vel[i][3] = 0.0f;
  }
  *pos_out = pos;
  *vel_out = vel;
  return true;
}

bool fl_particles_create(fl_gpu *gpu, const char *name, const fl_particles_desc *desc, fl_particles *out)
{
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", name);
  out->desc = *desc;
  out->count = desc->count;
  VkDeviceSize bytes = (VkDeviceSize)desc->count * 16;
  char label[128];
  bool ok = true;
  snprintf(label, sizeof label, "%s positions", name);
  ok = ok && fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, label, &out->pos);
  snprintf(label, sizeof label, "%s velocities", name);
  ok = ok && fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, label, &out->vel);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT && ok; s++) {
    snprintf(label, sizeof label, "%s snapshot %u", name, s);
    ok = fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, label, &out->snapshot[s]);
  }
  float (*pos)[4] = NULL, (*vel)[4] = NULL;
  ok = ok && fl_particles_initial_state(desc, &pos, &vel);
  ok = ok && fl_buffer_upload(gpu, &out->pos, 0, pos, bytes) && fl_buffer_upload(gpu, &out->vel, 0, vel, bytes);
  free(pos);
  free(vel);
  if (!ok) fl_particles_destroy(gpu, out);
  return ok;
}

void fl_particles_destroy(fl_gpu *gpu, fl_particles *p)
{
  fl_buffer_destroy(gpu, &p->pos);
  fl_buffer_destroy(gpu, &p->vel);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) fl_buffer_destroy(gpu, &p->snapshot[s]);
  memset(p, 0, sizeof *p);
}

void fl_particles_push_fill(const fl_particles *p, const fl_step *step, fl_particles_push *out)
{
  const fl_sim_desc *sim = step->sim;
  *out = (fl_particles_push){.h = step->h, .radius = p->desc.radius, .restitution = p->desc.restitution,
                             .time = step->t, .friction = p->desc.friction,
                             .tetrahedral_normals = sim->collider_normals == FL_NORMALS_TETRAHEDRAL,
                             .count = p->count, .collider_count = step->collider_count};
  memcpy(out->gravity, sim->gravity, sizeof out->gravity);
  memcpy(out->domain_min, sim->domain_min, sizeof out->domain_min);
  memcpy(out->domain_max, sim->domain_max, sizeof out->domain_max);
}

uint64_t fl_particles_pass_bytes(const fl_particles *p) { return (uint64_t)p->count * 64; }

void fl_particles_record_integrate(const fl_particles *p, fl_rec *r, const fl_particles_push *push)
{
  fl_rec_pass(r, &(fl_pass){.name = "particles/integrate", .bytes = fl_particles_pass_bytes(p),
                            .kernel = "particles/integrate", FL_PUSH(*push), .threads = p->count,
                            FL_BUFFERS(&p->pos, &p->vel)});
}

void fl_particles_record_collide(const fl_particles *p, fl_rec *r, const fl_particles_push *push,
                                 const fl_buffer *colliders)
{
  fl_rec_pass(r, &(fl_pass){.name = "particles/collide", .bytes = fl_particles_pass_bytes(p),
                            .kernel = "particles/collide", FL_PUSH(*push), .threads = p->count,
                            FL_BUFFERS(&p->pos, &p->vel, colliders, colliders)});
}

void fl_particles_record_substep(const fl_particles *p, fl_rec *r, const fl_step *step)
{
  fl_particles_push push;
  fl_particles_push_fill(p, step, &push);
  fl_particles_record_integrate(p, r, &push);
  fl_particles_record_collide(p, r, &push, step->colliders);
  if (step->picker && fl_picker_holds(step->picker, &p->pos)) fl_picker_record_drag(step->picker, r, step->h);
}

void fl_particles_record_publish(const fl_particles *p, fl_rec *r)
{
  fl_count_push push = {.count = p->count};
  fl_rec_pass(r, &(fl_pass){.name = "particles/publish", .bytes = (uint64_t)p->count * 48,
                            .kernel = "particles/publish", FL_PUSH(push), .threads = p->count, .no_barrier = true,
                            FL_BUFFERS(&p->pos, &p->vel, &p->snapshot[r->slot])});
}
