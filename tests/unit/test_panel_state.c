/* tests/unit/test_panel_state: the UI panel's model (app/panel_state.h) with no
 * device: the sliders a scene offers, the override a slider writes loads back
 * as that value (through the scene's own checks), overrides of one key replace
 * each other, and the FLURRY_PANEL_CLICKS script parses or fails clearly;
 * and the mass-spring divergence shown (app/divergence_view.h): the scene's
 * step against the stability limit, labels that count resets. */
#include "test.h"

#include "app/divergence_view.h"
#include "app/panel_state.h"
#include "core/log.h"

#include <stdio.h>

static fl_scene g_scene, g_loaded;
static fl_panel_knob g_knobs[FL_PANEL_MAX_KNOBS];

static const fl_panel_knob *find(uint32_t n, const char *key)
{
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(g_knobs[i].key, key) == 0) return &g_knobs[i];
  return NULL;
}

/* Sets knob `key` of scene `name` to `v` and loads the scene with the override. */
static bool round_trip(const char *name, const char *key, float v)
{
  if (!fl_scene_load(name, NULL, 0, &g_scene)) return false;
  const fl_panel_knob *k = find(fl_panel_knobs(&g_scene, g_knobs, FL_PANEL_MAX_KNOBS), key);
  if (!k) return false;
  char set[FL_PANEL_SET_MAX];
  fl_panel_knob_override(k, v, set, sizeof set);
  const char *sets[] = {set};
  bool ok = fl_scene_load(name, sets, 1, &g_loaded);
  if (!ok) fprintf(stderr, "  %s: %s\n", set, fl_error_message());
  return ok;
}

static void test_scene_knobs(void)
{
  ENSURE(fl_scene_load("snow-variations", NULL, 0, &g_scene));
  uint32_t n = fl_panel_knobs(&g_scene, g_knobs, FL_PANEL_MAX_KNOBS);
  ENSURE(find(n, "sim.substeps") && find(n, "sim.substeps")->integer);
  ENSURE(!find(n, "sim.iterations")); /* snow has no XPBD iterations */
  const fl_panel_knob *tc = find(n, "objects.wet.theta_c");
  ENSURE(tc && find(n, "objects.wet.theta_s") && find(n, "objects.dry.xi"));
  ENSURE(tc->value >= tc->min && tc->value <= tc->max && tc->logarithmic);
  ENSURE(fl_scene_load("cloth", NULL, 0, &g_scene));
  n = fl_panel_knobs(&g_scene, g_knobs, FL_PANEL_MAX_KNOBS);
  ENSURE(find(n, "sim.iterations") && find(n, "objects.flag.stretch_compliance") &&
         find(n, "objects.flag.bend_compliance"));
  ENSURE(fl_scene_load("mass-spring", NULL, 0, &g_scene));
  n = fl_panel_knobs(&g_scene, g_knobs, FL_PANEL_MAX_KNOBS);
  uint32_t stiffness = 0;
  for (uint32_t i = 0; i < n; i++) stiffness += strstr(g_knobs[i].key, ".stiffness") != NULL;
  ENSURE(stiffness >= 2);
  ENSURE(fl_panel_knobs(&g_scene, g_knobs, 1) == 1); /* never past `max` */
}

static void test_override_round_trip(void)
{
  ENSURE(round_trip("snow-variations", "objects.wet.theta_c", 0.031f));
  ENSURE_NEAR(g_loaded.objects[3].snow.theta_c, 0.031f, 1e-7);
  ENSURE(round_trip("cloth", "sim.substeps", 7.4f));
  ENSURE(g_loaded.sim.substeps == 7);
  ENSURE(round_trip("cloth", "objects.flag.stretch_compliance", 2.5e-5f));
  ENSURE_NEAR(g_loaded.objects[0].cloth.stretch_compliance, 2.5e-5f, 1e-12);
  /* a vector knob rewrites one component and keeps the others */
  fl_panel_knob wind = {.key = "objects.flag.wind", .component = 0, .vector = {1, 2, 3}};
  char set[FL_PANEL_SET_MAX];
  fl_panel_knob_override(&wind, -4.5f, set, sizeof set);
  ENSURE(strcmp(set, "objects.flag.wind=[-4.5,2,3]") == 0);
  const char *sets[] = {set};
  ENSURE(fl_scene_load("cloth", sets, 1, &g_loaded));
  ENSURE(g_loaded.objects[0].cloth.wind[0] == -4.5f && g_loaded.objects[0].cloth.wind[2] == 3.0f);
  /* a value the scene refuses is a clear error, not a silent clamp */
  fl_panel_knob bad = {.key = "objects.wet.theta_c", .component = -1};
  fl_panel_knob_override(&bad, 2.0f, set, sizeof set);
  ENSURE(!fl_scene_load("snow-variations", sets, 1, &g_loaded) && strstr(fl_error_message(), "theta_c"));
  fl_error_clear();
}

