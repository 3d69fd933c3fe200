// xpbd/particle_contacts.glsl: the particle-particle contacts of step 6 (xpbd_spec.h, and softbody_spec.h
// PARTICLE COLLISIONS), shared by its two passes: xpbd/self_collide (the normal pushes) and
// xpbd/self_friction (the pushes again, plus friction on the displacement after every push). Pairs are
// found through the spatial hash (common/spatial_hash.glsl): within a self-colliding cloth (mesh
// neighbours, |di| <= 2 and |dj| <= 2, skipped), between two self-colliding objects, and between a body
// (soft body, balloon) and any other object; never within one body. A contact at distance d below
// reach = (thickness_i + thickness_j)/2 pushes particle i by s (reach - d) n, s = w_i/(w_i+w_j).
// Include after xpbd/buffers.glsl with the push constant `pc` declared.
#ifndef FL_XPBD_PARTICLE_CONTACTS_GLSL
#define FL_XPBD_PARTICLE_CONTACTS_GLSL
#include "spatial_hash.glsl"
#include "contact_rows.glsl"

layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_SORTED) readonly buffer HashSorted { uint hash_sorted[]; };
layout(std430, binding = FL_XPBD_B_CELL_START) readonly buffer HashStart { uint hash_start[]; };
layout(std430, binding = FL_XPBD_B_CELL_END) readonly buffer HashEnd { uint hash_end[]; };
layout(std430, binding = FL_XPBD_B_DELTA) buffer Delta { vec4 delta[]; }; // the pushes: written by self_collide, read by self_friction

// The friction correction of xpbd_spec.h step 5 on a relative displacement D.
vec3 friction(vec3 D, vec3 n, float depth, float mu_s, float mu_k)
{
  vec3 dt = D - dot(D, n) * n;
  float lt = length(dt);
  if (lt == 0.0) return vec3(0.0);
  return -dt * (lt < mu_s * depth ? 1.0 : min(mu_k * depth / lt, 1.0));
}

// The push a particle got from self_collide (its averaged sum of pushes).
vec3 pushed(uint k)
{
  vec4 d = delta[k];
  return d.w > 0.0 ? d.xyz / d.w : vec3(0.0);
}

// Particle i's contacts, from the positions before step 6: xyz the sum of the pushes (and, with_friction,
// of the friction corrections on D = (x_i + P_i - prev_i) - (x_j + P_j - prev_j), P the pushes of
// self_collide), w the number of contacts. i must have w_i > 0.
vec4 particle_contacts(uint i, const bool with_friction)
{
  vec4 pi = pos[i];
  uint oi = object_of[i];
  fl_gpu_xpbd_object obi = objects[oi];
  bool body_i = obi.body != 0u, self_i = obi.self_collision != 0u;
  uint nx = max(obi.nx, 1u), li = i - obi.first;
  int gi = int(li % nx), gj = int(li / nx);
  float thick = obi.thickness, cell = 1.0 / pc.inv_hash_cell;
  vec3 sum = vec3(0.0), Di = vec3(0.0);
  if (with_friction) Di = pi.xyz + pushed(i) - prev[i].xyz;
  float count = 0.0;
  ivec3 c = fl_hash_cell_inv(pi.xyz, pc.inv_hash_cell);
  FL_HASH_FOR_NEIGHBOURS(c, pc.hash_table_size, hash_start, hash_end, hash_sorted, j) {
    if (j == i) continue;
    // Cheapest test first: most candidates are farther than any reach (the cell size).
    vec4 pj = pos[j];
    vec3 dx = pi.xyz - pj.xyz;
    float d = length(dx);
    if (!(d < cell) || d < 1e-12) continue;
    uint oj = object_of[j];
    if (oj == oi) {
      if (body_i || !self_i) continue;
      uint lj = j - obi.first;
      int di = int(lj % nx) - gi, dj = int(lj / nx) - gj;
      if (abs(di) <= 2 && abs(dj) <= 2) continue;  // a mesh neighbour
    }
    fl_contact_side obj = fl_contact_side_of(oj);
    if (oj != oi && !(body_i || obj.body || (self_i && obj.self_collision))) continue;
    float reach = 0.5 * (thick + obj.thickness);
    if (!(d < reach)) continue;
    vec3 n = dx / d;
    float s = pi.w / (pi.w + pj.w), depth = reach - d;
    sum += s * depth * n;
    if (with_friction) {
      vec3 D = Di - (pj.xyz + pushed(j) - prev[j].xyz);
      sum += s * friction(D, n, depth, sqrt(obi.static_friction * obj.static_friction),
                          sqrt(obi.kinetic_friction * obj.kinetic_friction));
    }
    count += 1.0;
  } FL_HASH_END_NEIGHBOURS
  return vec4(sum, count);
}

#endif
