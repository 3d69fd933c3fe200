/* app/plot: a small CPU rasterizer for grouped bar-chart figures: title, axis
 * with 1-2-5 or per-decade ticks, bars (hatched for reference values), missing
 * marks, legend; text is stb_easy_font quads filled as rectangles. */
#include "app/plot.h"

#include "app/capture.h"
#include "core/log.h"

#include <math.h>
#include <stb_easy_font.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint8_t r, g, b;
} rgb8;

static const rgb8 PALETTE[FL_PLOT_MAX_SERIES] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},  {148, 103, 189},
    {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207},
    {57, 59, 121},  {99, 121, 57}};
static const rgb8 WHITE = {255, 255, 255}, INK = {30, 30, 30}, GRID = {228, 228, 228}, MARK = {90, 90, 90};

/* The image being drawn, and the columns of the current panel: nothing is drawn outside them. */
typedef struct {
  uint8_t *rgb;
  int width, height;
  int clip_x0, clip_x1;
} canvas;

static void fill_rect(canvas *cv, int x0, int y0, int x1, int y1, rgb8 c)
{
  if (x0 < cv->clip_x0) x0 = cv->clip_x0;
  if (x1 > cv->clip_x1) x1 = cv->clip_x1;
  if (y0 < 0) y0 = 0;
  if (y1 > cv->height) y1 = cv->height;
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++) {
      uint8_t *px = cv->rgb + 3 * ((size_t)y * (size_t)cv->width + (size_t)x);
      px[0] = c.r, px[1] = c.g, px[2] = c.b;
    }
}

/* ---- text: stb_easy_font lays a string out as axis-aligned quads, 12 px a line ---- */

typedef struct {
  float x, y, z;
  unsigned char color[4];
} font_vertex;

enum { CAP_HEIGHT = 7, LINE_HEIGHT = 12, MAX_QUADS = 1024 };

static int text_width(const char *text, int scale)
{
  char buf[128];
  snprintf(buf, sizeof buf, "%s", text);
  return stb_easy_font_width(buf) * scale;
}

/* Draws one line of `text` with its top-left corner at (x, y), `scale` pixels per font unit. */
static void draw_text(canvas *cv, int x, int y, int scale, const char *text, rgb8 c)
{
  char buf[128];
  font_vertex quads[4 * MAX_QUADS];
  snprintf(buf, sizeof buf, "%s", text);
  int n = stb_easy_font_print(0, 0, buf, NULL, quads, (int)sizeof quads);
  for (int q = 0; q < n; q++) {
    const font_vertex *v = &quads[4 * q]; /* corners 0 and 2 are opposite */
    fill_rect(cv, x + (int)v[0].x * scale, y + (int)v[0].y * scale, x + (int)v[2].x * scale,
              y + (int)v[2].y * scale, c);
  }
}

/* ---- the y axis ---- */

typedef struct {
  bool log;
  double lo, hi, step; /* range shown and tick spacing: values, or decades (log10) on a log axis */
} axis;

static bool missing(const fl_plot_panel *p, double v) { return !isfinite(v) || (p->log_y && v <= 0); }

static double axis_coord(const axis *a, double v) { return a->log ? log10(v) : v; }

/* Fits the range to the panel's values: from zero (linear) or from at least half a decade
 * below the smallest value (log), so every bar shows, up to a whole tick. */
static axis axis_fit(const fl_plot_panel *p)
{
  axis a = {.log = p->log_y};
  double lo = INFINITY, hi = -INFINITY;
  for (uint32_t g = 0; g < p->group_count; g++)
    for (uint32_t s = 0; s < p->series_count; s++)
      if (!missing(p, p->values[g][s])) {
        lo = fmin(lo, axis_coord(&a, p->values[g][s]));
        hi = fmax(hi, axis_coord(&a, p->values[g][s]));
      }
  if (a.log) {
    if (!(lo <= hi)) lo = 0.5, hi = 1;
    a.lo = floor(lo - 0.5);
    a.step = fmax(1, ceil((ceil(hi) - a.lo) / 8)); /* at most 8 labelled decades */
    a.hi = a.lo + fmax(1, ceil((ceil(hi) - a.lo) / a.step)) * a.step;
    return a;
  }
  lo = fmin(lo, 0), hi = fmax(hi, 0);
  if (hi - lo <= 0) hi = lo + 1;
  double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw))), n = raw / mag;
  a.step = (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
  a.lo = floor(lo / a.step + 1e-9) * a.step;
  a.hi = ceil(hi / a.step - 1e-9) * a.step;
  return a;
}

