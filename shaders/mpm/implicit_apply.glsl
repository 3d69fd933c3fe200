// mpm/implicit_apply.glsl: the Hessian-vector product of the semi-implicit
// solve (src/sim/mpm/snow_implicit.h), one thread per particle, a template
// included by implicit_apply_float.comp (float atomic add) and
// implicit_apply_cas.comp (compare-and-swap loop on the float bits), which
// define FL_HACC_TYPE and FL_HACC_ADD(word, value).
// For the mass-scaled vector z (bound as `vec`), u_j = z_j / sqrt(m_j) on free
// nodes and 0 on held ones (info[j] = 1 / sqrt(m_j) or 0: the projection), then
//   dF_p = (sum_j u_j g_jp^T) F_E,   hacc_i += V0 dP(F_E)[dF_p] F_E^T g_ip  (free i),
// i.e. hacc = H u, H = d2Phi/dx^2 of Stomakhin 2013 (Eq. 6 differentiated),
// g = grad w (cubic, PIC/FLIP particles) or (4/h^2) w (x_i - x_p) (quadratic,
// APIC particles: MLS-MPM, as P2G does). Skipped when the solve has stopped
// (converged or broken down) unless counts.w has FL_SNOW_CR_APPLY_ALWAYS.
// CPU reference: fl_snow_implicit_cpu_hessian (src/sim/mpm/snow_implicit_cpu.c).
#include "compute.glsl"
layout(std430, binding = 7) readonly buffer BlockHash { uint block_hash[]; };
#define FL_MPM_BLOCK_HASH
#include "mpm.glsl"
#include "implicit.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer ElasticF { vec4 fe[]; };
layout(std430, binding = 2) readonly buffer ParticleData { vec4 pd[]; };
layout(std430, binding = 3) readonly buffer NodeInfo { float info[]; };
layout(std430, binding = 4) readonly buffer Vector { vec4 vec[]; };
layout(std430, binding = 5) buffer HessianAcc { FL_HACC_TYPE hacc[]; };
layout(std430, binding = 6) readonly buffer Results { float results[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

// Stencil loops left rolled. Unrolled (FL_MPM_FOR_STENCIL) the two loops over both stencils took
// llvmpipe more than 10 s to compile at the first dispatch (with a cold shader cache: past the
// fence timeout); rolled, the first substep with the solve compiled in ~2 s more than an
// explicit one, and a warm substep ran no slower.
#define FL_IMPLICIT_FOR_STENCIL(width, BODY)                                                       \
  [[dont_unroll]] for (int c = 0; c < width; c++)[[dont_unroll]] for (int b = 0; b < width; b++)   \
      [[dont_unroll]] for (int a = 0; a < width; a++) { BODY; }

// The product for one particle with stencil width W (4: cubic grad w, 3: the MLS form).
#define FL_IMPLICIT_PRODUCT(W, GRADIENT)                                                           \
  {                                                                                                \
    mat3 G = mat3(0.0);                                                                            \
    FL_IMPLICIT_FOR_STENCIL(W, {                                                                   \
      uint i = fl_mpm_node(s, a, b, c, pc);                                                        \
      float scale = i == FL_SNOW_NO_NODE ? 0.0 : info[i];                                          \
      if (scale != 0.0) G += outerProduct(scale * vec[i].xyz, GRADIENT);                           \
    })                                                                                             \
    mat3 K = fl_snow_stress_differential(F, R, M, d4.x, d4.y, G * F) * transpose(F);               \
    FL_IMPLICIT_FOR_STENCIL(W, {                                                                   \
      uint i = fl_mpm_node(s, a, b, c, pc);                                                        \
      if (i != FL_SNOW_NO_NODE && info[i] != 0.0) {                                                \
        vec3 f = K * (GRADIENT);                                                                   \
        FL_HACC_ADD(4u * i, f.x);                                                                  \
        FL_HACC_ADD(4u * i + 1u, f.y);                                                             \
        FL_HACC_ADD(4u * i + 2u, f.z);                                                             \
      }                                                                                            \
    })                                                                                             \
  }

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  if ((pc.arg & FL_SNOW_CR_APPLY_ALWAYS) == 0u &&
      !(results[FL_SNOW_CR_SLOT_STOP] == 0.0 &&
        results[FL_SNOW_CR_SLOT_RR] > float(FL_SNOW_CR_TOLERANCE * FL_SNOW_CR_TOLERANCE) * results[FL_SNOW_CR_SLOT_BB]))
    return;
  vec3 x = pos[p].xyz;
  uint o = FL_SNOW_CR_PARTICLE_VEC4S * p;
  vec4 d0 = pd[o], d1 = pd[o + 1u], d2 = pd[o + 2u], d3 = pd[o + 3u], d4 = pd[o + 4u];
  bool apic = d4.z != 0.0;
  mat3 F = transpose(mat3(fe[3u * p].xyz, fe[3u * p + 1u].xyz, fe[3u * p + 2u].xyz));
  mat3 R = transpose(mat3(d0.xyz, d1.xyz, d2.xyz));
  mat3 M = mat3(d0.w, d3.x, d3.y, d3.x, d1.w, d3.z, d3.y, d3.z, d2.w);
  fl_mpm_stencil s = fl_mpm_stencil_of(x, pc, apic);
  float inv_h = pc.inv_h, mls = 4.0 * inv_h * inv_h;
  if (apic)
    FL_IMPLICIT_PRODUCT(3, (mls * fl_mpm_weight(s, a, b, c)) * (fl_mpm_node_position(s, a, b, c, pc) - x))
  else
    FL_IMPLICIT_PRODUCT(4, fl_mpm_weight_gradient(s, a, b, c, inv_h))
}
