// mpm/p2g_gather_apic.comp: the gathered P2G (mpm/p2g_gather.glsl) for scenes whose every material is APIC.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_MPM_ONLY_APIC
#include "p2g_gather.glsl"
