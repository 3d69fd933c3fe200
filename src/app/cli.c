/* app/cli: command-line parsing with one clear error per bad input. */
#include "app/cli.h"

#include "app/quality.h"
#include "core/env.h"
#include "core/file.h"
#include "core/log.h"
#include "render/snow_look.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fl_cli_print_help(void)
{
  printf(
      "usage: flurry [options]\n"
      "  --scene NAME|FILE     built-in scene name or a .json path (default: showcase)\n"
      "  --list-scenes         list the built-in scenes\n"
      "  --list-devices        list Vulkan devices with their queue families\n"
      "  --verbose             with --list-devices: the features flurry depends on, the path it takes\n"
      "  --device N|NAME       pick a device by index or name substring\n"
      "  --headless            render offscreen, no window system\n"
      "  --frames N            exit 0 after N frames (headless default: 240)\n"
      "  --size WxH            window or image size (default 1280x720)\n"
      "  --screenshot FILE.png write the last frame as PNG\n"
      "  --record DIR          write every frame as DIR/frame_NNNNN.png\n"
      "  --report FILE.json    write the run report (device, timings, validation, objects)\n"
      "  --dump FILE.csv       write every particle's final position and velocity\n"
      "  --trace FILE.json     every pass of every frame as Chrome trace events (Perfetto)\n"
      "  --validation          Khronos validation + synchronization validation; errors exit 3\n"
      "  --no-async            one queue for compute and graphics, even if the device has two\n"
      "  --set KEY=VALUE       override a scene value, e.g. sim.substeps=8 or objects.NAME.radius=0.05\n"
      "  --bench               benchmark: warm up, measure --frames (default 120), copy-kernel ceiling\n"
      "  --warmup N            bench warm-up frames (default 20)\n"
      "  --experiment kang     reproduce the tables of Kang 2018 (docs/KANG2018.md); with --report\n"
      "                        FILE.json it writes the JSON and FILE.png (default kang2018.json/.png)\n"
      "  --cases c1,c2,c3      experiment: the Table 1 cases to run (default all)\n"
      "  --tables 1,2,3        experiment: the tables to run (default all)\n"
      "  --duration S          experiment: simulated seconds per stability trial (default 0.3)\n"
      "  --trial-steps N       experiment: at least N steps per stability trial (default 3000)\n"
      "  --snow-view VIEW      snow as \"surface\" (default: the lit surface of its grid density, spray as\n"
      "                        beads), \"particles\" shaded by density, or \"volume\" (key V cycles)\n"
      "  --quality Q           low, medium, high or auto (default): scene sizes for the device; auto is\n"
      "                        low on a CPU driver, medium on an integrated GPU, high on a discrete one\n"
      "  --no-overlay          start with the panel hidden (key H shows it): clean screenshots\n"
      "  --help                this text\n"
      "keys and mouse (in a window):\n"
      "  left drag: orbit   right drag: grab and pull a particle   wheel: zoom\n"
      "  space: pause   s: step one frame   r: reset the scene   n or tab: next scene\n"
      "  h or F1: panel (scenes, pause/step/reset, sliders, GPU passes)   w: wireframe   v: snow surface/particles/volume\n"
      "  p or F12: screenshot (numbered files, flurry-NNNN.png; the path is printed)   esc: quit\n");
}

/* A comma list of PREFIX1..PREFIXmax (e.g. "c1,c3" or "1,2") into a bit mask. */
static bool parse_list(const char *opt, const char *text, const char *prefix, uint32_t max, uint32_t *out)
{
  uint32_t mask = 0;
  size_t plen = strlen(prefix);
  for (const char *p = text;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len != plen + 1 || strncmp(p, prefix, plen) != 0 || p[plen] < '1' || p[plen] > (char)('0' + max))
      return fl_error_set("%s: expected a comma list of %s1..%s%u, got \"%s\"", opt, prefix, prefix, (unsigned)max, text);
    mask |= 1u << (p[plen] - '1');
    if (!comma) break;
    p = comma + 1;
  }
  *out = mask;
  return true;
}

static bool parse_count(const char *opt, const char *text, int64_t min, int64_t max, int64_t *out)
{
  return fl_parse_int(opt, text, min, max, out);
}

static bool parse_size(const char *text, uint32_t *w, uint32_t *h)
{
  unsigned a, b;
  char tail;
  if (sscanf(text, "%ux%u%c", &a, &b, &tail) != 2 || a < 16 || b < 16 || a > 16384 || b > 16384)
    return fl_error_set("--size: expected WxH with each in 16..16384, got \"%s\"", text);
  *w = a;
  *h = b;
  return true;
}

