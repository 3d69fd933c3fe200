/* gpu/device_caps: the features and limits flurry depends on in a device, each
 * with the path flurry takes because of it (docs/PORTING.md): float atomics or
 * fixed point, subgroup size, the workgroup size a kernel gets, one queue or
 * two, timestamps. One probe feeds both `--list-devices --verbose` and the
 * report's device object, so the two cannot disagree. */
#pragma once
#include "gpu/gpu.h"

#define FL_CAP_ROWS_MAX 16

typedef struct {
  char key[32];    /* e.g. "float_atomic_add" */
  char value[112]; /* what the device has, e.g. "no" */
  char path[160];  /* what flurry does about it, e.g. "snow P2G: fixed point" ("" when nothing depends on it) */
} fl_cap_row;

typedef struct {
  fl_cap_row rows[FL_CAP_ROWS_MAX];
  uint32_t count;
} fl_device_caps;

/* Probes `dev` as flurry would use it (no_async: one queue even when a compute family exists). */
void fl_device_caps_probe(VkInstance instance, VkPhysicalDevice dev, bool no_async, fl_device_caps *out);
/* The workgroup size a kernel that asks for `asked` (0: the default) gets on a device with these limits. */
uint32_t fl_workgroup_for(const VkPhysicalDeviceLimits *limits, uint32_t asked);
