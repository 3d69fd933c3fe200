/* tests/scenes/check_report: validates a run's report JSON and dump CSV.
 * usage: check_report REPORT.json [DUMP.csv] [--bench [--max-fraction PREFIX F]...] [--diverges NAME]... [--holds NAME]...
 *        [--fragments NAME N DIST] (snow: NAME's particles in >= N groups linked closer than DIST)
 *        check_report KANG.json --kang (the --experiment kang report)
 * (--diverges: the mass_spring object NAME was reset at least once; --holds: never)
 *        check_report REPORT.json --trace TRACE.json (the same run's --trace: check_trace.c)
 *        check_report REPORT.json --samples NAME N (timings_ms.NAME has N samples: the profiler's timed frames)
 *        check_report REPORT.json --figure11 (the balloons scene: worst_volume_loss has none,
 *        global and local; global and local below 2 %, none above 10 % and 5x both;
 *        every body object has its volume fields)
 * Checks: every contract key is present and typed; validation errors == 0;
 * every object has finite stats, nan_count 0, particles > 0, nothing
 * outside the domain and no "unstable" mark; the dump has the header and one finite row per particle
 * of the report's objects; in bench mode, the ceiling and per-pass fractions. */
#include "check.h"
#include "check_trace.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...) CHECK_COUNTED(failures, "check_report", cond, __VA_ARGS__)

static char *read_all(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (s) s[n] = 0;
  fclose(f);
  return s;
}

static const cJSON *need(const cJSON *obj, const char *key, int type_check(const cJSON *))
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  CHECK(v && type_check(v), "key \"%s\" missing or of the wrong type", key);
  return v && type_check(v) ? v : NULL;
}

static int is_number(const cJSON *v) { return cJSON_IsNumber(v) && isfinite(v->valuedouble); }
static int is_string(const cJSON *v) { return cJSON_IsString(v); }
static int is_object(const cJSON *v) { return cJSON_IsObject(v); }
static int is_array(const cJSON *v) { return cJSON_IsArray(v); }
static int is_bool(const cJSON *v) { return cJSON_IsBool(v); }
static int is_vec3(const cJSON *v)
{
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) return 0;
  for (int i = 0; i < 3; i++)
    if (!is_number(cJSON_GetArrayItem(v, i))) return 0;
  return 1;
}

static double check_objects(const cJSON *objects)
{
  double total = 0;
  const cJSON *o;
  CHECK(cJSON_GetArraySize(objects) > 0, "no objects in the report");
  cJSON_ArrayForEach(o, objects)
  {
    need(o, "name", is_string);
    need(o, "type", is_string);
    const cJSON *n = need(o, "particles", is_number);
    need(o, "mass", is_number);
    need(o, "kinetic_energy", is_number);
    const char *vecs[] = {"com", "momentum", "bbox_min", "bbox_max"};
    for (int i = 0; i < 4; i++) need(o, vecs[i], is_vec3);
    const cJSON *nan = need(o, "nan_count", is_number);
    const cJSON *outside = cJSON_GetObjectItemCaseSensitive(o, "outside_domain");
    if (n) {
      CHECK(n->valuedouble > 0, "object with no particles");
      total += n->valuedouble;
    }
    if (nan) CHECK(nan->valuedouble == 0, "nan_count is %g", nan->valuedouble);
    if (outside) CHECK(outside->valuedouble == 0, "%g particles left the domain", outside->valuedouble);
    const cJSON *unstable = cJSON_GetObjectItemCaseSensitive(o, "unstable"); /* the health watch's mark */
    CHECK(!unstable, "object went unstable (a NaN or a blow-up during the run)");
  }
  return total;
}

static void check_dump(const char *path, double particles)
{
  FILE *f = fopen(path, "r");
  CHECK(f, "cannot open dump %s", path);
  if (!f) return;
  char line[512];
  CHECK(fgets(line, sizeof line, f) && strcmp(line, "object,index,x,y,z,vx,vy,vz\n") == 0, "dump header wrong");
  double rows = 0;
  while (fgets(line, sizeof line, f)) {
    char *comma = strchr(line, ',');
    double v[7];
    int got = comma ? sscanf(comma + 1, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) : 0;
    CHECK(got == 7, "dump row %.0f malformed", rows + 1);
    for (int i = 0; i < got; i++) CHECK(isfinite(v[i]), "dump row %.0f has a non-finite value", rows + 1);
    rows++;
    if (failures > 10) break;
  }
  fclose(f);
  CHECK(rows == particles, "dump has %.0f rows, the report %.0f particles", rows, particles);
}

