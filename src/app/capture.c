/* app/capture: image readback without stalls, and PNG files. */
#include "app/capture.h"

#include "core/file.h"
#include "core/log.h"

#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void fl_capture_resize(fl_capture *c, VkExtent2D extent, VkFormat format)
{
  c->format = format;
  c->target = extent;
}

/* The slot's readback buffer, made (or grown) when a capture is asked for: a run
 * that writes no PNG allocates none (a 16384^2 window needs 1 GiB for one). */
static bool readback_for(fl_gpu *gpu, fl_capture *c, uint32_t slot, VkDeviceSize bytes)
{
  if (c->readback[slot].buffer && c->readback[slot].size >= bytes) return true;
  fl_buffer_destroy(gpu, &c->readback[slot]); /* the slot's fence has signalled: no frame uses it */
  return fl_buffer_create(gpu, bytes, FL_MEMORY_READBACK, "screenshot readback", &c->readback[slot]);
}

void fl_capture_destroy(fl_gpu *gpu, fl_capture *c)
{
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) fl_buffer_destroy(gpu, &c->readback[s]);
  memset(c, 0, sizeof *c);
}

bool fl_capture_record(fl_gpu *gpu, fl_capture *c, VkCommandBuffer cmd, uint32_t slot, VkImage image,
                       VkImageLayout layout, const char *path)
{
  VkExtent2D extent = c->target;
  if (!readback_for(gpu, c, slot, (VkDeviceSize)extent.width * extent.height * 4)) return false;
  if (layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
    fl_cmd_image_barrier(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                         VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                              .imageExtent = {extent.width, extent.height, 1}};
  vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c->readback[slot].buffer, 1, &region);
  VkBufferMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                   .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                   .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
                                   .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                   .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                   .buffer = c->readback[slot].buffer, .size = VK_WHOLE_SIZE};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &to_host, 0,
                       NULL);
  if (layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
    fl_cmd_image_barrier(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
  snprintf(c->pending_path[slot], sizeof c->pending_path[slot], "%s", path);
  c->extent[slot] = extent;
  return true;
}

static void write_to_file(void *file, void *data, int size) { fwrite(data, 1, (size_t)size, file); }

bool fl_png_write_rgb(const char *path, const uint8_t *rgb, uint32_t w, uint32_t h)
{
  FILE *f = fl_file_create(path);
  if (!f) return false;
  if (!stbi_write_png_to_func(write_to_file, f, (int)w, (int)h, 3, rgb, (int)w * 3)) {
    fclose(f);
    remove(path);
    return fl_error_set("cannot write %s: the PNG encoder ran out of memory", path);
  }
  return fl_file_finish(f, path); /* every write checked; no partial PNG is left */
}

bool fl_png_write(const char *path, const uint8_t *pixels, uint32_t w, uint32_t h, bool bgra)
{
  uint8_t *rgb = malloc((size_t)w * h * 3);
  if (!rgb) return fl_error_set("%s: out of memory", path);
  for (size_t i = 0; i < (size_t)w * h; i++) {
    rgb[3 * i + 0] = pixels[4 * i + (bgra ? 2 : 0)];
    rgb[3 * i + 1] = pixels[4 * i + 1];
    rgb[3 * i + 2] = pixels[4 * i + (bgra ? 0 : 2)];
  }
  bool ok = fl_png_write_rgb(path, rgb, w, h);
  free(rgb);
  return ok;
}

bool fl_png_path_check(const char *what, const char *path)
{
  size_t n = strlen(path);
  if (n > 4 && strcasecmp(path + n - 4, ".png") == 0) return true;
  struct stat st; /* a device or a pipe (/dev/stdout) takes the PNG bytes as they are */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return true;
  return fl_error_set("%s: expected a path ending in .png (the only format written), got \"%s\"", what, path);
}

bool fl_capture_flush(fl_capture *c, uint32_t slot)
{
  if (!c->pending_path[slot][0]) return true;
  bool bgra = c->format == VK_FORMAT_B8G8R8A8_SRGB || c->format == VK_FORMAT_B8G8R8A8_UNORM;
  bool ok = fl_png_write(c->pending_path[slot], c->readback[slot].mapped, c->extent[slot].width,
                         c->extent[slot].height, bgra);
  c->pending_path[slot][0] = 0;
  return ok;
}
