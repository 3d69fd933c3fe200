/* tests/gpu/world_fixture.h: helpers for tests that drive a whole fl_world:
 * make one from inline JSON, and record frames into one-shot command buffers
 * with the profiler collected after each (as the app's frame loop does). */
#pragma once
#include <stdio.h>

#include "core/log.h"
#include "gpu/profiler.h"
#include "scene/scene.h"
#include "sim/world.h"

/* Parses `json` and creates its world; prints the reason on failure. */
static inline bool fl_fixture_make_world(fl_gpu *gpu, const char *json, fl_scene *scene, fl_world **world)
{
  fl_error_clear();
  if (!fl_scene_parse(json, "inline.json", NULL, 0, scene)) {
    fprintf(stderr, "  scene: %s\n", fl_error_message());
    return false;
  }
  if (!fl_world_create(gpu, scene, world)) {
    fprintf(stderr, "  world: %s\n", fl_error_message());
    return false;
  }
  return true;
}

/* Records `frames` frames (paused ones when !simulate), alternating slots with the
 * profiler reset per slot; `last_slot` (may be NULL) gets the last slot used. */
static inline bool fl_fixture_step_frames(fl_gpu *gpu, fl_world *world, fl_profiler *prof, int frames,
                                          bool simulate, uint32_t *last_slot)
{
  for (int f = 0; f < frames; f++) {
    uint32_t slot = (uint32_t)f % FL_GPU_FRAMES_IN_FLIGHT;
    VkCommandBuffer cmd;
    if (!fl_gpu_begin_once(gpu, &cmd)) return false;
    fl_profiler_reset(prof, slot, FL_QUEUE_COMPUTE, cmd);
    fl_rec r = fl_world_rec(world, cmd, prof, slot);
    bool recorded = fl_world_record_frame(world, &r, simulate);
    if (!fl_gpu_end_once(gpu, cmd) || !recorded) return false;
    fl_profiler_collect(prof, slot);
    fl_world_collect(world, slot);
    if (fl_world_wants_grow(world) && !fl_world_grow(world)) return false; /* the GPU is idle here */
    if (last_slot) *last_slot = slot;
  }
  return true;
}

/* A number the material reported for an object ("max_strain"; group NULL: top level), NaN if none. */
static inline double fl_fixture_stat(const fl_object_stats *s, const char *group, const char *key)
{
  return fl_stats_value(&s->material, group, key);
}

/* Makes the world of `json`, steps `frames` frames and fills the report stats of
 * its first max_stats objects; prints the reason on failure. */
static inline bool fl_fixture_run_scene(fl_gpu *gpu, const char *json, int frames, fl_scene *scene,
                                        fl_world **world, fl_object_stats *stats, uint32_t max_stats)
{
  fl_profiler prof;
  if (!fl_fixture_make_world(gpu, json, scene, world) || !fl_profiler_create(gpu, &prof)) return false;
  bool ok = fl_fixture_step_frames(gpu, *world, &prof, frames, true, NULL);
  fl_profiler_destroy(&prof);
  for (uint32_t i = 0; ok && i < fl_world_object_count(*world) && i < max_stats; i++)
    ok = fl_world_stats(*world, i, &stats[i]);
  if (!ok) fprintf(stderr, "  %s\n", fl_error_message());
  return ok;
}
