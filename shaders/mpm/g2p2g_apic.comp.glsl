// mpm/g2p2g_apic.comp: the fused G2P and next P2G (mpm/g2p2g.glsl) for scenes whose every material is APIC.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_MPM_ONLY_APIC
#include "g2p2g.glsl"
