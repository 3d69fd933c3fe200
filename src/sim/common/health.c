/* sim/common/health: the health watch's buffers, check pass and readback (see health.h). */
#include "sim/common/health.h"

#include "core/log.h"

#include <string.h>

bool fl_health_create(fl_gpu *gpu, float max_speed, fl_health *out)
{
  memset(out, 0, sizeof *out);
  out->gpu = gpu;
  out->max_speed = max_speed;
  VkDeviceSize bytes = sizeof(uint32_t) * FL_HEALTH_MAX_WORDS;
  bool ok = fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, "health flags", &out->flags);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT && ok; s++)
    ok = fl_buffer_create(gpu, bytes, FL_MEMORY_READBACK, "health readback", &out->readback[s]);
  uint32_t zero[FL_HEALTH_MAX_WORDS] = {0};
  ok = ok && fl_buffer_upload(gpu, &out->flags, 0, zero, sizeof zero);
  if (!ok) fl_health_destroy(out);
  return ok;
}

void fl_health_destroy(fl_health *h)
{
  if (!h->gpu) return;
  fl_buffer_destroy(h->gpu, &h->flags);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) fl_buffer_destroy(h->gpu, &h->readback[s]);
  memset(h, 0, sizeof *h);
}

bool fl_health_watch(fl_health *h, uint32_t object, uint32_t *word)
{
  if (h->word_count == FL_HEALTH_MAX_WORDS)
    return fl_error_set("health watch: more than %d simulated objects", FL_HEALTH_MAX_WORDS);
  h->object[h->word_count] = object;
  *word = h->word_count++;
  return true;
}

void fl_health_record_range(fl_health *h, fl_rec *r, uint32_t word, const fl_buffer *positions,
                            const fl_buffer *velocities, uint32_t first, uint32_t count)
{
  fl_health_push push = {.first = first, .count = count, .word = word, .max_speed = h->max_speed};
  fl_rec_pass(r, &(fl_pass){.kernel = "common/health", FL_PUSH(push), .threads = count, .no_barrier = true,
                            FL_BUFFERS(positions, velocities, &h->flags)});
}

void fl_health_record_copy(fl_health *h, fl_rec *r, uint64_t frame)
{
  fl_rec_barrier(r);
  VkBufferCopy region = {0, 0, h->flags.size};
  vkCmdCopyBuffer(r->cmd, h->flags.buffer, h->readback[r->slot].buffer, 1, &region);
  fl_cmd_transfer_to_host_barrier(r->cmd);
  h->slot_frame[r->slot] = frame;
  h->pending[r->slot] = true;
}

uint32_t fl_health_collect(fl_health *h, uint32_t slot)
{
  if (!h->pending[slot]) return 0;
  const uint32_t *flags = h->readback[slot].mapped;
  uint32_t turned = 0;
  for (uint32_t w = 0; w < h->word_count; w++) {
    if (!flags[w] || h->bits[w]) continue;
    h->bits[w] = flags[w];
    h->frame[w] = h->slot_frame[slot];
    turned++;
  }
  h->pending[slot] = false;
  return turned;
}

const char *fl_health_reason(uint32_t bits)
{
  if (bits & FL_HEALTH_NOT_FINITE) return "a position or velocity is not finite";
  if (bits & FL_HEALTH_TOO_FAST) return "a particle moves faster than sim.max_speed";
  if (bits & FL_HEALTH_STRETCHED)
    return "an edge is stretched past sim.max_strain, (L - L0) / L0 (the solver does not carry the load: raise "
           "sim.iterations or sim.substeps, or lighten the load)";
  if (bits & FL_HEALTH_GRID_FULL)
    return "the snow spread over more grid blocks than were allocated (raise sim.snow_grid_slack or grid_spacing, "
           "or make the snow smaller)";
  if (bits & FL_HEALTH_CONTACTS_FULL)
    return "more triangle-contact candidate pairs than the list holds (contacts were dropped; a thickness "
           "large against the spacing, or many layers in one place: raise FL_TRI_PAIRS_PER)";
  return "healthy";
}
