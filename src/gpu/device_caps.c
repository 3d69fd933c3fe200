/* gpu/device_caps: what flurry depends on in a device and the path it takes (device_caps.h). */
#include "gpu/device_caps.h"

#include "gpu/gpu_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void row(fl_device_caps *c, const char *key, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void row(fl_device_caps *c, const char *key, const char *path, const char *fmt, ...)
{
  if (c->count == FL_CAP_ROWS_MAX) return;
  fl_cap_row *r = &c->rows[c->count++];
  snprintf(r->key, sizeof r->key, "%s", key);
  snprintf(r->path, sizeof r->path, "%s", path);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->value, sizeof r->value, fmt, ap);
  va_end(ap);
}

void fl_device_caps_probe(VkInstance instance, VkPhysicalDevice dev, bool no_async, fl_device_caps *out)
{
  memset(out, 0, sizeof *out);
  VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &subgroup};
  vkGetPhysicalDeviceProperties2(dev, &props);
  const VkPhysicalDeviceLimits *lim = &props.properties.limits;
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
  bool has_atomic_ext = fl_gpu_device_has_extension(dev, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  if (has_atomic_ext) f12.pNext = &atomic;
  vkGetPhysicalDeviceFeatures2(dev, &features);

  bool float_add = has_atomic_ext && atomic.shaderBufferFloat32AtomicAdd;
  row(out, "float_atomic_add", float_add ? "snow P2G: float atomics (sim.mpm_atomics auto)"
                                         : "snow P2G: fixed-point integer atomics (sim.mpm_atomics auto)",
      "%s", float_add ? "yes" : "no");
  bool shared_add = float_add && atomic.shaderSharedFloat32AtomicAdd;
  row(out, "shared_float_atomic_add",
      shared_add ? "snow P2G tile (FLURRY_SNOW_P2G=tile): shared-memory float adds"
                 : "snow P2G tile (FLURRY_SNOW_P2G=tile): compare-and-swap on float bits in shared memory",
      "%s", shared_add ? "yes" : "no");
  bool cpu = props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  row(out, "device_type",
      cpu ? "CPU driver: small XPBD families sweep in one workgroup (FLURRY_XPBD_SWEEP), the body pass 64 wide; "
            "large snow gathers its P2G (FLURRY_SNOW_P2G)"
          : "GPU: XPBD sweeps one dispatch per colour, the body pass 256 wide; snow P2G through the shared tile",
      "%s", cpu ? "cpu" : props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? "discrete gpu"
                          : props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? "integrated gpu"
                                                                                                  : "other");
  row(out, "subgroup_size", "no kernel uses subgroup operations: any size works", "%u", subgroup.subgroupSize);

  char wg_path[160];
  snprintf(wg_path, sizeof wg_path, "default kernels %u (FLURRY_WORKGROUP_SIZE); asked 128 -> %u, 256 -> %u, 1024 -> %u",
           fl_workgroup_for(lim, 0), fl_workgroup_for(lim, 128), fl_workgroup_for(lim, 256),
           fl_workgroup_for(lim, 1024));
  row(out, "workgroup_limit", wg_path, "%u invocations, x <= %u", lim->maxComputeWorkGroupInvocations,
      lim->maxComputeWorkGroupSize[0]);

  uint32_t fam_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(dev, &fam_count, NULL);
  VkQueueFamilyProperties *fams = calloc(fam_count ? fam_count : 1, sizeof *fams);
  vkGetPhysicalDeviceQueueFamilyProperties(dev, &fam_count, fams);
  uint32_t graphics = 0, compute = 0;
  char why[128] = ""; /* fits "unusable: " + why in a row's path */
  fl_gpu_desc desc = {.no_async = no_async};
  bool usable = fl_gpu_choose_families(&desc, instance, dev, &graphics, &compute, why, sizeof why);
  char path[160];
  if (!usable) snprintf(path, sizeof path, "unusable: %s", why);
  else if (compute != graphics)
    snprintf(path, sizeof path, "two queues: async compute on family %u, graphics on %u (timeline semaphores)",
             compute, graphics);
  else
    snprintf(path, sizeof path, "one queue (family %u): compute, then graphics submissions in order", graphics);
  row(out, "queues", path, "%u famil%s, graphics family %u x%u", fam_count, fam_count == 1 ? "y" : "ies", graphics,
      fam_count ? fams[graphics].queueCount : 0);

  uint32_t gbits = fam_count ? fams[graphics].timestampValidBits : 0, cbits = fam_count ? fams[compute].timestampValidBits : 0;
  bool calibrated = fl_gpu_has_calibration_domains(dev);
  snprintf(path, sizeof path, "%s; --trace clock: %s",
           gbits && cbits && lim->timestampPeriod > 0 ? "every pass timed"
           : gbits || cbits                           ? "one queue untimed (named in the report)"
                                                      : "no pass timed",
           calibrated ? "calibrated (VK_EXT_calibrated_timestamps)" : "aligned at the first submit");
  row(out, "timestamps", path, "%u bits graphics, %u bits compute, period %g ns", gbits, cbits,
      (double)lim->timestampPeriod);
  free(fams);

  row(out, "int64_float64", "not needed: no shader uses 64-bit types", "int64 %s, float64 %s",
      features.features.shaderInt64 ? "yes" : "no", features.features.shaderFloat64 ? "yes" : "no");
  row(out, "max_bound_descriptor_sets", "flurry binds one set per pipeline (set 0)", "%u", lim->maxBoundDescriptorSets);
  row(out, "max_storage_buffer_range", "a scene whose buffer exceeds it is refused at load with its name", "%u MiB",
      lim->maxStorageBufferRange >> 20);
  row(out, "timeline_semaphore", "required (frames in flight, the two-queue handshake)", "%s",
      f12.timelineSemaphore ? "yes" : "no: the device cannot run flurry");
}
