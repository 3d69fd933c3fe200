/* sim/common/spatial_hash: a uniform-grid spatial hash over particle
 * positions, rebuilt on the GPU every frame, for neighbour queries (cloth
 * self-collision, snow).
 *
 * Particle i (positions: vec4 per particle, xyz used) lies in cell
 * c = floor(x * (1 / cell_size)) and hashes to
 *   h = ((cx * 73856093) ^ (cy * 19349663) ^ (cz * 83492791)) & (table_size - 1)
 * (wrapping uint32; shaders/common/spatial_hash.glsl and fl_spatial_hash_cell /
 * fl_spatial_hash_index are the same functions). table_size is the smallest
 * power of two >= 2 x max_particles, fixed at creation.
 *
 * A build, recorded by fl_spatial_hash_record, in three profiler scopes:
 *   hash/keys   (h, i) for every particle               (common/hash_keys.comp)
 *   hash/sort   the pairs by h, stable: ascending i within h (fl_radix_sort, log2(table_size) bits)
 *   hash/cells  clear both tables to FL_HASH_EMPTY, then runs of equal h
 *               give cell_start[h] / cell_end[h]          (common/hash_cells.comp)
 * Outputs (device buffers, valid after the build):
 *   sorted_index  uint per particle: particle indices in hash order
 *   cell_start    uint per table entry: first position in sorted_index, FL_HASH_EMPTY if none
 *   cell_end      uint per table entry: one past the last position, FL_HASH_EMPTY if none
 * The result is deterministic and equals fl_spatial_hash_cpu exactly. GLSL
 * kernels iterate the 27 neighbour cells with FL_HASH_FOR_NEIGHBOURS
 * (shaders/common/spatial_hash.glsl). The build inserts the barriers between
 * its passes; the caller puts one before (positions written; previous
 * readers of the tables done) and one after. */
#pragma once
#include "gpu/rec.h"
#include "hash_shared.h"
#include "sim/common/radix_sort.h"

typedef struct {
  fl_radix_sort sort;               /* its keys[0]/values[0] take the (hash, index) pairs */
  uint32_t max_particles, table_size, key_bits;
  fl_buffer cell_start, cell_end;   /* uint per table entry */
} fl_spatial_hash;

/* The table size for max_particles: the smallest power of two >= 2 x max_particles. */
uint32_t fl_spatial_hash_table_size_for(uint32_t max_particles);
/* Creates the sorter and the tables for up to max_particles (>= 1). */
bool fl_spatial_hash_create(fl_gpu *gpu, uint32_t max_particles, fl_spatial_hash *out);
/* Frees everything; accepts a zeroed hash. */
void fl_spatial_hash_destroy(fl_gpu *gpu, fl_spatial_hash *hash);
/* Records a build over the first `count` particles (clamped to max_particles)
 * of `positions` (vec4 per particle, at least max_particles, else the rec
 * fails) with cells of cell_size (> 0), in the scopes hash/keys, hash/sort, hash/cells. */
void fl_spatial_hash_record(const fl_spatial_hash *hash, fl_rec *r, const fl_buffer *positions, uint32_t count,
                            float cell_size);
/* The second half of a build, for callers that write their own (hash, index)
 * pairs into fl_spatial_hash_keys_in / _values_in (count <= max_particles of
 * them; several entries may share an index): hash/sort and hash/cells. */
void fl_spatial_hash_record_from_keys(const fl_spatial_hash *hash, fl_rec *r, uint32_t count);
/* Where such a caller writes the keys (table entries) and the values (indices). */
const fl_buffer *fl_spatial_hash_keys_in(const fl_spatial_hash *hash);
const fl_buffer *fl_spatial_hash_values_in(const fl_spatial_hash *hash);
/* Particle indices in hash order (uint per particle). */
const fl_buffer *fl_spatial_hash_sorted_index(const fl_spatial_hash *hash);
/* First position in sorted_index of each table entry (uint per entry). */
const fl_buffer *fl_spatial_hash_cell_start(const fl_spatial_hash *hash);
/* One past the last position of each table entry (uint per entry). */
const fl_buffer *fl_spatial_hash_cell_end(const fl_spatial_hash *hash);
/* Entries in the table (a power of two). */
uint32_t fl_spatial_hash_table_size(const fl_spatial_hash *hash);
/* Bytes each scope must move for `count` particles: [0] hash/keys, [1] hash/sort, [2] hash/cells. */
void fl_spatial_hash_bytes(const fl_spatial_hash *hash, uint32_t count, uint64_t bytes[3]);

/* The cell of x, as the GPU computes it: floor(x * (1 / cell_size)) with the inverse rounded to float. */
void fl_spatial_hash_cell(const float x[3], float cell_size, int32_t cell[3]);
/* The table entry of a cell (table_size a power of two). */
uint32_t fl_spatial_hash_index(const int32_t cell[3], uint32_t table_size);
/* The CPU reference of a build from positions (4 floats per particle, xyz
 * used): the same sorted_index (count), cell_start and cell_end (table_size
 * each) as the GPU. False when out of host memory. */
bool fl_spatial_hash_cpu(const float *positions, uint32_t count, float cell_size, uint32_t table_size,
                         uint32_t *sorted_index, uint32_t *cell_start, uint32_t *cell_end);
