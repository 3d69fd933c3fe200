/* app/kang: the Kang 2018 experiment (see kang.h): runs the tables, prints
 * them beside the paper's numbers (NOTES.md section 3), writes JSON and a PNG. */
#include "app/kang.h"

#include "app/bench.h"
#include "app/kang_runs.h"
#include "app/plot.h"
#include "app/report.h"
#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define T1_H 1e-4            /* Table 1's step (the paper's dt = 0.1 ms) */
#define T2_KAPPA 1e5         /* Table 2's stiffness and damping (stable for every method at h = 0.1 ms) */
#define T2_DAMPING 0.5
#define T2_WARMUP 20
#define T2_STEPS 200
#define BANDWIDTH_N 256      /* the per-pass bandwidth rows: a cloth big enough to stream */
#define BANDWIDTH_STEPS 20
#define T3_N 50              /* Table 3 on case c1's cloth */
#define T3_DAMPING 0.5

/* Table 1's columns: the paper's four on the paper's system (the exact Jacobian, Jacobi from dv = 0),
 * then JI and HY on the clamped (definite) one, flurry's default in scenes, then JI started from the
 * explicit step's dv = b / m (the start that reproduces the paper's JI). */
#define T1_COLUMNS 7
static const char *const T1_METHOD_NAMES[T1_COLUMNS] = {"E",           "HO",          "JI",
                                                        "HY",          "JI definite", "HY definite",
                                                        "JI explicit start"};
static const char *const T1_KEYS[T1_COLUMNS] = {"E",           "HO",          "JI", "HY", "JI_definite",
                                                "HY_definite", "JI_explicit_start"};
static const fl_ms_method T1_METHODS[T1_COLUMNS] = {FL_MS_E,  FL_MS_HO, FL_MS_JI, FL_MS_HY,
                                                    FL_MS_JI, FL_MS_HY, FL_MS_JI};
static const bool T1_DEFINITE[T1_COLUMNS] = {false, false, false, false, true, true, false};
static const bool T1_EXPLICIT_START[T1_COLUMNS] = {false, false, false, false, false, false, true};
static const struct {
  const char *name;
  uint32_t n;
  double damping;
  double paper[4];           /* E, HO, JI, HY */
} CASES[3] = {
    {"c1", 50, 0.5, {9.2e5, 1.1e6, 9.8e5, 2.7e6}},
    {"c2", 100, 3.5, {1.1e5, 3.1e5, 3.6e5, 1.1e6}},
    {"c3", 200, 1.5, {5.9e3, 1.0e5, 1.1e5, 5.0e5}},
};

static const char *const T2_METHOD_NAMES[5] = {"E", "HO", "JI", "IM", "HY"};
static const fl_ms_method T2_METHODS[5] = {FL_MS_E, FL_MS_HO, FL_MS_JI, FL_MS_IM, FL_MS_HY};
/* The paper's three sizes, then larger ones where a CPU driver's per-dispatch cost no longer dominates
 * (no paper values: NAN). */
#define T2_SIZES 5
#define T2_PAPER_SIZES 3
static const struct {
  uint32_t n, steps;
  double paper[5];           /* E, HO, JI, IM, HY */
} SIZES[T2_SIZES] = {
    {20, 200, {1, 2.02, 4.06, 19.48, 4.46}},
    {30, 200, {1, 2.43, 4.16, 86.90, 4.56}},
    {40, 200, {1, 2.46, 4.15, 252.55, 4.55}},
    {80, 40, {NAN, NAN, NAN, NAN, NAN}},
    {160, 20, {NAN, NAN, NAN, NAN, NAN}},
};

static const double T3_KAPPA[4] = {512, 1024, 2048, 4096};
static const double T3_PAPER[2][4] = {{2.5e-3, 1.8e-3, 1.3e-3, 1.0e-3}, {1.3e-2, 1.0e-2, 7.6e-3, 6.5e-3}};
static const fl_ms_method T3_METHODS[2] = {FL_MS_E, FL_MS_HY};

