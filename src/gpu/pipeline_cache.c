/* gpu/pipeline_cache: the VkPipelineCache kept in a per-user file between runs.
 * The file is used only when its header names this device's vendor, device and
 * pipelineCacheUUID (another driver or GPU gets a fresh cache). */
#include "core/file.h"
#include "core/log.h"
#include "gpu/gpu_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void cache_path(fl_gpu *gpu)
{
  const char *env = getenv("FLURRY_PIPELINE_CACHE");
  if (env) { /* "" disables the file */
    snprintf(gpu->pipeline_cache_path, sizeof gpu->pipeline_cache_path, "%s", env);
    return;
  }
  char dir[400];
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (xdg && xdg[0]) snprintf(dir, sizeof dir, "%s/flurry", xdg);
  else if (home && home[0]) snprintf(dir, sizeof dir, "%s/.cache/flurry", home);
  else {
    gpu->pipeline_cache_path[0] = 0;
    return;
  }
  snprintf(gpu->pipeline_cache_path, sizeof gpu->pipeline_cache_path, "%s/pipelines-%04x-%04x.bin", dir,
           gpu->props.vendorID, gpu->props.deviceID);
}

bool fl_pipeline_cache_header_matches(const fl_gpu *gpu, const void *data, size_t size)
{
  VkPipelineCacheHeaderVersionOne h;
  if (size < sizeof h) return false;
  memcpy(&h, data, sizeof h);
  return h.headerSize >= sizeof h && h.headerSize <= size &&
         h.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE && h.vendorID == gpu->props.vendorID &&
         h.deviceID == gpu->props.deviceID &&
         memcmp(h.pipelineCacheUUID, gpu->props.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

bool fl_pipeline_cache_load(fl_gpu *gpu)
{
  cache_path(gpu);
  size_t size = 0;
  char *data = NULL;
  if (gpu->pipeline_cache_path[0] && fl_file_exists(gpu->pipeline_cache_path)) {
    data = fl_file_read(gpu->pipeline_cache_path, &size, 64u << 20);
    fl_error_clear(); /* an unreadable cache is only a slower start */
    if (data && !fl_pipeline_cache_header_matches(gpu, data, size)) {
      fl_info("pipeline cache %s is from another device or driver; starting a new one", gpu->pipeline_cache_path);
      free(data);
      data = NULL;
      size = 0;
    }
  }
  if (data) fl_info("pipeline cache: loaded %zu bytes from %s", size, gpu->pipeline_cache_path);
  VkPipelineCacheCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                    .initialDataSize = data ? size : 0, .pInitialData = data};
  VkResult r = vkCreatePipelineCache(gpu->device, &info, NULL, &gpu->pipeline_cache);
  free(data);
  FL_VK_TRY(r);
  return true;
}

static void make_parent_dirs(const char *path)
{
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(tmp, 0700);
    *p = '/';
  }
}

void fl_pipeline_cache_save(fl_gpu *gpu)
{
  if (!gpu->pipeline_cache || !gpu->pipeline_cache_path[0]) return;
  size_t size = 0;
  if (vkGetPipelineCacheData(gpu->device, gpu->pipeline_cache, &size, NULL) != VK_SUCCESS || size == 0) return;
  void *data = malloc(size);
  if (!data) return;
  if (vkGetPipelineCacheData(gpu->device, gpu->pipeline_cache, &size, data) == VK_SUCCESS) {
    /* Only the default location is created; a path the user named must exist (core/env.c). */
    if (!getenv("FLURRY_PIPELINE_CACHE")) make_parent_dirs(gpu->pipeline_cache_path);
    if (!fl_file_write(gpu->pipeline_cache_path, data, size)) {
      fl_warn("pipeline cache not saved: %s", fl_error_message());
      fl_error_clear();
    }
  }
  free(data);
}
