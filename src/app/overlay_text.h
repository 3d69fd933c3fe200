/* app/overlay_text: what the overlay says (frame time, GPU ms per pass,
 * counts, key help) and the bench table printed at the end of --bench. */
#pragma once
#include <stddef.h>

#include "app/report.h"
#include "gpu/profiler.h"
#include "scene/scene.h"
#include "sim/world.h"

/* The current scene's passes (the profiler forgets a scene's passes when it
 * changes), slowest first as of the latest frame read back; returns how many. */
uint32_t fl_overlay_text_sorted_passes(const fl_profiler *prof, const fl_profile_stat **out, uint32_t max);
/* Writes the overlay text for the current frame into `out`. */
void fl_overlay_text_build(char *out, size_t size, const fl_scene *scene, const fl_world *world,
                           const fl_profiler *prof, double frame_ms, bool paused, bool windowed);
/* Prints the per-pass bench table (ms, GB/s, fraction of the copy ceiling) to stdout. */
void fl_overlay_text_print_bench(const fl_profiler *prof, const fl_report_info *info, fl_world *world);
