// xpbd/tri_guard_bound.comp: the contact guard's bounds (docs/CLOTH.md "The
// contact guard"; after Wu, Wang and Wang 2021, "A safe and fast repulsion
// method for GPU-based cloth self collisions", ACM TOG 40(1), its per-vertex
// displacement bounds, here on the approach along each pair's separating
// direction). One thread per pair of the substep's list (tri_pairs, found at
// the substep's start within FL_TRI_GUARD_LIST reach), dispatched indirectly
// like tri_vertex (pc.first 0: vertex-triangle pairs) and tri_edge (pc.first
// 1: edge-edge pairs). At the start (prev) the pair's nearest points q1 (the
// vertex, or on edge (a, b)) and q2 (on the triangle, or on edge (c, d)) are
// g apart along n = (q1 - q2) / g; both sides are convex, so every point of
// side 1 has n.x >= n.q1 and every point of side 2 n.x <= n.q2 (the
// projection theorem): the pair cannot touch while side 1's particles move
// less than beta = FL_TRI_GUARD_SHARE g - FL_TRI_GUARD_ULPS float epsilons
// (rounding) against n and side 2's less than beta along it. A particle k
// whose move d_k this substep (pos - prev, after the contact passes) comes
// closer than that, by c = -s_k n.d_k > beta (s_k = +1 on side 1, -1 on side
// 2), gets the scale beta / c folded into its bound with atomicMin on the
// float's bits (positive floats order as their bits); moves apart or along the
// pair are free. A pair at g = 0 (a tear's copies of one vertex) has no
// direction and bounds nothing. tri_guard_clamp scales the moves.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#include "tri_contact.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_EDGES) readonly buffer Edges { uvec2 edges[]; };
layout(std430, binding = FL_XPBD_B_DELTA) buffer Bound { uint bound[]; };
#define FL_TRI_LIST_READONLY
#include "tri_list.glsl"

// Folds particle i's scale into its bound when its move approaches by more than beta along s n.
void fold(uint i, vec3 n, float s, float beta)
{
  float c = -s * dot(n, pos[i].xyz - prev[i].xyz);
  if (c > beta) atomicMin(bound[i], floatBitsToUint(beta / c));
}

void main()
{
  uint k = fl_thread_index();
  uint i0, i1, i2, i3;
  vec3 sep, m;
  if (pc.first == 0u) {  // vertex i0 against triangle (i1, i2, i3)
    if (k >= min(list.head[FL_TRI_LIST_VERTEX_COUNT], fl_tri_vertex_room())) return;
    uvec2 pair = list.pairs[k];
    i0 = pair.x, i1 = tri[3u * pair.y], i2 = tri[3u * pair.y + 1u], i3 = tri[3u * pair.y + 2u];
    vec3 p = prev[i0].xyz, a = prev[i1].xyz, b = prev[i2].xyz, c = prev[i3].xyz;
    vec3 bary = fl_closest_on_triangle(p, a, b, c);
    sep = p - (bary.x * a + bary.y * b + bary.z * c);
    m = max(max(abs(p), abs(a)), max(abs(b), abs(c)));
  } else {  // edge (i0, i1) against the owned edge m of triangle t, (i2, i3)
    if (k >= min(list.head[FL_TRI_LIST_EDGE_COUNT], fl_tri_edge_room())) return;
    uvec2 pair = list.pairs[fl_tri_vertex_room() + k];
    uvec2 ab = edges[pair.x];
    uint t = pair.y >> 2u, o = pair.y & 3u;
    i0 = ab.x, i1 = ab.y, i2 = tri[3u * t + o], i3 = tri[3u * t + (o == 2u ? 0u : o + 1u)];
    vec3 a = prev[i0].xyz, b = prev[i1].xyz, c = prev[i2].xyz, d = prev[i3].xyz;
    vec2 st = fl_closest_on_segments(a, b, c, d);
    sep = mix(a, b, st.x) - mix(c, d, st.y);
    m = max(max(abs(a), abs(b)), max(abs(c), abs(d)));
  }
  float g = sqrt(dot(sep, sep));
  if (!(g > 0.0)) return;
  vec3 n = sep / g;
  float ulps = float(FL_TRI_GUARD_ULPS) * 1.1920929e-7 * max(max(m.x, m.y), m.z);
  float beta = max(float(FL_TRI_GUARD_SHARE) * g - ulps, 0.0);
  bool vertex = pc.first == 0u;
  fold(i0, n, 1.0, beta);
  fold(i1, n, vertex ? -1.0 : 1.0, beta);
  fold(i2, n, -1.0, beta);
  fold(i3, n, -1.0, beta);
}
