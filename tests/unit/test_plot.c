/* tests/unit/test_plot: the bar-chart rasterizer, measured in pixels: bars where
 * their groups are and as tall as their values on linear and log axes, nothing
 * for missing values, shared colours for reference series, argument errors, and
 * a PNG on disk. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "app/plot.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { W = 400, H = 300 };
static uint8_t image[W * H * 3];
static const uint8_t INK[3] = {30, 30, 30}, MARK[3] = {90, 90, 90};

static bool pixel_is(int x, int y, const uint8_t c[3]) { return memcmp(&image[3 * (y * W + x)], c, 3) == 0; }

/* One series over the named groups, with the given values. */
static fl_plot_panel one_series(bool log_y, uint32_t groups, const double *values)
{
  static const char *names[] = {"a", "b", "c", "d"};
  fl_plot_panel p = {.title = "test", .y_label = "value", .log_y = log_y, .group_count = groups, .series_count = 1,
                     .series_names = {"ours"}};
  for (uint32_t g = 0; g < groups; g++) {
    p.group_names[g] = names[g];
    p.values[g][0] = values[g];
  }
  return p;
}

/* The bars of a colour, left to right: runs of adjacent columns whose longest vertical run
 * of the colour is at least 15 px (taller than a legend swatch). */
typedef struct {
  int left, right, top, bottom, height;
} bar;

static int find_bars(const uint8_t c[3], bar *out, int max)
{
  int n = 0;
  bool in_bar = false;
  for (int x = 0; x < W; x++) {
    int best = 0, bottom = 0;
    for (int y = 0, run = 0; y < H; y++) {
      run = pixel_is(x, y, c) ? run + 1 : 0;
      if (run > best) best = run, bottom = y;
    }
    if (best < 15 || (!in_bar && n == max)) {
      in_bar = false;
      continue;
    }
    if (!in_bar) out[n++] = (bar){.left = x};
    in_bar = true;
    bar *b = &out[n - 1];
    b->right = x;
    if (best > b->height) b->height = best, b->top = bottom - best + 1, b->bottom = bottom;
  }
  return n;
}

/* The plot's columns: from the y axis (the leftmost long vertical ink line) to the end of
 * the ink line along the baseline row. */
static void plot_extent(int baseline, int *x0, int *x1)
{
  *x0 = *x1 = -1;
  for (int x = 0; x < W; x++) {
    int run = 0;
    while (run <= baseline && pixel_is(x, baseline - run, INK)) run++;
    if (*x0 < 0 && run > 50) *x0 = x;
    if (pixel_is(x, baseline, INK)) *x1 = x;
  }
}

static void test_linear_bars(void)
{
  fl_plot_panel p = one_series(false, 2, (double[]){1, 2});
  uint8_t c[3];
  fl_plot_series_color(&p, 0, c);
  ENSURE(fl_plot_render(&p, 1, W, H, image));
  bar bars[4];
  ENSURE(find_bars(c, bars, 4) == 2);
  bar b1 = bars[0], b2 = bars[1];
  ENSURE(b1.height > 50);
  ENSURE_NEAR(b2.height, 2.0 * b1.height, 2);
  ENSURE(b1.bottom == b2.bottom);
  ENSURE(b1.right - b1.left == b2.right - b2.left && b1.right - b1.left > 10);
  /* Each bar is centred in its half of the axis, standing on it. */
  int x0, x1;
  plot_extent(b1.bottom + 1, &x0, &x1);
  ENSURE_MSG(x1 - x0 > W / 2, "baseline %d..%d", x0, x1);
  double group_w = (x1 - x0) / 2.0;
  ENSURE_NEAR((b1.left + b1.right) / 2.0, x0 + 0.5 * group_w, 2);
  ENSURE_NEAR((b2.left + b2.right) / 2.0, x0 + 1.5 * group_w, 2);
  /* Every pixel of a bar column, top to bottom, is the series colour. */
  for (int y = b1.top; y <= b1.bottom; y++) ENSURE(pixel_is(b1.left, y, c));
  ENSURE(!pixel_is(b1.left, b1.top - 1, c) && !pixel_is(b1.left - 1, b1.bottom, c));
}

static void test_log_bars(void)
{
  fl_plot_panel p = one_series(true, 3, (double[]){10, 1000, 100});
  uint8_t c[3];
  fl_plot_series_color(&p, 0, c);
  ENSURE(fl_plot_render(&p, 1, W, H, image));
  bar bars[4];
  ENSURE(find_bars(c, bars, 4) == 3);
  bar b10 = bars[0], b1000 = bars[1], b100 = bars[2];
  ENSURE(b10.bottom == b100.bottom && b10.bottom == b1000.bottom);
  double decade = b10.top - b100.top;
  ENSURE_MSG(decade > 20, "one decade is %g px", decade);
  ENSURE_NEAR(b100.top - b1000.top, decade, 1.5);
  ENSURE_NEAR(b10.top - b1000.top, 2 * decade, 1.5); /* the 1000 bar's top: 2 decades above the 10 bar's */
  ENSURE(b1000.height < 10 * b10.height);              /* far from the linear ratio of 100 */
}

