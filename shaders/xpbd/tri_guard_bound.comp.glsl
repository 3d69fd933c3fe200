// xpbd/tri_guard_bound.comp: the contact guard's bounds (docs/CLOTH.md "The
// contact guard"; Wu, Wang and Wang 2021, "A safe and fast repulsion method for
// GPU-based cloth self collisions", ACM TOG 40(1), the per-vertex displacement
// bounds). One thread per pair of the substep's list (tri_pairs, found at the
// substep's start within FL_TRI_GUARD_LIST reach), dispatched indirectly like
// tri_vertex (pc.first 0: vertex-triangle pairs) and tri_edge (pc.first 1:
// edge-edge pairs): the pair's distance g at the start (prev), and
// FL_TRI_GUARD_SHARE g folded into each of its four particles' bound with
// atomicMin on the float's bits (positive floats order as their bits). The
// distance of a vertex and a triangle, or of two segments, moves by at most the
// sum of the largest moves of its two sides, so with every particle moving less
// than g / 2 the pair cannot meet within the substep. tri_guard_clamp applies
// the bounds and resets them to +inf.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#include "tri_contact.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_EDGES) readonly buffer Edges { uvec2 edges[]; };
layout(std430, binding = FL_XPBD_B_DELTA) buffer Bound { uint bound[]; };
#define FL_TRI_LIST_READONLY
#include "tri_list.glsl"

void main()
{
  uint k = fl_thread_index();
  uint i0, i1, i2, i3;
  float g;
  if (pc.first == 0u) {  // vertex i0 against triangle (i1, i2, i3)
    if (k >= min(list.head[FL_TRI_LIST_VERTEX_COUNT], fl_tri_vertex_room())) return;
    uvec2 pair = list.pairs[k];
    i0 = pair.x, i1 = tri[3u * pair.y], i2 = tri[3u * pair.y + 1u], i3 = tri[3u * pair.y + 2u];
    vec3 p = prev[i0].xyz, a = prev[i1].xyz, b = prev[i2].xyz, c = prev[i3].xyz;
    vec3 bary = fl_closest_on_triangle(p, a, b, c);
    vec3 d = p - (bary.x * a + bary.y * b + bary.z * c);
    g = sqrt(dot(d, d));
  } else {  // edge (i0, i1) against the owned edge m of triangle t, (i2, i3)
    if (k >= min(list.head[FL_TRI_LIST_EDGE_COUNT], fl_tri_edge_room())) return;
    uvec2 pair = list.pairs[fl_tri_vertex_room() + k];
    uvec2 ab = edges[pair.x];
    uint t = pair.y >> 2u, m = pair.y & 3u;
    i0 = ab.x, i1 = ab.y, i2 = tri[3u * t + m], i3 = tri[3u * t + (m == 2u ? 0u : m + 1u)];
    vec3 a = prev[i0].xyz, b = prev[i1].xyz, c = prev[i2].xyz, d = prev[i3].xyz;
    vec2 st = fl_closest_on_segments(a, b, c, d);
    vec3 sep = mix(a, b, st.x) - mix(c, d, st.y);
    g = sqrt(dot(sep, sep));
  }
  uint bits = floatBitsToUint(float(FL_TRI_GUARD_SHARE) * g);
  atomicMin(bound[i0], bits);
  atomicMin(bound[i1], bits);
  atomicMin(bound[i2], bits);
  atomicMin(bound[i3], bits);
}
