// xpbd/particle_contacts.glsl: the particle-particle contacts of step 6 (xpbd_spec.h, and softbody_spec.h
// PARTICLE COLLISIONS), shared by its two passes: xpbd/self_collide (the normal pushes) and
// xpbd/self_friction (the pushes again, plus friction on the displacement after every push). Pairs are
// found through the spatial hash (common/spatial_hash.glsl): within a self-colliding cloth (mesh
// neighbours, |di| <= 2 and |dj| <= 2, skipped), between two self-colliding objects, and between a body
// (soft body, balloon) and any other object; never within one body. A contact at distance d below
// reach = (thickness_i + thickness_j)/2 pushes particle i by s (reach - d) n, s = w_i/(w_i+w_j).
// Include after xpbd/buffers.glsl with the push constant `pc` declared.
//
// The candidate loop (docs/PERFORMANCE.md, "Self-collision"): contacts lie within one cell size (the
// largest thickness), so of the 27 cells around the particle only those whose box comes within a cell
// of it are visited; candidates are read from xpbd/self_sort's copy of the positions in hash order
// (contiguous, the index in w) instead of an index and then a scattered position; a candidate is
// filtered on that copy alone (too far, the same body, a mesh neighbour), and the few kept are turned
// into contacts after the sweep.
#ifndef FL_XPBD_PARTICLE_CONTACTS_GLSL
#define FL_XPBD_PARTICLE_CONTACTS_GLSL
#include "spatial_hash.glsl"
#include "contact_rows.glsl"

layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_SELF_SORTED) readonly buffer SelfSorted { vec4 self_sorted[]; };
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

// (column, row) of local index l in a grid of nx columns, inv_nx = 1 / nx rounded: the float quotient is
// off by at most one for l < 2^22, and one step corrects it. Integer division has no vector instruction
// (llvmpipe runs it lane by lane, GPUs emulate it).
ivec2 grid_of(uint l, uint nx, float inv_nx)
{
  int q = int(float(l) * inv_nx), r = int(l) - q * int(nx);
  if (r < 0) {
    q--;
    r += int(nx);
  } else if (r >= int(nx)) {
    q++;
    r -= int(nx);
  }
  return ivec2(r, q);
}

// The table entries of the 27 cells around g (the position in cell units, c = floor(g) its cell) in
// FL_HASH_FOR_NEIGHBOURS's order; FL_HASH_EMPTY for a cell whose box is a cell or more away from g (it can
// hold no contact: reach <= the cell size) and for a repeat of an earlier entry.
void contact_cells(vec3 g, ivec3 c, out uint hs[27])
{
  vec3 f = g - vec3(c);
  // g is rounded to 2^-24 of its size (x * inv_cell): keep cells up to 4 of those ulps closer.
  float e = (max(max(abs(g.x), abs(g.y)), abs(g.z)) + 1.0) * 2.4e-7;
  vec3 lo = max(f - e, 0.0), hi = max(1.0 - f - e, 0.0);
  lo *= lo;
  hi *= hi;
  for (int n = 0; n < 27; n++) {
    ivec3 o = fl_hash_neighbour_offset(n);
    vec3 b = mix(vec3(0.0), lo, equal(o, ivec3(-1))) + mix(vec3(0.0), hi, equal(o, ivec3(1)));
    hs[n] = b.x + b.y + b.z < 1.0 + 4.8e-7 ? fl_hash_index(c + o, pc.hash_table_size) : FL_HASH_EMPTY;
  }
  for (int n = 1; n < 27; n++) {
    bool seen = false;
    for (int m = 0; m < n; m++) seen = seen || hs[m] == hs[n];
    if (seen) hs[n] = FL_HASH_EMPTY;
  }
}

// The particle i a query is for, and what of it every candidate is tested against.
struct contact_query {
  uint i, oi;
  vec4 pi;
  vec3 Di;     // with friction: x_i + P_i - prev_i
  fl_gpu_xpbd_object obi;
  bool body_i, self_i;
  uint nx;
  float inv_nx;
  ivec2 gi;    // (column, row) in its cloth's grid
  float cell;  // the kernel's cell size: no contact reaches farther
};

// True when candidate q (self_sorted: position, index bits) may be in contact with the query's particle:
// within a cell, and not excluded by its object (within one body never, within a cloth only if it collides
// with itself, never between mesh neighbours). Reads nothing but q; lj < count: j is of i's object.
bool candidate(const contact_query cq, vec4 q)
{
  uint j = floatBitsToUint(q.w), lj = j - cq.obi.first;
  float d = length(cq.pi.xyz - q.xyz);
  bool same = lj < cq.obi.count;
  ivec2 dg = grid_of(same ? lj : 0u, cq.nx, cq.inv_nx) - cq.gi;
  return d < cq.cell && !(d < 1e-12) &&
         !(same && (cq.body_i || !cq.self_i || (abs(dg.x) <= 2 && abs(dg.y) <= 2)));
}