/* Union-find root of i, halving the path. */
static int root(int *parent, int i)
{
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/* --fragments NAME N DIST: object NAME's particles in the dump form at least N groups,
 * two particles being in one group when a chain of particles closer than DIST links them. */
static void check_fragments(const char *dump, const char *name, int want, double dist)
{
  FILE *f = fopen(dump, "r");
  CHECK(f, "cannot open dump %s", dump);
  if (!f) return;
  char line[512];
  double (*x)[3] = NULL;
  int n = 0, cap = 0;
  size_t len = strlen(name);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, name, len) != 0 || line[len] != ',') continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 1024;
      double (*grown)[3] = realloc(x, (size_t)cap * sizeof *x);
      CHECK(grown, "out of memory");
      if (!grown) break;
      x = grown;
    }
    int index;
    if (sscanf(line + len + 1, "%d,%lf,%lf,%lf", &index, &x[n][0], &x[n][1], &x[n][2]) == 4) n++;
  }
  fclose(f);
  CHECK(n > 0, "no particles of %s in %s", name, dump);
  int *parent = malloc((size_t)(n ? n : 1) * sizeof *parent);
  for (int i = 0; parent && i < n; i++) parent[i] = i;
  for (int i = 0; parent && i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double d2 = 0;
      for (int a = 0; a < 3; a++) d2 += (x[i][a] - x[j][a]) * (x[i][a] - x[j][a]);
      if (d2 < dist * dist) parent[root(parent, i)] = root(parent, j);
    }
  int groups = 0, largest = 0;
  int *size = calloc((size_t)(n ? n : 1), sizeof *size);
  for (int i = 0; parent && size && i < n; i++) {
    int r = root(parent, i);
    if (size[r]++ == 0) groups++;
    if (size[r] > largest) largest = size[r];
  }
  int big = 0; /* groups of at least 5 particles: fragments, not single flakes */
  for (int i = 0; size && i < n; i++) big += size[i] >= 5;
  printf("%s: %d particles in %d groups (%d of >= 5 particles, the largest %d) at link distance %g m\n", name, n,
         groups, big, largest, dist);
  CHECK(big >= want, "%s broke into %d fragments of >= 5 particles, expected >= %d", name, big, want);
  free(size);
  free(parent);
  free(x);
}

/* One searched cell of the kang report: {value > 0, energy_growth <= the limit, steps >= min_steps}. */
static void check_kang_cell(const cJSON *row, const char *key, const char *where, double growth_limit, double min_steps)
{
  const cJSON *cell = need(row, key, is_object);
  if (!cell) return;
  const cJSON *v = need(cell, "value", is_number), *g = need(cell, "energy_growth", is_number),
              *n = need(cell, "steps", is_number);
  if (v) CHECK(v->valuedouble > 0, "%s.%s.value is %g", where, key, v->valuedouble);
  if (g) CHECK(g->valuedouble <= growth_limit, "%s.%s: the largest stable trial's energy grew by %g (limit %g)", where,
               key, g->valuedouble, growth_limit);
  if (n) CHECK(n->valuedouble >= min_steps, "%s.%s: its trial ran %g steps, under the minimum %g", where, key,
               n->valuedouble, min_steps);
}

/* The --experiment kang report: every table filled with positive numbers beside the paper's, and
 * every stable trial's energy bounded over at least the minimum steps. */
