/* app/capture: screenshots and --record. The graphics command buffer copies
 * the finished image into the slot's readback buffer; the PNG is written once
 * that slot's fence has signalled (two frames later, or at the end): no stall. */
#pragma once
#include "gpu/gpu.h"

typedef struct {
  fl_buffer readback[FL_GPU_FRAMES_IN_FLIGHT];
  char pending_path[FL_GPU_FRAMES_IN_FLIGHT][512]; /* "" when the slot holds no capture */
  VkExtent2D extent[FL_GPU_FRAMES_IN_FLIGHT];
  VkExtent2D target;                               /* the image a capture copies */
  VkFormat format;
} fl_capture;

/* Sets the size and format of the images captured (re-call after a resize); allocates nothing. */
void fl_capture_resize(fl_capture *c, VkExtent2D extent, VkFormat format);
void fl_capture_destroy(fl_gpu *gpu, fl_capture *c);
/* Records the copy of `image` (in `layout`, restored afterwards) into the slot's
 * buffer, to be written to `path`; the buffer is made on the first capture. */
bool fl_capture_record(fl_gpu *gpu, fl_capture *c, VkCommandBuffer cmd, uint32_t slot, VkImage image,
                       VkImageLayout layout, const char *path);
/* Writes the slot's pending PNG, if any (call after the slot's fence). */
bool fl_capture_flush(fl_capture *c, uint32_t slot);
/* Writes RGBA8 (or BGRA8 when `bgra`) pixels as a PNG; records an error on failure. */
bool fl_png_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, bool bgra);
/* Writes RGB8 pixels as a PNG, every write checked: on failure "cannot write PATH:
 * <errno text>" and no partial file (core/file.h fl_file_finish). */
bool fl_png_write_rgb(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height);
/* PNG is the only format written: a path must end in .png (or name a device or pipe);
 * otherwise false with "WHAT: expected a path ending in .png". */
bool fl_png_path_check(const char *what, const char *path);
