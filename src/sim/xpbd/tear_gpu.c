/* sim/xpbd/tear_gpu: the tear report's buffers, the flag and split passes (see tear_gpu.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "sim/xpbd/tear_gpu.h"

#include "core/log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPORT_BYTES ((1 + FL_TEAR_MAX_REPORTS) * 16)

double fl_tear_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

bool fl_tear_create(fl_gpu *gpu, const fl_xpbd_build *b, fl_tear *out)
{
  memset(out, 0, sizeof *out);
  for (uint32_t o = 0; o < b->object_count; o++) out->on |= b->tear_strain[o] > 0;
  if (!out->on) return true;
  out->gpu = gpu;
  bool ok = fl_buffer_create_with(gpu, b->tear_strain, b->object_count * sizeof(float), "tear strain", &out->strain) &&
            fl_buffer_create_with(gpu, NULL, REPORT_BYTES, "tear report", &out->report) &&
            fl_buffer_create_with(gpu, NULL, FL_TEAR_MAX_SPLITS * 16, "tear splits", &out->splits);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT && ok; s++)
    ok = fl_buffer_create(gpu, REPORT_BYTES, FL_MEMORY_READBACK, "tear report readback", &out->readback[s]) &&
         fl_buffer_create_with(gpu, b->triangles, (uint64_t)b->triangle_count * 12, "drawn triangles",
                               &out->draw_triangles[s]);
  if (!ok) fl_tear_destroy(out);
  return ok;
}

void fl_tear_destroy(fl_tear *t)
{
  if (!t->gpu) return;
  fl_buffer_destroy(t->gpu, &t->strain);
  fl_buffer_destroy(t->gpu, &t->report);
  fl_buffer_destroy(t->gpu, &t->splits);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) {
    fl_buffer_destroy(t->gpu, &t->readback[s]);
    fl_buffer_destroy(t->gpu, &t->draw_triangles[s]);
  }
  memset(t, 0, sizeof *t);
}

void fl_tear_record_flag(fl_tear *t, fl_rec *r, const fl_buffer *pos, const fl_buffer *constraints,
                         const fl_buffer *object_of, uint32_t count)
{
  /* Per constraint its 32-byte record, two positions and the object word and its strain. */
  fl_rec_begin(r, "xpbd/tear_flag", (uint64_t)count * (32 + 32 + 8));
  vkCmdFillBuffer(r->cmd, t->report.buffer, 0, 16, 0);
  fl_rec_barrier(r);
  fl_count_push push = {.count = count};
  fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/tear_flag", FL_PUSH(push), .threads = count,
                            FL_BUFFERS(pos, constraints, object_of, &t->strain, &t->report)});
  VkBufferCopy region = {0, 0, REPORT_BYTES};
  vkCmdCopyBuffer(r->cmd, t->report.buffer, t->readback[r->slot].buffer, 1, &region);
  fl_cmd_transfer_to_host_barrier(r->cmd);
  fl_rec_end(r);
  t->pending[r->slot] = true;
  t->slot_generation[r->slot] = t->generation;
}

/* The report's records sorted by strain, largest first (a few dozen: insertion sort). */
static uint32_t sorted_records(const uint32_t (*report)[4], uint32_t (*out)[4])
{
  uint32_t n = report[0][0] < FL_TEAR_MAX_REPORTS ? report[0][0] : FL_TEAR_MAX_REPORTS;
  for (uint32_t k = 0; k < n; k++) {
    float s;
    memcpy(&s, &report[1 + k][2], sizeof s);
    uint32_t at = k;
    for (; at > 0; at--) {
      float prev;
      memcpy(&prev, &out[at - 1][2], sizeof prev);
      if (prev >= s) break;
      memcpy(out[at], out[at - 1], sizeof out[0]);
    }
    memcpy(out[at], report[1 + k], sizeof out[0]);
  }
  return n;
}

static bool touched(const fl_tear *t, uint32_t p)
{
  for (uint32_t k = 0; k < t->queued_count; k++)
    if (t->queued[k].src == p || t->queued[k].dst == p) return true;
  return false;
}

