// xpbd/tri_edge.comp: edge-edge contacts (docs/CLOTH.md). One thread per
// unique edge (a, b) of the triangle-colliding meshes: over the table entries
// of the (at most 8) cells its box overlaps, each entry once, the triangles
// entered there (each once a row), each (edge, triangle) pair only in the entry
// of the cell max(edge's lowest cell, triangle's lowest cell), which both
// cover. A candidate is tested first by its box (TRI_BOX: tri_keys took it
// from the same positions, as this pass runs right after the hash build) against
// the edge's grown by reach; then of each triangle the edges it owns (bits
// 0-2 of its box's meta word: every edge has one owner), kept when (a, b) < (c, d) in lexicographic order (each pair
// once) and when they share no particle; each pair closer than reach is
// solved by fl_contact_solve on (a, b, c, d) with weights (1 - s, s, -(1 - t), -t).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "tri_buffers.glsl"
layout(std430, binding = FL_XPBD_B_EDGES) readonly buffer Edges { uvec2 edges[]; };

// The pair of edge (a, b) and the triangle's edge (c0, d0), when (a, b) < (c, d) and they share no particle.
void edge_pair(uvec2 ab, vec4 a, vec4 b, vec3 pra, vec3 prb, uint c0, uint d0, float reach, float mu_s, float mu_k)
{
  uvec2 cd = uvec2(min(c0, d0), max(c0, d0));
  if (!(ab.x < cd.x || (ab.x == cd.x && ab.y < cd.y))) return;
  if (cd.x == ab.x || cd.x == ab.y || cd.y == ab.x || cd.y == ab.y) return;
  vec4 c = pos[cd.x], d = pos[cd.y];
  vec2 st = fl_closest_on_segments(a.xyz, b.xyz, c.xyz, d.xyz);
  vec3 sep = mix(a.xyz, b.xyz, st.x) - mix(c.xyz, d.xyz, st.y);
  if (!(dot(sep, sep) < reach * reach)) return;
  uint idx[4] = uint[](ab.x, ab.y, cd.x, cd.y);
  vec3 x[4] = vec3[](a.xyz, b.xyz, c.xyz, d.xyz);
  vec3 xp[4] = vec3[](pra, prb, prev[cd.x].xyz, prev[cd.y].xyz);
  float w[4] = float[](a.w, b.w, c.w, d.w);
  float kk[4] = float[](1.0 - st.x, st.x, -(1.0 - st.y), -st.y);
  vec3 dx[4];
  if (fl_contact_solve(x, xp, w, kk, reach, mu_s, mu_k, dx)) fl_tri_accumulate(idx, w, dx);
}

void main()
{
  uint e = fl_thread_index();
  if (e >= pc.edge_count) return;
  uvec2 ab = edges[e];
  uint oi = object_of[ab.x];
  float thick_i = objects[oi].thickness;
  bool body_i = objects[oi].body != 0u;
  vec4 a = pos[ab.x], b = pos[ab.y];
  vec3 pra = prev[ab.x].xyz, prb = prev[ab.y].xyz;
  vec3 emin = min(a.xyz, b.xyz), emax = max(a.xyz, b.xyz);
  ivec3 lo = fl_hash_cell_inv(emin, pc.inv_tri_cell);
  ivec3 hi = min(fl_hash_cell_inv(emax, pc.inv_tri_cell), lo + 1);
  ivec3 span = hi - lo;  // 0 or 1 per axis
  for (uint q = 0u; q < 8u; q++) {
    ivec3 off = ivec3(q & 1u, (q >> 1u) & 1u, q >> 2u);
    if (any(greaterThan(off, span))) continue;
    uint h = fl_hash_index(lo + off, pc.tri_table_size);
    bool repeat = false;  // an earlier cell of the box with the same table entry
    for (uint m = 0u; m < q; m++) {
      ivec3 om = ivec3(m & 1u, (m >> 1u) & 1u, m >> 2u);
      repeat = repeat || (all(lessThanEqual(om, span)) && fl_hash_index(lo + om, pc.tri_table_size) == h);
    }
    if (repeat) continue;
    uint last = 0xFFFFFFFFu, end = hash_end[h];
    for (uint en = hash_start[h]; en < end; en++) {
      uint t = hash_sorted[en];
      if (t == last) continue;
      last = t;
      // The boxes first (the triangle's as tri_keys took it from these positions): the edge's grown by reach.
      vec4 blo = tri_box[2u * t], bhi = tri_box[2u * t + 1u];
      float reach = 0.5 * (thick_i + blo.w);
      if (any(greaterThan(emin - reach, bhi.xyz)) || any(lessThan(emax + reach, blo.xyz))) continue;
      uint meta = uint(bhi.w), owned = meta & 7u;
      if (owned == 0u || (body_i && meta >= FL_TRI_BODY)) continue;  // no edge; two bodies (fl_tri_pair)
      ivec3 tlo = fl_hash_cell_inv(blo.xyz - pc.tri_margin, pc.inv_tri_cell);  // tri_keys' lowest cell
      if (fl_hash_index(max(lo, tlo), pc.tri_table_size) != h) continue;      // its one cell
      uint ot = tri_object[t];
      float mu_s = sqrt(objects[oi].static_friction * objects[ot].static_friction);
      float mu_k = sqrt(objects[oi].kinetic_friction * objects[ot].kinetic_friction);
      uint v0 = tri[3u * t], v1 = tri[3u * t + 1u], v2 = tri[3u * t + 2u];
      if ((owned & 1u) != 0u) edge_pair(ab, a, b, pra, prb, v0, v1, reach, mu_s, mu_k);
      if ((owned & 2u) != 0u) edge_pair(ab, a, b, pra, prb, v1, v2, reach, mu_s, mu_k);
      if ((owned & 4u) != 0u) edge_pair(ab, a, b, pra, prb, v2, v0, reach, mu_s, mu_k);
    }
  }
}
