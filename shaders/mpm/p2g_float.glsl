// mpm/p2g_float.glsl: P2G with float atomic adds into the grid
// (VK_EXT_shader_atomic_float, buffers); the shared tile adds float bits by
// compare-and-swap, so no shared-memory float atomics are needed. Included by
// p2g_float.comp and p2g_float_tile.comp; the scatter is mpm/p2g.glsl.
#extension GL_EXT_shader_atomic_float : require
#define FL_ACC_TYPE float
#define FL_ACC_ADD(word, value, scale) atomicAdd(acc[word], (value))
#define FL_TILE_ADD(word, value, scale) fl_tile_add_cas(word, value)
#define FL_FLUSH_ADD(word, bits) atomicAdd(acc[word], uintBitsToFloat(bits))
void fl_tile_add_cas(uint word, float value);
#include "p2g.glsl"

#ifdef FL_P2G_TILED
void fl_tile_add_cas(uint word, float value)
{
  uint old = tile[word], seen;
  do {
    seen = old;
    old = atomicCompSwap(tile[word], seen, floatBitsToUint(uintBitsToFloat(seen) + value));
  } while (old != seen);
}
#endif
