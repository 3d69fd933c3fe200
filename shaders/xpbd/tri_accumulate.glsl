// xpbd/tri_accumulate.glsl: adds a contact's corrections to the fixed-point
// accumulators of its four particles (integer atomics: order-independent).
// The including file (tri_buffers.glsl) declares `accum` (ivec4 per particle) at FL_XPBD_B_ACCUM.
void fl_tri_accumulate(uint idx[4], float w[4], vec3 dx[4])
{
  for (int k = 0; k < 4; k++) {
    if (w[k] <= 0.0 || dx[k] == vec3(0.0)) continue;
    ivec3 q = fl_tri_fixed(dx[k]);
    atomicAdd(accum[idx[k]].x, q.x);
    atomicAdd(accum[idx[k]].y, q.y);
    atomicAdd(accum[idx[k]].z, q.z);
    atomicAdd(accum[idx[k]].w, 1);
  }
}
