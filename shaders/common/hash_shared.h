/* shaders/common/hash_shared.h: the spatial hash's constants and push
 * constants, shared by C (src/sim/common/spatial_hash.c) and GLSL
 * (common/spatial_hash.glsl, common/hash_*.comp). */
#ifndef FL_HASH_SHARED_H
#define FL_HASH_SHARED_H
#include "flurry_shared.h"

/* hash(cell) = ((cx * X) ^ (cy * Y) ^ (cz * Z)) & (table_size - 1), in wrapping
 * 32-bit unsigned arithmetic (Teschner et al. 2003). */
#define FL_HASH_PRIME_X 73856093u
#define FL_HASH_PRIME_Y 19349663u
#define FL_HASH_PRIME_Z 83492791u

/* cell_start / cell_end of a table entry that no particle hashes to. */
#define FL_HASH_EMPTY 0xFFFFFFFFu

FL_STRUCT_BEGIN(fl_hash_push)
  float inv_cell_size; /* 1 / cell size (computed on the CPU, see spatial_hash.glsl) */
  float radius;        /* hash_neighbours: the query radius (m) */
  uint count;          /* particles */
  uint table_size;     /* entries (a power of two) */
FL_STRUCT_END(fl_hash_push)

#endif
