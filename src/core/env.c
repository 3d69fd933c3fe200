/* core/env: FLURRY_* environment variables, validated like options. */
#define _POSIX_C_SOURCE 200809L
#include "core/env.h"

#include "core/file.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static fl_env g_env = {.workgroup_size = 0, .resize_at_frame = -1, .renderdoc_frame = -1, .fence_timeout_ms = 10000};
static bool g_loaded;

bool fl_parse_int(const char *what, const char *text, int64_t min, int64_t max, int64_t *out)
{
  char *end = NULL;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno || !end || *end || end == text || v < min || v > max)
    return fl_error_set("%s: expected an integer in %lld..%lld, got \"%s\"", what, (long long)min,
                        (long long)max, text);
  *out = v;
  return true;
}

static bool env_int(const char *name, int64_t min, int64_t max, int64_t *out)
{
  const char *text = getenv(name);
  return !text || fl_parse_int(name, text, min, max, out);
}

static bool is_dir(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* FLURRY_PIPELINE_CACHE names a file: "" turns the cache off; otherwise its
 * directory must exist (the program never creates a path the user typed). */
static bool check_pipeline_cache(void)
{
  const char *path = getenv("FLURRY_PIPELINE_CACHE");
  if (!path || !path[0]) return true;
  if (is_dir(path)) return fl_error_set("FLURRY_PIPELINE_CACHE: \"%s\" is a directory; name a file in it", path);
  if (path[strlen(path) - 1] == '/') /* fl_path_dir would take "nodir/" for a file in "." */
    return fl_error_set("FLURRY_PIPELINE_CACHE: the directory \"%s\" does not exist; name a file in an existing "
                        "directory", path);
  char dir[4096];
  if (!is_dir(fl_path_dir(path, dir, sizeof dir))) return fl_error_set("FLURRY_PIPELINE_CACHE: the directory \"%s\" does not exist", dir);
  return true;
}

static bool check_data_dir(void)
{
  const char *dir = getenv("FLURRY_DATA_DIR");
  if (!dir || !dir[0]) return true;
  char shaders[4096];
  snprintf(shaders, sizeof shaders, "%s/shaders", dir);
  return is_dir(shaders) || fl_error_set("FLURRY_DATA_DIR: \"%s\" holds no shaders/ directory", dir);
}

static bool check_snow_p2g(void)
{
  const char *p2g = getenv("FLURRY_SNOW_P2G");
  if (!p2g || !p2g[0]) return true;
  static const char *names[] = {"tile", "direct", "gather"};
  for (int i = 0; i < 3; i++)
    if (strcmp(p2g, names[i]) == 0) {
      g_env.snow_p2g = i + 1;
      return true;
    }
  return fl_error_set("FLURRY_SNOW_P2G: expected tile, direct or gather, got \"%s\"", p2g);
}

/* FLURRY_XPBD_SWEEP: how a Gauss-Seidel sweep is recorded (sim/xpbd/xpbd.c, gs_sweep.glsl):
 * "colours" (a dispatch per colour) or "workgroup" (every colour in one workgroup). */
static bool check_xpbd_sweep(void)
{
  const char *sweep = getenv("FLURRY_XPBD_SWEEP");
  if (!sweep || !sweep[0]) return true;
  static const char *names[] = {"colours", "workgroup"};
  for (int i = 0; i < 2; i++)
    if (strcmp(sweep, names[i]) == 0) {
      g_env.xpbd_sweep = i + 1;
      return true;
    }
  return fl_error_set("FLURRY_XPBD_SWEEP: expected colours or workgroup, got \"%s\"", sweep);
}

static bool check_log(void)
{
  const char *level = getenv("FLURRY_LOG");
  if (!level) return true;
  static const char *names[] = {"debug", "info", "warn", "error"};
  for (int i = 0; i < 4; i++)
    if (strcmp(level, names[i]) == 0) {
      fl_log_set_level((fl_log_level)i);
      return true;
    }
  return fl_error_set("FLURRY_LOG: expected one of debug, info, warn, error, got \"%s\"", level);
}

bool fl_env_load(void)
{
  g_loaded = true;
  g_env.fence_timeout_set = getenv("FLURRY_FENCE_TIMEOUT_MS") != NULL;
  return env_int("FLURRY_WORKGROUP_SIZE", 1, 1024, &g_env.workgroup_size) &&
         env_int("FLURRY_RESIZE_AT_FRAME", 0, INT64_MAX, &g_env.resize_at_frame) &&
         env_int("FLURRY_RENDERDOC_FRAME", 0, INT64_MAX, &g_env.renderdoc_frame) &&
         env_int("FLURRY_FENCE_TIMEOUT_MS", 1, 3600 * 1000, &g_env.fence_timeout_ms) &&
         env_int("FLURRY_PROFILE_EVERY", 1, 1000, &g_env.profile_every) && check_log() &&
         check_snow_p2g() && check_xpbd_sweep() &&
         check_data_dir() && check_pipeline_cache();
}

const fl_env *fl_env_get(void)
{
  if (!g_loaded && fl_error_message()[0] == 0 && !fl_env_load()) fl_error_clear();
  return &g_env;
}
