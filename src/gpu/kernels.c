/* gpu/kernels: the device's compute pipelines by shader name, made on first
 * use and kept until the device goes (see fl_kernel in gpu.h). A pass names
 * its kernel where it is recorded; nothing else holds or destroys pipelines,
 * and a new world reuses the last one's. */
#include "core/log.h"
#include "gpu/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char name[64];           /* "xpbd/predict": shaders/xpbd/predict.comp.spv */
  uint32_t workgroup;      /* as asked (0: the default) */
  fl_pipeline pipeline;
} kernel;

struct fl_kernel_table {
  kernel **slots;          /* open addressing by (name, workgroup); capacity a power of two */
  uint32_t count, capacity;
};

static uint32_t name_hash(const char *name, uint32_t workgroup)
{
  uint32_t h = 2166136261u ^ workgroup;
  for (const char *c = name; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
  return h;
}

static kernel **find(struct fl_kernel_table *t, const char *name, uint32_t workgroup)
{
  uint32_t mask = t->capacity - 1;
  for (uint32_t i = name_hash(name, workgroup) & mask;; i = (i + 1) & mask) {
    kernel *k = t->slots[i];
    if (!k || (k->workgroup == workgroup && strcmp(k->name, name) == 0)) return &t->slots[i];
  }
}

static bool grow(struct fl_kernel_table *t)
{
  uint32_t old_capacity = t->capacity, capacity = old_capacity ? 2 * old_capacity : 128;
  kernel **old = t->slots;
  t->slots = calloc(capacity, sizeof *t->slots);
  if (!t->slots) {
    t->slots = old;
    return fl_error_set("kernels: out of host memory");
  }
  t->capacity = capacity;
  for (uint32_t i = 0; i < old_capacity; i++)
    if (old[i]) *find(t, old[i]->name, old[i]->workgroup) = old[i];
  free(old);
  return true;
}

const fl_pipeline *fl_kernel(fl_gpu *gpu, const char *name, uint32_t push_size, uint32_t workgroup)
{
  if (!gpu->kernels && !(gpu->kernels = calloc(1, sizeof *gpu->kernels))) {
    fl_error_set("kernels: out of host memory");
    return NULL;
  }
  struct fl_kernel_table *t = gpu->kernels;
  if (2 * (t->count + 1) > t->capacity && !grow(t)) return NULL;
  kernel **slot = find(t, name, workgroup);
  if (*slot) {
    if ((*slot)->pipeline.push_size == push_size) return &(*slot)->pipeline;
    fl_error_set("kernel %s: %u bytes of push constants given, the shader's block is %u", name, push_size,
                 (*slot)->pipeline.push_size);
    return NULL;
  }
  kernel *k = calloc(1, sizeof *k);
  if (!k) {
    fl_error_set("kernels: out of host memory");
    return NULL;
  }
  if (snprintf(k->name, sizeof k->name, "%s", name) >= (int)sizeof k->name) {
    free(k);
    fl_error_set("kernel name \"%s\" is too long", name);
    return NULL;
  }
  char file[80];
  snprintf(file, sizeof file, "%s.comp", name);
  k->workgroup = workgroup;
  if (!fl_pipeline_compute(gpu, file, push_size, workgroup, &k->pipeline)) {
    free(k);
    return NULL;
  }
  *slot = k;
  t->count++;
  return &k->pipeline;
}

void fl_kernels_destroy(fl_gpu *gpu)
{
  struct fl_kernel_table *t = gpu->kernels;
  if (!t) return;
  for (uint32_t i = 0; i < t->capacity; i++)
    if (t->slots[i]) {
      fl_pipeline_destroy(gpu, &t->slots[i]->pipeline);
      free(t->slots[i]);
    }
  free(t->slots);
  free(t);
  gpu->kernels = NULL;
}

void fl_kernels_each(const fl_gpu *gpu, void (*fn)(void *user, const char *name, uint32_t workgroup), void *user)
{
  const struct fl_kernel_table *t = gpu->kernels;
  for (uint32_t i = 0; t && i < t->capacity; i++)
    if (t->slots[i]) fn(user, t->slots[i]->name, t->slots[i]->pipeline.workgroup_size);
}
