/* app/report: the run report (--report FILE.json) and the particle dump
 * (--dump FILE.csv). Both are contracts documented in the README. */
#pragma once
#include <cjson/cJSON.h>

#include "gpu/gpu.h"
#include "gpu/profiler.h"
#include "sim/world.h"

typedef struct {
  uint64_t frames;             /* frames measured (after warm-up in bench mode) */
  bool bench;
  double ceiling_gbps;         /* bench: same-run copy ceiling */
  uint64_t ceiling_bytes;       /* bench: the size of each buffer the ceiling's copy used */
  const char *quality;         /* --quality as resolved ("low", ...; NULL: not recorded) */
} fl_report_info;

/* Adds "device" (name, type, driver, api, ...) and "queues" to a report object. */
void fl_report_add_device(cJSON *report, const fl_gpu *gpu);
/* Builds the report (device, queues, scene, frames, timings, objects; bench
 * fields when info->bench). Reads the world back: call after the last frame. */
cJSON *fl_report_build(const fl_gpu *gpu, const fl_profiler *prof, fl_world *world, const fl_report_info *info);
/* The report of a run that failed (a timeout, a lost device, a write error...):
 * device, scene, frames drawn and `error`, the message; reads nothing back. */
cJSON *fl_report_build_failed(const fl_gpu *gpu, const char *scene, uint64_t frames, const char *error);
/* Prints each material's line after a run (e.g. the worst volume loss per
 * volume_conservation mode: the survey's Figure 11 experiment); reads back. */
bool fl_report_print_run_lines(fl_world *world, const fl_profiler *prof);
/* Writes figures into a report object (nested objects for grouped ones). */
void fl_report_add_stats(cJSON *into, const fl_stats *stats);
/* Adds the validation counts (known only after teardown) and writes the file. */
bool fl_report_write(cJSON *report, const fl_validation_counts *counts, const char *path);
/* Writes object,index,x,y,z,vx,vy,vz for every particle of every object. */
bool fl_dump_write(fl_world *world, const char *path);
