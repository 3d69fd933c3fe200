/* tests/unit/test_coupling_schedule: where the coupled XPBD substeps go among the snow's
 * (fl_coupling_xpbd_substeps, docs/COUPLING.md, substep order). sim.coupling_substeps "snow":
 * every snow substep couples and holds ceil(substeps / snow) XPBD substeps cutting its time.
 * "xpbd": the snow substeps are cut into exactly `substeps` contiguous runs of near-equal length,
 * each with one XPBD substep covering its whole time, coupled in the run's last snow substep (the
 * others hold), so XPBD keeps the scene's count, its substeps tile the frame and the frame ends
 * coupled; with fewer snow substeps than that it falls back to "snow". */
#include "test.h"

#include "sim/coupling/coupling.h"

static void test_snow_mode(void)
{
  for (uint32_t snow = 1; snow <= 40; snow++)
    for (uint32_t substeps = 1; substeps <= 48; substeps++) {
      uint32_t m_expect = substeps > snow ? (substeps + snow - 1) / snow : 1, total = 0;
      for (uint32_t k = 0; k < snow; k++) {
        uint32_t first, of, run[2];
        uint32_t m = fl_coupling_xpbd_substeps(FL_COUPLING_SUBSTEPS_SNOW, snow, substeps, k, &first, &of, run);
        ENSURE_MSG(m == m_expect && first == k * m && of == snow * m && run[0] == k && run[1] == k + 1,
                   "snow %u, substeps %u, k %u: m %u first %u of %u run [%u, %u)", snow, substeps, k, m, first,
                   of, run[0], run[1]);
        total += m;
      }
      ENSURE_MSG(total >= substeps, "snow %u: %u XPBD substeps, fewer than the scene's %u", snow, total, substeps);
    }
}

static void test_xpbd_mode_tiles_the_frame(void)
{
  for (uint32_t snow = 1; snow <= 40; snow++)
    for (uint32_t substeps = 1; substeps <= snow; substeps++) {
      uint32_t next_first = 0, covered = 0, shortest = snow, longest = 0;
      for (uint32_t k = 0; k < snow; k++) {
        uint32_t first, of, run[2];
        uint32_t m = fl_coupling_xpbd_substeps(FL_COUPLING_SUBSTEPS_XPBD, snow, substeps, k, &first, &of, run);
        /* k lies in its run, which starts right where the last one ended and is the next XPBD substep */
        ENSURE_MSG(m <= 1 && run[0] <= k && k < run[1] && run[0] == covered && first == next_first &&
                       of == substeps,
                   "snow %u, substeps %u, k %u: m %u, first %u (next %u) of %u, run [%u, %u), covered %u", snow,
                   substeps, k, m, first, next_first, of, run[0], run[1], covered);
        ENSURE_MSG(m == (k + 1 == run[1]), "snow %u, substeps %u, k %u: m %u in run [%u, %u) (coupled in its last)",
                   snow, substeps, k, m, run[0], run[1]);
        if (!m) continue;
        uint32_t len = run[1] - run[0];
        shortest = len < shortest ? len : shortest;
        longest = len > longest ? len : longest;
        covered = run[1];
        next_first++;
      }
      ENSURE_MSG(next_first == substeps && covered == snow,
                 "snow %u, substeps %u: %u XPBD substeps covering %u snow substeps", snow, substeps, next_first,
                 covered);
      ENSURE_MSG(longest - shortest <= 1, "snow %u, substeps %u: runs of %u to %u snow substeps", snow, substeps,
                 shortest, longest);
    }
}

static void test_xpbd_mode_fewer_snow_substeps(void)
{
  /* 4 snow substeps, 6 XPBD: each snow substep couples and holds 2 (as "snow") */
  for (uint32_t k = 0; k < 4; k++) {
    uint32_t first, of, run[2];
    uint32_t m = fl_coupling_xpbd_substeps(FL_COUPLING_SUBSTEPS_XPBD, 4, 6, k, &first, &of, run);
    ENSURE_MSG(m == 2 && first == 2 * k && of == 8 && run[0] == k && run[1] == k + 1,
               "k %u: m %u first %u of %u run [%u, %u)", k, m, first, of, run[0], run[1]);
  }
}

static const fl_test_case cases[] = {
    {"snow_mode", test_snow_mode},
    {"xpbd_mode_tiles_the_frame", test_xpbd_mode_tiles_the_frame},
    {"xpbd_mode_fewer_snow_substeps", test_xpbd_mode_fewer_snow_substeps},
};
FL_TEST_MAIN(cases)
