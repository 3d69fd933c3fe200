/* sim/common/pick: GPU ray pick and the drag constraint (see pick.h). */
#include "sim/common/pick.h"

#include "core/log.h"
#include "flurry_shared.h"

#include <string.h>

bool fl_picker_create(fl_gpu *gpu, fl_picker *p)
{
  memset(p, 0, sizeof *p);
  p->gpu = gpu;
  p->drag_compliance = 1e-6f;
  VkDeviceSize bytes = 8 * FL_PICK_MAX_TARGETS;
  bool ok = fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, "pick result", &p->result);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT && ok; s++)
    ok = fl_buffer_create(gpu, bytes, FL_MEMORY_READBACK, "pick readback", &p->readback[s]);
  if (!ok) fl_picker_destroy(p);
  return ok;
}

void fl_picker_destroy(fl_picker *p)
{
  if (!p->gpu) return;
  fl_buffer_destroy(p->gpu, &p->result);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) fl_buffer_destroy(p->gpu, &p->readback[s]);
  memset(p, 0, sizeof *p);
}

bool fl_picker_add_target(fl_picker *p, const fl_buffer *positions, uint32_t first, uint32_t count)
{
  if (p->target_count == FL_PICK_MAX_TARGETS)
    return fl_error_set("more than %d objects made of particles: the mouse can grab at most %d", FL_PICK_MAX_TARGETS,
                        FL_PICK_MAX_TARGETS);
  p->targets[p->target_count++] = (fl_pick_target){positions, first, count};
  return true;
}

void fl_picker_request(fl_picker *p, const float origin[3], const float direction[3], float radius)
{
  memcpy(p->ray_origin, origin, sizeof p->ray_origin);
  memcpy(p->ray_direction, direction, sizeof p->ray_direction);
  p->radius = radius;
  p->request_pending = true;
}

void fl_picker_record(fl_picker *p, fl_rec *r)
{
  if (!p->request_pending || !p->target_count) return;
  p->request_pending = false;
  vkCmdFillBuffer(r->cmd, p->result.buffer, 0, VK_WHOLE_SIZE, 0xFFFFFFFFu);
  fl_rec_barrier(r);
  for (uint32_t pass = 0; pass < 2; pass++) {
    for (uint32_t t = 0; t < p->target_count; t++) {
      fl_pick_push push = {.origin = {p->ray_origin[0], p->ray_origin[1], p->ray_origin[2]}, .radius = p->radius,
                           .direction = {p->ray_direction[0], p->ray_direction[1], p->ray_direction[2]},
                           .first = p->targets[t].first, .count = p->targets[t].count, .pass = pass, .index = t};
      fl_rec_pass(r, &(fl_pass){.kernel = "common/pick", FL_PUSH(push), .threads = p->targets[t].count,
                                .no_barrier = true, FL_BUFFERS(p->targets[t].positions, &p->result)});
    }
    fl_rec_barrier(r);
  }
  VkBufferCopy region = {0, 0, p->result.size};
  vkCmdCopyBuffer(r->cmd, p->result.buffer, p->readback[r->slot].buffer, 1, &region);
  fl_cmd_transfer_to_host_barrier(r->cmd);
  p->slot_pending[r->slot] = true;
}

bool fl_picker_collect(fl_picker *p, uint32_t slot)
{
  if (!p->slot_pending[slot]) return false;
  p->slot_pending[slot] = false;
  float best = 0;
  bool found = false;
  for (uint32_t t = 0; t < p->target_count; t++) {
    const uint32_t *r = (const uint32_t *)p->readback[slot].mapped + 2 * t;
    if (r[0] == 0xFFFFFFFFu || r[1] == 0xFFFFFFFFu) continue;
    float d;
    memcpy(&d, &r[0], sizeof d);
    if (!found || d < best) {
      best = d;
      found = true;
      p->held_target = t;
      p->held_index = r[1];
    }
  }
  if (found) {
    p->held = true;
    p->held_distance = best;
    for (int a = 0; a < 3; a++) p->drag_target[a] = p->ray_origin[a] + best * p->ray_direction[a];
  }
  return found;
}

bool fl_picker_holds(const fl_picker *p, const fl_buffer *positions)
{
  return p->held && p->targets[p->held_target].positions == positions;
}

void fl_picker_record_drag(const fl_picker *p, fl_rec *r, float h)
{
  if (!p->held) return;
  const fl_pick_target *t = &p->targets[p->held_target];
  fl_pick_push push = {.h = h, .target = {p->drag_target[0], p->drag_target[1], p->drag_target[2]},
                       .compliance = p->drag_compliance, .first = t->first, .count = t->count,
                       .index = p->held_index};
  fl_rec_pass(r, &(fl_pass){.kernel = "common/drag", FL_PUSH(push), .threads = 1, FL_BUFFERS(t->positions)});
}

void fl_picker_release(fl_picker *p) { p->held = false; }
