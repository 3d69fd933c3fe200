// mpm/density.glsl: the grid density at a particle, rho_p = sum_i m_i w_ip / h^3
// (Stomakhin 2013 step 2), with the particle's own weights. The including
// kernel declares `gridv` (vec4 per node pair, w of gridv[2i] = m_i) and the
// block hash (FL_MPM_BLOCK_HASH) before including it.
#ifndef FL_MPM_DENSITY_GLSL
#define FL_MPM_DENSITY_GLSL
#include "mpm.glsl"

float node_mass(uint i) { return i == FL_SNOW_NO_NODE ? 0.0 : gridv[2u * i].w; }

float fl_mpm_density(vec3 x, bool quadratic, fl_mpm_push pc)
{
  fl_mpm_stencil s = fl_mpm_stencil_of(x, pc, quadratic);
  float m = 0.0;
  if (quadratic) {
    FL_MPM_FOR_STENCIL(3, m += fl_mpm_weight(s, a, b, c) * node_mass(fl_mpm_node(s, a, b, c, pc)))
  } else {
    FL_MPM_FOR_STENCIL(4, m += fl_mpm_weight(s, a, b, c) * node_mass(fl_mpm_node(s, a, b, c, pc)))
  }
  float h = pc.h;
  return m / (h * h * h);
}
#endif