typedef struct {
  double kappa_max[3][T1_COLUMNS];
  bool kappa_capped[3][T1_COLUMNS];
  double step_ms[T2_SIZES][6], relative[T2_SIZES][6]; /* E, HO, JI, IM, HY, then HY with 3 Jacobi iterations */
  uint32_t cg_iterations[T2_SIZES];
  double h_max[4][2];
  bool h_capped[4][2];
} kang_results;

/* Adds {value, energy_growth, steps, fall_m, failure_above} for one searched cell: the largest stable
 * trial's energy growth and length, and what failed in the trial just above it. */
static void add_cell(cJSON *row, const char *key, double value, const fl_kang_trial *t, const fl_kang_trial *above)
{
  cJSON *o = cJSON_AddObjectToObject(row, key);
  cJSON_AddNumberToObject(o, "value", value);
  cJSON_AddNumberToObject(o, "energy_growth", t->energy_growth);
  cJSON_AddNumberToObject(o, "steps", (double)t->steps);
  cJSON_AddNumberToObject(o, "fall_m", t->fall);
  if (above->failure) {
    cJSON_AddStringToObject(o, "failure_above", above->failure);
    cJSON_AddNumberToObject(o, "failure_step", (double)above->steps);
  }
}

/* ---- the three tables ---- */

/* Notes "ROW.METHOD" in the report's "lower_bounds" list: stable up to the bracket's end. */
static void add_lower_bound(cJSON *json, const char *row, const char *method)
{
  cJSON *list = cJSON_GetObjectItemCaseSensitive(json, "lower_bounds");
  if (!list) list = cJSON_AddArrayToObject(json, "lower_bounds");
  char entry[64];
  snprintf(entry, sizeof entry, "%s.%s", row, method);
  cJSON_AddItemToArray(list, cJSON_CreateString(entry));
}

static bool table1(fl_kang_context *c, uint32_t cases, kang_results *r, cJSON *json)
{
  cJSON *km = cJSON_AddObjectToObject(json, "kappa_max");
  printf("\nTable 1: largest stable stiffness kappa_max (N/m), h = 0.1 ms, >= %u steps per trial, strain limit %g\n",
         c->min_steps, FL_KANG_STRAIN_LIMIT);
  printf("  JI, HY: exact Jacobian (the paper's system); then on the definite (clamped) one. HY: Eq. 32, one solve.\n");
  printf("  case  particles damping |       E (paper)  |      HO (paper)  |      JI (paper)  |      HY (paper)  "
         "| JI definite | HY definite | JI explicit start\n");
  for (int k = 0; k < 3; k++) {
    if (!(cases & (1u << k))) continue;
    cJSON *row = cJSON_AddObjectToObject(km, CASES[k].name);
    for (int m = 0; m < T1_COLUMNS; m++) {
      fl_kang_setup s = {.n = CASES[k].n, .damping = CASES[k].damping, .h = T1_H, .method = T1_METHODS[m],
                         .definite = T1_DEFINITE[m], .explicit_start = T1_EXPLICIT_START[m]};
      fl_kang_trial t, above;
      if (!fl_kang_largest_stable(c, s, 'k', fl_kang_guess_kappa(s.n, T1_H), &r->kappa_max[k][m],
                                  &r->kappa_capped[k][m], &t, &above))
        return false;
      add_cell(row, T1_KEYS[m], r->kappa_max[k][m], &t, &above);
      if (r->kappa_capped[k][m]) add_lower_bound(json, CASES[k].name, T1_KEYS[m]);
      fl_info("kang: %s %s kappa_max %.3g, energy growth %.2g, fell %.3f m; above it: %s at step %llu (%u trials "
              "so far)",
              CASES[k].name, T1_METHOD_NAMES[m], r->kappa_max[k][m], t.energy_growth, t.fall,
              above.failure ? above.failure : "none", (unsigned long long)above.steps, (unsigned)c->trials);
    }
    printf("  %-4s %9u %7.1f ", CASES[k].name, CASES[k].n * CASES[k].n, CASES[k].damping);
    for (int m = 0; m < 4; m++)
      printf("|%c%7.2g (%7.2g) ", r->kappa_capped[k][m] ? '>' : ' ', r->kappa_max[k][m], CASES[k].paper[m]);
    for (int m = 4; m < T1_COLUMNS; m++) printf("| %c%9.2g ", r->kappa_capped[k][m] ? '>' : ' ', r->kappa_max[k][m]);
    printf("\n");
  }
  return true;
}

