/* sim/common/spatial_hash: the GPU spatial hash and its CPU reference (see spatial_hash.h). */
#include "sim/common/spatial_hash.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


uint32_t fl_spatial_hash_table_size_for(uint32_t max_particles)
{
  uint64_t want = 2 * (uint64_t)(max_particles ? max_particles : 1), size = 2;
  while (size < want) size <<= 1;
  return size > 0x80000000u ? 0x80000000u : (uint32_t)size;
}

bool fl_spatial_hash_create(fl_gpu *gpu, uint32_t max_particles, fl_spatial_hash *out)
{
  memset(out, 0, sizeof *out);
  if (max_particles == 0) return fl_error_set("spatial hash: max_particles must be at least 1");
  uint32_t table = fl_spatial_hash_table_size_for(max_particles);
  uint64_t table_bytes = (uint64_t)table * 4, limit = gpu->props.limits.maxStorageBufferRange;
  if (table_bytes > limit || (uint64_t)max_particles * 16 > limit)
    return fl_error_set("spatial hash: %u particles need a %u-entry table (%llu bytes) and %llu bytes of positions; "
                        "maxStorageBufferRange is %u bytes",
                        max_particles, table, (unsigned long long)table_bytes,
                        (unsigned long long)max_particles * 16, gpu->props.limits.maxStorageBufferRange);
  out->max_particles = max_particles;
  out->table_size = table;
  while ((1u << out->key_bits) < table) out->key_bits++;
  bool ok = fl_radix_sort_create(gpu, max_particles, &out->sort) &&
            fl_buffer_create(gpu, table_bytes, FL_MEMORY_DEVICE, "spatial hash cell start", &out->cell_start) &&
            fl_buffer_create(gpu, table_bytes, FL_MEMORY_DEVICE, "spatial hash cell end", &out->cell_end);
  if (!ok) {
    fl_error_wrap("spatial hash of %u particles", max_particles);
    fl_spatial_hash_destroy(gpu, out);
  }
  return ok;
}

void fl_spatial_hash_destroy(fl_gpu *gpu, fl_spatial_hash *hash)
{
  fl_radix_sort_destroy(gpu, &hash->sort);
  fl_buffer_destroy(gpu, &hash->cell_start);
  fl_buffer_destroy(gpu, &hash->cell_end);
  memset(hash, 0, sizeof *hash);
}

void fl_spatial_hash_bytes(const fl_spatial_hash *hash, uint32_t count, uint64_t bytes[3])
{
  if (count > hash->max_particles) count = hash->max_particles;
  bytes[0] = (uint64_t)count * (16 + 8);                                 /* read a position, write (key, index) */
  bytes[1] = fl_radix_sort_bytes(&hash->sort, count, hash->key_bits);
  bytes[2] = (uint64_t)hash->table_size * 8 + (uint64_t)count * (4 + 8); /* clear both tables; read keys,
                                                                          * write at most start and end each */
}

void fl_spatial_hash_record(const fl_spatial_hash *hash, fl_rec *r, const fl_buffer *positions, uint32_t count,
                            float cell_size)
{
  if (!positions || !positions->buffer || positions->size < (VkDeviceSize)hash->max_particles * 16) {
    r->failed = !fl_error_set("spatial hash: a positions buffer must hold max_particles = %u vec4s",
                              hash->max_particles);
    return;
  }
  if (count > hash->max_particles) count = hash->max_particles;
  uint64_t bytes[3];
  fl_spatial_hash_bytes(hash, count, bytes);
  fl_hash_push push = {.inv_cell_size = 1.0f / cell_size, .count = count, .table_size = hash->table_size};
  fl_rec_pass(r, &(fl_pass){.name = "hash/keys", .bytes = bytes[0], .kernel = "common/hash_keys", FL_PUSH(push),
                            .threads = count,
                            FL_BUFFERS(positions, &hash->sort.keys[0], &hash->sort.values[0])});
  fl_spatial_hash_record_from_keys(hash, r, count);
}

const fl_buffer *fl_spatial_hash_keys_in(const fl_spatial_hash *hash) { return &hash->sort.keys[0]; }

