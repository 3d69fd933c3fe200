/* tests/gpu/gpu_fixture.h: the shared set-up of the GPU tests, header-only
 * because every tests/gpu/test_*.c is built alone. It gives Mesa a private
 * XDG_RUNTIME_DIR when none is set, keeps the pipeline cache file out of the
 * user's home (FLURRY_PIPELINE_CACHE="" unless set), creates a headless fl_gpu
 * with the validation layer on, and at teardown fails the current test if the
 * layer reported any error. Include it first: it selects POSIX 2008. Usage:
 *
 *   static void body(fl_gpu *gpu) { ... ENSURE(...); ... }
 *   FL_GPU_TEST(test_name, body)
 */
#pragma once
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "gpu/gpu.h"
#include "gpu/rec.h"
#include "test.h"

/* Sets XDG_RUNTIME_DIR (a private 0700 directory) and FLURRY_PIPELINE_CACHE when unset. */
static inline void fl_fixture_env(void)
{
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  if (!xdg || !xdg[0]) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/flurry-tests-%u", (unsigned)getuid());
    mkdir(dir, 0700);
    struct stat st;
    bool private_dir = lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
                       (st.st_mode & 0777) == 0700;
    if (!private_dir) { /* someone else's, or a link: make a fresh one */
      static char fresh[] = "/tmp/flurry-tests-XXXXXX";
      if (mkdtemp(fresh)) snprintf(dir, sizeof dir, "%s", fresh);
    }
    setenv("XDG_RUNTIME_DIR", dir, 1);
  }
  setenv("FLURRY_PIPELINE_CACHE", "", 0); /* "" = no cache file: tests leave nothing behind */
}

/* `full`, or `trimmed` when FLURRY_TEST_TRIM=1: CTest sets it for the second,
 * slower test device (SwiftShader, tests/CMakeLists.txt), where a full-size
 * submission can outlast the fence timeout. */
static inline int fl_fixture_trim(int full, int trimmed)
{
  const char *t = getenv("FLURRY_TEST_TRIM");
  return t && strcmp(t, "1") == 0 ? trimmed : full;
}

/* Creates a headless device with validation; prints why on failure. */
static inline bool fl_fixture_gpu_create(fl_gpu *gpu)
{
  fl_fixture_env();
  fl_error_clear();
  fl_gpu_desc desc = {.validation = true};
  if (!fl_gpu_create(&desc, gpu)) {
    fprintf(stderr, "  cannot create a validated GPU device: %s\n", fl_error_message());
    fl_gpu_destroy(gpu);
    return false;
  }
  return true;
}

/* Destroys the device and fails the current test if validation reported errors. */
static inline void fl_fixture_gpu_destroy(fl_gpu *gpu)
{
  fl_gpu_destroy(gpu); /* keeps gpu->counts: teardown messages are counted too */
  if (gpu->counts.errors != 0) {
    fprintf(stderr, "  FAIL: %llu validation error(s) (see above)\n", (unsigned long long)gpu->counts.errors);
    fl_test_failed_current = 1;
  }
}

/* Defines `static void name(void)` running body(&gpu) between create and destroy,
 * so an ENSURE that ends the body early still tears the device down. */
#define FL_GPU_TEST(name, body)                                   \
  static void name(void)                                          \
  {                                                               \
    fl_gpu fixture_gpu_;                                          \
    ENSURE(fl_fixture_gpu_create(&fixture_gpu_));                 \
    body(&fixture_gpu_);                                          \
    fl_fixture_gpu_destroy(&fixture_gpu_);                        \
  }

/* True when the recorded error message contains `needle`; prints it otherwise. */
static inline bool fl_fixture_error_has(const char *needle)
{
  if (strstr(fl_error_message(), needle)) return true;
  fprintf(stderr, "  error message \"%s\" lacks \"%s\"\n", fl_error_message(), needle);
  return false;
}

/* A one-shot recording with descriptor sets of its own, freed at its end, so a
 * test may free and remake the buffers it binds between submissions. */
typedef struct {
  fl_descriptor_cache sets;
  fl_rec rec;
} fl_fixture_once;

static inline bool fl_fixture_once_begin(fl_gpu *gpu, fl_fixture_once *o)
{
  return fl_descriptor_cache_create(gpu, "test", &o->sets) && fl_rec_begin_once(gpu, &o->sets, &o->rec);
}

/* The same for frame slot `slot` (what a material's per-slot readback uses). */
static inline bool fl_fixture_once_begin_slot(fl_gpu *gpu, uint32_t slot, fl_fixture_once *o)
{
  if (!fl_fixture_once_begin(gpu, o)) return false;
  o->rec.slot = slot;
  return true;
}

/* Submits, waits, frees the sets; false (with the reason) on a failed pass or submission. */
static inline bool fl_fixture_once_end(fl_fixture_once *o)
{
  bool ok = fl_rec_end_once(&o->rec);
  fl_descriptor_cache_destroy(&o->sets);
  return ok;
}

/* A device buffer holding `data` (NULL: left as allocated). */
static inline bool fl_fixture_buffer_with(fl_gpu *gpu, VkDeviceSize bytes, const void *data, const char *name,
                                          fl_buffer *out)
{
  return fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, name, out) &&
         (!data || fl_buffer_upload(gpu, out, 0, data, bytes));
}

/* The opt-in timing cases: false (after saying so) unless FLURRY_BENCH_PRIMITIVES=1;
 * then creates the device without validation (timings are taken without the
 * layer) and names it. `what` names the timings in the skip message. */
static inline bool fl_fixture_bench_gpu(const char *what, fl_gpu *gpu)
{
  const char *want = getenv("FLURRY_BENCH_PRIMITIVES");
  if (!want || strcmp(want, "1") != 0) {
    fprintf(stderr, "  skipped: set FLURRY_BENCH_PRIMITIVES=1 to run the %s timings\n", what);
    return false;
  }
  fl_fixture_env();
  fl_gpu_desc desc = {.validation = false};
  if (!fl_gpu_create(&desc, gpu)) {
    fprintf(stderr, "  FAIL: %s\n", fl_error_message());
    fl_test_failed_current = 1;
    return false;
  }
  fprintf(stderr, "  device: %s (%s)\n", gpu->props.deviceName, gpu->driver_info);
  return true;
}
