// xpbd/body_volume.comp: the global volume constraints of closed bodies
// (sim/xpbd/softbody_spec.h, BODY VOLUMES), one workgroup per body.
// range.x = FL_BODY_PASS_SOLVE: the balloon overpressure constraint (XPBD,
// NOTES.md "cloth balloon"), then Diziol 2011 surface volume conservation
// (global or local weights; local: displacements and opposite pairs' distance
// changes); FL_BODY_PASS_VELOCITY: Diziol's velocity correction dV/dt = 0 with
// the weights of the last projection; FL_BODY_PASS_MEASURE: the volume after the
// substep into the body state (and its smallest and largest ratio to k V0).
// range.y: body count; domain_min.w: time at the end of the substep.
// Each phase loops over the body's particles or triangles with the whole
// workgroup; sums are tree reductions in shared memory, in a fixed order.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#define FL_COLLIDERS_BINDING FL_XPBD_B_COLLIDERS // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING FL_XPBD_B_COLLIDER_TAIL
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_VEL) buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_XPBD_B_OPPOSITE) readonly buffer Opposite { uint opposite[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tris[]; };
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer TriFirst { uint tri_first[]; };
layout(std430, binding = FL_XPBD_B_ITEMS) readonly buffer TriItems { uint tri_items[]; };
layout(std430, binding = FL_XPBD_B_CONTACT) readonly buffer Contact { uint contact[]; };
layout(std430, binding = FL_XPBD_B_BODIES) readonly buffer Bodies { fl_gpu_body bodies[]; };
layout(std430, binding = FL_XPBD_B_BODY_STATE) buffer State { vec4 state[]; };
layout(std430, binding = FL_XPBD_B_SCRATCH) buffer Scratch { vec4 scratch[]; };
layout(std430, binding = FL_XPBD_B_DELTA) buffer Weights { vec4 weights[]; };
layout(std430, binding = FL_XPBD_B_LOAD) buffer Load { vec4 load[]; };
#include "sdf.glsl"

#include "workgroup_sum.glsl"

// Makes this workgroup's buffer writes visible to its other invocations.
void phase_barrier()
{
  memoryBarrierBuffer();
  barrier();
}

// V = sum over the body's triangles of (x_a x x_b) . x_c / 6.
float body_volume(fl_gpu_body b)
{
  float v = 0.0;
  for (uint t = b.first_triangle + gl_LocalInvocationID.x; t < b.first_triangle + b.triangle_count; t += gl_WorkGroupSize.x)
    v += dot(cross(pos[tris[3u * t]].xyz, pos[tris[3u * t + 1u]].xyz), pos[tris[3u * t + 2u]].xyz);
  return workgroup_sum(v) / 6.0;
}

// grad_i V: over the triangles of particle i, the cross product of the other
// two in cyclic order, / 6; `count` gets the number of those triangles.
vec3 volume_gradient(uint i, out uint count)
{
  vec3 g = vec3(0.0);
  count = tri_first[i + 1u] - tri_first[i];
  for (uint e = tri_first[i]; e < tri_first[i + 1u]; e++) {
    uint t = tri_items[e];
    uint a = tris[3u * t], b = tris[3u * t + 1u], c = tris[3u * t + 2u];
    if (a == i) g += cross(pos[b].xyz, pos[c].xyz);
    else if (b == i) g += cross(pos[c].xyz, pos[a].xyz);
    else g += cross(pos[a].xyz, pos[b].xyz);
  }
  return g / 6.0;
}

// Step 1: the XPBD overpressure constraint C = V - k V0.
void overpressure(uint body, fl_gpu_body b, float target)
{
  float lambda = state[body].y;
  float V = body_volume(b);
  float S = 0.0;
  for (uint i = b.first_particle + gl_LocalInvocationID.x; i < b.first_particle + b.particle_count; i += gl_WorkGroupSize.x) {
    uint n;
    vec3 g = volume_gradient(i, n);
    scratch[i] = vec4(g, 0.0);
    S += pos[i].w * dot(g, g);
  }
  S = workgroup_sum(S); // its barriers also end every gradient read before the update below
  float h = pc.solve_h, alpha = b.pressure_compliance / (h * h);
  if (!(S + alpha > 0.0)) return;
  float dl = (-(V - target) - alpha * lambda) / (S + alpha);
  for (uint i = b.first_particle + gl_LocalInvocationID.x; i < b.first_particle + b.particle_count; i += gl_WorkGroupSize.x)
    pos[i].xyz += pos[i].w * scratch[i].xyz * dl;
  if (gl_LocalInvocationID.x == 0u) state[body].y = lambda + dl;
}

// How free x is of the colliders and domain walls now, 0..1: 0 where it touches
// one (the contacts pass's test, distance < r), rising linearly to 1 at 2 r.
// The contact flags of that pass are a substep old here, and a hard switch
// makes a flip-flop at the contact's rim: a particle the last substep let go of
// is pushed into the ground, the next one spares it, and so on every substep,
// which kept balloons with volume conservation moving at up to 2 m/s with their
// centres at rest (issue 21). Fresh and graded, the weight fades out instead.
float freedom(vec3 x, float r)
{
  float d = min(min(x.x - pc.domain_min.x, pc.domain_max.x - x.x),
                min(min(x.y - pc.domain_min.y, pc.domain_max.y - x.y), min(x.z - pc.domain_min.z, pc.domain_max.z - x.z)));
  for (uint c = 0u; c < pc.collider_count; c++) d = min(d, fl_collider_sdf(colliders[c], x, pc.time));
  return clamp((d - r) / r, 0.0, 1.0);
}

// What a particle's local weight grows with (survey, Diziol's alternative w_i^l):
// beta s |dd_i| + (1 - beta) |dx_i|, dx_i its displacement this substep and dd_i
// the change of the distance to its opposite particle k over the same substep.
float local_measure(fl_gpu_body b, uint i)
{
  float r = length(pos[i].xyz - prev[i].xyz);
  uint k = opposite[i];
  if (b.conservation != FL_CONSERVE_LOCAL || !(b.pair_beta > 0.0) || k == i) return r;
  float dd = abs(length(pos[i].xyz - pos[k].xyz) - length(prev[i].xyz - prev[k].xyz));
  return b.pair_beta * b.pair_stiffness * dd + (1.0 - b.pair_beta) * r;
}

// The rigid motion to take out of a local correction (issue 21, docs/SOFTBODY.md "Coming to
// rest"). Local weights follow the particles' motion, so the net force sum omega_i g_i of the
// correction is not that of the uniform correction (the gas's push, which the contacts balance):
// it pointed to the moving side, and the correction pushed the balloon on and spun it. With
// W_i = omega_i w_i and the uniform weights u_i = f_i / F, U_i = u_i w_i, the excess over the
// uniform correction of the same volume change, m_i e_i = (omega_i - S / S_u u_i) g_i
// (S_u = sum U_i |g_i|^2, so sum g_i . e_i = 0), carries P = sum m_i e_i and L = sum m_i r_i x e_i
// about the body's centre of mass x_cm (over its unpinned particles); lin + ang x r_i is the
// rigid motion of the body that carries them (lin = P / M, I ang = L as in global_damping.comp),
// to subtract from every unpinned particle's W_i g_i. weights[i]: y f_i, z W_i, w omega_i;
// scratch[i].xyz g_i.
void local_rigid_part(fl_gpu_body b, float S, float uniform_weight, out vec3 x_cm, out vec3 lin, out vec3 ang)
{
  uint first = b.first_particle, end = b.first_particle + b.particle_count, lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  float m = 0.0, Su = 0.0;
  vec3 mx = vec3(0.0);
  for (uint i = first + lid; i < end; i += wg) {
    vec4 w = weights[i];
    if (!(pos[i].w > 0.0)) continue;
    float mi = 1.0 / pos[i].w;
    m += mi;
    mx += mi * pos[i].xyz;
    vec3 g = scratch[i].xyz;
    Su += w.y * uniform_weight * pos[i].w * dot(g, g);
  }
  m = workgroup_sum(m);
  Su = workgroup_sum(Su);
  x_cm = workgroup_sum3(mx) / m; // m > 0: S > 0 needs a particle with W > 0
  float ratio = Su > 0.0 ? S / Su : 0.0;
  vec3 q = vec3(0.0), l = vec3(0.0), diag = vec3(0.0), off = vec3(0.0); // I: diagonal, then (xy, xz, yz)
  for (uint i = first + lid; i < end; i += wg) {
    vec4 w = weights[i];
    if (!(pos[i].w > 0.0)) continue;
    float mi = 1.0 / pos[i].w;
    vec3 r = pos[i].xyz - x_cm, me = (w.w - ratio * w.y * uniform_weight) * scratch[i].xyz;
    q += me;
    l += cross(r, me);
    diag += mi * (vec3(dot(r, r)) - r * r);
    off -= mi * vec3(r.x * r.y, r.x * r.z, r.y * r.z);
  }
  q = workgroup_sum3(q);
  l = workgroup_sum3(l);
  diag = workgroup_sum3(diag);
  off = workgroup_sum3(off);
  mat3 inertia = mat3(diag.x, off.x, off.y, off.x, diag.y, off.z, off.y, off.z, diag.z);
  float det = determinant(inertia), scale = diag.x + diag.y + diag.z;
  lin = q / m;
  ang = det > 1e-9 * scale * scale * scale ? inverse(inertia) * l : vec3(0.0);
}

// Step 2: Diziol 2011 surface volume conservation, a hard projection of
// C = V - k V0 with weights that spare colliding particles (freedom).
void conserve(fl_gpu_body b, float target)
{
  uint first = b.first_particle, end = b.first_particle + b.particle_count, lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  float V = body_volume(b);
  for (uint i = first + lid; i < end; i += wg) {
    uint n;
    vec3 g = volume_gradient(i, n);
    scratch[i] = vec4(g, local_measure(b, i)); // w: r_i, what the local weight grows with
  }
  phase_barrier();
  bool local_weights = b.conservation == FL_CONSERVE_LOCAL;
  float sigma = 0.0, free_count = 0.0;
  for (uint i = first + lid; i < end; i += wg) {
    uint n = tri_first[i + 1u] - tri_first[i];
    // Spare the particles the last contacts pass flagged (other bodies too) and fade out
    // near colliders (freedom), global and local weights alike.
    float f = n == 0u || contact[i] != 0u ? 0.0 : freedom(pos[i].xyz, b.contact_radius);
    float s = 0.0;
    if (f > 0.0) { // Laplacian-smoothed displacement over the triangle neighbours
      float sum = scratch[i].w;
      for (uint e = tri_first[i]; e < tri_first[i + 1u]; e++) {
        uint t = tri_items[e];
        sum += scratch[tris[3u * t]].w + scratch[tris[3u * t + 1u]].w + scratch[tris[3u * t + 2u]].w - scratch[i].w;
      }
      s = f * sum / float(1u + 2u * n);
    }
    weights[i] = vec4(s, f, 0.0, 0.0);
    sigma += s;
    free_count += f;
  }
  sigma = workgroup_sum(sigma);
  free_count = workgroup_sum(free_count);
  if (!(free_count > 0.0)) { // uniform: no weights, so no velocity correction either
    for (uint i = first + lid; i < end; i += wg) scratch[i].w = 0.0;
    return;
  }
  float alpha = b.local_alpha, uniform_weight = 1.0 / free_count;
  float S = 0.0;
  for (uint i = first + lid; i < end; i += wg) {
    vec4 w = weights[i];
    float omega = 0.0;
    if (w.y > 0.0) {
      float l = sigma > 0.0 ? w.x / sigma : w.y * uniform_weight;
      omega = local_weights ? (1.0 - alpha) * l + alpha * w.y * uniform_weight : w.y * uniform_weight;
    }
    float W = omega * pos[i].w;
    weights[i].zw = vec2(W, omega);
    scratch[i].w = W; // kept for the velocity correction (the smoothing read .w before workgroup_sum)
    vec3 g = scratch[i].xyz;
    S += W * dot(g, g);
  }
  S = workgroup_sum(S);
  if (!(S > 0.0)) return;
  // Local weights: the correction's direction is d_i = W_i g_i - (lin + ang x (x_i - x_cm)) for
  // unpinned particles, and S = sum g_i . d_i its volume change (a rotation changes it to second
  // order, pinned particles a little); the rigid part is kept where that leaves at least half.
  vec3 x_cm = vec3(0.0), lin = vec3(0.0), ang = vec3(0.0);
  if (local_weights) {
    local_rigid_part(b, S, uniform_weight, x_cm, lin, ang);
    float Sd = 0.0;
    for (uint i = first + lid; i < end; i += wg)
      if (pos[i].w > 0.0) Sd += dot(scratch[i].xyz, weights[i].z * scratch[i].xyz - lin - cross(ang, pos[i].xyz - x_cm));
    Sd = workgroup_sum(Sd);
    if (Sd > 0.5 * S) S = Sd;
    else lin = ang = vec3(0.0);
  }
  float k = (V - target) / S;
  for (uint i = first + lid; i < end; i += wg) {
    vec3 d = weights[i].z * scratch[i].xyz;
    if (pos[i].w > 0.0) d -= lin + cross(ang, pos[i].xyz - x_cm);
    pos[i].xyz -= k * d;
    // The share 1 - f of the uniform correction that the weight spared is the gas pushing on a
    // contact, which the contact would push back; the collider contacts count it as normal load
    // for their friction (contacts.comp; softbody_spec.h, CONTACT LOAD).
    load[i].xyz -= (1.0 - weights[i].y) * uniform_weight * pos[i].w * k * scratch[i].xyz;
  }
}

// Diziol's velocity correction: dV/dt = sum_i g_i . v_i = 0, projected with the
// weights W_i of the last conservation (scratch.w): v_i -= W_i (sum_j g_j . v_j) g_i / S.
void velocity_correct(fl_gpu_body b)
{
  uint first = b.first_particle, end = b.first_particle + b.particle_count, lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  float rate = 0.0, S = 0.0;
  for (uint i = first + lid; i < end; i += wg) {
    uint n;
    vec3 g = volume_gradient(i, n);
    scratch[i].xyz = g;
    rate += dot(g, vel[i].xyz);
    S += scratch[i].w * dot(g, g);
  }
  rate = workgroup_sum(rate);
  S = workgroup_sum(S);
  if (!(S > 0.0)) return;
  float k = rate / S;
  for (uint i = first + lid; i < end; i += wg) vel[i].xyz -= scratch[i].w * k * scratch[i].xyz;
}

void main()
{
  uint body = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (body >= pc.count) return; // uniform over the workgroup
  fl_gpu_body b = bodies[body];
  float target = b.rest_volume * b.pressure;
  if (pc.body_pass == FL_BODY_PASS_VELOCITY) {
    if (b.velocity_correction != 0u && b.conservation != FL_CONSERVE_NONE) velocity_correct(b);
    return;
  }
  if (pc.body_pass == FL_BODY_PASS_MEASURE) {
    float V = body_volume(b);
    if (gl_LocalInvocationID.x == 0u) {
      vec4 s = state[body];
      s.x = V;
      s.y = 0.0; // the next substep starts with lambda = 0
      if (pc.time >= b.measure_after) {
        s.z = min(s.z, V / target);
        s.w = max(s.w, V / target);
      }
      state[body] = s;
    }
    return;
  }
  if (b.overpressure != 0u) overpressure(body, b, target);
  if (b.conservation != FL_CONSERVE_NONE) {
    phase_barrier();
    conserve(b, target);
  }
}
