/* gpu/frames: frames in flight, timeline semaphores between the queues. */
#include "gpu/frames.h"

#include "core/log.h"

#include <string.h>

fl_frame_sync fl_frames_sync_values(uint64_t n, int fault)
{
  fl_frame_sync s = {
      .compute_waits_render = n >= 1 ? n - 1 : 0, /* graphics n-2 done with this slot's snapshot */
      .compute_signals_sim = n + 1,
      .graphics_waits_sim = n + 1,                /* this frame's simulation */
      .graphics_signals_render = n + 1,
  };
  if (fault == 1) s.graphics_waits_sim = n;                                        /* broken on purpose */
  if (fault == 2 && s.compute_waits_render > 0) s.compute_waits_render--;          /* broken on purpose */
  return s;
}

bool fl_frames_create(fl_gpu *gpu, fl_frames *f)
{
  memset(f, 0, sizeof *f);
  uint32_t families[2] = {gpu->graphics_family, gpu->compute_family};
  for (int q = 0; q < 2; q++) {
    VkCommandPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = families[q]};
    FL_VK_TRY(vkCreateCommandPool(gpu->device, &info, NULL, &f->pools[q]));
  }
  VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = FL_GPU_FRAMES_IN_FLIGHT};
  alloc.commandPool = f->pools[0];
  FL_VK_TRY(vkAllocateCommandBuffers(gpu->device, &alloc, f->graphics));
  alloc.commandPool = f->pools[1];
  FL_VK_TRY(vkAllocateCommandBuffers(gpu->device, &alloc, f->compute));
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) {
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    FL_VK_TRY(vkCreateFence(gpu->device, &fi, NULL, &f->fence[s]));
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    FL_VK_TRY(vkCreateSemaphore(gpu->device, &si, NULL, &f->acquire[s]));
    fl_gpu_set_name(gpu, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)f->graphics[s], "graphics slot %u", s);
    fl_gpu_set_name(gpu, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)f->compute[s], "compute slot %u", s);
  }
  return fl_timeline_create(gpu, 0, "sim timeline", &f->sim_timeline) &&
         fl_timeline_create(gpu, 0, "render timeline", &f->render_timeline);
}

void fl_frames_destroy(fl_gpu *gpu, fl_frames *f)
{
  if (!gpu->device) return;
  fl_frames_wait_all(gpu, f);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) {
    if (f->fence[s]) vkDestroyFence(gpu->device, f->fence[s], NULL);
    if (f->acquire[s]) vkDestroySemaphore(gpu->device, f->acquire[s], NULL);
  }
  if (f->sim_timeline) vkDestroySemaphore(gpu->device, f->sim_timeline, NULL);
  if (f->render_timeline) vkDestroySemaphore(gpu->device, f->render_timeline, NULL);
  for (int q = 0; q < 2; q++)
    if (f->pools[q]) vkDestroyCommandPool(gpu->device, f->pools[q], NULL);
  memset(f, 0, sizeof *f);
}


bool fl_frames_wait_slot(fl_gpu *gpu, fl_frames *f, uint32_t slot)
{
  if (!f->in_flight[slot]) return true;
  if (!fl_fence_wait(gpu, f->fence[slot])) return false;
  FL_VK_TRY(vkResetFences(gpu->device, 1, &f->fence[slot]));
  f->in_flight[slot] = false;
  /* The fence's scope holds everything submitted before it on the queue, presents included. */
  if (f->slot_frame[slot] + 1 > f->done) f->done = f->slot_frame[slot] + 1;
  return true;
}

bool fl_frames_wait_all(fl_gpu *gpu, fl_frames *f)
{
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++)
    if (!fl_frames_wait_slot(gpu, f, s)) return false;
  return true;
}

bool fl_frames_begin(fl_gpu *gpu, fl_frames *f, VkCommandBuffer *compute, VkCommandBuffer *graphics)
{
  uint32_t slot = fl_frames_slot(f);
  if (!fl_frames_wait_slot(gpu, f, slot)) return false;
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  FL_VK_TRY(vkResetCommandBuffer(f->compute[slot], 0));
  FL_VK_TRY(vkResetCommandBuffer(f->graphics[slot], 0));
  FL_VK_TRY(vkBeginCommandBuffer(f->compute[slot], &begin));
  FL_VK_TRY(vkBeginCommandBuffer(f->graphics[slot], &begin));
  /* The previous frame's simulation ran earlier on this queue: order its writes
   * before this frame's reads and writes of the same state. */
  fl_cmd_compute_barrier(f->compute[slot]);
  *compute = f->compute[slot];
  *graphics = f->graphics[slot];
  return true;
}

bool fl_frames_submit(fl_gpu *gpu, fl_frames *f, VkSemaphore acquire, VkSemaphore render_done)
{
  uint32_t slot = fl_frames_slot(f);
  uint64_t n = f->frame;
  FL_VK_TRY(vkEndCommandBuffer(f->compute[slot]));
  FL_VK_TRY(vkEndCommandBuffer(f->graphics[slot]));

  /* Compute: wait for frame N-2's drawing (render timeline N-1), signal sim N+1. */
  fl_frame_sync sync = fl_frames_sync_values(n, 0);
  uint64_t compute_wait = sync.compute_waits_render, compute_signal = sync.compute_signals_sim;
  VkPipelineStageFlags compute_stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkTimelineSemaphoreSubmitInfo compute_values = {
      .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
      .waitSemaphoreValueCount = 1, .pWaitSemaphoreValues = &compute_wait,
      .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &compute_signal};
  VkSubmitInfo compute_submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &compute_values,
      .waitSemaphoreCount = 1, .pWaitSemaphores = &f->render_timeline, .pWaitDstStageMask = &compute_stage,
      .commandBufferCount = 1, .pCommandBuffers = &f->compute[slot],
      .signalSemaphoreCount = 1, .pSignalSemaphores = &f->sim_timeline};
  FL_VK_TRY(vkQueueSubmit(gpu->compute_queue, 1, &compute_submit, VK_NULL_HANDLE));

  /* Graphics: wait for this frame's simulation (and the swapchain image). */
  VkSemaphore waits[2] = {f->sim_timeline, acquire};
  uint64_t wait_values[2] = {sync.graphics_waits_sim, 0};
  VkPipelineStageFlags wait_stages[2] = {
      VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
          VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT};
  VkSemaphore signals[2] = {f->render_timeline, render_done};
  uint64_t signal_values[2] = {sync.graphics_signals_render, 0};
  uint32_t wait_count = acquire ? 2 : 1, signal_count = render_done ? 2 : 1;
  VkTimelineSemaphoreSubmitInfo graphics_values = {
      .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
      .waitSemaphoreValueCount = wait_count, .pWaitSemaphoreValues = wait_values,
      .signalSemaphoreValueCount = signal_count, .pSignalSemaphoreValues = signal_values};
  VkSubmitInfo graphics_submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &graphics_values,
      .waitSemaphoreCount = wait_count, .pWaitSemaphores = waits, .pWaitDstStageMask = wait_stages,
      .commandBufferCount = 1, .pCommandBuffers = &f->graphics[slot],
      .signalSemaphoreCount = signal_count, .pSignalSemaphores = signals};
  FL_VK_TRY(vkQueueSubmit(gpu->graphics_queue, 1, &graphics_submit, f->fence[slot]));
  f->in_flight[slot] = true;
  f->slot_frame[slot] = n;
  f->frame++;
  return true;
}