static void test_overrides_replace(void)
{
  static fl_panel_state s;
  memset(&s, 0, sizeof s);
  fl_panel_state_put(&s, "sim.substeps=4");
  fl_panel_state_put(&s, "sim.substeps_x=1");
  fl_panel_state_put(&s, "sim.substeps=9");
  ENSURE(s.set_count == 2);
  ENSURE(strcmp(s.sets[0], "sim.substeps=9") == 0 && strcmp(s.sets[1], "sim.substeps_x=1") == 0);
  for (int i = 0; i < 40; i++) { /* full: the rest are dropped, never written past the table */
    char set[32];
    snprintf(set, sizeof set, "k%d=1", i);
    fl_panel_state_put(&s, set);
  }
  ENSURE(s.set_count == FL_PANEL_MAX_KNOBS);
}

static void test_click_script(void)
{
  char target[96];
  float fx = -1;
  const char *script = "3:pause,10:knob:sim.substeps@0.25,12:scene:cloth";
  ENSURE(fl_panel_script_at(script, 3, target, sizeof target, &fx) == 1 && strcmp(target, "pause") == 0 && fx == 0.5f);
  ENSURE(fl_panel_script_at(script, 10, target, sizeof target, &fx) == 1 &&
         strcmp(target, "knob:sim.substeps") == 0 && fx == 0.25f);
  ENSURE(fl_panel_script_at(script, 12, target, sizeof target, &fx) == 1 && strcmp(target, "scene:cloth") == 0);
  ENSURE(fl_panel_script_at(script, 4, target, sizeof target, &fx) == 0);
  ENSURE(fl_panel_script_at("x:pause", 0, target, sizeof target, &fx) == -1 &&
         strstr(fl_error_message(), "FLURRY_PANEL_CLICKS: expected FRAME:WIDGET"));
  fl_error_clear();
  ENSURE(fl_panel_script_at("3:", 0, target, sizeof target, &fx) == -1 && strstr(fl_error_message(), "widget name"));
  fl_error_clear();
  ENSURE(fl_panel_script_at("3:step@2", 0, target, sizeof target, &fx) == -1 && strstr(fl_error_message(), "0..1"));
  fl_error_clear();
}

static void test_divergence_view(void)
{
  ENSURE(fl_scene_load("mass-spring", NULL, 0, &g_scene));
  const fl_mass_spring_desc *e = &g_scene.objects[0].mass_spring;
  ENSURE(e->integrator == FL_MS_INTEGRATOR_E);
  /* m = 0.1 kg / 256, M_ij = m / 2, omega = sqrt(175 / M_ij) = 946.6 / s, h = 1/300 s: mu = h omega / pi = 1.004 */
  double h = g_scene.sim.dt / g_scene.sim.substeps;
  ENSURE_NEAR(fl_ms_step_ratio(e, h), 1.004, 2e-3);
  ENSURE(fl_ms_stability_limit(e) == 0.25 && fl_ms_stability_limit(&g_scene.objects[3].mass_spring) == 0.0);
  fl_ms_watch watch[2] = {{"E", 3, true, 10}, {"HO", 1, false, 0}};
  char notes[1024] = "";
  fl_divergence_notes(&g_scene, watch, 2, notes, sizeof notes);
  ENSURE_MSG(strstr(notes, "E: mu 1.00 > limit 0.25: frozen as it blew up, reset in 80 frames (3 resets)"), "%s", notes);
  ENSURE_MSG(strstr(notes, "HO: mu 1.00 > limit 0.30: 1 resets"), "%s", notes);
  ENSURE_MSG(strstr(notes, "IM: mu 1.00, implicit: stable at any step"), "%s", notes);
  fl_marker m[3] = {{.kind = FL_MARKER_LABEL, .text = "E"}, {.kind = FL_MARKER_LABEL, .text = "HO"},
                    {.kind = FL_MARKER_LABEL, .text = "HY"}};
  fl_divergence_labels(m, 3, watch, 2);
  ENSURE(strcmp(m[0].text, "E  frozen: diverged (3 resets)") == 0 && strcmp(m[1].text, "HO  1 resets") == 0);
  ENSURE(strcmp(m[2].text, "HY") == 0);
  watch[0].frozen = false; /* relabelled every frame: the name stays, the state follows */
  fl_divergence_labels(m, 3, watch, 2);
  ENSURE(strcmp(m[0].text, "E  3 resets") == 0 && strcmp(m[1].text, "HO  1 resets") == 0);
}

static const fl_test_case cases[] = {
    {"divergence_view", test_divergence_view},
    {"scene_knobs", test_scene_knobs},
    {"override_round_trip", test_override_round_trip},
    {"overrides_replace", test_overrides_replace},
    {"click_script", test_click_script},
};
FL_TEST_MAIN(cases)
