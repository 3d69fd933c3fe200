// render/mesh.vert: triangle meshes pulled from simulation buffers (positions
// and GPU-computed normals, vec4 each), indexed through the bound index buffer.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"

layout(std430, binding = 1) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 2) readonly buffer Normals { vec4 nrm[]; };
layout(push_constant) uniform Push { fl_draw_push pc; };

layout(location = 0) out vec3 v_world;
layout(location = 1) out vec3 v_normal;

void main()
{
  vec3 x = fl_rotate_mesh(pc.rotation, pos[gl_VertexIndex].xyz) + pc.offset;
  v_world = x;
  v_normal = fl_rotate_mesh(pc.rotation, nrm[gl_VertexIndex].xyz);
  gl_Position = frame.view_proj * vec4(x, 1.0);
}
