/* gpu/descriptor_cache: descriptor sets by content, from pools reset as a whole (see descriptor_cache.h). */
#include "gpu/descriptor_cache.h"

#include "core/log.h"
#include "gpu/spirv_reflect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETS_PER_POOL 256u
#define FIRST_CAPACITY 64u

struct fl_descriptor_entry {
  VkDescriptorSetLayout layout;  /* VK_NULL_HANDLE: an empty slot */
  uint32_t count;
  VkBuffer buffers[FL_MAX_BINDINGS];
  VkDescriptorSet set;
};

bool fl_descriptor_cache_create(fl_gpu *gpu, const char *name, fl_descriptor_cache *out)
{
  memset(out, 0, sizeof *out);
  out->gpu = gpu;
  snprintf(out->name, sizeof out->name, "%s", name);
  return true;
}

void fl_descriptor_cache_destroy(fl_descriptor_cache *c)
{
  if (c->gpu && c->gpu->device)
    for (uint32_t i = 0; i < c->pool_count; i++) vkDestroyDescriptorPool(c->gpu->device, c->pools[i], NULL);
  free(c->pools);
  free(c->entries);
  memset(c, 0, sizeof *c);
}

void fl_descriptor_cache_reset(fl_descriptor_cache *c)
{
  for (uint32_t i = 0; i < c->pool_count; i++) vkResetDescriptorPool(c->gpu->device, c->pools[i], 0);
  /* Keep one pool for the next lifetime, free the rest. */
  for (uint32_t i = 1; i < c->pool_count; i++) vkDestroyDescriptorPool(c->gpu->device, c->pools[i], NULL);
  c->pool_count = c->pool_count ? 1 : 0;
  if (c->entries) memset(c->entries, 0, (size_t)c->capacity * sizeof *c->entries);
  c->entry_count = 0;
}

static uint64_t key_hash(VkDescriptorSetLayout layout, const VkBuffer *buffers, uint32_t count)
{
  uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)layout;
  for (uint32_t i = 0; i < count; i++) {
    h ^= (uint64_t)(uintptr_t)buffers[i];
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

/* The slot holding this key, or the empty slot where it belongs. */
static fl_descriptor_entry *find(const fl_descriptor_cache *c, VkDescriptorSetLayout layout, const VkBuffer *buffers,
                                 uint32_t count)
{
  uint32_t mask = c->capacity - 1, i = (uint32_t)key_hash(layout, buffers, count) & mask;
  for (;; i = (i + 1) & mask) {
    fl_descriptor_entry *e = &c->entries[i];
    if (!e->layout) return e;
    if (e->layout == layout && e->count == count && memcmp(e->buffers, buffers, count * sizeof *buffers) == 0)
      return e;
  }
}

/* Doubles the table (kept at most half full). */
static bool grow_table(fl_descriptor_cache *c)
{
  uint32_t old_capacity = c->capacity, capacity = old_capacity ? 2 * old_capacity : FIRST_CAPACITY;
  fl_descriptor_entry *old = c->entries;
  c->entries = calloc(capacity, sizeof *c->entries);
  if (!c->entries) {
    c->entries = old;
    return fl_error_set("descriptor cache %s: out of host memory for %u sets", c->name, capacity);
  }
  c->capacity = capacity;
  for (uint32_t i = 0; i < old_capacity; i++)
    if (old[i].layout) *find(c, old[i].layout, old[i].buffers, old[i].count) = old[i];
  free(old);
  return true;
}

static bool add_pool(fl_descriptor_cache *c)
{
  if (c->pool_count == c->pool_capacity) {
    uint32_t capacity = c->pool_capacity ? 2 * c->pool_capacity : 4;
    VkDescriptorPool *pools = realloc(c->pools, capacity * sizeof *pools);
    if (!pools) return fl_error_set("descriptor cache %s: out of host memory", c->name);
    c->pools = pools;
    c->pool_capacity = capacity;
  }
  VkDescriptorPoolSize sizes[] = {
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, SETS_PER_POOL * 12},
      {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, SETS_PER_POOL * 2},
  };
  VkDescriptorPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = SETS_PER_POOL, .poolSizeCount = 2, .pPoolSizes = sizes};
  FL_VK_TRY(vkCreateDescriptorPool(c->gpu->device, &info, NULL, &c->pools[c->pool_count]));
  fl_gpu_set_name(c->gpu, VK_OBJECT_TYPE_DESCRIPTOR_POOL, (uint64_t)c->pools[c->pool_count], "%s sets %u", c->name,
                  c->pool_count);
  c->pool_count++;
  return true;
}