const fl_buffer *fl_spatial_hash_values_in(const fl_spatial_hash *hash) { return &hash->sort.values[0]; }

void fl_spatial_hash_record_from_keys(const fl_spatial_hash *hash, fl_rec *r, uint32_t count)
{
  if (count > hash->max_particles) count = hash->max_particles;
  uint64_t bytes[3];
  fl_spatial_hash_bytes(hash, count, bytes);
  fl_hash_push push = {.count = count, .table_size = hash->table_size};
  fl_rec_begin(r, "hash/sort", bytes[1]);
  fl_radix_sort_record(&hash->sort, r, NULL, NULL, count, hash->key_bits);
  fl_rec_barrier(r);
  fl_rec_end(r);
  fl_rec_begin(r, "hash/cells", bytes[2]);
  vkCmdFillBuffer(r->cmd, hash->cell_start.buffer, 0, (VkDeviceSize)hash->table_size * 4, FL_HASH_EMPTY);
  vkCmdFillBuffer(r->cmd, hash->cell_end.buffer, 0, (VkDeviceSize)hash->table_size * 4, FL_HASH_EMPTY);
  fl_rec_barrier(r);
  fl_rec_pass(r, &(fl_pass){.kernel = "common/hash_cells", FL_PUSH(push), .threads = count, .no_barrier = true,
                            FL_BUFFERS(fl_radix_sort_keys(&hash->sort, hash->key_bits), &hash->cell_start,
                                       &hash->cell_end)});
  fl_rec_end(r);
}

const fl_buffer *fl_spatial_hash_sorted_index(const fl_spatial_hash *hash)
{
  return fl_radix_sort_values(&hash->sort, hash->key_bits);
}

const fl_buffer *fl_spatial_hash_cell_start(const fl_spatial_hash *hash) { return &hash->cell_start; }

const fl_buffer *fl_spatial_hash_cell_end(const fl_spatial_hash *hash) { return &hash->cell_end; }

uint32_t fl_spatial_hash_table_size(const fl_spatial_hash *hash) { return hash->table_size; }

void fl_spatial_hash_cell(const float x[3], float cell_size, int32_t cell[3])
{
  float inv = 1.0f / cell_size;
  for (int a = 0; a < 3; a++) cell[a] = (int32_t)floorf(x[a] * inv);
}

uint32_t fl_spatial_hash_index(const int32_t cell[3], uint32_t table_size)
{
  return (((uint32_t)cell[0] * FL_HASH_PRIME_X) ^ ((uint32_t)cell[1] * FL_HASH_PRIME_Y) ^
          ((uint32_t)cell[2] * FL_HASH_PRIME_Z)) &
         (table_size - 1);
}

bool fl_spatial_hash_cpu(const float *positions, uint32_t count, float cell_size, uint32_t table_size,
                         uint32_t *sorted_index, uint32_t *cell_start, uint32_t *cell_end)
{
  uint32_t *keys = malloc((size_t)(count ? count : 1) * sizeof *keys);
  if (!keys) return fl_error_set("spatial hash (CPU): out of host memory for %u particles", count);
  /* A counting sort by hash is a stable sort: ascending index within a hash. */
  memset(cell_start, 0, (size_t)table_size * sizeof *cell_start); /* counts first */
  for (uint32_t i = 0; i < count; i++) {
    int32_t c[3];
    fl_spatial_hash_cell(positions + 4 * (size_t)i, cell_size, c);
    keys[i] = fl_spatial_hash_index(c, table_size);
    cell_start[keys[i]]++;
  }
  uint32_t sum = 0;
  for (uint32_t h = 0; h < table_size; h++) {
    uint32_t n = cell_start[h];
    cell_start[h] = n ? sum : FL_HASH_EMPTY;
    cell_end[h] = n ? sum : FL_HASH_EMPTY; /* the fill cursor, then one past the last */
    sum += n;
  }
  for (uint32_t i = 0; i < count; i++) sorted_index[cell_end[keys[i]]++] = i;
  free(keys);
  return true;
}
