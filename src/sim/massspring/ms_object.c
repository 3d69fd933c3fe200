/* sim/massspring/ms_object: a scene's mass_spring object (see ms_object.h). */
#include "sim/massspring/ms_object.h"

#include "core/log.h"
#include "sim/common/grid_pins.h"
#include "sim/common/placement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pin_particle(void *context, uint32_t index) { fl_ms_pin((fl_ms_system *)context, index); }

bool fl_ms_object_build(const fl_mass_spring_desc *d, const fl_sim_desc *sim, const char *name, fl_ms_system *out)
{
  fl_ms_grid_desc g = {.nx = d->resolution[0],
                       .ny = d->resolution[1],
                       .size = {d->size[0], d->size[1]},
                       .plane_xy = d->plane == FL_PLANE_XY,
                       .springs = d->springs,
                       .center = {d->center[0], d->center[1], d->center[2]},
                       .mass = d->mass,
                       .kappa = d->stiffness,
                       .damping = d->damping,
                       .gravity = {sim->gravity[0], sim->gravity[1], sim->gravity[2]}};
  if (!fl_grid_pins_apply(d->pins, d->pin_count, g.nx, g.ny, "mass_spring", name, NULL, NULL)) return false;
  if (!fl_ms_grid_create(&g, out)) {
    fl_error_wrap("mass_spring \"%s\"", name);
    return false;
  }
  fl_grid_pins_apply(d->pins, d->pin_count, g.nx, g.ny, "mass_spring", name, pin_particle, out);
  return true;
}

fl_ms_gpu_params fl_ms_object_params(const fl_mass_spring_desc *d, const fl_sim_desc *sim)
{
  /* fl_ms_integrator and fl_ms_method list the integrators in the same order */
  return (fl_ms_gpu_params){.method = (fl_ms_method)d->integrator,
                            .split = d->split == FL_MS_SPLIT_KEY_MOMENTUM ? FL_MS_SPLIT_MOMENTUM : FL_MS_SPLIT_PAPER,
                            .definite = d->definite_jacobian,
                            .jacobi_iterations = d->jacobi_iterations,
                            .explicit_start = d->jacobi_explicit_start,
                            .cg_iterations = d->cg_iterations,
                            .cg_tolerance = d->cg_tolerance,
                            .kappa = d->stiffness,
                            .damping = d->damping,
                            .gravity = {sim->gravity[0], sim->gravity[1], sim->gravity[2]},
                            .divergence_strain = d->divergence_strain,
                            .grid = {d->resolution[0], d->resolution[1]}};
}

bool fl_ms_object_create(fl_gpu *gpu, const fl_mass_spring_desc *d, const fl_sim_desc *sim, const char *name,
                         fl_ms_object *out)
{
  memset(out, 0, sizeof *out);
  fl_ms_system cpu;
  if (!fl_ms_object_build(d, sim, name, &cpu)) return false;
  fl_ms_gpu_params params = fl_ms_object_params(d, sim);
  out->thickness = d->thickness;
  out->friction = d->friction;
  out->nx = d->resolution[0];
  out->ny = d->resolution[1];
  out->spring_count = cpu.spring_count;
  out->springs = malloc((size_t)cpu.spring_count * sizeof *out->springs);
  float(*pos)[4] = malloc((size_t)cpu.particle_count * sizeof *pos);
  bool ok = out->springs && pos;
  if (!ok) fl_error_set("mass_spring \"%s\": out of host memory", name);
  if (ok) {
    memcpy(out->springs, cpu.springs, (size_t)cpu.spring_count * sizeof *out->springs);
    for (uint32_t k = 0; k < cpu.particle_count; k++) {
      for (int c = 0; c < 3; c++) pos[k][c] = (float)cpu.x[k][c];
      pos[k][3] = 1.0f;
    }
  }
  ok = ok && fl_check_inside_domain("mass_spring", name, (const float(*)[4])pos, cpu.particle_count, sim) &&
       fl_ms_gpu_create(gpu, &cpu, &params, name, &out->sim);
  fl_cpu_mesh mesh = {0};
  ok = ok && fl_mesh_grid((const float(*)[4])pos, out->nx, out->ny, &mesh);
  for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT && ok; slot++) {
    char what[96];
    snprintf(what, sizeof what, "mass_spring %s slot %u", name, (unsigned)slot);
    ok = fl_gpu_mesh_create(gpu, &mesh, what, &out->mesh[slot]) &&
         fl_buffer_create(gpu, FL_MS_STATUS_WORDS * 4 + 16, FL_MEMORY_READBACK, what, &out->status_readback[slot]);
  }
  fl_cpu_mesh_free(&mesh);
  free(pos);
  fl_ms_system_destroy(&cpu);
  if (!ok) fl_ms_object_destroy(out);
  return ok;
}

