/* app/renderdoc: RenderDoc's in-app capture API (renderdoc_app.h, librenderdoc-dev),
 * active only when flurry runs under RenderDoc: librenderdoc.so is then already in
 * the process (RenderDoc's Vulkan layer), and it is looked up without loading it.
 * Key C captures the next frame; FLURRY_RENDERDOC_FRAME=N captures frame N (headless
 * too). Every pass is a debug label (fl_rec_pass), so a capture's event list reads
 * like the profiler (docs/PROFILING.md). RenderDoc's own capture keys are turned off:
 * F12 is flurry's screenshot. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <volk.h>

/* Finds the API when librenderdoc.so is loaded (after the Vulkan instance exists); false otherwise. */
bool fl_renderdoc_attach(void);
/* Starts capturing before a frame is recorded, when `capture` and the API is attached. */
void fl_renderdoc_frame_begin(VkInstance instance, bool capture);
/* Ends a capture started by fl_renderdoc_frame_begin (after the frame's submit and present)
 * and prints where it went; nothing when none was started. */
void fl_renderdoc_frame_end(VkInstance instance, uint64_t frame);
