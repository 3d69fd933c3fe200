/* tools/hier_plot: draws docs/HIERARCHY.md's plot from scripts/hier_measure's table
 * (stdin) with app/plot (the renderer of --experiment kang's figures): per
 * iteration count, the flat solve (levels 1) beside the hierarchical one
 * (levels > 1), in two panels, the mean stretch residual and the solver's
 * GPU time per frame, both on log axes; read them together for equal time.
 * usage: scripts/hier_measure N FRAMES ... | hier_plot OUT.png "TITLE" */
#include "app/plot.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "flurry: error: usage: scripts/hier_measure ... | hier_plot OUT.png TITLE\n");
    return 2;
  }
  fl_plot_panel strain = {.title = argv[2], .y_label = "mean |len/rest - 1|", .log_y = true, .series_count = 2,
                          .series_names = {"flat", "hierarchical"}};
  fl_plot_panel time = {.title = "solver GPU time", .y_label = "ms per frame", .log_y = true, .series_count = 2,
                        .series_names = {"flat", "hierarchical"}};
  static char names[FL_PLOT_MAX_GROUPS][32];
  int iters[FL_PLOT_MAX_GROUPS];
  for (int g = 0; g < FL_PLOT_MAX_GROUPS; g++)
    for (int s = 0; s < 2; s++) strain.values[g][s] = time.values[g][s] = NAN;
  char line[256];
  uint32_t groups = 0, rows = 0;
  while (fgets(line, sizeof line, stdin)) {
    int levels, it;
    double ms, mean, worst, sag, low;
    if (sscanf(line, "%d %d %lf %lf %lf %lf %lf", &levels, &it, &ms, &mean, &worst, &sag, &low) != 7) continue;
    uint32_t g = 0;
    while (g < groups && iters[g] != it) g++;
    if (g == groups) {
      if (groups == FL_PLOT_MAX_GROUPS) {
        fprintf(stderr, "flurry: error: hier_plot: more than %d iteration counts\n", FL_PLOT_MAX_GROUPS);
        return 1;
      }
      iters[groups] = it;
      snprintf(names[groups], sizeof names[groups], "%d it", it);
      strain.group_names[groups] = time.group_names[groups] = names[groups];
      groups++;
    }
    int s = levels > 1 ? 1 : 0;
    strain.values[g][s] = mean;
    time.values[g][s] = ms;
    rows++;
  }
  if (!rows) {
    fprintf(stderr, "flurry: error: hier_plot: no rows of scripts/hier_measure's table on stdin\n");
    return 1;
  }
  for (uint32_t a = 0; a < groups; a++) /* by iteration count */
    for (uint32_t b = a + 1; b < groups; b++)
      if (iters[b] < iters[a]) {
        int t = iters[a];
        iters[a] = iters[b], iters[b] = t;
        char n[32];
        memcpy(n, names[a], 32), memcpy(names[a], names[b], 32), memcpy(names[b], n, 32);
        for (int s = 0; s < 2; s++) {
          double v = strain.values[a][s];
          strain.values[a][s] = strain.values[b][s], strain.values[b][s] = v;
          v = time.values[a][s];
          time.values[a][s] = time.values[b][s], time.values[b][s] = v;
        }
      }
  strain.group_count = time.group_count = groups;
  fl_plot_panel panels[2] = {strain, time};
  if (!fl_plot_write_png(argv[1], panels, 2, 1400, 560)) {
    fprintf(stderr, "flurry: error: hier_plot: %s\n", fl_error_message());
    return 1;
  }
  return 0;
}
