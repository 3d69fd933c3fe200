/* app/renderdoc: RenderDoc's in-app capture API, when running under RenderDoc (renderdoc.h). */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include "app/renderdoc.h"

#include "core/log.h"

#include <dlfcn.h>
#include <renderdoc_app.h>
#include <stddef.h>

static RENDERDOC_API_1_4_1 *api;
static bool capturing;

bool fl_renderdoc_attach(void)
{
  if (api) return true;
  void *module = dlopen("librenderdoc.so", RTLD_NOW | RTLD_NOLOAD); /* never loads it ourselves */
  if (!module) return false;
  pRENDERDOC_GetAPI get = NULL;
  *(void **)&get = dlsym(module, "RENDERDOC_GetAPI"); /* POSIX's way round ISO C's function-pointer cast */
  if (!get || get(eRENDERDOC_API_Version_1_4_1, (void **)&api) != 1) {
    api = NULL;
    return false;
  }
  api->SetCaptureKeys(NULL, 0); /* F12 and PrtScrn stay flurry's; key C captures */
  int major = 0, minor = 0, patch = 0;
  api->GetAPIVersion(&major, &minor, &patch);
  fl_info("RenderDoc (API %d.%d.%d) attached: key C (or FLURRY_RENDERDOC_FRAME=N) captures a frame", major, minor, patch);
  return true;
}

void fl_renderdoc_frame_begin(VkInstance instance, bool capture)
{
  if (!api || !capture || capturing) return;
  api->StartFrameCapture(RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE(instance), NULL);
  capturing = true;
}

void fl_renderdoc_frame_end(VkInstance instance, uint64_t frame)
{
  if (!api || !capturing) return;
  capturing = false;
  if (!api->EndFrameCapture(RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE(instance), NULL)) {
    fl_warn("RenderDoc: the capture of frame %llu failed", (unsigned long long)frame);
    return;
  }
  char path[1024];
  uint32_t length = sizeof path;
  uint32_t n = api->GetNumCaptures();
  if (n && api->GetCapture(n - 1, path, &length, NULL)) fl_info("RenderDoc: frame %llu captured to %s", (unsigned long long)frame, path);
}
