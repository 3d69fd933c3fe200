// xpbd/tri_vertex.comp: vertex-triangle contacts (docs/CLOTH.md). One thread
// per candidate pair (p, t) of the pair list (xpbd/tri_pairs: p is not a
// corner of t, and not both belong to bodies), dispatched indirectly
// (tri_pair_args); a pair closer than reach = (thickness_p + thickness_t) / 2
// is solved by fl_contact_solve on (p, a, b, c) with weights (1, -b_a, -b_b,
// -b_c) and added to the four particles' accumulators. A body's triangle passes
// its outward face normal (cross(b - a, c - a): bodies are wound outward), so a
// cloth vertex that began the substep inside the body is pushed out of it; a
// body's vertex against a cloth triangle passes minus its vertex normal (the sum
// of its triangles', through the vertex-to-triangle CSR), so a body vertex that
// began the substep through the cloth is pulled back under it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "tri_buffers.glsl"
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer First { uint first[]; };  // vertex -> triangles (CSR)
layout(std430, binding = FL_XPBD_B_ITEMS) readonly buffer Items { uint items[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= min(list.head[FL_TRI_LIST_VERTEX_COUNT], fl_tri_vertex_room())) return;
  uvec2 pair = list.pairs[k];
  uint i = pair.x, t = pair.y;
  uint idx[4] = uint[](i, tri[3u * t], tri[3u * t + 1u], tri[3u * t + 2u]);
  vec4 pi = pos[i], a = pos[idx[1]], b = pos[idx[2]], c = pos[idx[3]];
  fl_gpu_xpbd_object obi = objects[object_of[i]], obt = objects[tri_object[t]];
  float reach = 0.5 * (obi.thickness + obt.thickness);
  vec3 bary = fl_closest_on_triangle(pi.xyz, a.xyz, b.xyz, c.xyz);
  vec3 d = pi.xyz - (bary.x * a.xyz + bary.y * b.xyz + bary.z * c.xyz);
  if (!(dot(d, d) < reach * reach)) return;
  vec3 x[4] = vec3[](pi.xyz, a.xyz, b.xyz, c.xyz);
  vec3 xp[4] = vec3[](prev[i].xyz, prev[idx[1]].xyz, prev[idx[2]].xyz, prev[idx[3]].xyz);
  float w[4] = float[](pi.w, a.w, b.w, c.w);
  float kk[4] = float[](1.0, -bary.x, -bary.y, -bary.z);
  vec3 dx[4], outward = vec3(0.0);
  if (obt.body != 0u) {  // a body's surface: wound outward (cross(b - a, c - a))
    vec3 f = cross(b.xyz - a.xyz, c.xyz - a.xyz);
    float lf = length(f);
    if (lf > 1e-12) outward = f / lf;
  } else if (obi.body != 0u) {  // a body's vertex against a cloth: d points into the body (its triangles' normals)
    vec3 f = vec3(0.0);
    for (uint e = first[i]; e < first[i + 1u]; e++) {
      uint u = items[e];
      vec3 u0 = pos[tri[3u * u]].xyz;
      f += cross(pos[tri[3u * u + 1u]].xyz - u0, pos[tri[3u * u + 2u]].xyz - u0);
    }
    float lf = length(f);
    if (lf > 1e-12) outward = -f / lf;
  }
  if (fl_contact_solve(x, xp, w, kk, reach, sqrt(obi.static_friction * obt.static_friction),
                       sqrt(obi.kinetic_friction * obt.kinetic_friction), outward, dx))
    fl_tri_accumulate(idx, w, dx);
}
