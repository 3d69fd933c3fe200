// mpm/p2g_gather_pic_flip.comp: the gathered P2G (mpm/p2g_gather.glsl) for scenes whose every material is PIC/FLIP.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_MPM_ONLY_PIC_FLIP
#include "p2g_gather.glsl"
