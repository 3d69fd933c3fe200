/* sim/xpbd/sweep_order: the colour order of the Gauss-Seidel sweeps of the
 * XPBD solve, shared by the GPU recording (xpbd.c) and the CPU reference
 * (xpbd_cpu.c) so that both take the same order (docs/CLOTH.md, "Symmetric
 * colour sweeps").
 *
 * Each projection conserves angular momentum to first order, but a family's
 * sweep, colour after colour, carries the sum over pairs (later, earlier) of
 * dx_later x dx_earlier: of one sign for one colour order, so bodies whose
 * constraints do not all hold at rest spin up under "coloring". Under
 * "symmetric" the iterations of a substep alternate the order of every
 * family's colours (first to last, then last to first: symmetric
 * Gauss-Seidel), so that sign flips from one sweep to the next. Kept as they
 * are, measured (docs/CLOTH.md): the order of the families (distance, area,
 * bend, tet, then the body volumes, which keep the last word, so a hard gas
 * holds its target volume), and the first sweep of every substep (forward;
 * alternating the substeps too made an over-constrained balloon vibrate). Not
 * the default: the balloons scene's squeezed balloons then settle slower
 * (scene.balloons.settle). */
#pragma once
#include "scene/scene.h"

#include <stdbool.h>
#include <stdint.h>

/* True when iteration `it` of a substep runs the colours last to first. */
static inline bool fl_sweep_backward(fl_solver solver, uint32_t it)
{
  return solver == FL_SOLVER_SYMMETRIC && (it & 1u) != 0;
}

/* The colour that runs `i`-th of `count` in a family's sweep. */
static inline uint32_t fl_sweep_colour(uint32_t i, uint32_t count, bool backward)
{
  return backward ? count - 1 - i : i;
}
