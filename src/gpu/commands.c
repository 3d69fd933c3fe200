/* gpu/commands: one-shot command buffers for load-time work, the barrier
 * patterns every pass uses, timeline semaphores and bounded fence waits. */
#include "core/env.h"
#include "core/log.h"
#include "gpu/gpu_internal.h"

#include <string.h>

/* One-shot command buffers are kept and re-begun, not freed and allocated again: the
 * Khronos validation layer of Debian 12 (1.3.239) frees a freed command buffer's debug
 * labels from its queue thread after the fence wait has returned, and a new command
 * buffer that gets the same handle then records its labels into freed memory
 * (AddressSanitizer: heap-use-after-free in vkCmdBeginDebugUtilsLabelEXT; docs/PORTING.md). */
bool fl_gpu_begin_once(fl_gpu *gpu, VkCommandBuffer *cmd)
{
  if (gpu->once_spare_count > 0) {
    *cmd = gpu->once_spare[--gpu->once_spare_count];
  } else {
    VkCommandBufferAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = gpu->upload_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    FL_VK_TRY(vkAllocateCommandBuffers(gpu->device, &alloc, cmd));
  }
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  FL_VK_TRY(vkBeginCommandBuffer(*cmd, &begin));
  /* Everything earlier on this queue (frames, previous uploads) is finished
   * before, and visible to, this command buffer's transfers and dispatches. */
  VkMemoryBarrier barrier = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
  };
  vkCmdPipelineBarrier(*cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                       &barrier, 0, NULL, 0, NULL);
  return true;
}

bool fl_gpu_end_once(fl_gpu *gpu, VkCommandBuffer cmd)
{
  /* Make this command buffer's writes available to whatever is submitted next. */
  VkMemoryBarrier barrier = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT,
  };
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                       NULL, 0, NULL);
  FL_VK_TRY(vkEndCommandBuffer(cmd));
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  FL_VK_TRY(vkCreateFence(gpu->device, &fi, NULL, &fence));
  VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                         .pCommandBuffers = &cmd};
  VkResult r = vkQueueSubmit(gpu->graphics_queue, 1, &submit, fence);
  bool ok = r == VK_SUCCESS ? fl_fence_wait(gpu, fence) : fl_vk_fail(r, "vkQueueSubmit", __FILE__, __LINE__);
  vkDestroyFence(gpu->device, fence, NULL);
  if (ok && gpu->once_spare_count < FL_GPU_ONCE_SPARES)
    gpu->once_spare[gpu->once_spare_count++] = cmd; /* finished: re-begun by the next fl_gpu_begin_once */
  else
    vkFreeCommandBuffers(gpu->device, gpu->upload_pool, 1, &cmd);
  return ok;
}

#define PATIENT_STEP_S 10ull

static bool fence_wait_patient(fl_gpu *gpu, VkFence fence)
{
  for (uint64_t waited = PATIENT_STEP_S;; waited += PATIENT_STEP_S) {
    VkResult r = vkWaitForFences(gpu->device, 1, &fence, VK_TRUE, PATIENT_STEP_S * 1000000000ull);
    if (r != VK_TIMEOUT) {
      FL_VK_TRY(r);
      return true;
    }
    fl_info("still waiting for the GPU: a submission has run %llu s (a run that is not interactive waits "
            "without a limit)",
            (unsigned long long)waited);
  }
}

bool fl_fence_wait(fl_gpu *gpu, VkFence fence)
{
  if (gpu->patient && !fl_env_get()->fence_timeout_set) return fence_wait_patient(gpu, fence);
  int64_t limit_ms = fl_env_get()->fence_timeout_ms;
  VkResult r = vkWaitForFences(gpu->device, 1, &fence, VK_TRUE, (uint64_t)limit_ms * 1000000ull);
  if (r == VK_TIMEOUT) {
    /* The work is still queued: whatever the caller frees next (this fence, a failed
     * world's buffers, the frames at teardown) may be in use until the device is done.
     * A real hang ends as VK_ERROR_DEVICE_LOST when the driver resets the GPU. */
    fl_warn("the GPU did not finish within %g s; waiting for it before exiting", (double)limit_ms / 1e3);
    fl_gpu_wait_idle(gpu);
    return fl_error_set("the GPU did not finish within %g s (a hang, or far too much work per frame)",
                        (double)limit_ms / 1e3);
  }
  FL_VK_TRY(r);
  return true;
}

void fl_cmd_timestamp_begin(const fl_gpu *gpu, VkCommandBuffer cmd, VkQueryPool pool, uint32_t query)
{
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, query);
  if (gpu->timestamp_needs_flush) fl_cmd_compute_barrier(cmd);
}

void fl_cmd_compute_barrier(VkCommandBuffer cmd)
{
  VkMemoryBarrier barrier = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                       VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT,
  };
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  /* the dispatches a pass wrote are read at the draw-indirect stage (fl_pass.indirect) */
  vkCmdPipelineBarrier(cmd, stages, stages | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &barrier, 0, NULL, 0, NULL);
}

void fl_cmd_compute_to_draw_barrier(VkCommandBuffer cmd)
{
  VkMemoryBarrier barrier = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDEX_READ_BIT |
                       VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT,
  };
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                           VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                       0, 1, &barrier, 0, NULL, 0, NULL);
}

void fl_cmd_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                          VkImageLayout from, VkImageLayout to, VkPipelineStageFlags src_stage,
                          VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                          VkAccessFlags dst_access)
{
  VkImageMemoryBarrier barrier = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = src_access,
      .dstAccessMask = dst_access,
      .oldLayout = from,
      .newLayout = to,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = image,
      .subresourceRange = {aspect, 0, 1, 0, 1},
  };
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &barrier);
}

bool fl_timeline_create(fl_gpu *gpu, uint64_t initial, const char *name, VkSemaphore *out)
{
  VkSemaphoreTypeCreateInfo type = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
      .initialValue = initial,
  };
  VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
  FL_VK_TRY(vkCreateSemaphore(gpu->device, &info, NULL, out));
  fl_gpu_set_name(gpu, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)*out, "%s", name);
  return true;
}

void fl_cmd_transfer_to_host_barrier(VkCommandBuffer cmd)
{
  VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0,
                       NULL);
}
