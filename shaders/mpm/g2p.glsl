// mpm/g2p.glsl, the kernels mpm/g2p (any materials), g2p_pic_flip and
// g2p_apic (one transfer each, mpm.glsl FL_MPM_IS_APIC): one thread per particle (snow_spec.h step 3;
// Stomakhin 2013 steps 7-9): the velocity from the grid (PIC/FLIP blend, or APIC with the
// affine matrix C of MLS-MPM, Hu 2018), the velocity gradient, the elastic
// deformation update F~ = (I + dt grad v) F_E with its singular values
// clamped to [1 - theta_c, 1 + theta_s] (the rest goes to F_P, kept as
// J_P = det F_P), the hardened fixed-corotated stress K = V0 (dPsi/dF_E) F_E^T
// for the next P2G, particle collisions, advection and the domain clamp, and
// the frame's stats (max speed, J_P range, clamped and non-finite counts).
// CPU reference: src/sim/mpm/snow_cpu.c (fl_snow_cpu_g2p).
#define FL_COLLIDERS_BINDING 7 // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING 10 // the same buffer, for the tail (common/sdf.glsl)
#include "compute.glsl"
#include "flurry_shared.h"
#define FL_MPM_COLLIDERS
layout(std430, binding = 9) readonly buffer BlockHash { uint block_hash[]; };
#define FL_MPM_BLOCK_HASH
#include "mpm.glsl"
#include "svd3.glsl"

layout(std430, binding = 0) buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) buffer Velocities { vec4 vel[]; };
layout(std430, binding = 2) buffer ElasticF { vec4 fe[]; };
layout(std430, binding = 3) writeonly buffer Stress { vec4 stress[]; };
layout(std430, binding = 4) buffer Affine { vec4 affine[]; };
layout(std430, binding = 5) readonly buffer GridVelocity { vec4 gridv[]; };
layout(std430, binding = 6) buffer Stats { uint stats[]; };
layout(std140, binding = 8) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

// gridv[2i + k], zero for a node whose block is not allocated (the grid ran out of blocks).
vec4 fl_gridv(uint i, uint k) { return i == FL_SNOW_NO_NODE ? vec4(0.0) : gridv[2u * i + k]; }

bool finite3(vec3 v) { return !any(isnan(v)) && !any(isinf(v)); }

// The workgroup's stats, reduced in shared memory: one global atomic per word per workgroup.
shared uint s_max_speed, s_jp_min, s_jp_max, s_clamped, s_nonfinite;

