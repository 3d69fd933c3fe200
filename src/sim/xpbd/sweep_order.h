/* sim/xpbd/sweep_order: the order of the Gauss-Seidel sweeps of the XPBD
 * solve (solver "coloring"), shared by the GPU recording (xpbd.c) and the CPU
 * reference (xpbd_cpu.c) so that both take the same order (docs/CLOTH.md,
 * "Symmetric sweeps").
 *
 * Each projection conserves angular momentum to first order, but a sweep's
 * total correction carries the sum over pairs (later, earlier) of
 * dx_later x dx_earlier, of a fixed sign for a fixed order, which spun up
 * bodies whose constraints do not all hold at rest. So the iterations of a
 * substep alternate (symmetric Gauss-Seidel): a sweep forward runs the
 * families distance, area, bend, tet, each by its colours first to last; a
 * sweep backward runs tet, bend, area, distance, each by its colours last to
 * first. Both end with the body volumes (overpressure, volume conservation):
 * they keep the last word, as before, so a hard gas holds its target volume
 * (unit.test_softbody_cpu balloon_inflates: 1.26 V0 for 1.5 V0 with them
 * first in the backward sweep). Every substep starts forward: alternating the
 * substeps too made an over-constrained balloon (a hard gas inflated against
 * its edges) jump between the two directions' end states every substep, a
 * vibration larger than the spin it removed. Jacobi keeps one order. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

/* The stages of a sweep forward. */
enum { FL_SWEEP_DISTANCE, FL_SWEEP_AREA, FL_SWEEP_BEND, FL_SWEEP_TET, FL_SWEEP_BODIES, FL_SWEEP_STAGES };

/* True when iteration `it` of a substep sweeps backward. */
static inline bool fl_sweep_backward(uint32_t it) { return (it & 1u) != 0; }

/* The stage that runs `i`-th in a sweep: the families reversed backward, the bodies last. */
static inline uint32_t fl_sweep_stage(uint32_t i, bool backward)
{
  return backward && i < FL_SWEEP_BODIES ? FL_SWEEP_BODIES - 1 - i : i;
}

/* The colour that runs `i`-th of `count` in a family's sweep. */
static inline uint32_t fl_sweep_colour(uint32_t i, uint32_t count, bool backward)
{
  return backward ? count - 1 - i : i;
}