/* Per-pass bandwidth of each method on a BANDWIDTH_N^2 cloth against the same-run copy ceiling. */
static bool bandwidth(fl_kang_context *c, cJSON *json)
{
  double ceiling;
  uint64_t bytes = (uint64_t)BANDWIDTH_N * BANDWIDTH_N * 32;
  if (!fl_bench_copy_ceiling(c->gpu, bytes, 10, &ceiling)) return false;
  cJSON *bw = cJSON_AddObjectToObject(json, "passes");
  cJSON_AddNumberToObject(bw, "particles", BANDWIDTH_N * BANDWIDTH_N);
  cJSON_AddNumberToObject(bw, "ceiling_gbps", ceiling);
  printf("\nPasses at %ux%u particles (copy ceiling %.2f GB/s, same run):\n", BANDWIDTH_N, BANDWIDTH_N, ceiling);
  for (int m = 0; m < 5; m++) {
    if (T2_METHODS[m] == FL_MS_IM) continue; /* thousands of CG iterations at this size: see Table 2 */
    fl_kang_setup s = {.n = BANDWIDTH_N, .damping = T2_DAMPING, .kappa = T2_KAPPA, .h = T1_H, .method = T2_METHODS[m]};
    fl_kang_cost cost;
    if (!fl_kang_time_step(c, &s, 2, BANDWIDTH_STEPS, &cost)) return false;
    cJSON *o = cJSON_AddObjectToObject(bw, T2_METHOD_NAMES[m]);
    cJSON_AddNumberToObject(o, "step_ms", cost.step_ms);
    for (uint32_t p = 0; p < cost.pass_count; p++) {
      double gbps = (double)cost.pass_bytes[p] / (cost.pass_ms[p] * 1e6);
      cJSON *po = cJSON_AddObjectToObject(o, cost.pass_names[p]);
      cJSON_AddNumberToObject(po, "ms", cost.pass_ms[p]);
      cJSON_AddNumberToObject(po, "bytes", (double)cost.pass_bytes[p]);
      cJSON_AddNumberToObject(po, "gbps", gbps);
      cJSON_AddNumberToObject(po, "fraction_of_ceiling", gbps / ceiling);
      printf("  %-2s %-8s %8.3f ms %7.2f GB/s  %5.0f%% of the ceiling\n", T2_METHOD_NAMES[m], cost.pass_names[p],
             cost.pass_ms[p], gbps, 100.0 * gbps / ceiling);
    }
  }
  return true;
}

