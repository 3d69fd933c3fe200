// mpm/g2p2g_pic_flip.comp: the fused G2P and next P2G (mpm/g2p2g.glsl) for scenes whose every material is PIC/FLIP.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_MPM_ONLY_PIC_FLIP
#include "g2p2g.glsl"
