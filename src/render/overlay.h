/* render/overlay: the text overlay (frame time, GPU ms per pass, counts, key
 * help) turned into coloured triangles with stb_easy_font, in a small
 * host-visible vertex buffer per frame slot; also the 3D view's labels and
 * markers (render/markers.h), as text and outlined squares. */
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
/* Empties the slot's vertices. */
void fl_overlay_clear(fl_overlay *ov, uint32_t slot);
/* Appends `text` (lines separated by '\n') at pixel (x, y), scaled, in colour `rgba`
 * (NULL: the overlay's white), over a dark shadow, to the slot's vertices. */
void fl_overlay_add_text(fl_overlay *ov, uint32_t slot, const char *text, float x, float y, float scale,
                         const uint8_t rgba[4]);
/* The width in pixels of one line of `text` at `scale`. */
float fl_overlay_text_width(const char *text, float scale);
/* Appends a filled square of half size `half` pixels centred on (x, y), outlined in dark. */
void fl_overlay_add_box(fl_overlay *ov, uint32_t slot, float x, float y, float half, const uint8_t rgba[4]);
/* Turns stb_easy_font quads into triangles; returns the vertex count written (for tests). */
uint32_t fl_overlay_layout(const char *text, float x, float y, float scale, fl_overlay_vertex *out,
                           uint32_t max_vertices);
