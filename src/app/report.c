/* app/report: report JSON and dump CSV. */
#include "app/report.h"

#include "core/file.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *vec3_json(const double v[3])
{
  double d[3] = {v[0], v[1], v[2]};
  return cJSON_CreateDoubleArray(d, 3);
}

static cJSON *vec3f_json(const float v[3])
{
  double d[3] = {v[0], v[1], v[2]};
  return cJSON_CreateDoubleArray(d, 3);
}

static cJSON *object_json(const fl_object_stats *s)
{
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", s->name);
  cJSON_AddStringToObject(o, "type", s->type);
  cJSON_AddNumberToObject(o, "particles", s->particles);
  cJSON_AddNumberToObject(o, "mass", s->mass);
  cJSON_AddItemToObject(o, "com", vec3_json(s->com));
  cJSON_AddItemToObject(o, "momentum", vec3_json(s->momentum));
  cJSON_AddNumberToObject(o, "kinetic_energy", s->kinetic_energy);
  cJSON_AddItemToObject(o, "bbox_min", vec3f_json(s->bbox_min));
  cJSON_AddItemToObject(o, "bbox_max", vec3f_json(s->bbox_max));
  cJSON_AddNumberToObject(o, "nan_count", s->nan_count);
  cJSON_AddNumberToObject(o, "outside_domain", s->outside_domain);
  cJSON_AddNumberToObject(o, "max_speed", s->max_speed);
  if (s->has_strain) {
    cJSON_AddNumberToObject(o, "max_strain", s->max_strain);
    cJSON_AddNumberToObject(o, "mean_strain", s->mean_strain);
  }
  if (s->has_min_distance) cJSON_AddNumberToObject(o, "min_distance_nonneighbor", s->min_distance_nonneighbor);
  if (s->has_volume) {
    cJSON_AddNumberToObject(o, "volume", s->volume);
    cJSON_AddNumberToObject(o, "rest_volume", s->rest_volume);
    cJSON_AddNumberToObject(o, "target_volume", s->target_volume);
    if (s->worst_volume_loss >= 0) cJSON_AddNumberToObject(o, "worst_volume_loss", s->worst_volume_loss);
    cJSON_AddNumberToObject(o, "largest_volume_ratio", s->largest_volume_ratio);
    cJSON_AddStringToObject(o, "volume_conservation", s->volume_conservation);
  }
  if (s->has_tets) {
    cJSON_AddNumberToObject(o, "tets", s->tets);
    cJSON_AddNumberToObject(o, "tet_volume_ratio_min", s->tet_ratio_min);
    cJSON_AddNumberToObject(o, "tet_volume_ratio_max", s->tet_ratio_max);
    cJSON_AddNumberToObject(o, "inverted_tets", s->inverted_tets);
  }
  if (s->has_snow) {
    cJSON_AddStringToObject(o, "transfer", s->transfer);
    cJSON_AddNumberToObject(o, "jp_min", s->jp_min);
    cJSON_AddNumberToObject(o, "jp_max", s->jp_max);
    cJSON *sys = cJSON_AddObjectToObject(o, "snow_system"); /* every snow object's grid and particles */
    cJSON_AddNumberToObject(sys, "particle_mass", s->snow_particle_mass);
    cJSON_AddNumberToObject(sys, "grid_mass", s->grid_mass);
    cJSON_AddItemToObject(sys, "grid_momentum", vec3_json(s->grid_momentum));
    cJSON_AddNumberToObject(sys, "clamped_last_substep", s->clamped);
    cJSON_AddNumberToObject(sys, "substeps_last_frame", s->substeps_last);
    cJSON_AddNumberToObject(sys, "substeps_per_frame", s->substeps_mean);
    cJSON_AddNumberToObject(sys, "capped_frames", s->capped_frames);
    cJSON_AddStringToObject(sys, "p2g_atomics", s->atomics);
  }
  if (s->integrator) {
    cJSON_AddStringToObject(o, "integrator", s->integrator);
    cJSON_AddNumberToObject(o, "resets", s->resets);
    if (strcmp(s->integrator, "IM") == 0) {
      cJSON_AddNumberToObject(o, "cg_iterations", s->cg_iterations);
      cJSON_AddNumberToObject(o, "cg_relative_residual", s->cg_relative_residual);
    }
  }
  return o;
}

