// xpbd/tri_buffers.glsl: the buffers both triangle-contact kernels (tri_vertex,
// tri_edge) read (their candidates: the pair list, tri_list.glsl) and the
// accumulators they write, at the XPBD system's binding numbers (buffers.glsl),
// with the contact solve and its accumulation.
#ifndef FL_XPBD_TRI_BUFFERS_GLSL
#define FL_XPBD_TRI_BUFFERS_GLSL
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#include "tri_contact.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_TRI_OBJECT) readonly buffer TriObject { uint tri_object[]; };
#define FL_TRI_LIST_READONLY
#include "tri_list.glsl"
layout(std430, binding = FL_XPBD_B_ACCUM) buffer Accum { ivec4 accum[]; };
#include "tri_accumulate.glsl"
#endif
