/* gpu/instance: the VkInstance, the validation layer with synchronization
 * validation, the debug messenger that counts messages by severity, debug
 * names and labels, and --list-devices. */
#define _GNU_SOURCE
#include "core/file.h"
#include "core/log.h"
#include "gpu/device_caps.h"
#include "gpu/gpu_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
  fl_gpu *gpu = user;
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    gpu->counts.errors++;
    fprintf(stderr, "flurry: [validation error] %s\n", data->pMessage);
  } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    gpu->counts.warnings++;
    fprintf(stderr, "flurry: [validation warning] %s\n", data->pMessage);
  } else {
    gpu->counts.infos++;
  }
  return VK_FALSE;
}

static bool layer_available(const char *name)
{
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, NULL);
  VkLayerProperties *layers = calloc(count ? count : 1, sizeof *layers);
  vkEnumerateInstanceLayerProperties(&count, layers);
  bool found = false;
  for (uint32_t i = 0; i < count; i++) found |= strcmp(layers[i].layerName, name) == 0;
  free(layers);
  return found;
}

static bool instance_extension_available(const char *layer, const char *name)
{
  uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(layer, &count, NULL);
  VkExtensionProperties *exts = calloc(count ? count : 1, sizeof *exts);
  vkEnumerateInstanceExtensionProperties(layer, &count, exts);
  bool found = false;
  for (uint32_t i = 0; i < count; i++) found |= strcmp(exts[i].extensionName, name) == 0;
  free(exts);
  return found;
}

/* The layer reads vk_layer_settings.txt at instance creation: lift the duplicate
 * message limit (so counts are exact) and route everything to our callback. A
 * user's own VK_LAYER_SETTINGS_PATH wins. Returns the temp dir to clean up. */
static void write_layer_settings(char *dir, size_t dir_size)
{
  dir[0] = 0;
  if (getenv("VK_LAYER_SETTINGS_PATH")) return;
  char tmpl[] = "/tmp/flurry-layer-XXXXXX";
  if (!mkdtemp(tmpl)) return;
  char path[600];
  snprintf(path, sizeof path, "%s/vk_layer_settings.txt", tmpl);
  const char *text = "khronos_validation.enable_message_limit = false\n"
                     "khronos_validation.report_flags = error,warn,perf\n"
                     "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_CALLBACK\n";
  if (!fl_file_write(path, text, strlen(text))) {
    fl_error_clear();
    rmdir(tmpl);
    return;
  }
  setenv("VK_LAYER_SETTINGS_PATH", tmpl, 1);
  snprintf(dir, dir_size, "%s", tmpl);
}

static void remove_layer_settings(const char *dir)
{
  if (!dir[0]) return;
  char path[600];
  snprintf(path, sizeof path, "%s/vk_layer_settings.txt", dir);
  unlink(path);
  rmdir(dir);
  unsetenv("VK_LAYER_SETTINGS_PATH");
}


bool fl_gpu_instance_create(const fl_gpu_desc *desc, fl_gpu *gpu)
{
  if (volkInitialize() != VK_SUCCESS)
    return fl_error_set("no Vulkan loader found (install libvulkan1 and a driver, e.g. mesa-vulkan-drivers)");
  if (volkGetInstanceVersion() < VK_API_VERSION_1_2)
    return fl_error_set("the Vulkan loader supports only API %u.%u; flurry needs 1.2",
                        VK_API_VERSION_MAJOR(volkGetInstanceVersion()),
                        VK_API_VERSION_MINOR(volkGetInstanceVersion()));

  const char *exts[16];
  uint32_t ext_count = 0;
  for (uint32_t i = 0; i < desc->instance_extension_count && ext_count < 12; i++)
    exts[ext_count++] = desc->instance_extensions[i];
  gpu->has_debug_utils = instance_extension_available(NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (gpu->has_debug_utils) exts[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;

  const char *layers[1];
  uint32_t layer_count = 0;
  VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features = {
      .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
      .enabledValidationFeatureCount = 1,
      .pEnabledValidationFeatures = enables,
  };
  const void *next = NULL;
  if (desc->validation) {
    if (!layer_available(VALIDATION_LAYER))
      return fl_error_set("--validation: the layer %s is not installed (Debian: vulkan-validationlayers)",
                          VALIDATION_LAYER);
    if (!gpu->has_debug_utils)
      return fl_error_set("--validation: VK_EXT_debug_utils is missing, so messages cannot be counted");
    layers[layer_count++] = VALIDATION_LAYER;
    if (instance_extension_available(VALIDATION_LAYER, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      exts[ext_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
      next = &features;
    } else {
      fl_warn("the validation layer lacks VK_EXT_validation_features: synchronization validation is off");
    }
    gpu->validation = true;
  }

  VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "flurry",
      .applicationVersion = VK_MAKE_VERSION(0, 1, 0),
      .pEngineName = "flurry",
      .apiVersion = VK_API_VERSION_1_2,
  };
  VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .pNext = next,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = debug_callback,
      .pUserData = gpu,
  };
  VkInstanceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      /* The messenger in pNext also catches messages from vkCreateInstance itself. */
      .pNext = desc->validation ? (const void *)&messenger_info : NULL,
      .pApplicationInfo = &app,
      .enabledLayerCount = layer_count,
      .ppEnabledLayerNames = layers,
      .enabledExtensionCount = ext_count,
      .ppEnabledExtensionNames = exts,
  };
  char settings_dir[64];
  if (desc->validation) write_layer_settings(settings_dir, sizeof settings_dir);
  VkResult r = vkCreateInstance(&info, NULL, &gpu->instance);
  if (desc->validation) remove_layer_settings(settings_dir);
  if (r != VK_SUCCESS) return fl_vk_fail(r, "vkCreateInstance", __FILE__, __LINE__);
  volkLoadInstanceOnly(gpu->instance);

  if (desc->validation) {
    messenger_info.pNext = NULL;
    FL_VK_TRY(vkCreateDebugUtilsMessengerEXT(gpu->instance, &messenger_info, NULL, &gpu->messenger));
  }
  return true;
}

const char *fl_gpu_device_type_name(VkPhysicalDeviceType type)
{
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
  default: return "other";
  }
}

