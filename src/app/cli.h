/* app/cli: the command line (README, "Command line"). A contract: tests and
 * later issues rely on it; extend, never change. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "render/snow_look.h"

#define FL_CLI_MAX_SETS 64

typedef struct {
  const char *scene;          /* --scene NAME|FILE (default "showcase") */
  bool list_scenes, list_devices, help;
  bool verbose;               /* --verbose: --list-devices adds what flurry depends on and its path (docs/PORTING.md) */
  const char *device;         /* --device N|NAME */
  bool headless;              /* --headless */
  int64_t frames;             /* --frames N; -1 = until the window closes (windowed) or 240 (headless) */
  uint32_t width, height;     /* --size WxH (default 1280x720) */
  const char *screenshot;     /* --screenshot FILE.png */
  const char *record_dir;     /* --record DIR */
  const char *report;         /* --report FILE.json */
  const char *dump;           /* --dump FILE.csv */
  const char *trace;          /* --trace FILE.json: Chrome trace events of every pass (docs/PROFILING.md) */
  bool validation, no_async, bench;
  uint32_t warmup;            /* --warmup N: bench frames before measuring (default 20) */
  const char *experiment;     /* --experiment NAME: "kang" (docs/KANG2018.md) */
  uint32_t cases;             /* --cases c1,c2,c3: bit k = case c(k+1) (default all) */
  uint32_t tables;            /* --tables 1,2,3: bit k = table k+1 (default all) */
  double duration;            /* --duration S: simulated seconds per stability trial (default 0.3) */
  uint32_t trial_steps;       /* --trial-steps N: at least N steps per stability trial (default 3000) */
  fl_snow_look snow_look;     /* --snow-view surface|particles|volume (default surface, render/snow_look.h) */
  bool no_overlay;            /* --no-overlay: start with the overlay hidden (key H shows it) */
  const char *quality;        /* --quality low|medium|high|auto (default auto: from the device type, app/quality.h) */
  const char *sets[FL_CLI_MAX_SETS];
  int set_count;
} fl_options;

/* Parses argv; on a bad option or value records one clear line and returns false. */
bool fl_cli_parse(int argc, char **argv, fl_options *out);
/* Prints the usage text. */
void fl_cli_print_help(void);
