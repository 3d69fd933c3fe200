/* sim/particles: the particle material module (see particles.h). */
#include "sim/particles/particles.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fl_particles_pipelines_create(fl_gpu *gpu, fl_particles_pipelines *pp)
{
  memset(pp, 0, sizeof *pp);
  return fl_pipeline_compute(gpu, "particles/integrate.comp", sizeof(fl_particles_push), 0, &pp->integrate) &&
         fl_pipeline_compute(gpu, "particles/collide.comp", sizeof(fl_particles_push), 0, &pp->collide) &&
         fl_pipeline_compute(gpu, "particles/publish.comp", sizeof(fl_count_push), 0, &pp->publish);
}

void fl_particles_pipelines_destroy(fl_gpu *gpu, fl_particles_pipelines *pp)
{
  fl_pipeline_destroy(gpu, &pp->integrate);
  fl_pipeline_destroy(gpu, &pp->collide);
  fl_pipeline_destroy(gpu, &pp->publish);
}

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

bool fl_particles_create(fl_gpu *gpu, const fl_particles_pipelines *pp, const char *name,
                         const fl_particles_desc *desc, const fl_buffer *colliders, fl_particles *out)
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
  fl_binding state[] = {{&out->pos, 0, 0}, {&out->vel, 0, 0}, {colliders, 0, 0}};
  ok = ok && fl_pipeline_bind(gpu, &pp->integrate, state, 2, &out->integrate_set) &&
       fl_pipeline_bind(gpu, &pp->collide, state, 3, &out->collide_set);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT && ok; s++) {
    fl_binding pub[] = {{&out->pos, 0, 0}, {&out->vel, 0, 0}, {&out->snapshot[s], 0, 0}};
    ok = fl_pipeline_bind(gpu, &pp->publish, pub, 3, &out->publish_set[s]);
  }
  if (!ok) fl_particles_destroy(gpu, out);
  return ok;
}

void fl_particles_destroy(fl_gpu *gpu, fl_particles *p)
{
  fl_buffer_destroy(gpu, &p->pos);
  fl_buffer_destroy(gpu, &p->vel);
  VkDescriptorSet sets[2 + FL_GPU_FRAMES_IN_FLIGHT] = {p->integrate_set, p->collide_set};
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) {
    fl_buffer_destroy(gpu, &p->snapshot[s]);
    sets[2 + s] = p->publish_set[s];
  }
  for (uint32_t i = 0; i < 2 + FL_GPU_FRAMES_IN_FLIGHT; i++)
    if (sets[i]) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &sets[i]);
  memset(p, 0, sizeof *p);
}

void fl_particles_push_fill(const fl_particles *p, const fl_sim_desc *sim, uint32_t collider_count,
                            float h, float time, fl_particles_push *out)
{
  memset(out, 0, sizeof *out);
  for (int a = 0; a < 3; a++) {
    out->gravity_dt[a] = sim->gravity[a];
    out->domain_min[a] = sim->domain_min[a];
    out->domain_max[a] = sim->domain_max[a];
  }
  out->gravity_dt[3] = h;
  out->domain_min[3] = p->desc.radius;
  out->domain_max[3] = p->desc.restitution;
  out->params[0] = time;
  out->params[1] = p->desc.friction;
  out->params[2] = sim->collider_normals == FL_NORMALS_TETRAHEDRAL ? 1.0f : 0.0f;
  out->counts[0] = p->count;
  out->counts[1] = collider_count;
}

uint64_t fl_particles_pass_bytes(const fl_particles *p) { return (uint64_t)p->count * 64; }

void fl_particles_record_substep(const fl_particles *p, const fl_particles_pipelines *pp,
                                 VkCommandBuffer cmd, const fl_particles_push *push, fl_profiler *prof,
                                 uint32_t slot)
{
  uint64_t bytes = fl_particles_pass_bytes(p);
  int scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "particles/integrate", bytes);
  fl_cmd_dispatch(cmd, &pp->integrate, p->integrate_set, push, p->count);
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
  fl_cmd_compute_barrier(cmd);
  scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "particles/collide", bytes);
  fl_cmd_dispatch(cmd, &pp->collide, p->collide_set, push, p->count);
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
  fl_cmd_compute_barrier(cmd);
}

void fl_particles_record_publish(const fl_particles *p, const fl_particles_pipelines *pp,
                                 VkCommandBuffer cmd, fl_profiler *prof, uint32_t slot)
{
  fl_count_push push = {.counts = {p->count, 0, 0, 0}};
  int scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "particles/publish", (uint64_t)p->count * 48);
  fl_cmd_dispatch(cmd, &pp->publish, p->publish_set[slot], &push, p->count);
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
}
