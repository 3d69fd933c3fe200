/* gpu/trace: Chrome trace event JSON from the profiler's timestamps (trace.h). */
#define _POSIX_C_SOURCE 200809L
#include "gpu/trace.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TRACK_CPU = 1, TRACK_GRAPHICS = 2, TRACK_COMPUTE = 3 };

struct fl_trace {
  FILE *file;
  bool async;          /* two queues: two GPU tracks */
  double period_ns;
  bool aligned;        /* gpu_base_ts/cpu_base_ns hold a GPU<->CPU clock pair */
  uint64_t gpu_base_ts, cpu_base_ns;
  uint64_t first_submit_end_ns; /* the fallback alignment point (0: none yet) */
  bool failed;
};

uint64_t fl_trace_cpu_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One clock pair (device timestamp, CLOCK_MONOTONIC) from VK_EXT_calibrated_timestamps. */
static void calibrate(fl_gpu *gpu, fl_trace *t)
{
  if (!gpu->has_calibrated_timestamps || !vkGetCalibratedTimestampsEXT) return;
  VkCalibratedTimestampInfoEXT info[2] = {
      {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = VK_TIME_DOMAIN_DEVICE_EXT},
      {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT},
  };
  uint64_t ts[2], deviation = 0;
  if (vkGetCalibratedTimestampsEXT(gpu->device, 2, info, ts, &deviation) != VK_SUCCESS) return;
  t->gpu_base_ts = ts[0];
  t->cpu_base_ns = ts[1];
  t->aligned = true;
}

static void track_name(fl_trace *t, int tid, const char *name)
{
  fprintf(t->file, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s\"}},\n", tid,
          name);
  fprintf(t->file, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"sort_index\":%d}},\n",
          tid, tid);
}

bool fl_trace_open(fl_gpu *gpu, const char *path, fl_trace **out)
{
  *out = NULL;
  fl_trace *t = calloc(1, sizeof *t);
  if (!t) return fl_error_set("out of host memory for the trace");
  t->file = fopen(path, "w");
  if (!t->file) {
    free(t);
    return fl_error_set("--trace: cannot write %s", path);
  }
  t->async = gpu->async_compute;
  t->period_ns = gpu->props.limits.timestampPeriod;
  calibrate(gpu, t);
  fprintf(t->file, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"device\":\"%s\",\"clock_alignment\":\"%s\"},\n"
                   "\"traceEvents\":[\n",
          gpu->props.deviceName, t->aligned ? "calibrated" : "first submit");
  fprintf(t->file, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"flurry on %s\"}},\n",
          gpu->props.deviceName);
  track_name(t, TRACK_CPU, "CPU: record + submit");
  track_name(t, TRACK_GRAPHICS, t->async ? "graphics queue" : "graphics+compute queue");
  if (t->async) track_name(t, TRACK_COMPUTE, "async compute queue");
  *out = t;
  return true;
}

bool fl_trace_close(fl_trace *t)
{
  if (!t) return true;
  /* A last metadata event closes the list without a trailing comma. */
  fprintf(t->file, "{\"name\":\"trace_end\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{}}\n]}\n", TRACK_CPU);
  bool ok = !t->failed && !ferror(t->file);
  ok = fclose(t->file) == 0 && ok;
  free(t);
  return ok ? true : fl_error_set("--trace: writing the trace failed");
}

static void event(fl_trace *t, const char *name, int tid, uint64_t frame, double ts_us, double dur_us,
                  uint64_t bytes)
{
  if (fprintf(t->file, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                       "\"args\":{\"frame\":%llu",
              name, tid == TRACK_CPU ? "cpu" : "gpu", tid, ts_us, dur_us, (unsigned long long)frame) < 0)
    t->failed = true;
  if (bytes && dur_us > 0) fprintf(t->file, ",\"bytes\":%llu,\"gbps\":%.3f", (unsigned long long)bytes, bytes / (dur_us * 1e3));
  fputs("}},\n", t->file);
}

void fl_trace_cpu(fl_trace *t, const char *name, uint64_t frame, uint64_t begin_ns, uint64_t end_ns)
{
  if (!t) return;
  if (!t->first_submit_end_ns && strcmp(name, "submit") == 0) t->first_submit_end_ns = end_ns;
  event(t, name, TRACK_CPU, frame, begin_ns * 1e-3, (end_ns - begin_ns) * 1e-3, 0);
}

void fl_trace_gpu(fl_trace *t, const char *name, int queue, uint64_t frame, uint64_t begin_ts, uint64_t end_ts,
                  uint64_t bytes)
{
  if (!t) return;
  if (!t->aligned) { /* no calibration: the first GPU timestamp is the end of the first submit */
    t->gpu_base_ts = begin_ts;
    t->cpu_base_ns = t->first_submit_end_ns ? t->first_submit_end_ns : fl_trace_cpu_now_ns();
    t->aligned = true;
  }
  double begin_ns = (double)t->cpu_base_ns + ((double)begin_ts - (double)t->gpu_base_ts) * t->period_ns;
  double dur_ns = end_ts >= begin_ts ? (double)(end_ts - begin_ts) * t->period_ns : -1.0;
  event(t, name, queue == 1 && t->async ? TRACK_COMPUTE : TRACK_GRAPHICS, frame, begin_ns * 1e-3, dur_ns * 1e-3,
        bytes);
}

void fl_trace_note(fl_trace *t, const char *what, int queue, uint64_t frame, uint64_t count)
{
  if (!t) return;
  fprintf(t->file, "{\"name\":\"%s\",\"cat\":\"note\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,"
                   "\"args\":{\"frame\":%llu,\"count\":%llu}},\n",
          what, queue == 1 && t->async ? TRACK_COMPUTE : TRACK_GRAPHICS, fl_trace_cpu_now_ns() * 1e-3,
          (unsigned long long)frame, (unsigned long long)count);
}
