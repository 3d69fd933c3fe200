// common/spatial_hash.glsl: the cell and hash functions of the spatial hash
// (src/sim/common/spatial_hash.h; the C mirrors are fl_spatial_hash_cell and
// fl_spatial_hash_index, bit for bit) and a loop over the particles of the 27
// cells around a point, for kernels that query the hash.
//
// The hash, as built by fl_spatial_hash_record each frame:
//   sorted_index[k]  particle indices sorted by hash, ascending index within a hash
//   cell_start[h]    first k of hash h, FL_HASH_EMPTY when no particle has it
//   cell_end[h]      one past the last k of hash h, FL_HASH_EMPTY likewise
// so `for (k = cell_start[h]; k < cell_end[h]; k++)` visits hash h (and
// nothing for an empty entry). A hash entry holds every cell that hashes to
// it, so a query must still test the distance of what it finds.
//
// Usage: declare the three buffers at bindings of your choice, bind them to
// fl_spatial_hash_sorted_index / _cell_start / _cell_end, and pass the table
// size and 1 / cell size in your push constants (1 / cell size computed on
// the CPU: the build uses that value, and a GPU division may round
// differently):
//
//   #include "spatial_hash.glsl"
//   layout(std430, binding = 4) readonly buffer HashSorted { uint hash_sorted[]; };
//   layout(std430, binding = 5) readonly buffer HashStart { uint hash_start[]; };
//   layout(std430, binding = 6) readonly buffer HashEnd { uint hash_end[]; };
//   ...
//   ivec3 c = fl_hash_cell_inv(xi, pc.inv_cell_size);
//   FL_HASH_FOR_NEIGHBOURS(c, pc.table_size, hash_start, hash_end, hash_sorted, j) {
//     if (j == i) continue;                     // continue: the next particle
//     vec3 d = pos[j].xyz - xi;
//     if (dot(d, d) < r * r) { ... }            // r <= cell size: no pair is missed
//   } FL_HASH_END_NEIGHBOURS
//
// Every particle of the 27 cells is visited exactly once: when two of the 27
// cells share a hash entry, the entry is visited only for the first of them.
// Particles of other cells that collide into those entries are visited too
// (the distance test rejects them). `break` leaves only the current entry.
// common/hash_neighbours.comp is a complete example.
#ifndef FL_SPATIAL_HASH_GLSL
#define FL_SPATIAL_HASH_GLSL
#include "hash_shared.h"

// The cell of x for 1 / cell size (floor(x * inv_cell_size)); the build kernel
// uses this form with the inverse computed on the CPU. |x| / cell size must stay
// below 2^31 and x must be finite.
ivec3 fl_hash_cell_inv(vec3 x, float inv_cell_size)
{
  return ivec3(floor(x * inv_cell_size));
}

// The cell of x for a cell size; equals the build's cell unless x * (1 / cell_size)
// rounds across a cell boundary, which moves a point by at most one ulp.
ivec3 fl_hash_cell(vec3 x, float cell_size)
{
  return fl_hash_cell_inv(x, 1.0 / cell_size);
}

// The table entry of a cell; table_size is a power of two.
uint fl_hash_index(ivec3 cell, uint table_size)
{
  uvec3 c = uvec3(cell);
  return ((c.x * FL_HASH_PRIME_X) ^ (c.y * FL_HASH_PRIME_Y) ^ (c.z * FL_HASH_PRIME_Z)) & (table_size - 1u);
}

// Offset of neighbour n (0..26) of a cell: x fastest, then y, then z.
ivec3 fl_hash_neighbour_offset(int n)
{
  return ivec3(n % 3, (n / 3) % 3, n / 9) - 1;
}

// True when a neighbour before n of `center` has the same table entry h.
bool fl_hash_neighbour_seen(ivec3 center, uint table_size, int n, uint h)
{
  for (int m = 0; m < n; m++)
    if (fl_hash_index(center + fl_hash_neighbour_offset(m), table_size) == h) return true;
  return false;
}

// Runs the statement that follows for every particle index j (a uint) in the
// table entries of the 27 cells around `center`, each entry once; close with
// FL_HASH_END_NEIGHBOURS. The 27 entries are hashed once into a local array
// (one use per scope), and repeats are skipped by comparing them. cell_start, cell_end and sorted_index are the names
// of the caller's uint arrays.
#define FL_HASH_FOR_NEIGHBOURS(center, table_size, cell_start, cell_end, sorted_index, j)      \
  uint fl_hn_hs[27];                                                                          \
  for (int fl_hn_n = 0; fl_hn_n < 27; fl_hn_n++)                                              \
    fl_hn_hs[fl_hn_n] = fl_hash_index((center) + fl_hash_neighbour_offset(fl_hn_n), (table_size)); \
  for (int fl_hn_n = 0; fl_hn_n < 27; fl_hn_n++) {                                            \
    uint fl_hn_h = fl_hn_hs[fl_hn_n];                                                         \
    bool fl_hn_seen = false;                                                                  \
    for (int fl_hn_m = 0; fl_hn_m < fl_hn_n; fl_hn_m++) fl_hn_seen = fl_hn_seen || fl_hn_hs[fl_hn_m] == fl_hn_h; \
    if (fl_hn_seen) continue;                                                                 \
    uint fl_hn_end = cell_end[fl_hn_h];                                                       \
    for (uint fl_hn_k = cell_start[fl_hn_h]; fl_hn_k < fl_hn_end; fl_hn_k++) {                \
      uint j = sorted_index[fl_hn_k];
#define FL_HASH_END_NEIGHBOURS \
  }                            \
  }

#endif
