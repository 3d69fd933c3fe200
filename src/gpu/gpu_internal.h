/* gpu/gpu_internal: functions shared between the gpu layer's own files only. */
#pragma once
#include "gpu/gpu.h"

/* Creates the instance (and messenger when validating); gpu/instance.c. */
bool fl_gpu_instance_create(const fl_gpu_desc *desc, fl_gpu *gpu);
/* Picks the graphics family (presenting when desc->need_present) and the compute
 * family (a separate one unless desc->no_async); false with a reason; gpu/device.c. */
bool fl_gpu_choose_families(const fl_gpu_desc *desc, VkInstance inst, VkPhysicalDevice dev, uint32_t *graphics,
                            uint32_t *compute, char *why, size_t why_size);
/* True when the device offers the extension; gpu/device.c. */
bool fl_gpu_device_has_extension(VkPhysicalDevice dev, const char *name);
/* VK_EXT_calibrated_timestamps with both the device and the CLOCK_MONOTONIC domains,
 * so --trace puts GPU passes on the CPU's time line (gpu/trace.h); gpu/device.c. */
bool fl_gpu_has_calibration_domains(VkPhysicalDevice dev);