static void check_kang(const cJSON *r)
{
  static const char *const T1[] = {"E", "HO", "JI", "HY", "JI_definite", "HY_definite", "JI_explicit_start"},
                           *const T2[] = {"E", "HO", "JI", "IM", "HY", "HY3"};
  static const char *const SIZES[] = {"20x20", "30x30", "40x40", "80x80", "160x160"},
                           *const KAPPAS[] = {"512", "1024", "2048", "4096"};
  need(r, "device", is_object);
  const cJSON *paper = need(r, "paper", is_object), *set = need(r, "settings", is_object);
  const cJSON *growth = set ? need(set, "energy_growth_limit", is_number) : NULL,
              *steps = set ? need(set, "min_steps", is_number) : NULL;
  double growth_limit = growth ? growth->valuedouble : 0, min_steps = steps ? steps->valuedouble : 1e300;
  const cJSON *c1 = cJSON_GetObjectItemCaseSensitive(need(r, "kappa_max", is_object), "c1");
  CHECK(c1, "kappa_max.c1 missing");
  for (int m = 0; c1 && m < 7; m++) check_kang_cell(c1, T1[m], "kappa_max.c1", growth_limit, min_steps);
  const cJSON *rc = need(r, "relative_cost", is_object);
  for (int k = 0; rc && k < 5; k++) {
    const cJSON *row = need(rc, SIZES[k], is_object);
    for (int m = 0; row && m < 6; m++) {
      const cJSON *v = need(row, T2[m], is_number);
      if (v) CHECK(v->valuedouble > 0, "relative_cost.%s.%s is %g", SIZES[k], T2[m], v->valuedouble);
    }
  }
  const cJSON *mh = need(r, "max_stable_h", is_object);
  for (int k = 0; mh && k < 4; k++) {
    const cJSON *row = need(mh, KAPPAS[k], is_object);
    for (int m = 0; row && m < 2; m++) check_kang_cell(row, m ? "HY" : "E", "max_stable_h", growth_limit, min_steps);
  }
  if (paper) {
    need(paper, "kappa_max", is_object);
    need(paper, "relative_cost", is_object);
    need(paper, "max_stable_h", is_object);
  }
  const cJSON *passes = need(r, "passes", is_object);
  if (passes) need(passes, "ceiling_gbps", is_number);
}

/* The balloons scene's report: the worst volume loss per conservation mode
 * (survey Fig. 11) and each body's volume fields. */
