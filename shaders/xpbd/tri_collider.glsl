// xpbd/tri_collider.glsl: where an analytic collider comes deepest into a cloth
// triangle (docs/CLOTH.md, "Colliders against triangles"), mirrored line for line
// by src/sim/xpbd/tri_collider_cpu.c. All in the collider's rest frame:
//   fl_tri_nearest_segment   the point of a triangle nearest a segment: where the
//                            segment crosses it, else the nearest of its two ends
//                            against the triangle (Ericson 2005, 5.1.5) and of the
//                            segment against the three edges (Ericson 5.1.9)
//   fl_tri_collider_point    the triangle's point nearest the collider's features:
//                            a sphere's centre (5.1.5), a capsule's axis, a box's
//                            12 edges (their ends are its corners) taking the one
//                            whose triangle point lies deepest in the box. For two
//                            convex solids apart, the nearest pair is a corner against
//                            the triangle, an edge against an edge, or a triangle
//                            corner against a face; the last is the particle
//                            contacts', so this gives the exact nearest point.
#ifndef FL_XPBD_TRI_COLLIDER_GLSL
#define FL_XPBD_TRI_COLLIDER_GLSL
#include "tri_contact.glsl"

// The weights (xyz) of the point of (a, b, c) nearest segment p-q, and in w that
// distance (0: the segment crosses the triangle).
vec4 fl_tri_nearest_segment(vec3 p, vec3 q, vec3 a, vec3 b, vec3 c)
{
  vec3 n = cross(b - a, c - a);
  float dp = dot(n, p - a), dq = dot(n, q - a);
  if (((dp <= 0.0 && dq >= 0.0) || (dp >= 0.0 && dq <= 0.0)) && dp != dq) {
    vec3 x = p + (dp / (dp - dq)) * (q - p);
    float u = dot(n, cross(c - b, x - b)), v = dot(n, cross(a - c, x - c)), w = dot(n, cross(b - a, x - a));
    if (u >= 0.0 && v >= 0.0 && w >= 0.0 && u + v + w > 0.0) return vec4(vec3(u, v, w) / (u + v + w), 0.0);
  }
  vec3 bw = fl_closest_on_triangle(p, a, b, c);
  float best = distance(bw.x * a + bw.y * b + bw.z * c, p);
  vec3 bq = fl_closest_on_triangle(q, a, b, c);
  float d = distance(bq.x * a + bq.y * b + bq.z * c, q);
  if (d < best) best = d, bw = bq;
  vec2 st = fl_closest_on_segments(p, q, a, b);
  d = distance(p + st.x * (q - p), a + st.y * (b - a));
  if (d < best) best = d, bw = vec3(1.0 - st.y, st.y, 0.0);
  st = fl_closest_on_segments(p, q, b, c);
  d = distance(p + st.x * (q - p), b + st.y * (c - b));
  if (d < best) best = d, bw = vec3(0.0, 1.0 - st.y, st.y);
  st = fl_closest_on_segments(p, q, c, a);
  d = distance(p + st.x * (q - p), c + st.y * (a - c));
  if (d < best) best = d, bw = vec3(st.y, 0.0, 1.0 - st.y);
  return vec4(bw, best);
}

// The box's own signed distance at rest point x (sdf.glsl's, before `inside`).
float fl_tri_box_sdf(vec3 centre, vec3 half_extent, vec3 x)
{
  vec3 e = abs(x - centre) - half_extent;
  return length(max(e, vec3(0.0))) + min(max(e.x, max(e.y, e.z)), 0.0);
}

// For a sphere, capsule or box c (rest frame) and triangle (a, b, c) in that
// frame: the weights (xyz) of the triangle's point nearest the collider's
// features, and in w 1 when a feature crosses the triangle there (its normal
// is then the triangle's), 0 when not, -1 when no box edge comes within
// `reach` of the triangle's bounding sphere (a box face against a triangle
// corner is the particle contacts'; this skips a sheet's triangles that lie
// on a face away from its edges).
vec4 fl_tri_collider_point(fl_gpu_collider col, vec3 a, vec3 b, vec3 c, float reach)
{
  if (col.shape == FL_GPU_SHAPE_SPHERE) {
    vec3 bw = fl_closest_on_triangle(col.a, a, b, c);
    return vec4(bw, distance(bw.x * a + bw.y * b + bw.z * c, col.a) > 0.0 ? 0.0 : 1.0);
  }
  if (col.shape == FL_GPU_SHAPE_CAPSULE) {
    vec4 s = fl_tri_nearest_segment(col.a, col.b, a, b, c);
    return vec4(s.xyz, s.w > 0.0 ? 0.0 : 1.0);
  }
  vec4 best = vec4(1.0, 0.0, 0.0, -1.0); // box: its 12 edges, along x, y and z at the four sign pairs
  float deepest = 3.0e38;
  vec3 g = (a + b + c) / 3.0;
  float rg = sqrt(max(max(dot(a - g, a - g), dot(b - g, b - g)), dot(c - g, c - g)));
  for (int axis = 0; axis < 3; axis++) {
    for (int k = 0; k < 4; k++) {
      vec3 sg = vec3(k & 1, k >> 1, 0) * 2.0 - 1.0;
      vec3 lo = axis == 0 ? vec3(-1.0, sg.x, sg.y) : axis == 1 ? vec3(sg.x, -1.0, sg.y) : vec3(sg.x, sg.y, -1.0);
      vec3 hi = axis == 0 ? vec3(1.0, sg.x, sg.y) : axis == 1 ? vec3(sg.x, 1.0, sg.y) : vec3(sg.x, sg.y, 1.0);
      vec3 p = col.a + lo * col.b, pq = (hi - lo) * col.b;
      if (distance(p + pq * clamp(dot(g - p, pq) / max(dot(pq, pq), 1e-30), 0.0, 1.0), g) - rg >= reach) continue;
      vec4 s = fl_tri_nearest_segment(p, p + pq, a, b, c);
      float d = fl_tri_box_sdf(col.a, col.b, s.x * a + s.y * b + s.z * c);
      if (d < deepest) deepest = d, best = vec4(s.xyz, s.w > 0.0 ? 0.0 : 1.0);
    }
  }
  return best;
}
#endif