static bool table2(fl_kang_context *c, kang_results *r, cJSON *json)
{
  cJSON *rc = cJSON_AddObjectToObject(json, "relative_cost");
  cJSON *ms = cJSON_AddObjectToObject(json, "step_ms");
  cJSON *cg = cJSON_AddObjectToObject(json, "im_cg_iterations");
  printf("\nTable 2: update time relative to E (kappa %g, damping %g, h = 0.1 ms; GPU timestamps)\n", T2_KAPPA,
         T2_DAMPING);
  printf("  HY is Eq. 32 (one diagonal solve); HY3 runs 3 Jacobi iterations, as JI does\n");
  printf("  size    E ms/step |      HO (paper)  |      JI (paper)  |      IM (paper)  |      HY (paper)  |   HY3 "
         "| IM CG its\n");
  for (int k = 0; k < T2_SIZES; k++) {
    char key[16];
    snprintf(key, sizeof key, "%ux%u", SIZES[k].n, SIZES[k].n);
    cJSON *row = cJSON_AddObjectToObject(rc, key), *mrow = cJSON_AddObjectToObject(ms, key);
    for (int m = 0; m < 6; m++) {
      fl_kang_setup s = {.n = SIZES[k].n, .damping = T2_DAMPING, .kappa = T2_KAPPA, .h = T1_H,
                         .method = m < 5 ? T2_METHODS[m] : FL_MS_HY, .jacobi_iterations = m < 5 ? 0 : 3};
      fl_kang_cost cost;
      if (!fl_kang_time_step(c, &s, T2_WARMUP, SIZES[k].steps, &cost)) return false;
      r->step_ms[k][m] = cost.step_ms;
      if (m < 5 && T2_METHODS[m] == FL_MS_IM) r->cg_iterations[k] = cost.cg_iterations;
    }
    printf("  %-7s %9.4f ", key, r->step_ms[k][0]);
    for (int m = 0; m < 6; m++) {
      r->relative[k][m] = r->step_ms[k][m] / r->step_ms[k][0];
      const char *name = m < 5 ? T2_METHOD_NAMES[m] : "HY3";
      cJSON_AddNumberToObject(row, name, r->relative[k][m]);
      cJSON_AddNumberToObject(mrow, name, r->step_ms[k][m]);
      if (m > 0 && m < 5) printf("| %7.2f (%7.2f) ", r->relative[k][m], SIZES[k].paper[m]);
    }
    cJSON_AddNumberToObject(cg, key, r->cg_iterations[k]);
    printf("| %5.2f | %u\n", r->relative[k][5], (unsigned)r->cg_iterations[k]);
  }
  return bandwidth(c, json);
}

static bool table3(fl_kang_context *c, kang_results *r, cJSON *json)
{
  cJSON *mh = cJSON_AddObjectToObject(json, "max_stable_h");
  printf("\nTable 3: largest stable step h (s), case c1's cloth (%u particles, damping %g), >= %u steps per trial, "
         "strain limit %g\n",
         T3_N * T3_N, T3_DAMPING, c->min_steps, FL_KANG_SOFT_STRAIN_LIMIT);
  printf("  kappa  |        E (paper)   |       HY (paper)\n");
  for (int k = 0; k < 4; k++) {
    char key[16];
    snprintf(key, sizeof key, "%g", T3_KAPPA[k]);
    cJSON *row = cJSON_AddObjectToObject(mh, key);
    for (int m = 0; m < 2; m++) {
      fl_kang_setup s = {.n = T3_N, .damping = T3_DAMPING, .kappa = T3_KAPPA[k], .method = T3_METHODS[m],
                         .strain_limit = FL_KANG_SOFT_STRAIN_LIMIT};
      fl_kang_trial t, above;
      if (!fl_kang_largest_stable(c, s, 'h', fl_kang_guess_h(T3_N, T3_KAPPA[k]), &r->h_max[k][m], &r->h_capped[k][m],
                                  &t, &above))
        return false;
      add_cell(row, m ? "HY" : "E", r->h_max[k][m], &t, &above);
      if (r->h_capped[k][m]) add_lower_bound(json, key, m ? "HY" : "E");
    }
    printf("  %-6s |%c%8.2g (%8.2g) |%c%8.2g (%8.2g)\n", key, r->h_capped[k][0] ? '>' : ' ', r->h_max[k][0],
           T3_PAPER[0][k], r->h_capped[k][1] ? '>' : ' ', r->h_max[k][1], T3_PAPER[1][k]);
  }
  return true;
}

/* ---- the paper's numbers and the plot ---- */

static void add_paper(cJSON *json)
{
  cJSON *p = cJSON_AddObjectToObject(json, "paper");
  cJSON *km = cJSON_AddObjectToObject(p, "kappa_max"), *rc = cJSON_AddObjectToObject(p, "relative_cost"),
        *mh = cJSON_AddObjectToObject(p, "max_stable_h");
  for (int k = 0; k < 3; k++) {
    cJSON *row = cJSON_AddObjectToObject(km, CASES[k].name);
    for (int m = 0; m < 4; m++) cJSON_AddNumberToObject(row, T1_KEYS[m], CASES[k].paper[m]);
  }
  for (int k = 0; k < T2_PAPER_SIZES; k++) {
    char key[16];
    snprintf(key, sizeof key, "%ux%u", SIZES[k].n, SIZES[k].n);
    cJSON *row = cJSON_AddObjectToObject(rc, key);
    for (int m = 0; m < 5; m++) cJSON_AddNumberToObject(row, T2_METHOD_NAMES[m], SIZES[k].paper[m]);
  }
  for (int k = 0; k < 4; k++) {
    char key[16];
    snprintf(key, sizeof key, "%g", T3_KAPPA[k]);
    cJSON *row = cJSON_AddObjectToObject(mh, key);
    cJSON_AddNumberToObject(row, "E", T3_PAPER[0][k]);
    cJSON_AddNumberToObject(row, "HY", T3_PAPER[1][k]);
  }
}

