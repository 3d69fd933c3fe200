/* gpu/kernels: the device's compute pipelines by shader name, made on first
 * use and kept until the device goes (see fl_kernel in gpu.h). A pass names
 * its kernel where it is recorded; nothing else holds or destroys pipelines,
 * and a new world reuses the last one's. A kernel with collider code (common/sdf.glsl)
 * has one pipeline per fl_gpu.collider_features value it was asked with, so a
 * world of other colliders never gets a variant without the code it needs. */
#include "core/log.h"
#include "gpu/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY_FEATURES UINT32_MAX

typedef struct {
  char name[64];           /* "xpbd/predict": shaders/xpbd/predict.comp.spv */
  uint32_t workgroup;      /* as asked (0: the default) */
  uint32_t features;       /* the fl_gpu.collider_features it was made with; ANY_FEATURES
                            * when its shader has no collider code (one pipeline serves all) */
  fl_pipeline pipeline;
} kernel;

struct fl_kernel_table {
  kernel **slots;          /* open addressing, hashed by (name, workgroup), matched on (name, workgroup,
                            * features): the variants of one kernel share a probe chain; capacity a power of two */
  uint32_t count, capacity;
};

static uint32_t name_hash(const char *name, uint32_t workgroup)
{
  uint32_t h = 2166136261u ^ workgroup;
  for (const char *c = name; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
  return h;
}

/* The slot of (name, workgroup) made for `features` (or for any), else the empty slot to fill. */
static kernel **find(struct fl_kernel_table *t, const char *name, uint32_t workgroup, uint32_t features)
{
  uint32_t mask = t->capacity - 1;
  for (uint32_t i = name_hash(name, workgroup) & mask;; i = (i + 1) & mask) {
    kernel *k = t->slots[i];
    if (!k || (k->workgroup == workgroup && (k->features == ANY_FEATURES || k->features == features) &&
               strcmp(k->name, name) == 0))
      return &t->slots[i];
  }
}

static kernel **free_slot(struct fl_kernel_table *t, const char *name, uint32_t workgroup)
{
  uint32_t mask = t->capacity - 1;
  uint32_t i = name_hash(name, workgroup) & mask;
  while (t->slots[i]) i = (i + 1) & mask;
  return &t->slots[i];
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
    if (old[i]) *free_slot(t, old[i]->name, old[i]->workgroup) = old[i];
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
  kernel **slot = find(t, name, workgroup, gpu->collider_features);
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
  k->features = k->pipeline.uses_collider_features ? gpu->collider_features : ANY_FEATURES;
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
