// mpm/g2p_apic.comp: G2P (mpm/g2p.glsl) for scenes whose every material is APIC.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_MPM_ONLY_APIC
#include "g2p.glsl"
