// mpm/g2p.comp: G2P (mpm/g2p.glsl) for any mix of materials.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "g2p.glsl"