// Adds the contact with candidate q (one that passed candidate()) to acc: xyz the push (and friction),
// w the count, when the two objects collide and q is within their reach.
void add_contact(const contact_query cq, vec4 q, const bool with_friction, inout vec4 acc)
{
  uint j = floatBitsToUint(q.w);
  bool same = j - cq.obi.first < cq.obi.count;
  uint oj = same ? cq.oi : object_of[j];
  fl_contact_side obj = fl_contact_side_of(oj);
  vec3 dx = cq.pi.xyz - q.xyz;
  float d = length(dx), reach = 0.5 * (cq.obi.thickness + obj.thickness);
  if (!(same || cq.body_i || obj.body || (cq.self_i && obj.self_collision)) || !(d < reach)) return;
  vec3 n = dx / d;
  float s = cq.pi.w / (cq.pi.w + pos[j].w), depth = reach - d;
  acc.xyz += s * depth * n;
  if (with_friction) {
    vec3 D = cq.Di - (q.xyz + pushed(j) - prev[j].xyz);
    acc.xyz += s * friction(D, n, depth, sqrt(cq.obi.static_friction * obj.static_friction),
                            sqrt(cq.obi.kinetic_friction * obj.kinetic_friction));
  }
  acc.w += 1.0;
}

// Candidates kept by the filter sweep before the contacts are computed; more are handled by a second
// sweep (docs/PERFORMANCE.md, "Self-collision").
#define FL_CONTACT_LIST 8

// Particle i's contacts, from the positions before step 6: xyz the sum of the pushes (and, with_friction,
// of the friction corrections on D = (x_i + P_i - prev_i) - (x_j + P_j - prev_j), P the pushes of
// self_collide), w the number of contacts. i must have w_i > 0.
//
// Two steps, so that the contact arithmetic and its loads run once per contact, not once per candidate:
// llvmpipe runs both sides of every branch under a lane mask, so whatever sits in the candidate loop costs
// every candidate. The filter sweep keeps the first FL_CONTACT_LIST candidates that pass candidate() (their
// places in self_sorted); their contacts are added after it, in the same order. A particle with more (a
// fold pressed flat) sweeps its cells again for the rest, in order: the sum is the same as one sweep's.
vec4 particle_contacts(uint i, const bool with_friction)
{
  contact_query cq;
  cq.i = i;
  cq.pi = pos[i];
  cq.oi = object_of[i];
  cq.obi = objects[cq.oi];
  cq.body_i = cq.obi.body != 0u;
  cq.self_i = cq.obi.self_collision != 0u;
  cq.nx = max(cq.obi.nx, 1u);
  cq.inv_nx = 1.0 / float(cq.nx);
  cq.gi = grid_of(i - cq.obi.first, cq.nx, cq.inv_nx);
  cq.cell = 1.0 / pc.inv_hash_cell;
  cq.Di = with_friction ? cq.pi.xyz + pushed(i) - prev[i].xyz : vec3(0.0);
  vec3 g = cq.pi.xyz * pc.inv_hash_cell;
  uint hs[27];
  contact_cells(g, ivec3(floor(g)), hs); // floor(g): fl_hash_cell_inv, the build's cell

  uint list[FL_CONTACT_LIST];
  for (int m = 0; m < FL_CONTACT_LIST; m++) list[m] = 0u;
  uint kept = 0u;
  for (int n = 0; n < 27; n++) {
    uint h = hs[n];
    if (h == FL_HASH_EMPTY) continue;
    uint end = hash_end[h];
    for (uint k = hash_start[h]; k < end; k++) {
      if (!candidate(cq, self_sorted[k])) continue;
      for (int m = 0; m < FL_CONTACT_LIST; m++) list[m] = uint(m) == kept ? k : list[m];
      kept++;
    }
  }
  vec4 acc = vec4(0.0);
  for (uint m = 0u; m < min(kept, uint(FL_CONTACT_LIST)); m++) add_contact(cq, self_sorted[list[m]], with_friction, acc);
  // The rest, past the first FL_CONTACT_LIST, sweeping again (no lane in it: one masked turn on llvmpipe).
  uint seen = 0u;
  for (int n = 0; n < (kept > uint(FL_CONTACT_LIST) ? 27 : 0); n++) {
    uint h = hs[n];
    if (h == FL_HASH_EMPTY) continue;
    uint end = hash_end[h];
    for (uint k = hash_start[h]; k < end; k++) {
      vec4 q = self_sorted[k];
      if (!candidate(cq, q)) continue;
      if (seen++ >= uint(FL_CONTACT_LIST)) add_contact(cq, q, with_friction, acc);
    }
  }
  return acc;
}

#endif
