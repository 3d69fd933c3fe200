// mpm/p2g_float.glsl: P2G with float atomic adds into the grid
// (VK_EXT_shader_atomic_float, buffers). The shared tile adds floats with
// shared-memory float atomics where the device has them (FL_P2G_TILE_SHARED_FLOAT,
// p2g_float_tile_shared.comp: shaderSharedFloat32AtomicAdd), else it adds float
// bits by compare-and-swap (p2g_float_tile.comp). Included by p2g_float.comp and
// those two; the scatter is mpm/p2g.glsl.
#extension GL_EXT_shader_atomic_float : require
#define FL_ACC_TYPE float
#define FL_ACC_ADD(word, value, scale) atomicAdd(acc[word], (value))
#define FL_FLUSH_ADD(word, bits) atomicAdd(acc[word], uintBitsToFloat(bits))
#ifdef FL_P2G_TILE_SHARED_FLOAT
#define FL_TILE_TYPE float
#define FL_TILE_ADD(word, value, scale) atomicAdd(tile[word], (value))
#define FL_TILE_BITS(word) floatBitsToUint(tile[word])
#else
#define FL_TILE_TYPE uint
#define FL_TILE_ADD(word, value, scale) fl_tile_add_cas(word, value)
#define FL_TILE_BITS(word) tile[word]
void fl_tile_add_cas(uint word, float value);
#endif
#include "p2g.glsl"

#if defined(FL_P2G_TILED) && !defined(FL_P2G_TILE_SHARED_FLOAT)
void fl_tile_add_cas(uint word, float value)
{
  uint old = tile[word], seen;
  do {
    seen = old;
    old = atomicCompSwap(tile[word], seen, floatBitsToUint(uintBitsToFloat(seen) + value));
  } while (old != seen);
}
#endif