static void format_queue_flags(VkQueueFlags flags, char *out, size_t size)
{
  snprintf(out, size, "%s%s%s%s", (flags & VK_QUEUE_GRAPHICS_BIT) ? "G" : "",
           (flags & VK_QUEUE_COMPUTE_BIT) ? "C" : "", (flags & VK_QUEUE_TRANSFER_BIT) ? "T" : "",
           (flags & VK_QUEUE_SPARSE_BINDING_BIT) ? "S" : "");
}

bool fl_gpu_list_devices(bool verbose)
{
  fl_gpu gpu = {0};
  fl_gpu_desc desc = {0};
  if (!fl_gpu_instance_create(&desc, &gpu)) return false;
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(gpu.instance, &count, NULL);
  VkPhysicalDevice *devs = calloc(count ? count : 1, sizeof *devs);
  vkEnumeratePhysicalDevices(gpu.instance, &count, devs);
  if (count == 0) printf("no Vulkan devices found\n");
  for (uint32_t i = 0; i < count; i++) {
    VkPhysicalDeviceDriverProperties driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                         .pNext = &driver};
    vkGetPhysicalDeviceProperties2(devs[i], &props);
    uint32_t api = props.properties.apiVersion;
    printf("%u: %s\n   type %s, driver %s (%s), API %u.%u.%u\n", i, props.properties.deviceName,
           fl_gpu_device_type_name(props.properties.deviceType), driver.driverName,
           driver.driverInfo, VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api),
           VK_API_VERSION_PATCH(api));
    uint32_t fam_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &fam_count, NULL);
    VkQueueFamilyProperties *fams = calloc(fam_count ? fam_count : 1, sizeof *fams);
    vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &fam_count, fams);
    for (uint32_t f = 0; f < fam_count; f++) {
      char flags[8];
      format_queue_flags(fams[f].queueFlags, flags, sizeof flags);
      printf("   queue family %u: %s x%u, timestamp bits %u\n", f, flags, fams[f].queueCount,
             fams[f].timestampValidBits);
    }
    free(fams);
    if (verbose) { /* what flurry depends on, and the path it takes (docs/PORTING.md) */
      fl_device_caps caps;
      fl_device_caps_probe(gpu.instance, devs[i], false, &caps);
      for (uint32_t r = 0; r < caps.count; r++)
        printf("   %-26s %s%s%s\n", caps.rows[r].key, caps.rows[r].value, caps.rows[r].path[0] ? "  ->  " : "",
               caps.rows[r].path);
    }
  }
  free(devs);
  fl_gpu_destroy(&gpu);
  return true;
}

void fl_gpu_set_name(fl_gpu *gpu, VkObjectType type, uint64_t handle, const char *fmt, ...)
{
  if (!gpu->has_debug_utils || !vkSetDebugUtilsObjectNameEXT || !gpu->device) return;
  char name[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  VkDebugUtilsObjectNameInfoEXT info = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
      .objectType = type,
      .objectHandle = handle,
      .pObjectName = name,
  };
  vkSetDebugUtilsObjectNameEXT(gpu->device, &info);
}

void fl_gpu_begin_label(fl_gpu *gpu, VkCommandBuffer cmd, const char *name)
{
  if (!gpu->has_debug_utils || !vkCmdBeginDebugUtilsLabelEXT) return;
  VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name};
  vkCmdBeginDebugUtilsLabelEXT(cmd, &label);
}

void fl_gpu_end_label(fl_gpu *gpu, VkCommandBuffer cmd)
{
  if (!gpu->has_debug_utils || !vkCmdEndDebugUtilsLabelEXT) return;
  vkCmdEndDebugUtilsLabelEXT(cmd);
}
