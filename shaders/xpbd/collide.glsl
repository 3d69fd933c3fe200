// xpbd/collide.glsl: one particle's contacts with the colliders (through the common SDF interface) and
// the domain walls, with position-level static and kinetic friction (Macklin 2014; xpbd_spec.h step 5).
// Shared by xpbd/contacts (step 5) and xpbd/tri_apply_colliders (the colliders' priority over the
// averaged triangle contacts, docs/CLOTH.md); mirrored by src/sim/xpbd/collide_cpu.c. Include after sdf.glsl,
// with the push constant `pc` declared.
#ifndef FL_XPBD_COLLIDE_GLSL
#define FL_XPBD_COLLIDE_GLSL

// Pushes x out by depth along n, then friction against a surface moving at v_c: D = (x - prev) - h v_c,
// D_t its tangential part, |D_t| < mu_s depth: cancel it; else shorten it by mu_k depth. The friction
// depth also counts u's part pushing into the surface (a body's contact load; zero for cloth).
void fl_resolve_contact(inout vec3 x, vec3 x_prev, vec3 n, float depth, vec3 u, vec3 v_c, float mu_s, float mu_k,
                        float h)
{
  x += n * depth;
  depth += max(0.0, -dot(u, n));
  vec3 D = (x - x_prev) - h * v_c;
  vec3 Dt = D - dot(D, n) * n;
  float len = length(Dt);
  if (len < mu_s * depth) x -= Dt;
  else if (len > 0.0) x -= Dt * min(mu_k * depth / len, 1.0);
}

// Moves x (of object o, radius half its thickness) out of every collider, then out of the domain's walls;
// true when it touched any of them.
bool fl_collide(inout vec3 x, vec3 x_prev, fl_gpu_xpbd_object o, vec3 u)
{
  bool touched = false;
  float r = 0.5 * o.thickness, h = pc.h, t = pc.time;
  for (uint c = 0u; c < pc.collider_count; c++) {
    fl_gpu_collider col = colliders[c];
    float d = fl_collider_sdf(col, x, t) - r;
    if (d < 0.0) {
      touched = true;
      float f = col.friction;
      fl_resolve_contact(x, x_prev, fl_collider_normal_select(col, x, t, pc.tetrahedral_normals != 0u), -d, u,
                         fl_collider_velocity(col, x, t), sqrt(o.static_friction * f), sqrt(o.kinetic_friction * f),
                         h);
    }
  }
  const vec3 axes[3] = vec3[](vec3(1, 0, 0), vec3(0, 1, 0), vec3(0, 0, 1));
  float mu_s = sqrt(o.static_friction), mu_k = sqrt(o.kinetic_friction);
  for (int a = 0; a < 3; a++) {
    vec3 n = axes[a];
    float lo = dot(x, n) - (dot(pc.domain_min, n) + r);
    if (lo < 0.0) fl_resolve_contact(x, x_prev, n, -lo, u, vec3(0.0), mu_s, mu_k, h);
    float hi = (dot(pc.domain_max, n) - r) - dot(x, n);
    touched = touched || lo < 0.0 || hi < 0.0;
    if (hi < 0.0) fl_resolve_contact(x, x_prev, -n, -hi, u, vec3(0.0), mu_s, mu_k, h);
  }
  return touched;
}
#endif