void fl_ms_object_destroy(fl_ms_object *o)
{
  fl_gpu *gpu = o->sim.gpu;
  if (gpu)
    for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT; slot++) {
      fl_gpu_mesh_destroy(gpu, &o->mesh[slot]);
      fl_buffer_destroy(gpu, &o->status_readback[slot]);
    }
  fl_ms_gpu_destroy(&o->sim);
  free(o->springs);
  memset(o, 0, sizeof *o);
}

/* What a collision pass moves: x, v in and out. */
static uint64_t collide_bytes(const fl_ms_object *o) { return (uint64_t)o->sim.particle_count * 64; }

/* The divergence check, scope "<prefix>/watch"; after the frame's last substep, the whole watch. */
static void record_watch(fl_ms_object *o, fl_rec *r, const char *prefix, bool last)
{
  char name[48];
  snprintf(name, sizeof name, "%s/watch", prefix);
  fl_rec_begin(r, name, o->sim.particle_count * 16ull + o->sim.link_count * 8ull);
  if (last) fl_ms_gpu_record_watch(&o->sim, r, true);
  else fl_ms_gpu_record_check(&o->sim, r);
  fl_rec_end(r);
}

/* Collisions after the step moved x: project out of the colliders, Coulomb friction, no bounce; in
 * its own scope "ms/collide" when `scoped`, else in the caller's. */
static void record_collide(fl_ms_object *o, fl_rec *r, const fl_step *step, bool scoped)
{
  const fl_sim_desc *sim = step->sim;
  fl_particles_push push = {.h = step->h, .radius = 0.5f * o->thickness, .time = step->t,
                            .friction = o->friction,
                            .tetrahedral_normals = sim->collider_normals == FL_NORMALS_TETRAHEDRAL,
                            .count = o->sim.particle_count, .collider_count = step->collider_count};
  memcpy(push.domain_min, sim->domain_min, sizeof push.domain_min);
  memcpy(push.domain_max, sim->domain_max, sizeof push.domain_max);
  fl_rec_pass(r, &(fl_pass){.name = scoped ? "ms/collide" : NULL, .bytes = collide_bytes(o),
                            .kernel = "particles/collide", FL_PUSH(push), .threads = o->sim.particle_count,
                            FL_BUFFERS(&o->sim.pos, &o->sim.vel, step->colliders, step->colliders)});
}

void fl_ms_object_record_frame(fl_ms_object *o, fl_rec *r, const fl_step *frame, uint32_t substeps)
{
  char prefix[16];
  snprintf(prefix, sizeof prefix, "ms/%s", fl_ms_method_name(o->sim.params.method));
  /* E checks the state each step starts from inside its kernel: its substeps are one scope, with
   * no check between them (a divergence freezes the particles that show it in the next substep,
   * the rest of the object one substep later); the others check after every substep, which
   * freezes the object within the substep it diverged in, before it runs to NaN. */
  bool batched = fl_ms_gpu_checks_in_step(&o->sim);
  if (batched) {
    char name[48];
    snprintf(name, sizeof name, "%s/explicit", prefix);
    uint64_t bytes = fl_ms_gpu_pass_bytes(&o->sim).method + (o->thickness > 0.0f ? collide_bytes(o) : 0);
    fl_rec_begin(r, name, bytes * substeps);
  }
  for (uint32_t s = 0; s < substeps; s++) {
    fl_step step = fl_step_sub(frame, s, substeps);
    fl_ms_gpu_record_step(&o->sim, r, step.h, batched ? NULL : prefix);
    if (o->thickness > 0.0f) record_collide(o, r, &step, !batched);
    if (step.picker && fl_picker_holds(step.picker, &o->sim.pos)) fl_picker_record_drag(step.picker, r, step.h);
    if (!batched && s + 1 < substeps) record_watch(o, r, prefix, false);
  }
  if (batched) fl_rec_end(r);
  /* After the frame's last substep: the check of the state the frame ends in and a frozen
   * object's frame of the hold (or its reset). Simulated frames only, so a paused object stays
   * as it is. */
  if (substeps) record_watch(o, r, prefix, true);
}