/* The number of tick intervals (1 where the range overflowed). */
static int axis_ticks(const axis *a)
{
  double n = (a->hi - a->lo) / a->step;
  return n >= 1 && n <= 100 ? (int)lround(n) : 1;
}

/* The row of axis coordinate c in a plot spanning rows py0 (top) to py1 (bottom). */
static int axis_row(const axis *a, double c, int py0, int py1)
{
  double t = fmin(1, fmax(0, (c - a->lo) / (a->hi - a->lo)));
  return py1 - (int)lround(t * (py1 - py0));
}

/* Tick i's label: "%g" of the value, or the decade's exponent (drawn as a superscript of "10"). */
static void tick_label(const axis *a, int i, char *out, size_t size)
{
  if (a->log)
    snprintf(out, size, "%d", (int)(a->lo + i * a->step));
  else /* a whole multiple of the step, so no 0.30000000000000004; + 0.0 turns -0 into 0 */
    snprintf(out, size, "%g", (round(a->lo / a->step) + i) * a->step + 0.0);
}

static int tick_label_width(const axis *a, const char *label, int s)
{
  return a->log ? text_width("10", s) + text_width(label, s > 1 ? s - 1 : 1) : text_width(label, s);
}

/* Draws a tick label right-aligned at x, centred on row y. */
static void draw_tick_label(canvas *cv, const axis *a, const char *label, int x, int y, int s)
{
  int top = y - CAP_HEIGHT * s / 2;
  x -= tick_label_width(a, label, s);
  if (!a->log) {
    draw_text(cv, x, top, s, label, INK);
    return;
  }
  draw_text(cv, x, top, s, "10", INK);
  draw_text(cv, x + text_width("10", s), top - 3 * s, s > 1 ? s - 1 : 1, label, INK);
}

/* ---- bars, marks, legend ---- */

static bool named_after(const char *base, const char *name)
{
  size_t n = strlen(base);
  return n > 0 && strncmp(name, base, n) == 0 && (name[n] == ' ' || name[n] == '(');
}

/* The series whose colour series s takes: a solid one it is named after if hatched, else itself. */
static uint32_t color_owner(const fl_plot_panel *p, uint32_t s)
{
  if (p->series_hatched[s])
    for (uint32_t i = 0; i < p->series_count; i++)
      if (!p->series_hatched[i] && named_after(p->series_names[i], p->series_names[s])) return i;
  return s;
}

void fl_plot_series_color(const fl_plot_panel *p, uint32_t series, uint8_t rgb[3])
{
  uint32_t owner = series < p->series_count ? color_owner(p, series) : series, slot = 0;
  for (uint32_t i = 0; i < owner && i < p->series_count; i++) slot += color_owner(p, i) == i;
  rgb8 c = PALETTE[slot % FL_PLOT_MAX_SERIES];
  rgb[0] = c.r, rgb[1] = c.g, rgb[2] = c.b;
}

/* A bar (or legend swatch): solid, or a light tint with diagonal stripes and an outline. */
static void draw_bar(canvas *cv, int x0, int y0, int x1, int y1, rgb8 c, bool hatched)
{
  if (!hatched) {
    fill_rect(cv, x0, y0, x1, y1, c);
    return;
  }
  rgb8 tint = {(uint8_t)(c.r + (255 - c.r) * 2 / 3), (uint8_t)(c.g + (255 - c.g) * 2 / 3),
               (uint8_t)(c.b + (255 - c.b) * 2 / 3)};
  fill_rect(cv, x0, y0, x1, y1, tint);
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      if ((x + y) % 6 < 2) fill_rect(cv, x, y, x + 1, y + 1, c);
  fill_rect(cv, x0, y0, x1, y0 + 1, c);
  fill_rect(cv, x0, y1 - 1, x1, y1, c);
  fill_rect(cv, x0, y0, x0 + 1, y1, c);
  fill_rect(cv, x1 - 1, y0, x1, y1, c);
}