/* A new set of `layout` from the last pool, adding a pool when it is full. */
static bool allocate(fl_descriptor_cache *c, VkDescriptorSetLayout layout, VkDescriptorSet *out)
{
  if (!c->pool_count && !add_pool(c)) return false;
  for (int attempt = 0; attempt < 2; attempt++) {
    VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = c->pools[c->pool_count - 1], .descriptorSetCount = 1,
                                         .pSetLayouts = &layout};
    VkResult r = vkAllocateDescriptorSets(c->gpu->device, &alloc, out);
    if (r == VK_SUCCESS) return true;
    if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)
      return fl_vk_fail(r, "vkAllocateDescriptorSets", __FILE__, __LINE__);
    if (!add_pool(c)) return false;
  }
  return fl_error_set("descriptor cache %s: a fresh pool cannot hold one set", c->name);
}

/* Checks the buffers against the pipeline's reflected bindings. */
static bool check(const fl_descriptor_cache *c, const fl_pipeline *p, const fl_buffer *const *buffers, uint32_t count)
{
  (void)c;
  if (count != p->binding_count)
    return fl_error_set("pipeline %s: %u resources given, the shader declares %u", p->name, count, p->binding_count);
  for (uint32_t i = 0; i < count; i++) {
    VkDescriptorType t = p->binding_types[i];
    if (t != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER && t != VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
      return fl_error_set("pipeline %s: binding %u is a %s; only buffers can be bound here", p->name,
                          p->binding_numbers[i], fl_spirv_descriptor_type_name(t));
    if (!buffers[i] || !buffers[i]->buffer)
      return fl_error_set("pipeline %s: binding %u has no buffer", p->name, p->binding_numbers[i]);
  }
  return true;
}

bool fl_descriptor_cache_get(fl_descriptor_cache *c, const fl_pipeline *p, const fl_buffer *const *buffers,
                             uint32_t count, VkDescriptorSet *out)
{
  if (!check(c, p, buffers, count)) return false;
  VkBuffer key[FL_MAX_BINDINGS];
  for (uint32_t i = 0; i < count; i++) key[i] = buffers[i]->buffer;
  if (2 * (c->entry_count + 1) > c->capacity && !grow_table(c)) return false;
  fl_descriptor_entry *e = find(c, p->set_layout, key, count);
  if (e->layout) {
    *out = e->set;
    return true;
  }
  VkDescriptorSet set;
  if (!allocate(c, p->set_layout, &set)) return false;
  VkWriteDescriptorSet writes[FL_MAX_BINDINGS];
  VkDescriptorBufferInfo infos[FL_MAX_BINDINGS];
  for (uint32_t i = 0; i < count; i++) {
    /* A uniform binding sees at most maxUniformBufferRange bytes from the start (the collider
     * block's records; its tail is bound again as a storage buffer). */
    VkDeviceSize limit = c->gpu->props.limits.maxUniformBufferRange;
    bool clamp = p->binding_types[i] == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER && buffers[i]->size > limit;
    infos[i] = (VkDescriptorBufferInfo){key[i], 0, clamp ? limit : VK_WHOLE_SIZE};
    writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                       .dstBinding = p->binding_numbers[i], .descriptorCount = 1,
                                       .descriptorType = p->binding_types[i], .pBufferInfo = &infos[i]};
  }
  vkUpdateDescriptorSets(c->gpu->device, count, writes, 0, NULL);
  e->layout = p->set_layout;
  e->count = count;
  memcpy(e->buffers, key, count * sizeof *key);
  e->set = set;
  c->entry_count++;
  c->sets_made++;
  *out = set;
  return true;
}