uint32_t fl_tear_apply_report(fl_tear *t, fl_xpbd_build *b, const uint32_t (*report)[4])
{
  double t0 = fl_tear_now_ms();
  uint32_t records[FL_TEAR_MAX_REPORTS][4];
  uint32_t n = sorted_records(report, records), made = 0;
  t->reports_seen += report[0][0];
  for (uint32_t k = 0; k < n && t->queued_count < FL_TEAR_MAX_SPLITS; k++) {
    uint32_t i = records[k][0], j = records[k][1];
    if (i >= b->particle_count || j >= b->particle_count || touched(t, i) || touched(t, j) ||
        !fl_tear_has_distance(b, i, j))
      continue;
    fl_tear_split split;
    if (!fl_tear_constraint(b, i, j, &split)) continue;
    t->queued[t->queued_count++] = split;
    made++;
  }
  if (!made) return 0;
  if (!fl_xpbd_build_recolour(b)) { /* out of host memory, or past 64 colours: the build is gone */
    fl_log(FL_LOG_ERROR, "cloth tearing: %s", fl_error_message());
    exit(1);
  }
  t->upload = true;
  t->generation++;
  t->splits_done += made;
  t->batches++;
  double ms = fl_tear_now_ms() - t0;
  t->cpu_ms_total += ms;
  t->cpu_ms_batch += ms; /* fl_xpbd_record_topology adds the vertex lists and takes the max */
  return made;
}

uint32_t fl_tear_collect(fl_tear *t, fl_xpbd_build *b, uint32_t slot)
{
  if (!t->on || !t->pending[slot]) return 0;
  t->pending[slot] = false;
  if (t->slot_generation[slot] != t->generation) return 0; /* made on a topology since changed */
  return fl_tear_apply_report(t, b, (const uint32_t(*)[4])t->readback[slot].mapped);
}

void fl_tear_update_buffer(VkCommandBuffer cmd, const fl_buffer *dst, const void *data, uint64_t bytes)
{
  const unsigned char *p = data;
  for (uint64_t at = 0; at < bytes; at += 65536) {
    uint64_t n = bytes - at < 65536 ? bytes - at : 65536;
    vkCmdUpdateBuffer(cmd, dst->buffer, at, n, p + at);
  }
}

void fl_tear_record_split(fl_tear *t, fl_rec *r, const fl_buffer *pos, const fl_buffer *prev, const fl_buffer *vel,
                          const fl_buffer *older, const fl_buffer *vel_old)
{
  uint32_t records[FL_TEAR_MAX_SPLITS][4];
  for (uint32_t k = 0; k < t->queued_count; k++) {
    records[k][0] = t->queued[k].src;
    records[k][1] = t->queued[k].dst;
    memcpy(&records[k][2], &t->queued[k].w, sizeof(float));
    records[k][3] = 0;
  }
  if (t->queued_count) {
    fl_tear_update_buffer(r->cmd, &t->splits, records, (uint64_t)t->queued_count * 16);
    fl_rec_barrier(r);
    fl_count_push push = {.count = t->queued_count};
    fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/tear_split", FL_PUSH(push), .threads = t->queued_count,
                              FL_BUFFERS(pos, prev, vel, older, vel_old, &t->splits)});
  }
  t->queued_count = 0;
}

void fl_tear_record_draw_copy(fl_tear *t, fl_rec *r, const fl_buffer *triangles, uint32_t count)
{
  if (t->draw_generation[r->slot] == t->generation) return;
  fl_rec_begin(r, "xpbd/tear_draw_copy", (uint64_t)count * 24);
  VkBufferCopy region = {0, 0, (VkDeviceSize)count * 12};
  vkCmdCopyBuffer(r->cmd, triangles->buffer, t->draw_triangles[r->slot].buffer, 1, &region);
  fl_rec_barrier(r);
  fl_rec_end(r);
  t->draw_generation[r->slot] = t->generation;
}
