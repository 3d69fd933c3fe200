// xpbd/skin.comp: moves a soft body's drawn surface with its tets
// (softbody_spec.h, SKINNING): vertex k = sum_j weights_j x[idx_j], read
// from the frame slot's snapshot of the particles. range.y: vertex count.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_SKIN) readonly buffer Skin { fl_gpu_skin skin[]; };
layout(std430, binding = FL_XPBD_B_SKINNED) writeonly buffer Skinned { vec4 skinned[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  fl_gpu_skin s = skin[k];
  vec3 p = s.weights.x * pos[s.idx.x].xyz + s.weights.y * pos[s.idx.y].xyz + s.weights.z * pos[s.idx.z].xyz +
           s.weights.w * pos[s.idx.w].xyz;
  skinned[k] = vec4(p, 1.0);
}
