/* gpu/check: VkResult names and the policy for failed Vulkan calls. */
#include "core/log.h"
#include "gpu/gpu.h"

#include <stdio.h>

const char *fl_vk_result_name(VkResult result)
{
  switch (result) {
#define CASE(x) \
  case x:       \
    return #x;
    CASE(VK_SUCCESS)
    CASE(VK_NOT_READY)
    CASE(VK_TIMEOUT)
    CASE(VK_EVENT_SET)
    CASE(VK_EVENT_RESET)
    CASE(VK_INCOMPLETE)
    CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    CASE(VK_ERROR_INITIALIZATION_FAILED)
    CASE(VK_ERROR_DEVICE_LOST)
    CASE(VK_ERROR_MEMORY_MAP_FAILED)
    CASE(VK_ERROR_LAYER_NOT_PRESENT)
    CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    CASE(VK_ERROR_TOO_MANY_OBJECTS)
    CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    CASE(VK_ERROR_FRAGMENTED_POOL)
    CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    CASE(VK_ERROR_FRAGMENTATION)
    CASE(VK_ERROR_SURFACE_LOST_KHR)
    CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
    CASE(VK_SUBOPTIMAL_KHR)
    CASE(VK_ERROR_OUT_OF_DATE_KHR)
    CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef CASE
  default:
    return "VK_ERROR_(unknown)";
  }
}

bool fl_vk_fail(VkResult result, const char *call, const char *file, int line)
{
  /* A lost device or exhausted memory ends the run like any error: the caller
   * unwinds to the app, whose teardown waits for the device and writes the report. */
  const char *why = result == VK_ERROR_DEVICE_LOST ? ": the GPU was lost (driver reset or hang)"
                    : result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY
                        ? ": out of memory; try a smaller scene (--set objects.NAME.count=...)"
                        : "";
  return fl_error_set("%s returned %s (%s:%d)%s", call, fl_vk_result_name(result), file, line, why);
}