/* Adds series "NAME" and "NAME (paper)" to a panel; returns the first's index. */
static uint32_t add_series_pair(fl_plot_panel *p, const char *name, const char *paper_name)
{
  uint32_t s = p->series_count;
  p->series_names[s] = name;
  p->series_names[s + 1] = paper_name;
  p->series_hatched[s + 1] = true;
  p->series_count += 2;
  return s;
}

static bool write_plot(const char *path, uint32_t cases, uint32_t tables, const kang_results *r)
{
  static const char *const PAPER_NAMES[5] = {"E (paper)", "HO (paper)", "JI (paper)", "IM (paper)", "HY (paper)"};
  static const char *const SIZE_NAMES[T2_SIZES] = {"20x20", "30x30", "40x40", "80x80", "160x160"};
  static const char *const KAPPA_NAMES[4] = {"512", "1024", "2048", "4096"};
  fl_plot_panel panels[3];
  memset(panels, 0, sizeof panels);
  uint32_t count = 0;
  if (tables & 1u) {
    fl_plot_panel *p = &panels[count++];
    *p = (fl_plot_panel){.title = "Table 1: largest stable stiffness", .y_label = "kappa_max (N/m)", .log_y = true};
    for (int k = 0; k < 3; k++)
      if (cases & (1u << k)) {
        p->group_names[p->group_count] = CASES[k].name;
        for (int m = 0; m < 4; m++) {
          p->values[p->group_count][2 * m] = r->kappa_max[k][m];
          p->values[p->group_count][2 * m + 1] = CASES[k].paper[m];
        }
        for (int m = 4; m < T1_COLUMNS; m++) p->values[p->group_count][4 + m] = r->kappa_max[k][m];
        p->group_count++;
      }
    static const int T1_TO_T2[4] = {0, 1, 2, 4};
    for (int m = 0; m < 4; m++) add_series_pair(p, T1_METHOD_NAMES[m], PAPER_NAMES[T1_TO_T2[m]]);
    for (int m = 4; m < T1_COLUMNS; m++) p->series_names[p->series_count++] = T1_METHOD_NAMES[m];
  }
  if (tables & 2u) {
    fl_plot_panel *p = &panels[count++];
    *p = (fl_plot_panel){.title = "Table 2: update time relative to E", .y_label = "x E", .log_y = true,
                         .group_count = T2_SIZES};
    for (int k = 0; k < T2_SIZES; k++) {
      p->group_names[k] = SIZE_NAMES[k];
      for (int m = 0; m < 5; m++) {
        p->values[k][2 * m] = r->relative[k][m];
        p->values[k][2 * m + 1] = SIZES[k].paper[m];
      }
    }
    for (int m = 0; m < 5; m++) add_series_pair(p, T2_METHOD_NAMES[m], PAPER_NAMES[m]);
  }
  if (tables & 4u) {
    fl_plot_panel *p = &panels[count++];
    *p = (fl_plot_panel){.title = "Table 3: largest stable step", .y_label = "h (s)", .log_y = true, .group_count = 4};
    for (int k = 0; k < 4; k++) {
      p->group_names[k] = KAPPA_NAMES[k];
      for (int m = 0; m < 2; m++) {
        p->values[k][2 * m] = r->h_max[k][m];
        p->values[k][2 * m + 1] = T3_PAPER[m][k];
      }
    }
    add_series_pair(p, "E", "E (paper)");
    add_series_pair(p, "HY", "HY (paper)");
  }
  return fl_plot_write_png(path, panels, count, 640 * count, 520);
}

