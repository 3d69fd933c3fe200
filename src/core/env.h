/* core/env: the FLURRY_* environment variables, read and checked once like
 * command-line options (a bad value is one clear error, never a silent default),
 * and the integer parser that the command line shares. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

typedef struct {
  int64_t workgroup_size;   /* FLURRY_WORKGROUP_SIZE: 1..1024; 0 when unset (the built-in default) */
  int64_t resize_at_frame;  /* FLURRY_RESIZE_AT_FRAME: the window test's resize; -1 when unset */
  int64_t renderdoc_frame;  /* FLURRY_RENDERDOC_FRAME: the frame to capture under RenderDoc; -1 when unset */
  int64_t fence_timeout_ms; /* FLURRY_FENCE_TIMEOUT_MS: how long a frame may take (tests lower it); 10000 */
  int snow_p2g;             /* FLURRY_SNOW_P2G: 0 unset (the device decides), 1 "tile", 2 "direct", 3 "gather" */
  int64_t profile_every;    /* FLURRY_PROFILE_EVERY: time the passes in one frame of N, 1..1000; 0 when unset
                             * (every frame, one in 4 on llvmpipe; --trace always every frame: app.c) */
  int xpbd_sweep;           /* FLURRY_XPBD_SWEEP: 0 unset (the device decides), 1 "colours", 2 "workgroup" */
  bool fence_timeout_set;   /* FLURRY_FENCE_TIMEOUT_MS was given: it bounds headless and --bench frames too,
                             * which otherwise wait as long as a slow device needs */
} fl_env;

/* Parses the decimal integer `text` in min..max; otherwise records
 * "WHAT: expected an integer in MIN..MAX, got "TEXT"" and returns false. */
bool fl_parse_int(const char *what, const char *text, int64_t min, int64_t max, int64_t *out);
/* Reads and checks every FLURRY_* variable (FLURRY_LOG, FLURRY_DATA_DIR and
 * FLURRY_PIPELINE_CACHE included); false with the message for the first bad one. */
bool fl_env_load(void);
/* The checked values (fl_env_load runs first if nobody called it; a bad value then keeps its default). */
const fl_env *fl_env_get(void);
