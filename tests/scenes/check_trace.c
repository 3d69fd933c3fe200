/* tests/scenes/check_trace: checks a --trace file against the same run's report
 * (check_report REPORT.json --trace TRACE.json): the trace is Chrome trace JSON
 * (an object with a traceEvents array); every "X" event has a name, a track, a
 * finite ts and dur >= 0 and a frame in 0..frames-1; each frame has exactly one
 * CPU "record" and one "submit"; every pass the profiler timed (the report's
 * timings_ms but "frame") appears in every frame on a GPU track, and no pass the
 * report lacks appears. */
#include "check_trace.h"

#include "check.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PASSES 256

static int failures;
#define TCHECK(cond, ...) CHECK_COUNTED(failures, "check_trace", cond, __VA_ARGS__)

static double number(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int check_trace(const cJSON *report, const cJSON *trace)
{
  failures = 0;
  const cJSON *events = cJSON_GetObjectItemCaseSensitive(trace, "traceEvents");
  TCHECK(cJSON_IsArray(events), "no traceEvents array");
  double frames_d = number(report, "frames");
  const cJSON *timings = cJSON_GetObjectItemCaseSensitive(report, "timings_ms");
  if (!cJSON_IsArray(events) || !(frames_d >= 1) || !cJSON_IsObject(timings)) return failures + 1;
  uint32_t frames = (uint32_t)frames_d;

  const char *passes[MAX_PASSES];
  uint32_t pass_count = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, timings)
    if (cJSON_IsObject(t) && strcmp(t->string, "frame") != 0 && pass_count < MAX_PASSES) passes[pass_count++] = t->string;
  /* seen[frame * (pass_count + 2) + k]: passes, then "record" and "submit". */
  uint32_t stride = pass_count + 2;
  uint32_t *seen = calloc((size_t)frames * stride, sizeof *seen);
  if (!seen) return failures + 1;
  uint32_t gpu_events = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events)
  {
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph"), *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    TCHECK(cJSON_IsString(ph) && cJSON_IsString(name), "an event without ph or name");
    if (!cJSON_IsString(ph) || !cJSON_IsString(name) || strcmp(ph->valuestring, "X") != 0) continue;
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
    bool gpu = cJSON_IsString(cat) && strcmp(cat->valuestring, "gpu") == 0;
    double ts = number(e, "ts"), dur = number(e, "dur"), tid = number(e, "tid");
    double frame = number(cJSON_GetObjectItemCaseSensitive(e, "args"), "frame");
    TCHECK(isfinite(ts) && tid >= 1, "%s: no ts or tid", name->valuestring);
    TCHECK(dur >= 0, "%s (frame %g): duration %g us", name->valuestring, frame, dur);
    if (!(frame >= 0 && frame < frames)) {
      TCHECK(0, "%s: frame %g outside 0..%u", name->valuestring, frame, frames - 1);
      continue;
    }
    uint32_t k = 0;
    if (gpu) {
      while (k < pass_count && strcmp(passes[k], name->valuestring) != 0) k++;
      TCHECK(k < pass_count, "GPU pass %s is not in the report's timings", name->valuestring);
      gpu_events++;
    } else if (strcmp(name->valuestring, "record") == 0) k = pass_count;
    else if (strcmp(name->valuestring, "submit") == 0) k = pass_count + 1;
    else k = stride;
    if (k < stride) seen[(uint32_t)frame * stride + k]++;
  }
  for (uint32_t f = 0; f < frames; f++) {
    for (uint32_t k = 0; k < pass_count; k++)
      TCHECK(seen[f * stride + k] >= 1, "frame %u lacks pass %s", f, passes[k]);
    TCHECK(seen[f * stride + pass_count] == 1 && seen[f * stride + pass_count + 1] == 1,
           "frame %u: %u record and %u submit events on the CPU track (want 1 each)", f, seen[f * stride + pass_count],
           seen[f * stride + pass_count + 1]);
  }
  free(seen);
  printf("check_trace: %u frames, %u passes, %u GPU events\n", frames, pass_count, gpu_events);
  return failures;
}