/* The mark of a missing value: an 'x' of half-size r centred at (cx, cy). */
static void draw_missing(canvas *cv, int cx, int cy, int r, int s)
{
  for (int d = -r; d <= r; d++) {
    fill_rect(cv, cx + d, cy + d, cx + d + s, cy + d + s, MARK);
    fill_rect(cv, cx + d, cy - d, cx + d + s, cy - d + s, MARK);
  }
}

/* Lays the legend out in rows from (x0, y) within x1; draws it when `draw`; returns its height. */
static int legend(canvas *cv, const fl_plot_panel *p, int x0, int x1, int y, int s, bool draw)
{
  int x = x0, rows = 1;
  for (uint32_t i = 0; i < p->series_count; i++) {
    int w = 16 * s + text_width(p->series_names[i], s);
    if (x > x0 && x + w > x1) x = x0, y += LINE_HEIGHT * s, rows++;
    if (draw) {
      uint8_t c[3];
      fl_plot_series_color(p, i, c);
      draw_bar(cv, x, y - s, x + 12 * s, y + (CAP_HEIGHT + 1) * s, (rgb8){c[0], c[1], c[2]}, p->series_hatched[i]);
      draw_text(cv, x + 16 * s, y, s, p->series_names[i], INK);
    }
    x += w + 12 * s;
  }
  return rows * LINE_HEIGHT * s;
}

/* ---- panels ---- */

static void render_panel(canvas *cv, const fl_plot_panel *p, int s)
{
  const int x0 = cv->clip_x0, x1 = cv->clip_x1, pad = 4 + 4 * s, line = LINE_HEIGHT * s;
  axis a = axis_fit(p);
  int ticks = axis_ticks(&a), label_w = 0;
  char label[24];
  for (int i = 0; i <= ticks; i++) {
    tick_label(&a, i, label, sizeof label);
    int w = tick_label_width(&a, label, s);
    if (w > label_w) label_w = w;
  }
  /* Rows from the top: title, y label, plot; below it the group names and the legend. */
  int legend_h = legend(cv, p, x0 + pad, x1 - pad, 0, s, false);
  int px0 = x0 + pad + label_w + 6 * s, px1 = x1 - pad;
  int py0 = pad + 2 * line + line / 2, py1 = cv->height - pad - legend_h - line - 4 * s;
  if (px1 < px0 + 8) px1 = px0 + 8;
  if (py1 < py0 + 8) py1 = py0 + 8;

  if (p->title) {
    int tx = (x0 + x1 - text_width(p->title, s)) / 2;
    draw_text(cv, tx, pad, s, p->title, INK);
    draw_text(cv, tx + 1, pad, s, p->title, INK); /* bold */
  }
  if (p->y_label) draw_text(cv, x0 + pad, pad + line + 2 * s, s, p->y_label, INK);

  for (int i = 0; i <= ticks; i++) {
    int y = axis_row(&a, a.lo + i * a.step, py0, py1);
    if (i > 0) fill_rect(cv, px0 + 1, y, px1, y + 1, GRID);
    fill_rect(cv, px0 - 4 * s, y, px0, y + 1, INK);
    tick_label(&a, i, label, sizeof label);
    draw_tick_label(cv, &a, label, px0 - 6 * s, y, s);
  }

  int base = axis_row(&a, a.log ? a.lo : 0, py0, py1);
  double group_w = (double)(px1 - px0) / p->group_count;
  int bar_w = (int)(group_w * 0.8 / p->series_count);
  if (bar_w < 1) bar_w = 1;
  for (uint32_t g = 0; g < p->group_count; g++) {
    int gx = px0 + (int)lround(group_w * g), gx1 = px0 + (int)lround(group_w * (g + 1));
    int bx = (gx + gx1 - bar_w * (int)p->series_count) / 2;
    for (uint32_t i = 0; i < p->series_count; i++, bx += bar_w) {
      double v = p->values[g][i];
      if (missing(p, v)) {
        int r = bar_w / 3 < 3 * s ? bar_w / 3 : 3 * s;
        draw_missing(cv, bx + bar_w / 2, base - r - 2 * s, r, s);
        continue;
      }
      int top = axis_row(&a, axis_coord(&a, v), py0, py1);
      uint8_t c[3];
      fl_plot_series_color(p, i, c);
      draw_bar(cv, bx, top < base ? top : base, bx + bar_w, top < base ? base : top + 1,
               (rgb8){c[0], c[1], c[2]}, p->series_hatched[i]);
    }
    const char *name = p->group_names[g];
    draw_text(cv, (gx + gx1 - text_width(name, s)) / 2, py1 + 5 * s, s, name, INK);
  }
  fill_rect(cv, px0, py0, px0 + 1, py1 + 1, INK); /* the axes, over the bars' edges */
  fill_rect(cv, px0, base, px1, base + 1, INK);
  if (base != py1) fill_rect(cv, px0, py1, px1, py1 + 1, INK);
  legend(cv, p, x0 + pad, x1 - pad, py1 + 5 * s + line + 2 * s, s, true);
}