static void add_timings(cJSON *report, const fl_profiler *prof, const fl_report_info *info, double *sim_ms_out)
{
  cJSON *timings = cJSON_AddObjectToObject(report, "timings_ms");
  cJSON *passes = info->bench ? cJSON_AddObjectToObject(report, "passes") : NULL;
  double sim_ms = 0;
  for (uint32_t i = 0; i < prof->stat_count; i++) {
    const fl_profile_stat *st = &prof->stats[i];
    fl_stat_summary s = fl_profile_summary(st);
    cJSON *t = cJSON_AddObjectToObject(timings, st->name);
    cJSON_AddNumberToObject(t, "mean", s.mean);
    cJSON_AddNumberToObject(t, "median", s.median);
    cJSON_AddNumberToObject(t, "min", s.min);
    cJSON_AddNumberToObject(t, "max", s.max);
    cJSON_AddNumberToObject(t, "samples", st->count);
    cJSON_AddStringToObject(t, "queue", st->queue == FL_QUEUE_COMPUTE ? "compute" : "graphics");
    if (st->queue == FL_QUEUE_COMPUTE) sim_ms += s.mean;
    if (passes && st->bytes) {
      /* bytes per frame = bytes per execution x executions per frame */
      double bytes = (double)st->bytes * st->executions;
      double gbps = s.median > 0 ? bytes / (s.median * 1e6) : 0;
      cJSON *p = cJSON_AddObjectToObject(passes, st->name);
      cJSON_AddNumberToObject(p, "bytes_per_execution", (double)st->bytes);
      cJSON_AddNumberToObject(p, "executions_per_frame", st->executions);
      cJSON_AddNumberToObject(p, "ms_per_frame", s.median);
      cJSON_AddNumberToObject(p, "gbps", gbps);
      cJSON_AddNumberToObject(p, "fraction_of_ceiling", info->ceiling_gbps > 0 ? gbps / info->ceiling_gbps : 0);
    }
  }
  if (!prof->can_time[0]) cJSON_AddStringToObject(timings, "graphics_queue", "untimed: timestampValidBits is 0");
  if (!prof->can_time[1]) cJSON_AddStringToObject(timings, "compute_queue", "untimed: timestampValidBits is 0");
  *sim_ms_out = sim_ms;
}

void fl_report_add_device(cJSON *r, const fl_gpu *gpu)
{
  cJSON *dev = cJSON_AddObjectToObject(r, "device");
  cJSON_AddStringToObject(dev, "name", gpu->props.deviceName);
  cJSON_AddStringToObject(dev, "type", fl_gpu_device_type_name(gpu->props.deviceType));
  char driver[512];
  snprintf(driver, sizeof driver, "%s %s", gpu->driver_name, gpu->driver_info);
  cJSON_AddStringToObject(dev, "driver", driver);
  char api[32];
  snprintf(api, sizeof api, "%u.%u.%u", VK_API_VERSION_MAJOR(gpu->props.apiVersion),
           VK_API_VERSION_MINOR(gpu->props.apiVersion), VK_API_VERSION_PATCH(gpu->props.apiVersion));
  cJSON_AddStringToObject(dev, "api", api);
  cJSON_AddNumberToObject(dev, "subgroup_size", gpu->subgroup_size);
  cJSON_AddBoolToObject(dev, "float_atomic_add", gpu->has_float_atomic_add);
  cJSON *q = cJSON_AddObjectToObject(r, "queues");
  cJSON_AddBoolToObject(q, "async_compute", gpu->async_compute);
  cJSON_AddNumberToObject(q, "graphics_family", gpu->graphics_family);
  cJSON_AddNumberToObject(q, "compute_family", gpu->compute_family);
}

double fl_report_tet_solves_per_s(const fl_profiler *prof, const fl_world *world)
{
  const fl_profile_stat *st = fl_profiler_find(prof, "softbody/tets");
  if (!st || !fl_world_tet_count(world)) return 0;
  double ms = fl_profile_summary(st).median;
  const fl_sim_desc *sim = &fl_world_scene(world)->sim;
  return ms > 0 ? (double)fl_world_tet_count(world) * sim->substeps * sim->iterations / (ms * 1e-3) : 0;
}

double fl_report_snow_particle_substeps_per_s(const fl_profiler *prof, const fl_world *world)
{
  static const char *const PASSES[] = {"snow/sort", "snow/clear", "snow/p2g", "snow/grid", "snow/implicit", "snow/g2p"};
  double ms = 0, substeps = fl_world_snow_substeps_per_frame(world);
  for (size_t k = 0; k < sizeof PASSES / sizeof PASSES[0]; k++) {
    const fl_profile_stat *st = fl_profiler_find(prof, PASSES[k]);
    if (st) ms += fl_profile_summary(st).median;
  }
  return ms > 0 ? (double)fl_world_snow_particle_count(world) * substeps / (ms * 1e-3) : 0;
}

static const char *const CONSERVATION_MODES[3] = {"none", "global", "local"};

