// mpm/implicit_apply_float.comp: the Hessian product of the semi-implicit solve
// with float atomic adds (VK_EXT_shader_atomic_float); mpm/implicit_apply.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_atomic_float : require
#define FL_HACC_TYPE float
#define FL_HACC_ADD(word, value) atomicAdd(hacc[word], (value))
#include "implicit_apply.glsl"
