/* app/overlay_text: overlay lines and the bench table. */
#include "app/overlay_text.h"

#include "app/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERLAY_PASS_ROWS 10 /* the slowest passes; the rest are summed on one line */

static int cmp_last_ms_desc(const void *a, const void *b)
{
  double x = (*(const fl_profile_stat *const *)a)->last_ms, y = (*(const fl_profile_stat *const *)b)->last_ms;
  return (x < y) - (x > y);
}

uint32_t fl_overlay_text_sorted_passes(const fl_profiler *prof, const fl_profile_stat **out, uint32_t max)
{
  uint32_t count = 0;
  for (uint32_t i = 0; i < prof->stat_count && count < max; i++) out[count++] = &prof->stats[i];
  qsort(out, count, sizeof out[0], cmp_last_ms_desc);
  return count;
}

void fl_overlay_text_build(char *out, size_t size, const fl_scene *scene, const fl_world *world,
                           const fl_profiler *prof, double frame_ms, bool paused, bool windowed)
{
  size_t n = 0;
#define ADD(...) (n += n < size ? (size_t)snprintf(out + n, size - n, __VA_ARGS__) : 0)
  ADD("flurry  scene %s%s\nframe %.2f ms   %llu particles   %llu substeps\n", scene->name,
      paused ? "  [paused]" : "", frame_ms, (unsigned long long)fl_world_particle_count(world),
      (unsigned long long)fl_world_substeps(world));
  const fl_profile_stat *sorted[256];
  uint32_t count = fl_overlay_text_sorted_passes(prof, sorted, 256);
  double rest_ms = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (i < OVERLAY_PASS_ROWS) ADD("%8.3f ms  %s\n", sorted[i]->last_ms, sorted[i]->name);
    else rest_ms += sorted[i]->last_ms;
  }
  if (count > OVERLAY_PASS_ROWS) ADD("%8.3f ms  (%u more passes)\n", rest_ms, count - OVERLAY_PASS_ROWS);
  if (!prof->can_time[0] || !prof->can_time[1]) ADD("(a queue cannot write timestamps: untimed)\n");
  char unstable[256];
  if (fl_world_unstable(world, unstable, sizeof unstable)) ADD("UNSTABLE: %s\n", unstable);
  if (windowed)
    ADD("drag: orbit  right-drag: grab  wheel: zoom  space: pause  s: step  r: reset\n"
        "n: next scene  w: wireframe  v: snow view  h: overlay  p: screenshot  esc: quit");
#undef ADD
}

void fl_overlay_text_print_bench(const fl_profiler *prof, const fl_report_info *info, fl_world *world)
{
  char timed[64] = ""; /* llvmpipe times the passes in one frame of 4 (docs/PROFILING.md) */
  if (prof->detail_every > 1) snprintf(timed, sizeof timed, " (passes timed in 1 of %u)", prof->detail_every);
  printf("bench: %llu frames%s, %llu particles, copy ceiling %.2f GB/s (%.1f MiB buffers)\n",
         (unsigned long long)info->frames, timed, (unsigned long long)fl_world_particle_count(world),
         info->ceiling_gbps, info->ceiling_bytes / 1048576.0);
  fl_material_summary sums[8];
  int n = fl_world_summaries(world, prof, true, sums, 8);
  for (int i = 0; i < n; i++)
    if (sums[i].bench_line[0]) printf("%s\n", sums[i].bench_line);
  printf("%-22s %10s %10s %8s %10s\n", "pass", "median ms", "GB/s", "ceiling", "bytes/exec");
  for (uint32_t i = 0; i < prof->stat_count; i++) {
    const fl_profile_stat *st = &prof->stats[i];
    if (!st->count) continue; /* not timed in the measured frames (the report leaves it out too) */
    fl_stat_summary s = fl_profile_summary(st);
    double gbps = st->bytes && s.median > 0 ? (double)st->bytes * st->executions / (s.median * 1e6) : 0;
    if (st->bytes)
      printf("%-22s %10.4f %10.2f %7.0f%% %10llu\n", st->name, s.median, gbps,
             info->ceiling_gbps > 0 ? 100.0 * gbps / info->ceiling_gbps : 0.0, (unsigned long long)st->bytes);
    else
      printf("%-22s %10.4f %10s %8s %10s\n", st->name, s.median, "-", "-", "-");
  }
}
