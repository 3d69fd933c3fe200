// xpbd/tri_collider.comp: colliders against the insides of cloth triangles
// (docs/CLOTH.md, "Colliders against triangles"), for every cloth (particles or
// triangles mode). The particle contacts (xpbd/contacts) keep every vertex out
// of a collider, but a box edge or a curved collider still reaches between them
// (a sphere of radius R comes R_t^2 / (2 R) nearer over a triangle of
// circumradius R_t than at its vertices; a box edge pokes through a sheet
// folded over it). One thread per triangle. Per collider, triangles whose
// vertices are all farther than r plus their edges from it are skipped (the
// SDF is 1-Lipschitz); else the triangle's point x_b (weights b) nearest the
// collider's features is found exactly (xpbd/tri_collider.glsl: a sphere's
// centre, a capsule's axis, a box's edges and corners), and C = sdf(x_b) - r >= 0
// (r = thickness / 2) is an XPBD inequality with zero compliance and gradient
// b_k n on vertex k (Macklin et al. 2016, Eq. 17-18 with alpha = 0): dlambda =
// -C / S, S = sum w_k b_k^2, n the collider's normal at x_b, or where a feature
// crosses the triangle the triangle's normal turned away from the collider.
// Friction (not on "triangles" cloth, see below) as the vertices' (xpbd/contacts,
// Macklin et al. 2014, Eq. 24) on
// D = sum b_k (x_k - prev_k) - h v_c: D_t cancelled when |D_t| < mu_s depth, else
// shortened by mu_k depth, spread by w_k b_k / S. dx_k = w_k b_k (n dlambda +
// friction / S), added to the accumulators that xpbd/tri_apply averages. Planes
// (whose nearest point of a triangle is a vertex) are left to the vertices;
// meshes and containers keep the four samples (centroid, edge midpoints).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_TRI_OBJECT) readonly buffer TriObject { uint tri_object[]; };
layout(std430, binding = FL_XPBD_B_ACCUM) buffer Accum { ivec4 accum[]; };
#include "tri_contact.glsl"
#include "tri_accumulate.glsl"
#include "tri_collider.glsl"
#define FL_COLLIDERS_BINDING FL_XPBD_B_COLLIDERS // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING FL_XPBD_B_COLLIDER_TAIL
#include "sdf.glsl"

// The weights of the deepest of the centroid and the edge midpoints (meshes,
// containers), named, not an array (llvmpipe).
vec3 sampled_point(fl_gpu_collider col, vec3 a, vec3 b, vec3 c)
{
  vec3 bw = vec3(1.0 / 3.0);
  float best = fl_collider_sdf(col, (a + b + c) / 3.0, pc.time);
  float d = fl_collider_sdf(col, 0.5 * (a + b), pc.time);
  if (d < best) best = d, bw = vec3(0.5, 0.5, 0.0);
  d = fl_collider_sdf(col, 0.5 * (b + c), pc.time);
  if (d < best) best = d, bw = vec3(0.0, 0.5, 0.5);
  d = fl_collider_sdf(col, 0.5 * (c + a), pc.time);
  if (d < best) bw = vec3(0.5, 0.0, 0.5);
  return bw;
}

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.triangle_count) return;
  fl_gpu_xpbd_object o = objects[tri_object[t]];
  if (o.body != 0u) return;
  float r = 0.5 * o.thickness;
  uint idx[4] = uint[](tri[3u * t], tri[3u * t + 1u], tri[3u * t + 2u], 0u);
  vec4 a = pos[idx[0]], b = pos[idx[1]], c = pos[idx[2]];
  float lab = distance(a.xyz, b.xyz), lbc = distance(b.xyz, c.xyz), lca = distance(c.xyz, a.xyz);
  for (uint ci = 0u; ci < pc.collider_count; ci++) {
    fl_gpu_collider col = colliders[ci];
    if (col.shape == FL_GPU_SHAPE_PLANE) continue;
    if (fl_collider_sdf(col, a.xyz, pc.time) - max(lab, lca) >= r ||
        fl_collider_sdf(col, b.xyz, pc.time) - max(lab, lbc) >= r ||
        fl_collider_sdf(col, c.xyz, pc.time) - max(lbc, lca) >= r)
      continue; // no point of the triangle within r
    vec3 bw;
    bool crossed = false;
    vec3 nt = cross(b.xyz - a.xyz, c.xyz - a.xyz);
    if (col.shape == FL_GPU_SHAPE_MESH || col.inside != 0u) {
      bw = sampled_point(col, a.xyz, b.xyz, c.xyz);
    } else {
      fl_collider_pose s = fl_collider_pose_at(col, pc.time);
      vec3 ra = fl_collider_rest_point(col, s, a.xyz), rb = fl_collider_rest_point(col, s, b.xyz),
           rc = fl_collider_rest_point(col, s, c.xyz);
      vec4 f = fl_tri_collider_point(col, ra, rb, rc, r);
      if (f.w < 0.0) continue; // no box edge within reach
      bw = f.xyz;
      crossed = f.w > 0.0;
      if (crossed) { // the triangle's normal, on the side of its centroid away from the collider's centre
        vec3 g = (ra + rb + rc) / 3.0, centre = col.a;
        if (col.shape == FL_GPU_SHAPE_CAPSULE) {
          vec3 ax = col.b - col.a;
          centre = col.a + ax * clamp(dot(g - col.a, ax) / max(dot(ax, ax), 1e-12), 0.0, 1.0);
        }
        if (dot(cross(rb - ra, rc - ra), g - centre) < 0.0) nt = -nt;
      }
    }
    vec3 xb = bw.x * a.xyz + bw.y * b.xyz + bw.z * c.xyz;
    float C = fl_collider_sdf(col, xb, pc.time) - r;
    if (!(C < 0.0)) continue;
    float lt = length(nt);
    if (crossed && !(lt > 1e-20)) continue;
    vec3 n = crossed ? nt / lt : fl_collider_normal_select(col, xb, pc.time, pc.tetrahedral_normals != 0u);
    float S = a.w * bw.x * bw.x + b.w * bw.y * bw.y + c.w * bw.z * bw.z;
    if (!(S > 1e-12)) continue;
    // Friction: a "triangles" cloth's contacts are averaged with its self-contacts (tri_apply), and
    // friction there let a crumpling sheet pass through itself (test_cloth_contact self_fold): its
    // vertices' collider contacts carry it, as before.
    float dl = -C / S, depth = -C, f = o.self_collision == FL_SELF_TRIANGLES ? 0.0 : col.friction;
    vec3 D = bw.x * (a.xyz - prev[idx[0]].xyz) + bw.y * (b.xyz - prev[idx[1]].xyz) + bw.z * (c.xyz - prev[idx[2]].xyz) -
             pc.h * fl_collider_velocity(col, xb, pc.time);
    vec3 Dt = D - dot(D, n) * n;
    float len = length(Dt), mu_s = sqrt(o.static_friction * f), mu_k = sqrt(o.kinetic_friction * f);
    vec3 fr = len > 0.0 ? -Dt * (len < mu_s * depth ? 1.0 : min(mu_k * depth / len, 1.0)) : vec3(0.0);
    vec3 move = n * dl + fr / S;
    float w[4] = float[](a.w, b.w, c.w, 0.0);
    vec3 dx[4] = vec3[](a.w * bw.x * move, b.w * bw.y * move, c.w * bw.z * move, vec3(0.0));
    fl_tri_accumulate(idx, w, dx);
  }
}
