// xpbd/gs_sweep.glsl: the main() of a Gauss-Seidel constraint kernel, written
// once for every family (distance, bend, tet, area). The including kernel
// includes this before its Pos buffer, which it declares FL_GS_COHERENT,
// and defines fl_gs_solve(c): constraint c's update (no two constraints of a
// colour share a particle). Two forms of one sweep, equal bit for bit:
//   - one dispatch per colour (the default): thread t solves pc.first + t,
//     t < pc.count; the host records a barrier between colours;
//   - FL_GS_SWEEP (the *_sweep kernels): one workgroup solves every colour in
//     a loop, pc.count colours from the family's offsets (FL_XPBD_B_COLOURS),
//     backward when pc.first is 1 (the symmetric solver's odd iterations);
//     colours are separated by a buffer memory barrier and a workgroup
//     barrier, so positions are coherent. One dispatch instead of one per
//     colour: what a small family costs on a CPU driver (about 0.04 ms a
//     dispatch and barrier on lavapipe; docs/PERFORMANCE.md, "One workgroup
//     per sweep").
#ifdef FL_GS_SWEEP
#define FL_GS_COHERENT coherent
layout(std430, binding = FL_XPBD_B_COLOURS) readonly buffer Colours { uint colour_first[]; };
#else
#define FL_GS_COHERENT
#endif

void fl_gs_solve(uint c);

void main()
{
#ifdef FL_GS_SWEEP
  if (gl_WorkGroupID.x != 0u || gl_WorkGroupID.y != 0u) return; // one workgroup: uniform
  uint colours = pc.count, wg = gl_WorkGroupSize.x;
  for (uint i = 0u; i < colours; i++) {
    uint col = pc.first != 0u ? colours - 1u - i : i;
    uint end = colour_first[col + 1u];
    for (uint c = colour_first[col] + gl_LocalInvocationID.x; c < end; c += wg) fl_gs_solve(c);
    memoryBarrierBuffer(); // this colour's positions are the next colour's reads
    barrier();
  }
#else
  uint t = fl_thread_index();
  if (t < pc.count) fl_gs_solve(pc.first + t);
#endif
}