bool fl_cli_parse(int argc, char **argv, fl_options *o)
{
  memset(o, 0, sizeof *o);
  o->scene = "showcase";
  o->frames = -1;
  o->width = 1280;
  o->height = 720;
  o->warmup = 20;
  o->cases = 7;
  o->tables = 7;
  o->duration = 0.3;
  o->trial_steps = 3000;
  o->quality = "auto";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    /* Options that take a value. */
    static const char *valued[] = {"--scene", "--device", "--frames", "--size", "--screenshot", "--record",
                                   "--report", "--dump", "--set", "--warmup", "--experiment",
                                   "--cases", "--tables", "--duration", "--trial-steps", "--snow-view", "--trace",
                                   "--quality"};
    const char *value = NULL;
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
      if (strcmp(a, valued[k]) == 0) {
        if (i + 1 >= argc || argv[i + 1][0] == 0) return fl_error_set("%s needs a value (see --help)", a);
        value = argv[++i];
      }
    int64_t n = 0;
    if (strcmp(a, "--scene") == 0) o->scene = value;
    else if (strcmp(a, "--device") == 0) o->device = value;
    else if (strcmp(a, "--frames") == 0) {
      if (!parse_count(a, value, 1, 100000000, &n)) return false;
      o->frames = n;
    } else if (strcmp(a, "--warmup") == 0) {
      if (!parse_count(a, value, 0, 100000, &n)) return false;
      o->warmup = (uint32_t)n;
    } else if (strcmp(a, "--size") == 0) {
      if (!parse_size(value, &o->width, &o->height)) return false;
    } else if (strcmp(a, "--screenshot") == 0) o->screenshot = value;
    else if (strcmp(a, "--record") == 0) o->record_dir = value;
    else if (strcmp(a, "--report") == 0) o->report = value;
    else if (strcmp(a, "--experiment") == 0) {
      if (strcmp(value, "kang") != 0) return fl_error_set("--experiment: unknown experiment \"%s\" (known: kang)", value);
      o->experiment = value;
    } else if (strcmp(a, "--cases") == 0) {
      if (!parse_list(a, value, "c", 3, &o->cases)) return false;
    } else if (strcmp(a, "--tables") == 0) {
      if (!parse_list(a, value, "", 3, &o->tables)) return false;
    } else if (strcmp(a, "--duration") == 0) {
      char *end = NULL;
      double d = strtod(value, &end);
      if (!end || *end || end == value || !(d > 0 && d <= 1000))
        return fl_error_set("--duration: expected seconds in (0, 1000], got \"%s\"", value);
      o->duration = d;
    } else if (strcmp(a, "--trial-steps") == 0) {
      if (!parse_count(a, value, 1, 100000000, &n)) return false;
      o->trial_steps = (uint32_t)n;
    }
    else if (strcmp(a, "--dump") == 0) o->dump = value;
    else if (strcmp(a, "--trace") == 0) o->trace = value;
    else if (strcmp(a, "--snow-view") == 0) {
      if (!fl_snow_look_parse(value, &o->snow_look))
        return fl_error_set("--snow-view: expected surface, particles or volume, got \"%s\"", value);
    }
    else if (strcmp(a, "--quality") == 0) {
      fl_quality q;
      if (!fl_quality_parse(value, &q)) return fl_error_set("--quality: expected low, medium, high or auto, got \"%s\"", value);
      o->quality = value;
    }
    else if (strcmp(a, "--set") == 0) {
      if (!strchr(value, '=') || value[0] == '=')
        return fl_error_set("--set: expected KEY=VALUE, got \"%s\"", value);
      if (o->set_count == FL_CLI_MAX_SETS) return fl_error_set("--set: at most %d overrides", FL_CLI_MAX_SETS);
      o->sets[o->set_count++] = value;
    } else if (strcmp(a, "--list-scenes") == 0) o->list_scenes = true;
    else if (strcmp(a, "--list-devices") == 0) o->list_devices = true;
    else if (strcmp(a, "--verbose") == 0) o->verbose = true;
    else if (strcmp(a, "--headless") == 0) o->headless = true;
    else if (strcmp(a, "--no-overlay") == 0) o->no_overlay = true;
    else if (strcmp(a, "--validation") == 0) o->validation = true;
    else if (strcmp(a, "--no-async") == 0) o->no_async = true;
    else if (strcmp(a, "--bench") == 0) o->bench = true;
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) o->help = true;
    else return fl_error_set("unknown option \"%s\" (see --help)", a);
  }
  if (o->bench) o->headless = true;
  /* Where the run writes is checked now, before any work: a run must not compute for
   * minutes and then fail to write what it computed. */
  const struct { const char *option, *path; bool dir; } outputs[] = {
      {"--report", o->report, false}, {"--dump", o->dump, false},         {"--trace", o->trace, false},
      {"--screenshot", o->screenshot, false}, {"--record", o->record_dir, true}};
  for (size_t k = 0; k < sizeof outputs / sizeof outputs[0] && !o->help; k++)
    if (outputs[k].path && !fl_path_check_writable(outputs[k].option, outputs[k].path, outputs[k].dir)) return false;
  return true;
}
