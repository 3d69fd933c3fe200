/* tools/bdf2_plot.c: draws docs/BDF2.md's two measurements as PNGs with cairo,
 * from flurry's --dump CSVs (header object,index,x,y,z,vx,vy,vz; one sheet of
 * equal-mass particles, pinned ones at rest):
 *
 *   bdf2_plot energy OUT.png MANIFEST   energy lost over time, one line per series
 *   bdf2_plot sag OUT.png MANIFEST      sag error against a reference, bars by group
 *
 * MANIFEST is text, one record a line ('#' starts a comment):
 *   title TEXT...                    the plot's title
 *   energy: mass M / gravity G / length L / height Y0 (the sheet's start height), then
 *           point SERIES T FILE.csv  E = sum m (|v|^2 / 2 + G y), m = M / rows;
 *                                    plotted: (M G Y0 - E) / (M G L) at time T
 *   sag:    reference FILE.csv, then
 *           bar GROUP SERIES FILE.csv  sag = highest y (the pinned edge) - lowest y;
 *                                      plotted: |sag - sag of the reference| in mm
 * It prints each plotted value ("SERIES GROUP X Y", GROUP "-" for energy) on stdout.
 * Errors are one line, "flurry: error: bdf2_plot: ...", and exit status 1.
 * Build: the CMake target bdf2_plot (libcairo2-dev); scripts/bdf2_plots runs the whole experiment. */
#include <cairo.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 64
#define MAX_SERIES 8
#define W 720
#define H 440
#define PI 3.14159265358979323846

typedef struct {
  char series[32], group[32];
  double x, y; /* energy: time, lost fraction; sag: -, error in mm */
} item;

static struct {
  char title[128];
  double mass, gravity, length, height, sag_ref;
  int have_ref;
  item items[MAX_ITEMS];
  int count;
  char series[MAX_SERIES][32];
  int series_count;
} g = {.gravity = 9.81};

