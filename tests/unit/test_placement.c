/* tests/unit/test_placement.c: the substep-resolution limit (sim/common/placement.h):
 * fl_substep_resolution_most is the largest substep count that
 * fl_check_substep_resolution passes (that count passes, one more fails; 0 when
 * even one fails, as at 1e5 m), at coordinates from 0.3 m to 1e5 m and several
 * frame lengths; no gravity or points
 * at the origin allow any count; and the quiet.coupled_far scene's sheet at
 * 4000.5 m resolves exactly 4 substeps of 1/60 s (the float spacing there is
 * 2^-12 m: half of it is g h^2 at h = 3.53 ms, 4.7 substeps). */
#include "test.h"

#include "core/log.h"
#include "sim/common/placement.h"

#include <stdint.h>

static fl_sim_desc sim_with(float dt, uint32_t substeps)
{
  fl_sim_desc s = {.dt = dt, .substeps = substeps, .gravity = {0.0f, -9.81f, 0.0f}};
  return s;
}

static void test_most_is_the_check_edge(void)
{
  static const float coords[] = {0.3f, 1.0f, 4000.5f, 1e5f};
  static const float dts[] = {1.0f / 60.0f, 1.0f / 240.0f, 0.05f};
  for (size_t i = 0; i < sizeof coords / sizeof *coords; i++)
    for (size_t j = 0; j < sizeof dts / sizeof *dts; j++) {
      float p[1][4] = {{0.0f, coords[i], 0.0f, 1.0f}};
      fl_sim_desc s = sim_with(dts[j], 1);
      double far = 0;
      uint32_t most = fl_substep_resolution_most((const float(*)[4])p, 1, &s, &far);
      ENSURE_MSG(far == coords[i], "far %g at %g", far, (double)coords[i]);
      ENSURE_MSG(most < 1000000, "at %g m, dt %g: most %u", (double)coords[i], (double)dts[j], most);
      s.substeps = most;
      fl_error_clear();
      ENSURE_MSG(most == 0 || fl_check_substep_resolution((const float(*)[4])p, 1, &s), "at %g m, dt %g: %u fails: %s",
                 (double)coords[i], (double)dts[j], most, fl_error_message());
      s.substeps = most + 1;
      ENSURE_MSG(!fl_check_substep_resolution((const float(*)[4])p, 1, &s), "at %g m, dt %g: %u passes",
                 (double)coords[i], (double)dts[j], most + 1);
      fl_error_clear();
    }
}

static void test_any_count_without_gravity_or_extent(void)
{
  float p[1][4] = {{0.0f, 2.0f, 0.0f, 1.0f}}, origin[1][4] = {{0.0f, 0.0f, 0.0f, 1.0f}};
  fl_sim_desc s = sim_with(1.0f / 60.0f, 1), weightless = s;
  weightless.gravity[1] = 0.0f;
  double far = 0;
  ENSURE(fl_substep_resolution_most((const float(*)[4])p, 1, &weightless, &far) == UINT32_MAX);
  ENSURE(fl_substep_resolution_most((const float(*)[4])origin, 1, &s, &far) == UINT32_MAX);
}

static void test_coupled_far_sheet(void)
{
  float p[2][4] = {{-0.4f, 4000.5f, -0.4f, 1.0f}, {0.4f, 4000.5f, 0.4f, 1.0f}};
  fl_sim_desc s = sim_with(0.0166666667f, 4);
  double far = 0;
  ENSURE(fl_substep_resolution_most((const float(*)[4])p, 2, &s, &far) == 4);
  ENSURE(far == 4000.5);
}

static const fl_test_case cases[] = {
    {"most_is_the_check_edge", test_most_is_the_check_edge},
    {"any_count_without_gravity_or_extent", test_any_count_without_gravity_or_extent},
    {"coupled_far_sheet", test_coupled_far_sheet},
};
FL_TEST_MAIN(cases)
