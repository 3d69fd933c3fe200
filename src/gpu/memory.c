/* gpu/memory: a few large VkDeviceMemory blocks per memory type, sub-allocated
 * by gpu/suballoc, and the buffers and images placed in them. Sizes are
 * checked against the heap and maxStorageBufferRange before anything is made. */
#include "core/log.h"
#include "gpu/gpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE ((VkDeviceSize)64 << 20)

struct fl_memory_block {
  VkDeviceMemory memory;
  uint32_t type_index;
  VkDeviceSize size;
  fl_suballoc alloc;
  void *mapped;
  bool for_images; /* images and buffers never share a block: no bufferImageGranularity concerns */
  fl_memory_block *next;
};

static int find_memory_type(const fl_gpu *gpu, uint32_t type_bits, fl_memory_kind kind)
{
  VkMemoryPropertyFlags want[3][2] = {
      [FL_MEMORY_DEVICE] = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0},
      [FL_MEMORY_UPLOAD] = {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT},
      [FL_MEMORY_READBACK] = {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                  VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT},
  };
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < gpu->mem_props.memoryTypeCount; i++) {
      if (!(type_bits & (1u << i))) continue;
      VkMemoryPropertyFlags f = gpu->mem_props.memoryTypes[i].propertyFlags;
      if ((f & want[kind][pass]) == want[kind][pass]) return (int)i;
    }
  }
  return -1;
}

static VkDeviceSize heap_used(const fl_gpu *gpu, uint32_t heap)
{
  VkDeviceSize used = 0;
  for (const fl_memory_block *b = gpu->blocks; b; b = b->next)
    if (gpu->mem_props.memoryTypes[b->type_index].heapIndex == heap) used += b->size;
  return used;
}

static fl_memory_block *block_create(fl_gpu *gpu, uint32_t type_index, VkDeviceSize size,
                                     const char *for_what)
{
  uint32_t heap = gpu->mem_props.memoryTypes[type_index].heapIndex;
  VkDeviceSize heap_size = gpu->mem_props.memoryHeaps[heap].size;
  VkDeviceSize used = heap_used(gpu, heap);
  if (size > heap_size || used + size > heap_size) {
    fl_error_set("%s needs %.1f MiB of GPU memory, but heap %u has %.1f MiB with %.1f MiB in use",
                 for_what, size / 1048576.0, heap, heap_size / 1048576.0, used / 1048576.0);
    return NULL;
  }
  fl_memory_block *b = calloc(1, sizeof *b);
  if (!b || !fl_suballoc_init(&b->alloc, size)) {
    free(b);
    fl_error_set("out of host memory");
    return NULL;
  }
  VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = size, .memoryTypeIndex = type_index};
  VkResult r = vkAllocateMemory(gpu->device, &info, NULL, &b->memory);
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
    fl_suballoc_destroy(&b->alloc);
    free(b);
    fl_error_set("%s: vkAllocateMemory of %.1f MiB failed with %s", for_what, size / 1048576.0,
                 fl_vk_result_name(r));
    return NULL;
  }
  if (r != VK_SUCCESS) {
    fl_suballoc_destroy(&b->alloc);
    free(b);
    fl_vk_fail(r, "vkAllocateMemory", __FILE__, __LINE__);
    return NULL;
  }
  if (gpu->mem_props.memoryTypes[type_index].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    if (vkMapMemory(gpu->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped) != VK_SUCCESS) {
      vkFreeMemory(gpu->device, b->memory, NULL);
      fl_suballoc_destroy(&b->alloc);
      free(b);
      fl_error_set("%s: vkMapMemory failed", for_what);
      return NULL;
    }
  }
  b->type_index = type_index;
  b->size = size;
  b->next = gpu->blocks;
  gpu->blocks = b;
  fl_gpu_set_name(gpu, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)b->memory, "block %.0f MiB type %u",
                  size / 1048576.0, type_index);
  return b;
}

/* Finds room for `req` in an existing block of a suitable type, or makes a block. */
static bool memory_place(fl_gpu *gpu, const VkMemoryRequirements *req, fl_memory_kind kind,
                         bool for_images, const char *name, fl_memory_block **block_out,
                         VkDeviceSize *offset_out)
{
  int type = find_memory_type(gpu, req->memoryTypeBits, kind);
  if (type < 0) return fl_error_set("%s: no suitable memory type", name);
  for (fl_memory_block *b = gpu->blocks; b; b = b->next) {
    uint64_t offset;
    if (b->type_index == (uint32_t)type && b->for_images == for_images &&
        fl_suballoc_alloc(&b->alloc, req->size, req->alignment, &offset)) {
      *block_out = b;
      *offset_out = offset;
      return true;
    }
  }
  VkDeviceSize size = req->size > BLOCK_SIZE ? req->size : BLOCK_SIZE;
  uint32_t heap = gpu->mem_props.memoryTypes[type].heapIndex;
  VkDeviceSize heap_size = gpu->mem_props.memoryHeaps[heap].size;
  if (size > req->size && heap_used(gpu, heap) + size > heap_size) size = req->size; /* tight heap: exact */
  char what[160];
  snprintf(what, sizeof what, "buffer \"%s\" (%.1f MiB)", name, req->size / 1048576.0);
  fl_memory_block *b = block_create(gpu, (uint32_t)type, size, what);
  if (!b) return false;
  b->for_images = for_images;
  uint64_t offset;
  if (!fl_suballoc_alloc(&b->alloc, req->size, req->alignment, &offset))
    return fl_error_set("%s: sub-allocation failed in a fresh block", name);
  *block_out = b;
  *offset_out = offset;
  return true;
}