static void test_missing_values(void)
{
  fl_plot_panel p = one_series(false, 2, (double[]){NAN, 5});
  uint8_t c[3];
  fl_plot_series_color(&p, 0, c);
  ENSURE(fl_plot_render(&p, 1, W, H, image));
  bar bars[4];
  ENSURE_MSG(find_bars(c, bars, 4) == 1, "a bar for NaN");
  bar some = bars[0];
  ENSURE(some.left > W / 2 && some.height > 50);
  int marks = 0; /* the 'x' stands in the first group, just above the baseline */
  for (int y = some.bottom - 20; y <= some.bottom; y++)
    for (int x = 0; x < W / 2; x++) marks += pixel_is(x, y, MARK);
  ENSURE_MSG(marks >= 5, "%d mark pixels", marks);

  /* On a log axis zero and negative values are missing too; a panel of nothing still renders. */
  p = one_series(true, 2, (double[]){0, -3});
  ENSURE(fl_plot_render(&p, 1, W, H, image));
  ENSURE(find_bars(c, bars, 4) == 0);
}

static void test_hatched_reference(void)
{
  fl_plot_panel p = {.group_count = 1, .series_count = 3, .group_names = {"c1"},
                     .series_names = {"E (paper)", "E", "HO"}, .series_hatched = {true, false, false},
                     .values = {{4, 4, 4}}};
  uint8_t ref[3], e[3], ho[3];
  fl_plot_series_color(&p, 0, ref);
  fl_plot_series_color(&p, 1, e);
  fl_plot_series_color(&p, 2, ho);
  ENSURE(memcmp(ref, e, 3) == 0 && memcmp(e, ho, 3) != 0);
  ENSURE(fl_plot_render(&p, 1, W, H, image));
  /* Left to right: the hatched "E (paper)", the solid "E", then "HO", side by side. */
  bar bars[4];
  ENSURE(find_bars(ho, bars, 4) == 1);
  int w = bars[0].right - bars[0].left + 1, solid_x = bars[0].left - w / 2, hatched_x = solid_x - w, coloured = 0;
  for (int y = bars[0].top; y <= bars[0].bottom; y++) {
    ENSURE(pixel_is(solid_x, y, e));
    coloured += pixel_is(hatched_x, y, e);
  }
  ENSURE_MSG(coloured > bars[0].height / 6 && coloured < bars[0].height / 2, "%d of %d pixels striped", coloured,
             bars[0].height);
}

static void test_bad_arguments(void)
{
  fl_plot_panel good = one_series(false, 2, (double[]){1, 2});
  fl_plot_panel no_groups = good, many_groups = good, many_series = good, unnamed_group = good,
                unnamed_series = good;
  no_groups.group_count = 0;
  many_groups.group_count = FL_PLOT_MAX_GROUPS + 1;
  many_series.series_count = FL_PLOT_MAX_SERIES + 1;
  unnamed_group.group_names[1] = NULL;
  unnamed_series.series_names[0] = NULL;
  fl_plot_panel five[5] = {good, good, good, good, good};
  const struct {
    const fl_plot_panel *panels;
    uint32_t count, width, height;
    const char *message;
  } cases[] = {
      {five, 0, W, H, "1..4 panels, got 0"},
      {five, 5, W, H, "1..4 panels, got 5"},
      {NULL, 1, W, H, "1..4 panels"},
      {&good, 1, 199, H, "size 199x300"},
      {&good, 1, W, 149, "size 400x149"},
      {&good, 1, 8193, H, "outside 200x150..8192x8192"},
      {&no_groups, 1, W, H, "panel 0: group_count 0 outside 1..8"},
      {&many_groups, 1, W, H, "group_count 9"},
      {&many_series, 1, W, H, "panel 0: series_count 13 outside 1..12"},
      {&unnamed_group, 1, W, H, "panel 0: group 1 has no name"},
      {&unnamed_series, 1, W, H, "panel 0: series 0 has no name"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fl_error_clear();
    ENSURE_MSG(!fl_plot_render(cases[i].panels, cases[i].count, cases[i].width, cases[i].height, image),
               "case %zu succeeded", i);
    ENSURE_MSG(strstr(fl_error_message(), cases[i].message), "case %zu: \"%s\" lacks \"%s\"", i,
               fl_error_message(), cases[i].message);
  }
  fl_error_clear();
  ENSURE(!fl_plot_render(&good, 1, W, H, NULL) && strstr(fl_error_message(), "no image buffer"));
  fl_error_clear();
  ENSURE(!fl_plot_write_png("/nonexistent-dir/x.png", &good, 1, W, H));
  /* the errno text says why */
  ENSURE_MSG(strstr(fl_error_message(), "cannot write /nonexistent-dir/x.png: No such file or directory"), "%s",
             fl_error_message());
  fl_error_clear();
}

static void test_png_file(void)
{
  char dir[] = "/tmp/flurry_plot_XXXXXX", path[64];
  ENSURE(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/plot.png", dir);
  fl_plot_panel p[2] = {one_series(false, 2, (double[]){1, 2}), one_series(true, 2, (double[]){3, 3e4})};
  bool ok = fl_plot_write_png(path, p, 2, 640, 240);
  unsigned char head[8] = {0};
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(head, 1, sizeof head, f) : 0;
  if (f) fclose(f);
  remove(path);
  rmdir(dir);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE(n == 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0);
}

static const fl_test_case cases[] = {
    {"linear_bars", test_linear_bars},
    {"log_bars", test_log_bars},
    {"missing_values", test_missing_values},
    {"hatched_reference", test_hatched_reference},
    {"bad_arguments", test_bad_arguments},
    {"png_file", test_png_file},
};
FL_TEST_MAIN(cases)
