// render/shadow_mesh.vert: a mesh (positions pulled from its simulation buffer)
// seen from the light, for the shadow map (render/shadow.h).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"

layout(std430, binding = 1) readonly buffer Positions { vec4 pos[]; };
layout(push_constant) uniform Push { fl_draw_push pc; };

void main()
{
  gl_Position = frame.light_view_proj * vec4(fl_rotate_mesh(pc.rotation, pos[gl_VertexIndex].xyz) + pc.offset, 1.0);
}
