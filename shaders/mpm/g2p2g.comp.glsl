// mpm/g2p2g.comp: the fused G2P and next P2G (mpm/g2p2g.glsl) for any mix of materials.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "g2p2g.glsl"
