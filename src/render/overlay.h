/* render/overlay: the text overlay (frame time, GPU ms per pass, counts, key
 * help) turned into coloured triangles with stb_easy_font, in a small
 * host-visible vertex buffer per frame slot. */
#pragma once
#include "gpu/gpu.h"

#define FL_OVERLAY_MAX_VERTICES 60000

typedef struct {
  float x, y;
  uint8_t rgba[4];
} fl_overlay_vertex;

typedef struct {
  fl_buffer vertices[FL_GPU_FRAMES_IN_FLIGHT];
  uint32_t vertex_count[FL_GPU_FRAMES_IN_FLIGHT];
} fl_overlay;

bool fl_overlay_create(fl_gpu *gpu, fl_overlay *ov);
void fl_overlay_destroy(fl_gpu *gpu, fl_overlay *ov);
/* Lays out `text` (lines separated by '\n') at pixel (x, y), scaled, into the slot's buffer. */
void fl_overlay_set_text(fl_overlay *ov, uint32_t slot, const char *text, float x, float y, float scale);
/* Turns stb_easy_font quads into triangles; returns the vertex count written (for tests). */
uint32_t fl_overlay_layout(const char *text, float x, float y, float scale, fl_overlay_vertex *out,
                           uint32_t max_vertices);
