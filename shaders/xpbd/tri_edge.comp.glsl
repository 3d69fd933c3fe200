// xpbd/tri_edge.comp: edge-edge contacts (docs/CLOTH.md). One thread per
// candidate pair of the pair list (xpbd/tri_pairs: edge (a, b) and the owned
// edge k of triangle t, (v[k], v[k+1]) = (c, d), with (a, b) < (c, d) and no
// shared particle, so each pair once), dispatched indirectly
// (tri_pair_args); a pair closer than reach is solved by fl_contact_solve on
// (a, b, c, d) with weights (1 - s, s, -(1 - t), -t). When (c, d) is a body's
// edge, the outward face normal of its owner t replaces a start-of-substep
// direction against it (a cloth edge that ended a substep across a body's
// ridge is pushed out); a body's edge as (a, b) (a body listed before the
// cloth) gets no such normal.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "tri_buffers.glsl"
layout(std430, binding = FL_XPBD_B_EDGES) readonly buffer Edges { uvec2 edges[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= min(list.head[FL_TRI_LIST_EDGE_COUNT], fl_tri_edge_room())) return;
  uvec2 pair = list.pairs[fl_tri_vertex_room() + k];
  uvec2 ab = edges[pair.x];
  uint t = pair.y >> 2u, m = pair.y & 3u;
  uint c0 = tri[3u * t + m], d0 = tri[3u * t + (m == 2u ? 0u : m + 1u)];
  uvec2 cd = uvec2(min(c0, d0), max(c0, d0));
  vec4 a = pos[ab.x], b = pos[ab.y], c = pos[cd.x], d = pos[cd.y];
  fl_gpu_xpbd_object obi = objects[object_of[ab.x]], obt = objects[tri_object[t]];
  float reach = 0.5 * (obi.thickness + obt.thickness);
  vec2 st = fl_closest_on_segments(a.xyz, b.xyz, c.xyz, d.xyz);
  vec3 sep = mix(a.xyz, b.xyz, st.x) - mix(c.xyz, d.xyz, st.y);
  if (!(dot(sep, sep) < reach * reach)) return;
  uint idx[4] = uint[](ab.x, ab.y, cd.x, cd.y);
  vec3 x[4] = vec3[](a.xyz, b.xyz, c.xyz, d.xyz);
  vec3 xp[4] = vec3[](prev[ab.x].xyz, prev[ab.y].xyz, prev[cd.x].xyz, prev[cd.y].xyz);
  float w[4] = float[](a.w, b.w, c.w, d.w);
  float kk[4] = float[](1.0 - st.x, st.x, -(1.0 - st.y), -st.y);
  vec3 dx[4], outward = vec3(0.0);
  if (obt.body != 0u) {  // (c, d) a body's edge: the outward normal of its owner t (d points from it)
    vec3 v0 = pos[tri[3u * t]].xyz, v1 = pos[tri[3u * t + 1u]].xyz, v2 = pos[tri[3u * t + 2u]].xyz;
    vec3 f = cross(v1 - v0, v2 - v0);
    float lf = length(f);
    if (lf > 1e-12) outward = f / lf;
  }
  if (fl_contact_solve(x, xp, w, kk, reach, sqrt(obi.static_friction * obt.static_friction),
                       sqrt(obi.kinetic_friction * obt.kinetic_friction), outward, dx))
    fl_tri_accumulate(idx, w, dx);
}