// One particle's step; returns its stats contributions.
void step_particle(uint p, out float speed, out float jp, out bool was_clamped, out bool bad)
{
  vec4 xm = pos[p], vv = vel[p];
  vec3 x = xm.xyz, v_old = vv.xyz;
  float dt = pc.dt, inv_h = pc.inv_h, V0 = vv.w;
  vec4 f0 = fe[3u * p], f1 = fe[3u * p + 1u], f2 = fe[3u * p + 2u];
  uint mi = uint(f1.w);
  fl_snow_material mat = materials[mi];
  bool apic = FL_MPM_IS_APIC(mat.transfer);

  // Grid to particle: velocity and its gradient.
  fl_mpm_stencil s = fl_mpm_stencil_of(x, pc, apic);
  vec3 v_pic = vec3(0.0), dv = vec3(0.0);
  // FLIP's part per node: a node that a soft body's or balloon's surface reaches is marked (gridv[2i + 1].w = 1,
  // coupling/surface_weights) and gives PIC; reached = sum w_i over the marked nodes, kept = sum w_i v_i^n
  // over the others
  float reached = 0.0;
  vec3 kept = vec3(0.0);
  mat3 G = mat3(0.0);
  if (apic) {
    FL_MPM_FOR_STENCIL(3, {
      float w = fl_mpm_weight(s, a, b, c);
      vec3 vi = fl_gridv(fl_mpm_node(s, a, b, c, pc), 0u).xyz;
      v_pic += w * vi;
      G += outerProduct(w * vi, fl_mpm_node_position(s, a, b, c, pc) - x);
    })
  } else {
    FL_MPM_FOR_STENCIL(4, {
      float w = fl_mpm_weight(s, a, b, c);
      uint i = fl_mpm_node(s, a, b, c, pc);
      vec3 vi = fl_gridv(i, 0u).xyz;
      vec4 vn = fl_gridv(i, 1u);
      v_pic += w * vi;
      G += outerProduct(vi, fl_mpm_weight_gradient(s, a, b, c, inv_h));
      dv += w * (vi - vn.xyz);
      reached += w * vn.w;
      kept += (w - w * vn.w) * vn.xyz;
    })
  }
  vec3 v;
  if (apic) {
    G *= 4.0 * inv_h * inv_h;  // C = grad v (MLS-MPM)
    v = v_pic;
    mat3 Ct = transpose(G);
    affine[3u * p] = vec4(Ct[0], 0.0);
    affine[3u * p + 1u] = vec4(Ct[1], 0.0);
    affine[3u * p + 2u] = vec4(Ct[2], 0.0);
  } else {
    float alpha = mat.flip;
    if (reached > 0.0)  // PIC at the marked nodes, FLIP at the others (docs/COUPLING.md, "PIC at closed surfaces")
      v = v_pic + alpha * ((1.0 - reached) * v_old - kept);
    else
      v = (1.0 - alpha) * v_pic + alpha * (v_old + dv);
  }

  // Deformation: F~ = (I + dt grad v) F_E, clamp its singular values (plasticity).
  mat3 F = transpose(mat3(f0.xyz, f1.xyz, f2.xyz));
  F = (mat3(1.0) + dt * G) * F;
  mat3 U, V;
  vec3 sig;
  fl_svd3(F, U, sig, V);
  vec3 sc = clamp(sig, vec3(mat.stretch_min), vec3(mat.stretch_max));
  bool clamped = sc != sig;
  float J_P = f0.w * abs(sig.x * sig.y * sig.z) / (sc.x * sc.y * sc.z);  // |.|: an inverted F~ is clamped upright
  F = U * mat3(sc.x, 0, 0, 0, sc.y, 0, 0, 0, sc.z) * transpose(V);

  // Hardened fixed-corotated stress for the next P2G: K = V0 (dPsi/dF_E) F_E^T.
  float k = exp(min(mat.xi * (1.0 - J_P), log(FL_SNOW_HARDENING_MAX)));
  float mu = mat.mu0 * k, lambda = mat.lambda0 * k, J_E = sc.x * sc.y * sc.z;
  vec3 d = (sc - 1.0) * sc;
  mat3 K = V0 * (2.0 * mu * (U * mat3(d.x, 0, 0, 0, d.y, 0, 0, 0, d.z) * transpose(U)) +
                 mat3(lambda * (J_E - 1.0) * J_E));

  // Collisions, advection, the domain.
  v = fl_mpm_collide(x, v, mat.friction, pc);
  x = clamp(x + dt * v, pc.domain_min, pc.domain_max);

  mat3 Ft = transpose(F);
  pos[p] = vec4(x, xm.w);
  vel[p] = vec4(v, V0);
  fe[3u * p] = vec4(Ft[0], J_P);
  fe[3u * p + 1u] = vec4(Ft[1], f1.w);
  fe[3u * p + 2u] = vec4(Ft[2], clamped ? 1.0 : 0.0);
  vec4 k0 = vec4(K[0][0], K[1][1], K[2][2], K[1][0]), k1 = vec4(K[2][0], K[2][1], 0.0, f1.w);
  stress[2u * p] = k0;
  stress[2u * p + 1u] = k1;
#ifdef FL_G2P2G  // the fused kernel (mpm/g2p2g.glsl): the next substep's P2G from the state just written
  fl_g2p2g_scatter(x, v, xm.w, k0, k1, G, apic);
#endif

  bad = !finite3(x) || !finite3(v) || isnan(J_P) || isinf(J_P);
  speed = bad ? 0.0 : length(v);
  jp = J_P;
  was_clamped = clamped;
}

void main()
{
  uint p = fl_thread_index();
  if (gl_LocalInvocationIndex == 0u) {
    s_max_speed = 0u;
    s_jp_min = floatBitsToUint(3.0e38);
    s_jp_max = 0u;
    s_clamped = 0u;
    s_nonfinite = 0u;
  }
  barrier();
  if (p < pc.count) {
    float speed, jp;
    bool was_clamped, bad;
    step_particle(p, speed, jp, was_clamped, bad);
    atomicMax(s_max_speed, floatBitsToUint(speed));
    if (!bad) {
      atomicMin(s_jp_min, floatBitsToUint(max(jp, 0.0)));
      atomicMax(s_jp_max, floatBitsToUint(max(jp, 0.0)));
    }
    if (was_clamped) atomicAdd(s_clamped, 1u);
    if (bad) atomicAdd(s_nonfinite, 1u);
  }
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    atomicMax(stats[FL_SNOW_STAT_MAX_SPEED], s_max_speed);
    atomicMin(stats[FL_SNOW_STAT_JP_MIN], s_jp_min);
    atomicMax(stats[FL_SNOW_STAT_JP_MAX], s_jp_max);
    if (s_clamped != 0u) atomicAdd(stats[FL_SNOW_STAT_CLAMPED], s_clamped);
    if (s_nonfinite != 0u) atomicAdd(stats[FL_SNOW_STAT_NONFINITE], s_nonfinite);
  }
}
