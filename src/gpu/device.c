/* gpu/device: choosing the physical device, probing its features, picking the
 * graphics and (async) compute queues, and creating the VkDevice. */
#include "core/log.h"
#include "gpu/gpu_internal.h"

#include "flurry_shared.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int type_rank(VkPhysicalDeviceType type)
{
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
  default: return 0;
  }
}

bool fl_gpu_device_has_extension(VkPhysicalDevice dev, const char *name)
{
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(dev, NULL, &count, NULL);
  VkExtensionProperties *exts = calloc(count ? count : 1, sizeof *exts);
  vkEnumerateDeviceExtensionProperties(dev, NULL, &count, exts);
  bool found = false;
  for (uint32_t i = 0; i < count; i++) found |= strcmp(exts[i].extensionName, name) == 0;
  free(exts);
  return found;
}

bool fl_gpu_has_calibration_domains(VkPhysicalDevice dev)
{
  if (!fl_gpu_device_has_extension(dev, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) ||
      !vkGetPhysicalDeviceCalibrateableTimeDomainsEXT)
    return false;
  uint32_t count = 0;
  vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(dev, &count, NULL);
  VkTimeDomainEXT domains[8];
  if (count > 8) count = 8;
  vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(dev, &count, domains);
  bool device = false, monotonic = false;
  for (uint32_t i = 0; i < count; i++) {
    device |= domains[i] == VK_TIME_DOMAIN_DEVICE_EXT;
    monotonic |= domains[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
  }
  return device && monotonic;
}

/* The compute family: a compute-only family first, then any other compute family, else the graphics one. */
bool fl_gpu_choose_families(const fl_gpu_desc *desc, VkInstance inst, VkPhysicalDevice dev, uint32_t *graphics,
                            uint32_t *compute, char *why, size_t why_size)
{
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(dev, &count, NULL);
  VkQueueFamilyProperties *fams = calloc(count ? count : 1, sizeof *fams);
  vkGetPhysicalDeviceQueueFamilyProperties(dev, &count, fams);
  *graphics = UINT32_MAX;
  for (uint32_t i = 0; i < count && *graphics == UINT32_MAX; i++) {
    if (!(fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) || !(fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
      continue;
    if (desc->need_present && desc->present_support && !desc->present_support(inst, dev, i)) continue;
    *graphics = i;
  }
  if (*graphics == UINT32_MAX) {
    snprintf(why, why_size, desc->need_present ? "no graphics+compute queue family can present"
                                               : "no graphics+compute queue family");
    free(fams);
    return false;
  }
  *compute = *graphics;
  if (!desc->no_async) {
    for (uint32_t i = 0; i < count; i++)
      if (i != *graphics && (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
          !(fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) {
        *compute = i;
        break;
      }
    for (uint32_t i = 0; i < count && *compute == *graphics; i++)
      if (i != *graphics && (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) *compute = i;
  }
  free(fams);
  return true;
}

/* Returns false with a reason when the device cannot run flurry at all. */
static bool device_usable(const fl_gpu_desc *desc, VkInstance inst, VkPhysicalDevice dev,
                          char *why, size_t why_size)
{
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(dev, &props);
  if (props.apiVersion < VK_API_VERSION_1_2) {
    snprintf(why, why_size, "it supports Vulkan %u.%u, flurry needs 1.2",
             VK_API_VERSION_MAJOR(props.apiVersion), VK_API_VERSION_MINOR(props.apiVersion));
    return false;
  }
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
  vkGetPhysicalDeviceFeatures2(dev, &f);
  if (!f12.timelineSemaphore) {
    snprintf(why, why_size, "it lacks the feature timelineSemaphore");
    return false;
  }
  if (desc->need_present && !fl_gpu_device_has_extension(dev, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
    snprintf(why, why_size, "it lacks the extension %s", VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    return false;
  }
  uint32_t g, c;
  return fl_gpu_choose_families(desc, inst, dev, &g, &c, why, why_size);
}

/* FLURRY_EXPECT_DEVICE=NAME: the picked device's name must contain NAME, so a
 * test run meant for a second driver (CTest's swiftshader.* tests) cannot pass
 * on the first one when that driver's ICD is missing or misconfigured. */
static bool expect_device(VkPhysicalDevice dev)
{
  const char *want = getenv("FLURRY_EXPECT_DEVICE");
  if (!want || !want[0]) return true;
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(dev, &p);
  if (strstr(p.deviceName, want)) return true;
  return fl_error_set("FLURRY_EXPECT_DEVICE=%s, but the device picked is %s (check VK_DRIVER_FILES / "
                      "VK_ICD_FILENAMES and --device)", want, p.deviceName);
}

static bool pick_physical_device(const fl_gpu_desc *desc, fl_gpu *gpu)
{
  uint32_t count = 0;
  FL_VK_TRY(vkEnumeratePhysicalDevices(gpu->instance, &count, NULL));
  if (count == 0) return fl_error_set("no Vulkan device found (is a driver such as mesa-vulkan-drivers installed?)");
  VkPhysicalDevice *devs = calloc(count, sizeof *devs);
  vkEnumeratePhysicalDevices(gpu->instance, &count, devs);

  int best = -1, best_rank = -1;
  char why[256] = "";
  if (desc->device && desc->device[0]) {
    char *end = NULL;
    long index = strtol(desc->device, &end, 10);
    bool numeric = end && *end == 0;
    for (uint32_t i = 0; i < count && best < 0; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devs[i], &p);
      if (numeric ? (long)i == index : strstr(p.deviceName, desc->device) != NULL) {
        if (!device_usable(desc, gpu->instance, devs[i], why, sizeof why)) {
          free(devs);
          return fl_error_set("--device %s: %s cannot be used: %s", desc->device, p.deviceName, why);
        }
        best = (int)i;
      }
    }
    if (best < 0) {
      free(devs);
      return fl_error_set("--device %s: no such device (%u present; see --list-devices)", desc->device, count);
    }
  } else {
    for (uint32_t i = 0; i < count; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devs[i], &p);
      if (!device_usable(desc, gpu->instance, devs[i], why, sizeof why)) {
        fl_debug("skipping %s: %s", p.deviceName, why);
        continue;
      }
      if (type_rank(p.deviceType) > best_rank) {
        best_rank = type_rank(p.deviceType);
        best = (int)i;
      }
    }
    if (best < 0) {
      free(devs);
      return fl_error_set("no usable Vulkan device: the last one was rejected because %s", why);
    }
  }
  gpu->physical = devs[best];
  free(devs);
  return expect_device(gpu->physical);
}

/* FLURRY_EMULATE_ASYNC=1 (gpu.h): the two-queue synchronization on one queue, for tests. */
static bool probe_emulate_async(fl_gpu *gpu)
{
  const char *mode = getenv("FLURRY_EMULATE_ASYNC");
  if (!mode || !mode[0] || strcmp(mode, "0") == 0) return true;
  if (strcmp(mode, "1") != 0) return fl_error_set("FLURRY_EMULATE_ASYNC=%s: expected 0 or 1", mode);
  if (gpu->async_compute)
    return fl_error_set("FLURRY_EMULATE_ASYNC is for a device with one queue; this one has two (add --no-async)");
  gpu->emulate_async = true;
  fl_info("emulating the two-queue synchronization on one queue (no same-queue barrier between sim and draw)");
  return true;
}

static void probe_device(fl_gpu *gpu)
{
  VkPhysicalDeviceDriverProperties driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                                 .pNext = &driver};
  VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                       .pNext = &subgroup};
  vkGetPhysicalDeviceProperties2(gpu->physical, &props);
  gpu->props = props.properties;
  gpu->subgroup_size = subgroup.subgroupSize;
  snprintf(gpu->driver_name, sizeof gpu->driver_name, "%s", driver.driverName);
  gpu->driver_id = driver.driverID;
  gpu->timestamp_needs_flush = driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  snprintf(gpu->driver_info, sizeof gpu->driver_info, "%s", driver.driverInfo);
  vkGetPhysicalDeviceMemoryProperties(gpu->physical, &gpu->mem_props);
}

bool fl_gpu_create(const fl_gpu_desc *desc, fl_gpu *gpu)
{
  memset(gpu, 0, sizeof *gpu);
  gpu->patient = desc->patient;
  gpu->collider_features = FL_COLLIDER_FEATURES_ALL;
  if (!fl_gpu_instance_create(desc, gpu)) return false;
  if (!pick_physical_device(desc, gpu)) return false;
  probe_device(gpu);

  char why[256];
  fl_gpu_choose_families(desc, gpu->instance, gpu->physical, &gpu->graphics_family, &gpu->compute_family,
                  why, sizeof why);
  gpu->async_compute = gpu->compute_family != gpu->graphics_family;
  if (!probe_emulate_async(gpu)) return false;

  uint32_t fam_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical, &fam_count, NULL);
  VkQueueFamilyProperties *fams = calloc(fam_count, sizeof *fams);
  vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical, &fam_count, fams);
  gpu->timestamp_valid_bits[0] = fams[gpu->graphics_family].timestampValidBits;
  gpu->timestamp_valid_bits[1] = fams[gpu->compute_family].timestampValidBits;
  free(fams);

  const char *exts[8];
  uint32_t ext_count = 0;
  if (desc->need_present) exts[ext_count++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;

  /* Optional: float atomic add on buffers (the snow P2G fast path). */
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 supported = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
  bool has_atomic_ext = fl_gpu_device_has_extension(gpu->physical, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  if (has_atomic_ext) f12.pNext = &atomic_float;
  vkGetPhysicalDeviceFeatures2(gpu->physical, &supported);
  gpu->has_float_atomic_add = has_atomic_ext && atomic_float.shaderBufferFloat32AtomicAdd;
  gpu->has_shared_float_atomic_add = gpu->has_float_atomic_add && atomic_float.shaderSharedFloat32AtomicAdd;
  gpu->has_wireframe = supported.features.fillModeNonSolid;

  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
      .shaderBufferFloat32Atomics = atomic_float.shaderBufferFloat32Atomics,
      .shaderBufferFloat32AtomicAdd = atomic_float.shaderBufferFloat32AtomicAdd,
      .shaderSharedFloat32Atomics = gpu->has_shared_float_atomic_add,
      .shaderSharedFloat32AtomicAdd = gpu->has_shared_float_atomic_add,
  };
  VkPhysicalDeviceVulkan12Features enable12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
      .pNext = gpu->has_float_atomic_add ? &atomic_enable : NULL,
      .timelineSemaphore = VK_TRUE,
      .hostQueryReset = f12.hostQueryReset,
  };
  if (gpu->has_float_atomic_add) exts[ext_count++] = VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME;
  gpu->has_calibrated_timestamps = fl_gpu_has_calibration_domains(gpu->physical);
  if (gpu->has_calibrated_timestamps) exts[ext_count++] = VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
  VkPhysicalDeviceFeatures2 enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
      .pNext = &enable12,
      .features = {
          .shaderInt64 = supported.features.shaderInt64,
          .fillModeNonSolid = supported.features.fillModeNonSolid,
          .vertexPipelineStoresAndAtomics = supported.features.vertexPipelineStoresAndAtomics,
      },
  };

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queues[2] = {
      {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = gpu->graphics_family,
       .queueCount = 1, .pQueuePriorities = &priority},
      {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = gpu->compute_family,
       .queueCount = 1, .pQueuePriorities = &priority},
  };
  VkDeviceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = &enable,
      .queueCreateInfoCount = gpu->async_compute ? 2 : 1,
      .pQueueCreateInfos = queues,
      .enabledExtensionCount = ext_count,
      .ppEnabledExtensionNames = exts,
  };
  FL_VK_TRY(vkCreateDevice(gpu->physical, &info, NULL, &gpu->device));
  volkLoadDevice(gpu->device);
  vkGetDeviceQueue(gpu->device, gpu->graphics_family, 0, &gpu->graphics_queue);
  vkGetDeviceQueue(gpu->device, gpu->compute_family, 0, &gpu->compute_queue);
  fl_gpu_set_name(gpu, VK_OBJECT_TYPE_QUEUE, (uint64_t)gpu->graphics_queue,
                  gpu->async_compute ? "graphics queue" : "graphics+compute queue");
  if (gpu->async_compute)
    fl_gpu_set_name(gpu, VK_OBJECT_TYPE_QUEUE, (uint64_t)gpu->compute_queue, "async compute queue");

  VkCommandPoolCreateInfo pool_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = gpu->graphics_family,
  };
  FL_VK_TRY(vkCreateCommandPool(gpu->device, &pool_info, NULL, &gpu->upload_pool));

  if (!fl_pipeline_cache_load(gpu)) return false;

  fl_info("device: %s (%s, %s), %s", gpu->props.deviceName, fl_gpu_device_type_name(gpu->props.deviceType),
          gpu->driver_name,
          gpu->async_compute ? "async compute queue" : "one queue for graphics and compute");
  return true;
}

