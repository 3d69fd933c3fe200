// xpbd/tri_vertex.comp: vertex-triangle contacts (docs/CLOTH.md). One thread
// per particle of a triangle-colliding object or body: the triangles entered
// in its cell of the triangle hash (tri_keys.comp: every triangle whose grown
// box overlaps the cell; a triangle entered in two cells of one table entry
// sits twice in a row and is taken once). A candidate is first tested by its
// box at the hash build (TRI_BOX), grown by reach and by half the margin (how
// far the contact passes may have moved its corners since, tri_contact_build.h);
// then its own triangles and a body's against a body (fl_tri_pair) are
// skipped; each contact closer than reach = (thickness_i + thickness_t) / 2 is
// solved by fl_contact_solve on (p, a, b, c) with weights (1, -b_a, -b_b,
// -b_c) and added to the four particles' accumulators.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "tri_buffers.glsl"

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.particle_count) return;
  uint oi = object_of[i];
  fl_gpu_xpbd_object obi = objects[oi];
  if (obi.body == 0u && obi.self_collision != FL_SELF_TRIANGLES) return;
  vec4 pi = pos[i];
  vec3 pri = prev[i].xyz;
  float slack = 0.5 * pc.tri_margin;
  uint h = fl_hash_index(fl_hash_cell_inv(pi.xyz, pc.inv_tri_cell), pc.tri_table_size);
  uint last = 0xFFFFFFFFu, end = hash_end[h];
  for (uint e = hash_start[h]; e < end; e++) {
    uint t = hash_sorted[e];
    if (t == last) continue;
    last = t;
    vec4 blo = tri_box[2u * t], bhi = tri_box[2u * t + 1u];
    float reach = 0.5 * (obi.thickness + blo.w);
    vec3 g = vec3(reach + slack);
    if (any(lessThan(pi.xyz, blo.xyz - g)) || any(greaterThan(pi.xyz, bhi.xyz + g))) continue;
    if (obi.body != 0u && uint(bhi.w) >= FL_TRI_BODY) continue;  // two bodies: particles only (fl_tri_pair)
    uint idx[4] = uint[](i, tri[3u * t], tri[3u * t + 1u], tri[3u * t + 2u]);
    if (idx[1] == i || idx[2] == i || idx[3] == i) continue;
    vec4 a = pos[idx[1]], b = pos[idx[2]], c = pos[idx[3]];
    vec3 bary = fl_closest_on_triangle(pi.xyz, a.xyz, b.xyz, c.xyz);
    vec3 d = pi.xyz - (bary.x * a.xyz + bary.y * b.xyz + bary.z * c.xyz);
    if (!(dot(d, d) < reach * reach)) continue;
    uint ot = tri_object[t];
    vec3 x[4] = vec3[](pi.xyz, a.xyz, b.xyz, c.xyz);
    vec3 xp[4] = vec3[](pri, prev[idx[1]].xyz, prev[idx[2]].xyz, prev[idx[3]].xyz);
    float w[4] = float[](pi.w, a.w, b.w, c.w);
    float k[4] = float[](1.0, -bary.x, -bary.y, -bary.z);
    vec3 dx[4];
    if (fl_contact_solve(x, xp, w, k, reach, sqrt(obi.static_friction * objects[ot].static_friction),
                         sqrt(obi.kinetic_friction * objects[ot].kinetic_friction), dx))
      fl_tri_accumulate(idx, w, dx);
  }
}