static bool check_args(const fl_plot_panel *panels, uint32_t panel_count, uint32_t width, uint32_t height)
{
  if (!panels || panel_count == 0 || panel_count > 4)
    return fl_error_set("plot: expected 1..4 panels, got %u", panels ? panel_count : 0);
  if (width < 200 || height < 150 || width > 8192 || height > 8192)
    return fl_error_set("plot: size %ux%u outside 200x150..8192x8192", width, height);
  for (uint32_t k = 0; k < panel_count; k++) {
    const fl_plot_panel *p = &panels[k];
    if (p->group_count < 1 || p->group_count > FL_PLOT_MAX_GROUPS)
      return fl_error_set("plot: panel %u: group_count %u outside 1..%d", k, p->group_count, FL_PLOT_MAX_GROUPS);
    if (p->series_count < 1 || p->series_count > FL_PLOT_MAX_SERIES)
      return fl_error_set("plot: panel %u: series_count %u outside 1..%d", k, p->series_count,
                          FL_PLOT_MAX_SERIES);
    for (uint32_t g = 0; g < p->group_count; g++)
      if (!p->group_names[g]) return fl_error_set("plot: panel %u: group %u has no name", k, g);
    for (uint32_t s = 0; s < p->series_count; s++)
      if (!p->series_names[s]) return fl_error_set("plot: panel %u: series %u has no name", k, s);
  }
  return true;
}

bool fl_plot_render(const fl_plot_panel *panels, uint32_t panel_count, uint32_t width, uint32_t height,
                    uint8_t *rgb)
{
  if (!check_args(panels, panel_count, width, height)) return false;
  if (!rgb) return fl_error_set("plot: no image buffer");
  canvas cv = {rgb, (int)width, (int)height, 0, (int)width};
  fill_rect(&cv, 0, 0, cv.width, cv.height, WHITE);
  int panel_w = cv.width / (int)panel_count;
  int s = panel_w >= 480 && cv.height >= 360 ? 2 : 1; /* text scale */
  for (uint32_t k = 0; k < panel_count; k++) {
    cv.clip_x0 = (int)k * panel_w;
    cv.clip_x1 = k + 1 == panel_count ? cv.width : cv.clip_x0 + panel_w;
    render_panel(&cv, &panels[k], s);
  }
  return true;
}

bool fl_plot_write_png(const char *path, const fl_plot_panel *panels, uint32_t panel_count, uint32_t width,
                       uint32_t height)
{
  if (!path || !*path) return fl_error_set("plot: no output path");
  if (!check_args(panels, panel_count, width, height)) return false;
  uint8_t *rgb = malloc((size_t)width * height * 3);
  if (!rgb) return fl_error_set("plot %s: out of memory", path);
  bool ok = fl_plot_render(panels, panel_count, width, height, rgb);
  ok = ok && fl_png_write_rgb(path, rgb, width, height);
  free(rgb);
  return ok;
}
