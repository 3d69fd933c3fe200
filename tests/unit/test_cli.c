/* tests/unit/test_cli: the command-line contract: defaults, every option, and
 * one clear error for each kind of bad value. */
#include "test.h"

#include "app/cli.h"
#include "core/log.h"

#define ARGV(...) (char *[]){"flurry", __VA_ARGS__}
#define ARGC(...) (int)(sizeof((char *[]){"flurry", __VA_ARGS__}) / sizeof(char *))
#define PARSE(o, ...) fl_cli_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

static void test_defaults(void)
{
  fl_options o;
  char *argv[] = {"flurry"};
  ENSURE(fl_cli_parse(1, argv, &o));
  ENSURE(strcmp(o.scene, "showcase") == 0);
  ENSURE(o.frames == -1 && o.width == 1280 && o.height == 720);
  ENSURE(!o.headless && !o.validation && !o.bench && o.set_count == 0);
}

static void test_all_options(void)
{
  fl_options o;
  ENSURE(PARSE(&o, "--scene", "x.json", "--device", "1", "--headless", "--frames", "7", "--size", "320x200",
               "--screenshot", "a.png", "--record", "dir", "--report", "r.json", "--dump", "d.csv", "--validation",
               "--no-async", "--set", "sim.substeps=3", "--set", "objects.a.radius=1", "--warmup", "4"));
  ENSURE(strcmp(o.scene, "x.json") == 0 && strcmp(o.device, "1") == 0 && o.headless && o.frames == 7);
  ENSURE(o.width == 320 && o.height == 200 && o.validation && o.no_async && o.warmup == 4);
  ENSURE(strcmp(o.screenshot, "a.png") == 0 && strcmp(o.record_dir, "dir") == 0);
  ENSURE(strcmp(o.report, "r.json") == 0 && strcmp(o.dump, "d.csv") == 0);
  ENSURE(o.set_count == 2 && strcmp(o.sets[1], "objects.a.radius=1") == 0);
  ENSURE(PARSE(&o, "--bench"));
  ENSURE(o.bench && o.headless); /* bench is always headless */
  ENSURE(o.snow_look == FL_SNOW_LOOK_SURFACE);
  ENSURE(PARSE(&o, "--snow-view", "volume") && o.snow_look == FL_SNOW_LOOK_VOLUME);
  ENSURE(PARSE(&o, "--snow-view", "volume", "--snow-view", "particles") && o.snow_look == FL_SNOW_LOOK_PARTICLES);
  ENSURE(PARSE(&o, "--snow-view", "particles", "--snow-view", "surface") && o.snow_look == FL_SNOW_LOOK_SURFACE);
  ENSURE(PARSE(&o, "--no-overlay", "--quality", "high") && o.no_overlay && strcmp(o.quality, "high") == 0);
  ENSURE(PARSE(&o, "--snow-view", "volume") && !o.no_overlay && strcmp(o.quality, "auto") == 0);
}

static void test_experiment_options(void)
{
  fl_options o;
  ENSURE(PARSE(&o, "--experiment", "kang"));
  ENSURE(strcmp(o.experiment, "kang") == 0 && o.cases == 7 && o.tables == 7 && o.duration == 0.3 &&
         o.trial_steps == 3000);
  ENSURE(PARSE(&o, "--experiment", "kang", "--cases", "c3,c1", "--tables", "2", "--duration", "0.25", "--trial-steps",
               "100"));
  ENSURE(o.cases == 5 && o.tables == 2 && o.duration == 0.25 && o.trial_steps == 100);
}

static void expect_error(bool ok, const char *fragment)
{
  ENSURE(!ok);
  ENSURE_MSG(strstr(fl_error_message(), fragment) != NULL, "message \"%s\" lacks \"%s\"", fl_error_message(),
             fragment);
  fl_error_clear();
}

static void test_bad_values(void)
{
  fl_options o;
  expect_error(PARSE(&o, "--frames", "abc"), "--frames: expected an integer");
  expect_error(PARSE(&o, "--frames", "0"), "--frames: expected an integer in 1..");
  expect_error(PARSE(&o, "--frames", "12x"), "got \"12x\"");
  expect_error(PARSE(&o, "--size", "640"), "--size: expected WxH");
  expect_error(PARSE(&o, "--size", "8x8"), "16..16384");
  expect_error(PARSE(&o, "--size", "640x480x2"), "--size");
  expect_error(PARSE(&o, "--set", "novalue"), "--set: expected KEY=VALUE");
  expect_error(PARSE(&o, "--set", "=3"), "--set: expected KEY=VALUE");
  expect_error(PARSE(&o, "--scene"), "--scene needs a value");
  expect_error(PARSE(&o, "--report", ""), "--report needs a value");
  expect_error(PARSE(&o, "--warp"), "unknown option \"--warp\"");
  expect_error(PARSE(&o, "--experiment", "kong"), "--experiment: unknown experiment \"kong\"");
  expect_error(PARSE(&o, "--cases", "c1,c4"), "--cases: expected a comma list of c1..c3");
  expect_error(PARSE(&o, "--cases", "c1,"), "--cases");
  expect_error(PARSE(&o, "--tables", "0"), "--tables: expected a comma list of 1..3");
  expect_error(PARSE(&o, "--duration", "0"), "--duration: expected seconds in (0, 1000]");
  expect_error(PARSE(&o, "--duration", "1s"), "--duration");
  expect_error(PARSE(&o, "--snow-view", "voxels"), "--snow-view: expected surface, particles or volume, got \"voxels\"");
  expect_error(PARSE(&o, "--quality", "ultra"), "--quality: expected low, medium, high or auto, got \"ultra\"");
  expect_error(PARSE(&o, "--snow-view"), "--snow-view needs a value");
}

/* Output paths are checked when the command line is read, before any work. */
static void test_unwritable_outputs(void)
{
  static const char *const bad[][3] = {
      {"--report", "/nonexistent/dir/r.json", "--report: cannot write /nonexistent/dir/r.json: No such file or directory"},
      {"--dump", "/nonexistent/d.csv", "--dump: cannot write /nonexistent/d.csv: No such file"},
      {"--trace", "/nonexistent/t.json", "--trace: cannot write /nonexistent/t.json"},
      {"--screenshot", "/nonexistent/s.png", "--screenshot: cannot write /nonexistent/s.png"},
      {"--record", "/nonexistent/dir/frames", "--record: cannot write /nonexistent/dir/frames"},
      {"--report", "/", "--report: cannot write /: Is a directory"},
      {"--record", "/dev/null", "--record: cannot write /dev/null: Not a directory"},
      {"--report", "no_such_dir_for_test/", "--report: cannot write no_such_dir_for_test/: Is a directory"},
      {"--dump", "/tmp/", "--dump: cannot write /tmp/: Is a directory"},
      {"--screenshot", "/dev/null/", "--screenshot: cannot write /dev/null/: Is a directory"},
  };
  fl_options o;
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    expect_error(PARSE(&o, (char *)bad[k][0], (char *)bad[k][1]), bad[k][2]);
  ENSURE(PARSE(&o, "--report", "/dev/null", "--dump", "new_file.csv", "--record", "new_dir/"));
  ENSURE(PARSE(&o, "--help", "--report", "/nonexistent/dir/r.json")); /* help runs nothing */
}

static const fl_test_case cases[] = {
    {"defaults", test_defaults},
    {"all_options", test_all_options},
    {"bad_values", test_bad_values},
    {"experiment_options", test_experiment_options},
    {"unwritable_outputs", test_unwritable_outputs},
};
FL_TEST_MAIN(cases)