bool fl_buffer_create(fl_gpu *gpu, VkDeviceSize size, fl_memory_kind kind, const char *name,
                      fl_buffer *out)
{
  memset(out, 0, sizeof *out);
  if (size == 0) return fl_error_set("buffer \"%s\": size 0", name);
  if (kind == FL_MEMORY_DEVICE && size > gpu->props.limits.maxStorageBufferRange)
    return fl_error_set("buffer \"%s\" needs %llu bytes (%.1f MiB), more than this device's "
                        "maxStorageBufferRange of %u bytes; use a smaller scene",
                        name, (unsigned long long)size, size / 1048576.0, gpu->props.limits.maxStorageBufferRange);
  VkBufferUsageFlags usage = 0;
  switch (kind) {
  case FL_MEMORY_DEVICE:
    usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
            VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    break;
  case FL_MEMORY_UPLOAD:
    usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
            VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    break;
  case FL_MEMORY_READBACK:
    usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    break;
  }
  uint32_t families[2] = {gpu->graphics_family, gpu->compute_family};
  VkBufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = usage,
      /* Simulation buffers are written on the compute queue and read on the
       * graphics queue: shared by both families, no ownership transfers. */
      .sharingMode = gpu->async_compute ? VK_SHARING_MODE_CONCURRENT : VK_SHARING_MODE_EXCLUSIVE,
      .queueFamilyIndexCount = gpu->async_compute ? 2 : 0,
      .pQueueFamilyIndices = families,
  };
  FL_VK_TRY(vkCreateBuffer(gpu->device, &info, NULL, &out->buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(gpu->device, out->buffer, &req);
  if (!memory_place(gpu, &req, kind, false, name, &out->block, &out->offset)) {
    vkDestroyBuffer(gpu->device, out->buffer, NULL);
    memset(out, 0, sizeof *out);
    return false;
  }
  VkResult r = vkBindBufferMemory(gpu->device, out->buffer, out->block->memory, out->offset);
  if (r != VK_SUCCESS) {
    fl_buffer_destroy(gpu, out);
    return fl_vk_fail(r, "vkBindBufferMemory", __FILE__, __LINE__);
  }
  out->size = size;
  if (out->block->mapped) out->mapped = (char *)out->block->mapped + out->offset;
  fl_gpu_set_name(gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)out->buffer, "%s", name);
  return true;
}

void fl_buffer_destroy(fl_gpu *gpu, fl_buffer *buffer)
{
  if (buffer->buffer) vkDestroyBuffer(gpu->device, buffer->buffer, NULL);
  if (buffer->block) fl_suballoc_free(&buffer->block->alloc, buffer->offset);
  memset(buffer, 0, sizeof *buffer);
}

bool fl_image_create(fl_gpu *gpu, VkExtent2D extent, VkFormat format, VkImageUsageFlags usage,
                     VkImageAspectFlags aspect, const char *name, fl_image *out)
{
  memset(out, 0, sizeof *out);
  if (extent.width == 0 || extent.height == 0 || extent.width > gpu->props.limits.maxImageDimension2D ||
      extent.height > gpu->props.limits.maxImageDimension2D)
    return fl_error_set("image \"%s\": size %ux%u is outside 1..%u", name, extent.width, extent.height,
                        gpu->props.limits.maxImageDimension2D);
  uint32_t families[2] = {gpu->graphics_family, gpu->compute_family};
  VkImageCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = format,
      .extent = {extent.width, extent.height, 1},
      .mipLevels = 1,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .queueFamilyIndexCount = 0,
      .pQueueFamilyIndices = families,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
  };
  FL_VK_TRY(vkCreateImage(gpu->device, &info, NULL, &out->image));
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(gpu->device, out->image, &req);
  if (!memory_place(gpu, &req, FL_MEMORY_DEVICE, true, name, &out->block, &out->offset)) {
    vkDestroyImage(gpu->device, out->image, NULL);
    memset(out, 0, sizeof *out);
    return false;
  }
  FL_VK_TRY(vkBindImageMemory(gpu->device, out->image, out->block->memory, out->offset));
  VkImageViewCreateInfo view = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = out->image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = format,
      .subresourceRange = {aspect, 0, 1, 0, 1},
  };
  FL_VK_TRY(vkCreateImageView(gpu->device, &view, NULL, &out->view));
  out->format = format;
  out->extent = extent;
  fl_gpu_set_name(gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)out->image, "%s", name);
  return true;
}

void fl_image_destroy(fl_gpu *gpu, fl_image *image)
{
  if (image->view) vkDestroyImageView(gpu->device, image->view, NULL);
  if (image->image) vkDestroyImage(gpu->device, image->image, NULL);
  if (image->block) fl_suballoc_free(&image->block->alloc, image->offset);
  memset(image, 0, sizeof *image);
}

VkDeviceSize fl_gpu_memory_used(const fl_gpu *gpu)
{
  VkDeviceSize used = 0;
  for (const fl_memory_block *b = gpu->blocks; b; b = b->next) used += fl_suballoc_used(&b->alloc);
  return used;
}

void fl_memory_destroy_all(fl_gpu *gpu)
{
  fl_memory_block *b = gpu->blocks;
  while (b) {
    fl_memory_block *next = b->next;
    if (b->mapped) vkUnmapMemory(gpu->device, b->memory);
    vkFreeMemory(gpu->device, b->memory, NULL);
    fl_suballoc_destroy(&b->alloc);
    free(b);
    b = next;
  }
  gpu->blocks = NULL;
}
