// xpbd/tri_collider.comp: colliders against the insides of the triangles of
// "triangles" cloth (docs/CLOTH.md). The particle contacts (xpbd/contacts)
// keep every vertex out of a collider, but a curved collider still bulges
// between them: over a triangle of circumradius R_t a sphere of radius R comes
// R_t^2 / (2 R) nearer than at the vertices (7 mm for a 16x16 sheet of 1 m on
// a ball of 0.15 m), so it reaches through a lower sheet to the particles of
// the one above. One thread per triangle: per collider, the deepest of four
// points of the triangle (its centroid and edge midpoints, weights b) closer
// than r = thickness / 2 gives C = sdf(x_b) - r >= 0 with gradient b_k n on
// vertex k (n the collider's normal there), an XPBD inequality with zero
// compliance (Macklin et al. 2016, Eq. 17-18 with alpha = 0):
// dlambda = -C / sum w_k b_k^2, dx_k = w_k b_k n dlambda, added to the
// accumulators like the other triangle contacts (tri_apply averages them).
// No friction here: the vertices' own collider contacts carry it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "tri_buffers.glsl"
#define FL_COLLIDERS_BINDING FL_XPBD_B_COLLIDERS // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING FL_XPBD_B_COLLIDER_TAIL
#include "sdf.glsl"

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.triangle_count) return;
  uint ot = tri_object[t];
  if (objects[ot].body != 0u || objects[ot].self_collision != FL_SELF_TRIANGLES) return;
  float r = 0.5 * objects[ot].thickness;
  uint idx[4] = uint[](tri[3u * t], tri[3u * t + 1u], tri[3u * t + 2u], 0u);
  vec4 a = pos[idx[0]], b = pos[idx[1]], c = pos[idx[2]];
  for (uint ci = 0u; ci < pc.collider_count; ci++) {
    fl_gpu_collider col = colliders[ci];
    // The deepest of the centroid and the edge midpoints (named, not an array: llvmpipe).
    vec3 bw = vec3(1.0 / 3.0);
    float best = fl_collider_sdf(col, (a.xyz + b.xyz + c.xyz) / 3.0, pc.time) - r;
    float d = fl_collider_sdf(col, 0.5 * (a.xyz + b.xyz), pc.time) - r;
    if (d < best) best = d, bw = vec3(0.5, 0.5, 0.0);
    d = fl_collider_sdf(col, 0.5 * (b.xyz + c.xyz), pc.time) - r;
    if (d < best) best = d, bw = vec3(0.0, 0.5, 0.5);
    d = fl_collider_sdf(col, 0.5 * (c.xyz + a.xyz), pc.time) - r;
    if (d < best) best = d, bw = vec3(0.5, 0.0, 0.5);
    if (!(best < 0.0)) continue;
    vec3 xb = bw.x * a.xyz + bw.y * b.xyz + bw.z * c.xyz;
    vec3 n = fl_collider_normal_select(col, xb, pc.time, pc.tetrahedral_normals != 0u);
    float S = a.w * bw.x * bw.x + b.w * bw.y * bw.y + c.w * bw.z * bw.z;
    if (!(S > 1e-12)) continue;
    float dl = -best / S;
    float w[4] = float[](a.w, b.w, c.w, 0.0);
    vec3 dx[4] = vec3[](a.w * bw.x * dl * n, b.w * bw.y * dl * n, c.w * bw.z * dl * n, vec3(0.0));
    fl_tri_accumulate(idx, w, dx);
  }
}
