/* gpu/transfer: load-time uploads through a staging buffer, readbacks for
 * reports and dumps, and fills. Each waits for the GPU: never on the hot path. */
#include "core/log.h"
#include "gpu/gpu_internal.h"

#include <string.h>

bool fl_buffer_upload(fl_gpu *gpu, fl_buffer *dst, VkDeviceSize offset, const void *data,
                      VkDeviceSize size)
{
  if (size == 0) return true;
  if (offset + size > dst->size) return fl_error_set("upload of %llu bytes overruns its buffer", (unsigned long long)size);
  fl_buffer staging;
  if (!fl_buffer_create(gpu, size, FL_MEMORY_UPLOAD, "staging upload", &staging)) return false;
  memcpy(staging.mapped, data, size);
  VkCommandBuffer cmd;
  bool ok = fl_gpu_begin_once(gpu, &cmd);
  if (ok) {
    VkBufferCopy region = {0, offset, size};
    vkCmdCopyBuffer(cmd, staging.buffer, dst->buffer, 1, &region);
    ok = fl_gpu_end_once(gpu, cmd);
  }
  fl_buffer_destroy(gpu, &staging);
  return ok;
}

bool fl_buffer_readback(fl_gpu *gpu, const fl_buffer *src, VkDeviceSize offset, void *data,
                        VkDeviceSize size)
{
  if (size == 0) return true;
  if (offset + size > src->size) return fl_error_set("readback of %llu bytes overruns its buffer", (unsigned long long)size);
  fl_buffer staging;
  if (!fl_buffer_create(gpu, size, FL_MEMORY_READBACK, "staging readback", &staging)) return false;
  VkCommandBuffer cmd;
  bool ok = fl_gpu_begin_once(gpu, &cmd);
  if (ok) {
    VkBufferCopy region = {offset, 0, size};
    vkCmdCopyBuffer(cmd, src->buffer, staging.buffer, 1, &region);
    ok = fl_gpu_end_once(gpu, cmd);
  }
  if (ok) memcpy(data, staging.mapped, size);
  fl_buffer_destroy(gpu, &staging);
  return ok;
}

bool fl_buffer_fill(fl_gpu *gpu, fl_buffer *dst, uint32_t value)
{
  VkCommandBuffer cmd;
  if (!fl_gpu_begin_once(gpu, &cmd)) return false;
  vkCmdFillBuffer(cmd, dst->buffer, 0, VK_WHOLE_SIZE, value);
  return fl_gpu_end_once(gpu, cmd);
}

bool fl_buffer_create_with(fl_gpu *gpu, const void *data, VkDeviceSize bytes, const char *name, fl_buffer *out)
{
  if (bytes == 0) { /* an empty array: 16 zero bytes, so that it still binds */
    bytes = 16;
    data = NULL;
  }
  if (!fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, name, out)) return false;
  return data ? fl_buffer_upload(gpu, out, 0, data, bytes) : fl_buffer_fill(gpu, out, 0);
}
