// mpm/p2g_float.comp: P2G with float atomic adds (VK_EXT_shader_atomic_float);
// the scatter is mpm/p2g.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_atomic_float : require
#define FL_ACC_TYPE float
#define FL_ACC_ADD(word, value, scale) atomicAdd(acc[word], (value))
#include "p2g.glsl"
