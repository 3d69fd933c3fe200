/* render/overlay: text to triangles with stb_easy_font. */
#include "render/overlay.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#include <stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

typedef struct {
  float x, y, z;
  unsigned char color[4];
} easy_font_vertex;

bool fl_overlay_create(fl_gpu *gpu, fl_overlay *ov)
{
  memset(ov, 0, sizeof *ov);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++)
    if (!fl_buffer_create(gpu, FL_OVERLAY_MAX_VERTICES * sizeof(fl_overlay_vertex), FL_MEMORY_UPLOAD,
                          "overlay vertices", &ov->vertices[s]))
      return false;
  return true;
}

void fl_overlay_destroy(fl_gpu *gpu, fl_overlay *ov)
{
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) fl_buffer_destroy(gpu, &ov->vertices[s]);
}

/* Lays out `text` in colour `rgba` over a dark shadow; returns the vertices written. */
static uint32_t layout(const char *text, float x, float y, float scale, const uint8_t rgba[4], fl_overlay_vertex *out,
                       uint32_t max_vertices)
{
  static easy_font_vertex quads[FL_OVERLAY_MAX_VERTICES * 4 / 6];
  uint32_t n = 0;
  float line_y = 0;
  const char *line = text;
  char buf[512];
  while (*line) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = 0;
    /* A dark shadow first, then the text, so it reads on any background. */
    for (int pass = 0; pass < 2; pass++) {
      int quad_count = stb_easy_font_print(0, 0, buf, NULL, quads, (int)sizeof quads);
      for (int q = 0; q < quad_count && n + 6 <= max_vertices; q++) {
        static const int order[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++) {
          const easy_font_vertex *v = &quads[4 * q + order[k]];
          float shadow = pass == 0 ? 1.0f : 0.0f;
          out[n].x = x + (v->x + shadow) * scale;
          out[n].y = y + (line_y + v->y + shadow) * scale;
          for (int c = 0; c < 3; c++) out[n].rgba[c] = pass ? rgba[c] : 0;
          out[n].rgba[3] = pass ? rgba[3] : 160;
          n++;
        }
      }
    }
    line_y += 12.0f;
    if (!end) break;
    line = end + 1;
  }
  return n;
}

static const uint8_t TEXT_RGBA[4] = {235, 240, 245, 255};

uint32_t fl_overlay_layout(const char *text, float x, float y, float scale, fl_overlay_vertex *out,
                           uint32_t max_vertices)
{
  return layout(text, x, y, scale, TEXT_RGBA, out, max_vertices);
}

void fl_overlay_clear(fl_overlay *ov, uint32_t slot) { ov->vertex_count[slot] = 0; }

void fl_overlay_add_text(fl_overlay *ov, uint32_t slot, const char *text, float x, float y, float scale,
                         const uint8_t rgba[4])
{
  uint32_t n = ov->vertex_count[slot];
  ov->vertex_count[slot] += layout(text, x, y, scale, rgba ? rgba : TEXT_RGBA,
                                   (fl_overlay_vertex *)ov->vertices[slot].mapped + n, FL_OVERLAY_MAX_VERTICES - n);
}

float fl_overlay_text_width(const char *text, float scale) { return (float)stb_easy_font_width((char *)text) * scale; }

void fl_overlay_add_box(fl_overlay *ov, uint32_t slot, float x, float y, float half, const uint8_t rgba[4])
{
  static const uint8_t outline[4] = {20, 20, 24, 220};
  for (int pass = 0; pass < 2; pass++) {
    uint32_t n = ov->vertex_count[slot];
    if (n + 6 > FL_OVERLAY_MAX_VERTICES) return;
    fl_overlay_vertex *v = (fl_overlay_vertex *)ov->vertices[slot].mapped + n;
    float h = pass ? half : half + 1.5f;
    const uint8_t *c = pass ? rgba : outline;
    const float corners[6][2] = {{-h, -h}, {h, -h}, {h, h}, {-h, -h}, {h, h}, {-h, h}};
    for (int k = 0; k < 6; k++) {
      v[k].x = x + corners[k][0];
      v[k].y = y + corners[k][1];
      memcpy(v[k].rgba, c, 4);
    }
    ov->vertex_count[slot] = n + 6;
  }
}
