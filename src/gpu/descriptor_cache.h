/* gpu/descriptor_cache: descriptor sets made on first use and kept by what
 * they bind, so a pass names its buffers where it is recorded and nothing
 * frees a set pass by pass.
 *
 * One cache belongs to one lifetime of buffers (a world, a renderer's views, a
 * test): a set is found by its pipeline's set layout and the VkBuffer of each
 * binding, so the cache must be reset (fl_descriptor_cache_reset) before any
 * buffer it has bound is destroyed and its handle possibly reused. Sets come
 * from a chain of descriptor pools that grows when one is full; reset returns
 * every set at once (vkResetDescriptorPool). Lookups hash the key: recording a
 * pass whose set exists allocates nothing. */
#pragma once
#include "gpu/gpu.h"

typedef struct fl_descriptor_entry fl_descriptor_entry;

typedef struct {
  fl_gpu *gpu;
  char name[32];                 /* for errors and debuggers ("world", "renderer") */
  VkDescriptorPool *pools;       /* the last one has room (or none yet) */
  uint32_t pool_count, pool_capacity;
  fl_descriptor_entry *entries;  /* open addressing, capacity a power of two */
  uint32_t entry_count, capacity;
  uint64_t sets_made;            /* since creation, for tests */
} fl_descriptor_cache;

/* Creates an empty cache (no pool yet); `name` labels its pools. */
bool fl_descriptor_cache_create(fl_gpu *gpu, const char *name, fl_descriptor_cache *out);
/* Frees the pools and the table; accepts a zeroed cache. */
void fl_descriptor_cache_destroy(fl_descriptor_cache *cache);
/* Forgets every set at once (call when the buffers they bind go away). */
void fl_descriptor_cache_reset(fl_descriptor_cache *cache);
/* The set of `pipeline` binding `buffers[i]` (whole buffers) to its i-th
 * binding in binding-number order; `count` must equal the bindings it
 * declares, each a storage or uniform buffer. Made and written on first use. */
bool fl_descriptor_cache_get(fl_descriptor_cache *cache, const fl_pipeline *pipeline, const fl_buffer *const *buffers,
                             uint32_t count, VkDescriptorSet *out);