void fl_ms_object_record_publish(fl_ms_object *o, fl_rec *r)
{
  uint64_t n = o->sim.particle_count;
  uint32_t slot = r->slot;
  VkBufferCopy status = {0, 0, FL_MS_STATUS_WORDS * 4}, positions = {0, 0, n * 16};
  vkCmdCopyBuffer(r->cmd, o->sim.status.buffer, o->status_readback[slot].buffer, 1, &status);
  if (o->sim.params.method == FL_MS_IM) {
    VkBufferCopy iterations = {FL_MS_SLOT_ITERATIONS * 4, FL_MS_STATUS_WORDS * 4, 4};
    vkCmdCopyBuffer(r->cmd, fl_reduce_results(&o->sim.reduce)->buffer, o->status_readback[slot].buffer, 1,
                    &iterations);
  }
  vkCmdCopyBuffer(r->cmd, o->sim.pos.buffer, o->mesh[slot].positions.buffer, 1, &positions);
  fl_cmd_transfer_to_host_barrier(r->cmd);
  o->status_pending[slot] = true;
  fl_rec_begin(r, "ms/normals", fl_mesh_normals_bytes(&o->mesh[slot]));
  fl_mesh_normals_record(r, &o->mesh[slot]);
  fl_rec_end(r);
}

/* Next frame's CG budget from the iterations a recent solve used (ms_object.h). */
static void adapt_cg_budget(fl_ms_object *o, float used_iterations)
{
  uint32_t used = used_iterations > 0 ? (uint32_t)used_iterations : 1, cap = o->sim.params.cg_iterations;
  uint64_t next = used >= o->sim.cg_recorded ? 2ull * o->sim.cg_recorded : used + used / 4 + 2;
  o->sim.cg_budget = next > cap ? cap : (uint32_t)next;
}

bool fl_ms_object_collect(fl_ms_object *o, uint32_t slot)
{
  if (!o->status_pending[slot]) return false;
  o->status_pending[slot] = false;
  const uint32_t *status = o->status_readback[slot].mapped;
  if (o->sim.params.method == FL_MS_IM) adapt_cg_budget(o, ((const float *)status)[FL_MS_STATUS_WORDS]);
  o->frozen = status[FL_MS_STATUS_DIVERGED] != 0;
  o->frozen_frames = o->frozen ? status[FL_MS_STATUS_HOLD] : 0;
  uint32_t resets = status[FL_MS_STATUS_RESETS];
  if (resets <= o->resets) return false;
  o->resets = resets;
  return true;
}

void fl_ms_object_strain(const fl_ms_object *o, const float (*pos)[4], double *max_strain, double *mean_strain)
{
  double worst = 0, sum = 0;
  for (uint32_t k = 0; k < o->spring_count; k++) {
    const fl_ms_spring *s = &o->springs[k];
    double d[3] = {(double)pos[s->j][0] - pos[s->i][0], (double)pos[s->j][1] - pos[s->i][1],
                   (double)pos[s->j][2] - pos[s->i][2]};
    double strain = fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - s->rest) / s->rest;
    if (!(strain <= worst)) worst = strain; /* a NaN wins */
    sum += strain;
  }
  *max_strain = worst;
  *mean_strain = o->spring_count ? sum / o->spring_count : 0.0;
}
