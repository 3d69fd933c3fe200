/* gpu/gpu_internal: functions shared between the gpu layer's own files only. */
#pragma once
#include "gpu/gpu.h"

/* Creates the instance (and messenger when validating); gpu/instance.c. */
bool fl_gpu_instance_create(const fl_gpu_desc *desc, fl_gpu *gpu);
