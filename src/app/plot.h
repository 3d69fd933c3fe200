/* app/plot: figures of grouped bar-chart panels (one value per group and series,
 * e.g. per integrator "E", "HO", "JI", "HY" beside the paper's values) drawn on
 * the CPU into an RGB image and written as PNG, for the experiment reports. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define FL_PLOT_MAX_GROUPS 8
#define FL_PLOT_MAX_SERIES 12

typedef struct {
  const char *title;   /* panel title (NULL: none) */
  const char *y_label; /* axis label above the axis, e.g. "kappa_max (N/m)" (NULL: none) */
  bool log_y;          /* logarithmic y axis (decades labelled 10^k) */
  uint32_t group_count, series_count;            /* 1..FL_PLOT_MAX_GROUPS, 1..FL_PLOT_MAX_SERIES */
  const char *group_names[FL_PLOT_MAX_GROUPS];   /* x-axis categories, e.g. "c1" */
  const char *series_names[FL_PLOT_MAX_SERIES];  /* legend entries, e.g. "E", "E (paper)" */
  bool series_hatched[FL_PLOT_MAX_SERIES];       /* drawn lighter with stripes: reference values */
  /* NaN (or any non-finite value) is missing: no bar, a small 'x' mark at the
   * axis; on a log axis values <= 0 are missing too. */
  double values[FL_PLOT_MAX_GROUPS][FL_PLOT_MAX_SERIES];
} fl_plot_panel;

/* Renders `panel_count` panels side by side into a width x height RGB image and writes it as PNG.
 * False with a one-line error (fl_error_set) on bad arguments (0 panels, > 4 panels, sizes
 * < 200x150 or > 8192, counts out of range, NULL names) or when the file cannot be written. */
bool fl_plot_write_png(const char *path, const fl_plot_panel *panels, uint32_t panel_count, uint32_t width,
                       uint32_t height);
/* The same, into a caller-provided RGB buffer (width*height*3 bytes, rows top to bottom), for tests. */
bool fl_plot_render(const fl_plot_panel *panels, uint32_t panel_count, uint32_t width, uint32_t height,
                    uint8_t *rgb);
/* The colour of a series' bars (series < panel->series_count; hatched bars are stripes of it on
 * a lighter tint). Series take the colours of a fixed palette in order, except that a hatched
 * series named after a solid one ("E (paper)" beside "E") shares that one's colour. */
void fl_plot_series_color(const fl_plot_panel *panel, uint32_t series, uint8_t rgb[3]);
