// mpm/p2g_fixed.glsl: P2G with int32 fixed-point atomic adds (every Vulkan
// device has them); values are scaled by the push's mass and momentum scales
// and rounded half to even (snow_spec.h), in the shared tile as in the grid, so
// the sums are exact and the same either way. Included by p2g_fixed.comp and
// p2g_fixed_tile.comp; the scatter is mpm/p2g.glsl.
#define FL_ACC_TYPE int
#define FL_ACC_ADD(word, value, scale) atomicAdd(acc[word], fl_mpm_fixed((value), (scale)))
#define FL_TILE_TYPE uint
#define FL_TILE_ADD(word, value, scale) atomicAdd(tile[word], uint(fl_mpm_fixed((value), (scale))))
#define FL_TILE_BITS(word) tile[word]
#define FL_FLUSH_ADD(word, bits) atomicAdd(acc[word], int(bits))
#include "p2g.glsl"
