// mpm/implicit_apply_cas.comp: the Hessian product of the semi-implicit solve
// for devices without float atomics (and sim.mpm_atomics "fixed"): each float
// add is a compare-and-swap loop on the word's bits; mpm/implicit_apply.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_HACC_TYPE uint
#define FL_HACC_ADD(word, value) fl_hacc_add_cas(word, value)
void fl_hacc_add_cas(uint word, float value);
#include "implicit_apply.glsl"

void fl_hacc_add_cas(uint word, float value)
{
  uint old = hacc[word], seen;
  do {
    seen = old;
    old = atomicCompSwap(hacc[word], seen, floatBitsToUint(uintBitsToFloat(seen) + value));
  } while (old != seen);
}
