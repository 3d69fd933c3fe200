// mpm/g2p_pic_flip.comp: G2P (mpm/g2p.glsl) for scenes whose every material is PIC/FLIP.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_MPM_ONLY_PIC_FLIP
#include "g2p.glsl"