/* ---- the run ---- */

/* FILE.json -> FILE.png (or FILE + ".png" without the extension). */
static void png_path(const char *json_path, char *out, size_t size)
{
  const char *dot = strrchr(json_path, '.');
  size_t stem = dot && strcmp(dot, ".json") == 0 ? (size_t)(dot - json_path) : strlen(json_path);
  snprintf(out, size, "%.*s.png", (int)stem, json_path);
}

int fl_kang_run(const fl_options *o)
{
  const char *report = o->report ? o->report : "kang2018.json";
  char png[1024];
  png_path(report, png, sizeof png);
  /* what the run writes is checked before it runs (a named --report already was, in cli.c) */
  if ((!o->report && !fl_path_check_writable("the default report (--report FILE.json names another)", report, false)) ||
      !fl_path_check_writable(o->report ? "the plot next to --report" : "the default plot (--report FILE.json names "
                              "another)", png, false)) {
    fl_error_print();
    return 1;
  }
  fl_gpu gpu;
  fl_gpu_desc desc = {.validation = o->validation, .no_async = true, .device = o->device, .patient = true};
  fl_descriptor_cache sets = {0};
  kang_results r;
  memset(&r, 0, sizeof r);
  for (int k = 0; k < 3; k++)
    for (int m = 0; m < T1_COLUMNS; m++) r.kappa_max[k][m] = NAN;
  cJSON *json = cJSON_CreateObject();
  bool ok = fl_gpu_create(&desc, &gpu) && fl_descriptor_cache_create(&gpu, "kang", &sets);
  fl_kang_context c = {.gpu = &gpu, .sets = &sets, .duration = o->duration, .min_steps = o->trial_steps};
  if (ok) {
    fl_report_add_device(json, &gpu);
    cJSON *set = cJSON_AddObjectToObject(json, "settings");
    cJSON_AddNumberToObject(set, "duration_s", o->duration);
    cJSON_AddNumberToObject(set, "min_steps", c.min_steps);
    cJSON_AddNumberToObject(set, "strain_limit", FL_KANG_STRAIN_LIMIT);
    cJSON_AddNumberToObject(set, "strain_limit_table3", FL_KANG_SOFT_STRAIN_LIMIT);
    cJSON_AddNumberToObject(set, "energy_growth_limit", FL_KANG_ENERGY_GROWTH);
    cJSON_AddStringToObject(set, "cloth", "n x n particles, 2 m^2, 40 kg, structural+shear+bend, top row pinned, "
                                          "released horizontal; paper split; JI 3 Jacobi iterations, HY one "
                                          "diagonal solve (Eq. 32); exact Jacobian unless a column says definite");
    printf("Kang 2018 on %s (%s %s)\n", gpu.props.deviceName, gpu.driver_name, gpu.driver_info);
  }
  ok = ok && (!(o->tables & 1u) || table1(&c, o->cases, &r, json));
  ok = ok && (!(o->tables & 2u) || table2(&c, &r, json));
  ok = ok && (!(o->tables & 4u) || table3(&c, &r, json));
  if (ok) {
    add_paper(json);
    cJSON_AddNumberToObject(json, "trials", c.trials);
    ok = write_plot(png, o->cases, o->tables, &r);
  }
  if (!ok) fl_error_print();
  fl_descriptor_cache_destroy(&sets);
  fl_gpu_destroy(&gpu);
  if (ok && !fl_report_write(json, &gpu.counts, report)) {
    fl_error_print(); /* a full disk, say: the checks before the run cannot see it */
    ok = false;
  }
  if (ok) printf("\nwrote %s and %s (%u stability trials)\n", report, png, (unsigned)c.trials);
  cJSON_Delete(json);
  if (!ok) return 1;
  if (o->validation && gpu.counts.errors) {
    fprintf(stderr, "flurry: %llu validation error(s)\n", (unsigned long long)gpu.counts.errors);
    return 3;
  }
  return 0;
}