bool fl_report_print_volume_losses(fl_world *world)
{
  double worst[3];
  if (!fl_world_volume_losses(world, worst)) return false;
  char line[256];
  int n = 0;
  for (int m = 0; m < 3; m++)
    if (worst[m] >= 0)
      n += snprintf(line + n, sizeof line - (size_t)n, "%s %s %.2f %%", n ? "," : "", CONSERVATION_MODES[m],
                    100 * worst[m]);
  if (n) printf("worst volume loss by volume_conservation:%s\n", line);
  return true;
}

/* "volume_conservation": {"none": worst loss, ...} over the modes the scene's bodies use. */
static void add_volume_losses(cJSON *r, fl_world *world)
{
  double worst[3];
  if (!fl_world_volume_losses(world, worst)) {
    fl_warn("report: %s", fl_error_message());
    fl_error_clear();
    return;
  }
  if (worst[0] < 0 && worst[1] < 0 && worst[2] < 0) return;
  cJSON *v = cJSON_AddObjectToObject(r, "worst_volume_loss");
  for (int m = 0; m < 3; m++)
    if (worst[m] >= 0) cJSON_AddNumberToObject(v, CONSERVATION_MODES[m], worst[m]);
}

cJSON *fl_report_build(const fl_gpu *gpu, const fl_profiler *prof, fl_world *world, const fl_report_info *info)
{
  cJSON *r = cJSON_CreateObject();
  fl_report_add_device(r, gpu);
  const fl_scene *scene = fl_world_scene(world);
  cJSON_AddStringToObject(r, "scene", scene->name);
  cJSON_AddNumberToObject(r, "frames", (double)info->frames);
  cJSON_AddNumberToObject(r, "sim_steps", (double)fl_world_substeps(world));
  double sim_ms = 0;
  add_timings(r, prof, info, &sim_ms);
  if (info->bench) {
    cJSON *c = cJSON_AddObjectToObject(r, "ceiling");
    cJSON_AddNumberToObject(c, "copy_gbps", info->ceiling_gbps);
    cJSON_AddNumberToObject(c, "bytes", (double)info->ceiling_bytes);
    double per_frame = (double)fl_world_particle_count(world) * scene->sim.substeps;
    cJSON_AddNumberToObject(r, "particle_substeps_per_s", sim_ms > 0 ? per_frame / (sim_ms * 1e-3) : 0);
    double tets = fl_report_tet_solves_per_s(prof, world);
    if (tets > 0) cJSON_AddNumberToObject(r, "tet_solves_per_s", tets);
    double snow = fl_report_snow_particle_substeps_per_s(prof, world);
    if (snow > 0) cJSON_AddNumberToObject(r, "snow_particle_substeps_per_s", snow);
  }
  cJSON *objects = cJSON_AddArrayToObject(r, "objects");
  for (uint32_t i = 0; i < fl_world_object_count(world); i++) {
    fl_object_stats s;
    if (!fl_world_stats(world, i, &s)) {
      fl_warn("report: %s", fl_error_message());
      fl_error_clear();
      continue;
    }
    cJSON_AddItemToArray(objects, object_json(&s));
  }
  add_volume_losses(r, world);
  return r;
}

bool fl_report_write(cJSON *report, const fl_validation_counts *counts, const char *path)
{
  cJSON *v = cJSON_AddObjectToObject(report, "validation");
  cJSON_AddNumberToObject(v, "errors", (double)counts->errors);
  cJSON_AddNumberToObject(v, "warnings", (double)counts->warnings);
  char *text = cJSON_Print(report);
  if (!text) return fl_error_set("report: out of memory");
  bool ok = fl_file_write(path, text, strlen(text));
  free(text);
  return ok;
}

bool fl_dump_write(fl_world *world, const char *path)
{
  FILE *f = fopen(path, "w");
  if (!f) return fl_error_set("cannot write %s", path);
  fprintf(f, "object,index,x,y,z,vx,vy,vz\n");
  const fl_scene *scene = fl_world_scene(world);
  bool ok = true;
  uint32_t object = 0;
  for (uint32_t o = 0; o < scene->object_count && ok; o++) {
    if (scene->objects[o].type == FL_OBJECT_COLLIDER) continue;
    float (*pos)[4], (*vel)[4];
    uint32_t n;
    if (!fl_world_read_state(world, object++, &pos, &vel, &n)) {
      ok = false;
      break;
    }
    for (uint32_t i = 0; i < n; i++)
      fprintf(f, "%s,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", scene->objects[o].name, i, pos[i][0], pos[i][1],
              pos[i][2], vel[i][0], vel[i][1], vel[i][2]);
    free(pos);
    free(vel);
  }
  if (fclose(f) != 0 && ok) ok = fl_error_set("cannot write %s", path);
  return ok;
}