static void fail(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("flurry: error: bdf2_plot: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* Reads a dump: its row count, sum of (|v|^2 / 2 + gravity y), and its highest minus its lowest y. */
static void read_dump(const char *path, int *rows, double *energy_per_mass, double *sag)
{
  FILE *f = fopen(path, "r");
  if (!f) fail("%s: cannot open it", path);
  char line[512];
  if (!fgets(line, sizeof line, f) || strncmp(line, "object,index,x,y,z,vx,vy,vz", 27) != 0)
    fail("%s: not a flurry dump (its header is not object,index,x,y,z,vx,vy,vz)", path);
  *rows = 0;
  *energy_per_mass = 0;
  double lowest = INFINITY, highest = -INFINITY;
  int n = 1;
  while (fgets(line, sizeof line, f)) {
    n++;
    const char *p = strchr(line, ',');
    double v[7];
    if (!p || sscanf(p + 1, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
      fail("%s:%d: expected index and six numbers after the object name", path, n);
    for (int k = 1; k < 7; k++)
      if (!isfinite(v[k])) fail("%s:%d: a value is not finite", path, n);
    *energy_per_mass += 0.5 * (v[4] * v[4] + v[5] * v[5] + v[6] * v[6]) + g.gravity * v[2];
    lowest = fmin(lowest, v[2]);
    highest = fmax(highest, v[2]);
    (*rows)++;
  }
  fclose(f);
  if (*rows == 0) fail("%s: no particles", path);
  *sag = highest - lowest;
}

static int series_index(const char *name)
{
  for (int s = 0; s < g.series_count; s++)
    if (strcmp(g.series[s], name) == 0) return s;
  if (g.series_count == MAX_SERIES) fail("more than %d series", MAX_SERIES);
  snprintf(g.series[g.series_count], sizeof g.series[0], "%s", name);
  return g.series_count++;
}

static double need_positive(const char *key, double v)
{
  if (!(v > 0) || !isfinite(v)) fail("manifest: %s must be a positive number, got %g", key, v);
  return v;
}

static void read_manifest(const char *path, int energy)
{
  FILE *f = fopen(path, "r");
  if (!f) fail("%s: cannot open it", path);
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    n++;
    char key[32], a[32], b[32], c[512];
    line[strcspn(line, "\r\n")] = 0;
    if (sscanf(line, "%31s", key) != 1 || key[0] == '#') continue;
    double v;
    if (strcmp(key, "title") == 0) {
      snprintf(g.title, sizeof g.title, "%s", line + strspn(line + 5, " \t") + 5);
    } else if (sscanf(line, "%*s %lf", &v) == 1 && strcmp(key, "point") != 0 && strcmp(key, "bar") != 0 &&
               strcmp(key, "reference") != 0) {
      if (strcmp(key, "mass") == 0) g.mass = need_positive(key, v);
      else if (strcmp(key, "gravity") == 0) g.gravity = need_positive(key, v);
      else if (strcmp(key, "length") == 0) g.length = need_positive(key, v);
      else if (strcmp(key, "height") == 0) g.height = v;
      else fail("%s:%d: unknown key \"%s\"", path, n, key);
    } else if (energy && strcmp(key, "point") == 0 && sscanf(line, "%*s %31s %31s %511s", a, b, c) == 3) {
      if (g.count == MAX_ITEMS) fail("%s:%d: more than %d points", path, n, MAX_ITEMS);
      if (!(g.mass > 0 && g.length > 0)) fail("%s:%d: mass and length must come before the points", path, n);
      int rows;
      double e, sag;
      read_dump(c, &rows, &e, &sag);
      item *it = &g.items[g.count++];
      snprintf(it->series, sizeof it->series, "%s", a);
      it->x = strtod(b, NULL);
      double m = g.mass / rows;
      it->y = (g.mass * g.gravity * g.height - m * e) / (g.mass * g.gravity * g.length);
      series_index(a);
    } else if (!energy && strcmp(key, "reference") == 0 && sscanf(line, "%*s %511s", c) == 1) {
      int rows;
      double e;
      read_dump(c, &rows, &e, &g.sag_ref);
      g.have_ref = 1;
    } else if (!energy && strcmp(key, "bar") == 0 && sscanf(line, "%*s %31s %31s %511s", a, b, c) == 3) {
      if (g.count == MAX_ITEMS) fail("%s:%d: more than %d bars", path, n, MAX_ITEMS);
      if (!g.have_ref) fail("%s:%d: the reference must come before the bars", path, n);
      int rows;
      double e, sag;
      read_dump(c, &rows, &e, &sag);
      item *it = &g.items[g.count++];
      snprintf(it->group, sizeof it->group, "%s", a);
      snprintf(it->series, sizeof it->series, "%s", b);
      it->y = 1000.0 * fabs(sag - g.sag_ref);
      series_index(b);
    } else {
      fail("%s:%d: cannot read \"%s\" (see the usage in tools/bdf2_plot.c)", path, n, line);
    }
  }
  fclose(f);
  if (g.count == 0) fail("%s: nothing to plot", path);
}

static const double COLOURS[MAX_SERIES][3] = {{0.85, 0.33, 0.10}, {0.00, 0.45, 0.74}, {0.47, 0.67, 0.19},
                                              {0.49, 0.18, 0.56}, {0.93, 0.69, 0.13}, {0.30, 0.75, 0.93},
                                              {0.64, 0.08, 0.18}, {0.3, 0.3, 0.3}};

/* A "nice" step for about `ticks` ticks over [0, top]. */
static double nice_step(double top, int ticks)
{
  double raw = top / ticks, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void text(cairo_t *cr, double x, double y, double size, double align, const char *s)
{
  cairo_text_extents_t e;
  cairo_set_font_size(cr, size);
  cairo_text_extents(cr, s, &e);
  cairo_move_to(cr, x - align * e.width, y);
  cairo_show_text(cr, s);
}

/* Frame, title, y axis with ticks over [0, top]; returns the plot box. */
static void axes(cairo_t *cr, double top, const char *ylabel, double box[4])
{
  box[0] = 80, box[1] = 50, box[2] = W - 30, box[3] = H - 60; /* left, top, right, bottom */
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_source_rgb(cr, 0, 0, 0);
  text(cr, W / 2.0, 28, 16, 0.5, g.title);
  double step = nice_step(top, 5);
  cairo_set_line_width(cr, 1);
  for (double t = 0; t <= top * 1.0001; t += step) {
    double y = box[3] - (box[3] - box[1]) * t / top;
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, box[0], y);
    cairo_line_to(cr, box[2], y);
    cairo_stroke(cr);
    char s[32];
    snprintf(s, sizeof s, "%g", t);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, box[0] - 8, y + 4, 12, 1, s);
  }
  cairo_save(cr);
  cairo_translate(cr, 22, (box[1] + box[3]) / 2);
  cairo_rotate(cr, -PI / 2);
  text(cr, 0, 0, 13, 0.5, ylabel);
  cairo_restore(cr);
  cairo_rectangle(cr, box[0], box[1], box[2] - box[0], box[3] - box[1]);
  cairo_stroke(cr);
}

/* The series' colours and names in the box's top left corner, or its top right (right = 1). */
static void legend(cairo_t *cr, const double box[4], int right)
{
  for (int s = 0; s < g.series_count; s++) {
    double x = right ? box[2] - 120 : box[0] + 16, y = box[1] + 20 + 20 * s;
    cairo_set_source_rgb(cr, COLOURS[s][0], COLOURS[s][1], COLOURS[s][2]);
    cairo_rectangle(cr, x, y - 10, 22, 10);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, x + 30, y, 13, 0, g.series[s]);
  }
}

static void plot_energy(cairo_t *cr)
{
  double top = 0, right = 0, box[4];
  for (int i = 0; i < g.count; i++) top = fmax(top, g.items[i].y), right = fmax(right, g.items[i].x);
  top = top > 0 ? top * 1.1 : 1;
  right = right > 0 ? right : 1;
  axes(cr, top, "energy lost / (M g L)", box);
  double step = nice_step(right, 10);
  for (double t = 0; t <= right * 1.0001; t += step) {
    char s[32];
    snprintf(s, sizeof s, "%g", t);
    text(cr, box[0] + (box[2] - box[0]) * t / right, box[3] + 18, 12, 0.5, s);
  }
  text(cr, (box[0] + box[2]) / 2, H - 16, 13, 0.5, "time (s)");
  for (int s = 0; s < g.series_count; s++) {
    cairo_set_source_rgb(cr, COLOURS[s][0], COLOURS[s][1], COLOURS[s][2]);
    cairo_set_line_width(cr, 2);
    int first = 1;
    cairo_move_to(cr, box[0], box[3]); /* every series starts at 0 lost at t = 0 */
    for (int i = 0; i < g.count; i++) { /* the manifest lists each series' points in time order */
      if (strcmp(g.items[i].series, g.series[s]) != 0) continue;
      cairo_line_to(cr, box[0] + (box[2] - box[0]) * g.items[i].x / right,
                    box[3] - (box[3] - box[1]) * g.items[i].y / top);
      first = 0;
    }
    if (!first) cairo_stroke(cr);
    cairo_new_path(cr);
    for (int i = 0; i < g.count; i++) {
      if (strcmp(g.items[i].series, g.series[s]) != 0) continue;
      cairo_arc(cr, box[0] + (box[2] - box[0]) * g.items[i].x / right,
                box[3] - (box[3] - box[1]) * g.items[i].y / top, 3.5, 0, 2 * PI);
      cairo_fill(cr);
    }
  }
  legend(cr, box, 0);
}

static void plot_sag(cairo_t *cr)
{
  char groups[MAX_ITEMS][32];
  int group_count = 0;
  double top = 0, box[4];
  for (int i = 0; i < g.count; i++) {
    top = fmax(top, g.items[i].y);
    int k = 0;
    while (k < group_count && strcmp(groups[k], g.items[i].group) != 0) k++;
    if (k == group_count) snprintf(groups[group_count++], sizeof groups[0], "%s", g.items[i].group);
  }
  top = top > 0 ? top * 1.15 : 1;
  axes(cr, top, "sag error against the reference (mm)", box);
  double slot = (box[2] - box[0]) / group_count, bar = slot * 0.7 / g.series_count;
  for (int k = 0; k < group_count; k++) {
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, box[0] + slot * (k + 0.5), box[3] + 18, 12, 0.5, groups[k]);
    for (int i = 0; i < g.count; i++) {
      if (strcmp(g.items[i].group, groups[k]) != 0) continue;
      int s = series_index(g.items[i].series);
      double x = box[0] + slot * k + slot * 0.15 + bar * s, hgt = (box[3] - box[1]) * g.items[i].y / top;
      cairo_set_source_rgb(cr, COLOURS[s][0], COLOURS[s][1], COLOURS[s][2]);
      cairo_rectangle(cr, x, box[3] - hgt, bar * 0.9, hgt);
      cairo_fill(cr);
      char v[32];
      snprintf(v, sizeof v, "%.2f", g.items[i].y);
      cairo_set_source_rgb(cr, 0, 0, 0);
      text(cr, x + bar * 0.45, box[3] - hgt - 5, 11, 0.5, v);
    }
  }
  text(cr, (box[0] + box[2]) / 2, H - 16, 13, 0.5, "substeps x iterations per frame");
  legend(cr, box, 1); /* the first group's bars are the tallest */
}

int main(int argc, char **argv)
{
  if (argc != 4 || (strcmp(argv[1], "energy") != 0 && strcmp(argv[1], "sag") != 0))
    fail("usage: bdf2_plot energy|sag OUT.png MANIFEST");
  int energy = strcmp(argv[1], "energy") == 0;
  read_manifest(argv[3], energy);
  for (int i = 0; i < g.count; i++)
    printf("%s %s %g %.6g\n", g.items[i].series, energy ? "-" : g.items[i].group, g.items[i].x, g.items[i].y);
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
  cairo_t *cr = cairo_create(surface);
  if (energy) plot_energy(cr);
  else plot_sag(cr);
  cairo_destroy(cr);
  cairo_status_t st = cairo_surface_write_to_png(surface, argv[2]);
  cairo_surface_destroy(surface);
  if (st != CAIRO_STATUS_SUCCESS) fail("%s: cannot write it (%s)", argv[2], cairo_status_to_string(st));
  return 0;
}