static void check_figure11(const cJSON *r, const cJSON *objects)
{
  const cJSON *w = need(r, "worst_volume_loss", is_object);
  const cJSON *none = w ? need(w, "none", is_number) : NULL, *global = w ? need(w, "global", is_number) : NULL,
              *local = w ? need(w, "local", is_number) : NULL;
  if (!none || !global || !local) return;
  double n = none->valuedouble, g = global->valuedouble, l = local->valuedouble;
  printf("worst volume loss: none %.2f %%, global %.2f %%, local %.2f %%\n", 100 * n, 100 * g, 100 * l);
  CHECK(g >= 0 && g < 0.02, "global conservation lost %.2f %% (want < 2 %%)", 100 * g);
  CHECK(l >= 0 && l < 0.02, "local conservation lost %.2f %% (want < 2 %%)", 100 * l);
  CHECK(n > 0.10 && n > 5 * g && n > 5 * l, "without conservation only %.2f %% was lost", 100 * n);
  const cJSON *o;
  cJSON_ArrayForEach(o, objects)
  {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "balloon") != 0) continue;
    const char *keys[] = {"volume", "rest_volume", "target_volume", "worst_volume_loss"};
    for (int k = 0; k < 4; k++) need(o, keys[k], is_number);
    need(o, "volume_conservation", is_string);
  }
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: check_report REPORT.json [DUMP.csv] [--bench] [--diverges NAME]... [--holds NAME]...\n");
    return 2;
  }
  int bench = 0;
  for (int i = 2; i < argc; i++) bench |= strcmp(argv[i], "--bench") == 0;
  char *text = read_all(argv[1]);
  CHECK(text, "cannot read %s", argv[1]);
  cJSON *r = text ? cJSON_Parse(text) : NULL;
  CHECK(r, "report is not valid JSON");
  int kang = 0;
  for (int i = 2; i < argc; i++) kang |= strcmp(argv[i], "--kang") == 0;
  if (r && kang) {
    check_kang(r);
    const cJSON *v = need(r, "validation", is_object);
    const cJSON *e = v ? need(v, "errors", is_number) : NULL;
    if (e) CHECK(e->valuedouble == 0, "validation errors: %g", e->valuedouble);
  } else if (r) {
    const cJSON *dev = need(r, "device", is_object);
    if (dev) {
      need(dev, "name", is_string);
      need(dev, "type", is_string);
      need(dev, "driver", is_string);
      need(dev, "api", is_string);
      /* The --list-devices --verbose rows: each a value and a path (gpu/device_caps.h). */
      const cJSON *caps = need(dev, "caps", is_object), *row;
      if (caps) cJSON_ArrayForEach(row, caps)
        {
          need(row, "value", is_string);
          need(row, "path", is_string);
        }
      CHECK(caps && cJSON_GetObjectItemCaseSensitive(caps, "float_atomic_add"), "device.caps lacks float_atomic_add");
      const cJSON *wg = need(dev, "kernel_workgroup_size", is_object), *k;
      if (wg) cJSON_ArrayForEach(k, wg) CHECK(cJSON_IsNumber(k) && k->valuedouble >= 1, "kernel %s: no workgroup size", k->string);
    }
    const cJSON *q = need(r, "queues", is_object);
    if (q) {
      need(q, "async_compute", is_bool);
      need(q, "graphics_family", is_number);
      need(q, "compute_family", is_number);
    }
    need(r, "scene", is_string);
    const cJSON *frames = need(r, "frames", is_number);
    if (frames) CHECK(frames->valuedouble >= 1, "no frames");
    need(r, "sim_steps", is_number);
    const cJSON *t = need(r, "timings_ms", is_object);
    if (t) {
      const cJSON *frame = cJSON_GetObjectItemCaseSensitive(t, "frame");
      CHECK(frame && is_number(cJSON_GetObjectItemCaseSensitive(frame, "mean")), "timings_ms.frame missing");
      const cJSON *s;
      cJSON_ArrayForEach(s, t)
      {
        if (!cJSON_IsObject(s)) continue;
        const char *keys[] = {"mean", "median", "min", "max"};
        for (int i = 0; i < 4; i++) {
          const cJSON *v = need(s, keys[i], is_number);
          if (v) CHECK(v->valuedouble >= 0, "timings_ms.%s.%s negative", s->string, keys[i]);
        }
      }
    }
    const cJSON *v = need(r, "validation", is_object);
    if (v) {
      const cJSON *e = need(v, "errors", is_number);
      need(v, "warnings", is_number);
      if (e) CHECK(e->valuedouble == 0, "validation errors: %g", e->valuedouble);
    }
    const cJSON *objects = need(r, "objects", is_array);
    double particles = objects ? check_objects(objects) : 0;
    if (argc > 2 && argv[2][0] != '-') check_dump(argv[2], particles);
    for (int i = 2; objects && i + 1 < argc; i++) {
      int diverges = strcmp(argv[i], "--diverges") == 0;
      if (!diverges && strcmp(argv[i], "--holds") != 0) continue;
      const cJSON *o, *found = NULL;
      cJSON_ArrayForEach(o, objects)
      {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
        if (cJSON_IsString(name) && strcmp(name->valuestring, argv[i + 1]) == 0) found = o;
      }
      CHECK(found, "no object named %s", argv[i + 1]);
      const cJSON *resets = found ? need(found, "resets", is_number) : NULL;
      if (resets && diverges) CHECK(resets->valuedouble > 0, "%s never diverged", argv[i + 1]);
      if (resets && !diverges) CHECK(resets->valuedouble == 0, "%s diverged (%g resets)", argv[i + 1], resets->valuedouble);
    }
    for (int i = 2; i + 3 < argc; i++)
      if (strcmp(argv[i], "--fragments") == 0) {
        CHECK(argc > 2 && argv[2][0] != '-', "--fragments needs the dump");
        if (argv[2][0] != '-') check_fragments(argv[2], argv[i + 1], atoi(argv[i + 2]), atof(argv[i + 3]));
      }
    /* --settled PREFIX SPEED: every object named PREFIX... moves slower than SPEED m/s (bodies come to rest). */
    for (int i = 2; objects && i + 2 < argc; i++) {
      if (strcmp(argv[i], "--settled") != 0) continue;
      const cJSON *o;
      int matched = 0;
      cJSON_ArrayForEach(o, objects)
      {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
        if (!cJSON_IsString(name) || strncmp(name->valuestring, argv[i + 1], strlen(argv[i + 1])) != 0) continue;
        matched++;
        const cJSON *speed = need(o, "max_speed", is_number);
        if (speed) CHECK(speed->valuedouble < atof(argv[i + 2]), "%s has not settled: a particle moves at %g m/s (limit %s)",
                         name->valuestring, speed->valuedouble, argv[i + 2]);
      }
      CHECK(matched > 0, "no object named %s...", argv[i + 1]);
    }
    int figure11 = 0;
    for (int i = 2; i < argc; i++) figure11 |= strcmp(argv[i], "--figure11") == 0;
    if (figure11) check_figure11(r, objects);
    for (int i = 2; i + 1 < argc; i++)
      if (strcmp(argv[i], "--trace") == 0) {
        char *trace_text = read_all(argv[i + 1]);
        cJSON *trace = trace_text ? cJSON_Parse(trace_text) : NULL;
        CHECK(trace, "%s: cannot read it or not valid JSON", argv[i + 1]);
        if (trace) failures += check_trace(r, trace);
        cJSON_Delete(trace);
        free(trace_text);
      }
    /* --samples NAME N: the stat NAME was timed in N of the measured frames (docs/PROFILING.md). */
    for (int i = 2; i + 2 < argc; i++) {
      if (strcmp(argv[i], "--samples") != 0) continue;
      const cJSON *timings = need(r, "timings_ms", is_object);
      const cJSON *t = timings ? cJSON_GetObjectItemCaseSensitive(timings, argv[i + 1]) : NULL;
      const cJSON *n = t ? need(t, "samples", is_number) : NULL;
      CHECK(t, "no stat %s in timings_ms", argv[i + 1]);
      if (n) CHECK(n->valuedouble == atof(argv[i + 2]), "%s: %g samples, expected %s", argv[i + 1], n->valuedouble,
                   argv[i + 2]);
    }
    if (bench) {
      const cJSON *c = need(r, "ceiling", is_object);
      const cJSON *g = c ? need(c, "copy_gbps", is_number) : NULL;
      if (g) CHECK(g->valuedouble > 0, "copy ceiling is 0");
      /* The size the copy used (app/bench.h: at least 1 MiB), not the scene's largest buffer: a
       * mass-spring scene's 24 KiB used to print as "0.0 MiB buffers" beside a 1 MiB copy. */
      const cJSON *cb = c ? need(c, "bytes", is_number) : NULL;
      if (cb) CHECK(cb->valuedouble >= 1048576.0, "the ceiling's copy size %g B is under its 1 MiB floor", cb->valuedouble);
      const cJSON *ps = need(r, "particle_substeps_per_s", is_number);
      if (ps) CHECK(ps->valuedouble > 0, "particle_substeps_per_s is 0");
      const cJSON *passes = need(r, "passes", is_object);
      const cJSON *p;
      if (passes) cJSON_ArrayForEach(p, passes)
        {
          const cJSON *fr = need(p, "fraction_of_ceiling", is_number);
          need(p, "gbps", is_number);
          if (fr) CHECK(fr->valuedouble > 0, "pass %s: fraction_of_ceiling is 0", p->string);
          /* --max-fraction PREFIX F: the passes named PREFIX... reach at most F of the ceiling. */
          for (int i = 2; fr && i + 2 < argc; i++)
            if (strcmp(argv[i], "--max-fraction") == 0 && strncmp(p->string, argv[i + 1], strlen(argv[i + 1])) == 0)
              CHECK(fr->valuedouble <= atof(argv[i + 2]), "pass %s: %.0f %% of the copy ceiling (limit %s)", p->string,
                    100.0 * fr->valuedouble, argv[i + 2]);
        }
      /* --executions PASS N: the pass PASS is a scope timed N times a frame (e.g. E's substeps in one scope). */
      for (int i = 2; passes && i + 2 < argc; i++) {
        if (strcmp(argv[i], "--executions") != 0) continue;
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(passes, argv[i + 1]);
        const cJSON *e = q ? need(q, "executions_per_frame", is_number) : NULL;
        CHECK(q, "no pass %s in the report", argv[i + 1]);
        if (e) CHECK(e->valuedouble == atof(argv[i + 2]), "pass %s: %g executions a frame, expected %s", argv[i + 1],
                     e->valuedouble, argv[i + 2]);
      }
    }
  }
  cJSON_Delete(r);
  free(text);
  printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
  return failures ? 1 : 0;
}