void fl_gpu_wait_idle(fl_gpu *gpu)
{
  if (!gpu->device) return;
  /* VK_ERROR_DEVICE_LOST: every queued command counts as finished, so destroying is allowed. */
  VkResult r = vkDeviceWaitIdle(gpu->device); /* shutdown and timeouts only */
  if (r == VK_ERROR_DEVICE_LOST) fl_info("the GPU was lost; destroying what it held");
}

void fl_gpu_destroy(fl_gpu *gpu)
{
  if (gpu->device) {
    fl_gpu_wait_idle(gpu);
    fl_pipeline_cache_save(gpu);
    if (gpu->pipeline_cache) vkDestroyPipelineCache(gpu->device, gpu->pipeline_cache, NULL);
    fl_kernels_destroy(gpu);
    if (gpu->upload_pool) vkDestroyCommandPool(gpu->device, gpu->upload_pool, NULL);
    fl_memory_destroy_all(gpu);
    vkDestroyDevice(gpu->device, NULL);
  }
  if (gpu->messenger) vkDestroyDebugUtilsMessengerEXT(gpu->instance, gpu->messenger, NULL);
  if (gpu->instance) vkDestroyInstance(gpu->instance, NULL);
  fl_validation_counts counts = gpu->counts;
  memset(gpu, 0, sizeof *gpu);
  gpu->counts = counts; /* kept: the report is written after teardown messages */
}
