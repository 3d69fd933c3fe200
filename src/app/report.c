/* app/report: report JSON and dump CSV. */
#include "app/report.h"

#include "core/file.h"
#include "core/log.h"
#include "gpu/device_caps.h"

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

void fl_report_add_stats(cJSON *into, const fl_stats *stats)
{
  for (uint32_t i = 0; i < stats->count; i++) {
    const fl_stat *f = &stats->items[i];
    cJSON *parent = into;
    if (f->group && !(parent = cJSON_GetObjectItemCaseSensitive(into, f->group)))
      parent = cJSON_AddObjectToObject(into, f->group);
    switch (f->kind) {
    case FL_STAT_NUMBER: cJSON_AddNumberToObject(parent, f->key, f->value[0]); break;
    case FL_STAT_TEXT: cJSON_AddStringToObject(parent, f->key, f->text); break;
    case FL_STAT_VEC3: cJSON_AddItemToObject(parent, f->key, vec3_json(f->value)); break;
    }
  }
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
  if (s->unstable) { /* the health watch saw a NaN or a blow-up during the run */
    cJSON *u = cJSON_AddObjectToObject(o, "unstable");
    cJSON_AddStringToObject(u, "reason", fl_health_reason(s->unstable));
    cJSON_AddNumberToObject(u, "frame", (double)s->unstable_frame);
  }
  fl_report_add_stats(o, &s->material);
  return o;
}

static void add_timings(cJSON *report, const fl_profiler *prof, const fl_report_info *info, double *sim_ms_out)
{
  cJSON *timings = cJSON_AddObjectToObject(report, "timings_ms");
  cJSON *passes = info->bench ? cJSON_AddObjectToObject(report, "passes") : NULL;
  double sim_ms = 0;
  for (uint32_t i = 0; i < prof->stat_count; i++) {
    const fl_profile_stat *st = &prof->stats[i];
    if (!st->count) continue; /* not timed in the measured frames (it ran in the warm-up, or in untimed frames) */
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

static void add_kernel(void *user, const char *name, uint32_t workgroup)
{
  cJSON_AddNumberToObject(user, name, workgroup);
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
  /* The same rows as --list-devices --verbose, for the queues and options this run used. */
  fl_device_caps caps;
  fl_device_caps_probe(gpu->instance, gpu->physical, !gpu->async_compute, &caps);
  cJSON *c = cJSON_AddObjectToObject(dev, "caps");
  for (uint32_t i = 0; i < caps.count; i++) {
    cJSON *row = cJSON_AddObjectToObject(c, caps.rows[i].key);
    cJSON_AddStringToObject(row, "value", caps.rows[i].value);
    cJSON_AddStringToObject(row, "path", caps.rows[i].path);
  }
  fl_kernels_each(gpu, add_kernel, cJSON_AddObjectToObject(dev, "kernel_workgroup_size"));
  cJSON *q = cJSON_AddObjectToObject(r, "queues");
  cJSON_AddBoolToObject(q, "async_compute", gpu->async_compute);
  cJSON_AddNumberToObject(q, "graphics_family", gpu->graphics_family);
  cJSON_AddNumberToObject(q, "compute_family", gpu->compute_family);
}

bool fl_report_print_run_lines(fl_world *world, const fl_profiler *prof)
{
  fl_material_summary sums[8];
  int n = fl_world_summaries(world, prof, false, sums, 8);
  for (int i = 0; i < n; i++)
    if (sums[i].run_line[0]) printf("%s\n", sums[i].run_line);
  return n >= 0;
}

/* Each material's scene-level entries (the worst volume loss; bench: throughputs). */
static void add_summaries(cJSON *r, fl_world *world, const fl_profiler *prof, bool bench)
{
  fl_material_summary sums[8];
  int n = fl_world_summaries(world, prof, bench, sums, 8);
  if (n < 0) {
    fl_warn("report: %s", fl_error_message());
    fl_error_clear();
  }
  for (int i = 0; i < n; i++) fl_report_add_stats(r, &sums[i].report);
}

cJSON *fl_report_build(const fl_gpu *gpu, const fl_profiler *prof, fl_world *world, const fl_report_info *info)
{
  cJSON *r = cJSON_CreateObject();
  fl_report_add_device(r, gpu);
  const fl_scene *scene = fl_world_scene(world);
  cJSON_AddStringToObject(r, "scene", scene->name);
  cJSON_AddNumberToObject(r, "frames", (double)info->frames);
  if (info->quality) cJSON_AddStringToObject(r, "quality", info->quality);
  cJSON_AddNumberToObject(r, "sim_steps", (double)fl_world_substeps(world));
  double sim_ms = 0;
  add_timings(r, prof, info, &sim_ms);
  if (info->bench) {
    cJSON *c = cJSON_AddObjectToObject(r, "ceiling");
    cJSON_AddNumberToObject(c, "copy_gbps", info->ceiling_gbps);
    cJSON_AddNumberToObject(c, "bytes", (double)info->ceiling_bytes);
    double per_frame = (double)fl_world_particle_count(world) * scene->sim.substeps;
    cJSON_AddNumberToObject(r, "particle_substeps_per_s", sim_ms > 0 ? per_frame / (sim_ms * 1e-3) : 0);
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
  add_summaries(r, world, prof, info->bench);
  return r;
}

cJSON *fl_report_build_failed(const fl_gpu *gpu, const char *scene, uint64_t frames, const char *error)
{
  cJSON *r = cJSON_CreateObject();
  if (gpu->device) fl_report_add_device(r, gpu);
  cJSON_AddStringToObject(r, "scene", scene);
  cJSON_AddNumberToObject(r, "frames", (double)frames);
  cJSON_AddStringToObject(r, "error", error);
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
  FILE *f = fl_file_create(path);
  if (!f) return false;
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
  if (!ok) { /* a failed read-back: no partial dump either */
    fclose(f);
    remove(path);
    return false;
  }
  return fl_file_finish(f, path);
}
