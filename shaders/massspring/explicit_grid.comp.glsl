// massspring/explicit_grid.comp: E (symplectic Euler, Kang 2018 section 3;
// ms_spec.h) on a regular grid, pc.steps steps in one dispatch (temporal
// blocking). The step is explicit.comp's: dv_i = h (g + w_i sum_j (kappa delta
// + c_d delta') xhat_ij), v' = v + dv, x' = x + h v'; pinned particles (w = 0)
// keep x and v.
//
// A workgroup owns a tile of pc.tile^2 particles. It loads the tile and a halo
// of pc.halo = (most steps) x reach cells around it (reach: 2 with bend
// springs, else 1) into shared memory once, runs the steps there, and writes
// the tile once, to the other buffer of the ping-pong pair (ms_gpu.c swaps the
// pair after the dispatch). Step s recomputes only the cells at least
// (s + 1) reach from the square's edge, whose neighbours are still exact, so
// the tile ends identical to pc.steps separate steps. Neighbours come by index
// offset (no links array), class by class in the order of ms_gpu.c's link
// lists, so each force is summed in explicit.comp's order.
//
// The divergence check of check.comp runs inside, on every spring of the tile
// before each step and after the last: a workgroup that finds a non-finite
// position or a strain above pc.divergence_strain sets the status flag and
// freezes its own tile from the next step on (v = 0, x kept), as one dispatch
// per step would; the other tiles freeze at the next dispatch, up to
// pc.steps - 1 steps later than with one dispatch per step. An object frozen
// before the dispatch moves nothing (v = 0).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "buffers.glsl"

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;  // FL_MS_GRID_WORKGROUP (ms_gpu.c)
layout(push_constant) uniform Push { fl_ms_grid_push pc; };
layout(std430, binding = FL_MS_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_MS_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_STATUS) buffer Status { uint status[]; };
layout(std430, binding = FL_MS_B_POS_OUT) writeonly buffer PosOut { vec4 pos_out[]; };
layout(std430, binding = FL_MS_B_VEL_OUT) writeonly buffer VelOut { vec4 vel_out[]; };

const int SIDE = FL_MS_GRID_SIDE;  // the square: one thread a cell (FL_MS_GRID_WORKGROUP = SIDE^2)

// x and v of the square (tile and halo), cell (a, b) at b * SIDE + a: 32 bytes a cell (w unused:
// llvmpipe gathers a vec4 as one load, three floats as three)
shared vec4 sp[SIDE * SIDE], sq[SIDE * SIDE];
shared uint s_bad;  // this tile diverged (or the object was frozen already)

vec3 x_at(int c) { return sp[c].xyz; }
vec3 v_at(int c) { return sq[c].xyz; }
#define FL_MS_GRID_STRIDE SIDE
#include "grid_force.glsl"

void main()
{
  uint tiles_y = (pc.ny + pc.tile - 1u) / pc.tile;
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (tile >= pc.tiles_x * tiles_y) return;  // the whole workgroup: before any barrier
  int halo = int(pc.halo), reach = int(pc.classes >= (1u << FL_MS_CLASS_X2)) + 1;
  int c = int(gl_LocalInvocationIndex);
  ivec2 a = ivec2(c % SIDE, c / SIDE);
  ivec2 g = ivec2(tile % pc.tiles_x, tile / pc.tiles_x) * int(pc.tile) - halo + a;
  bool here = inside(g), own = here && within(a, halo, halo + int(pc.tile));
  uint k = here ? uint(g.y) * pc.nx + uint(g.x) : 0u;
  if (c == 0) s_bad = status[FL_MS_STATUS_DIVERGED];
  vec4 p = here ? pos[k] : vec4(0.0);
  vec3 x = p.xyz, v = here ? vel[k].xyz : vec3(0.0);
  sp[c] = vec4(x, 0.0), sq[c] = vec4(v, 0.0);
  barrier();
  bool frozen = s_bad != 0u;  // the same in every thread: read after the barrier, written before it

  for (uint s = 0u; s < pc.steps && !frozen; s++) {
    int lo = int(s + 1u) * reach;  // the cells whose neighbours are still exact
    bool live = here && within(a, lo, SIDE - lo), bad = false;
    vec3 xn = x, vn = v;
    if (live) {
      vec3 f = spring_force(c, g, x, v, bad);
      bad = own && (bad || any(isnan(x)) || any(isinf(x)));  // the tile's own check of this state
      if (p.w != 0.0) {
        vn += pc.h * (pc.gravity + p.w * f);
        xn += pc.h * vn;
      }
    }
    if (bad) atomicOr(s_bad, 1u);
    barrier();
    frozen = s_bad != 0u;  // a divergence in the state before this step: v = 0, x kept, from now on
    if (live) {
      x = frozen ? x : xn;
      v = frozen ? vec3(0.0) : vn;
      sp[c] = vec4(x, 0.0), sq[c] = vec4(v, 0.0);
    }
    barrier();
  }

  // the check of the state after the last step; then the tile goes out
  bool bad = false;
  if (own) {
    spring_force(c, g, x, v, bad);
    bad = bad || any(isnan(x)) || any(isinf(x));
    pos_out[k] = vec4(x, p.w);
    vel_out[k] = frozen ? vec4(0.0) : vec4(v, 0.0);
  }
  if (bad) atomicOr(s_bad, 1u);
  barrier();
  if (c == 0 && s_bad != 0u) atomicOr(status[FL_MS_STATUS_DIVERGED], 1u);
}
