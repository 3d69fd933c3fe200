/* tests/gpu/test_health.c: the health watch (sim/common/health.h). The flag
 * words the GPU sets (common/health.comp over ranges of one buffer,
 * mpm/health.comp by each particle's material) match a CPU reference of the
 * rule: a NaN or infinite position or velocity sets FL_HEALTH_NOT_FINITE, a
 * speed above max_speed (not at it) FL_HEALTH_TOO_FAST; words are sticky and
 * keep the frame by which they first turned; the watch refuses more objects
 * than it has words. The XPBD strain test (xpbd/strain_health.comp) against
 * the report's CPU measure of the same positions: a sheet stretching under
 * gravity sets FL_HEALTH_STRETCHED once its cloth_stats max_strain passes
 * sim.max_strain, and not while none of its edges has. */
#include "gpu_fixture.h"

#include <math.h>

#include "mpm_shared.h"
#include "sim/common/health.h"
#include "world_fixture.h"

#include <string.h>

#define OBJECTS 4
#define PER_OBJECT 300 /* several workgroups per object */
#define MAX_SPEED 500.0f

/* The CPU reference of fl_health_bits (shaders/common/health.glsl). */
static uint32_t expected_bits(const float x[4], const float v[4])
{
  for (int a = 0; a < 3; a++)
    if (!isfinite(x[a]) || !isfinite(v[a])) return FL_HEALTH_NOT_FINITE;
  float v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  return v2 > MAX_SPEED * MAX_SPEED ? FL_HEALTH_TOO_FAST : 0u;
}

/* Particles moving at 1 m/s, except for the few each case breaks. */
static void calm(float (*pos)[4], float (*vel)[4], uint32_t n)
{
  for (uint32_t i = 0; i < n; i++) {
    for (int a = 0; a < 4; a++) pos[i][a] = vel[i][a] = 0.0f;
    pos[i][0] = 0.01f * (float)i;
    vel[i][1] = -1.0f;
  }
}

/* Runs `record` over the buffers, copies the flags as frame `frame` and collects them. */
static uint32_t run_frame(fl_gpu *gpu, fl_health *h, const fl_buffer *pos, const fl_buffer *vel, uint64_t frame,
                          void (*record)(fl_health *, fl_rec *, const fl_buffer *, const fl_buffer *))
{
  fl_fixture_once once;
  bool ok = fl_fixture_once_begin(gpu, &once);
  if (ok) {
    record(h, &once.rec, pos, vel);
    fl_health_record_copy(h, &once.rec, frame);
    ok = fl_fixture_once_end(&once);
  }
  if (!ok) fprintf(stderr, "  health pass failed: %s\n", fl_error_message());
  return ok ? fl_health_collect(h, 0) : UINT32_MAX;
}

static void record_ranges(fl_health *h, fl_rec *r, const fl_buffer *pos, const fl_buffer *vel)
{
  for (uint32_t o = 0; o < OBJECTS; o++) fl_health_record_range(h, r, o, pos, vel, o * PER_OBJECT, PER_OBJECT);
}

static void body_ranges(fl_gpu *gpu)
{
  static float pos[OBJECTS * PER_OBJECT][4], vel[OBJECTS * PER_OBJECT][4];
  calm(pos, vel, OBJECTS * PER_OBJECT);
  pos[1 * PER_OBJECT + 157][0] = NAN;          /* object 1: a NaN position */
  vel[2 * PER_OBJECT + 10][2] = 600.0f;        /* object 2: a blow-up */
  vel[2 * PER_OBJECT + 11][0] = MAX_SPEED;     /* at the limit: not one */
  vel[3 * PER_OBJECT + 299][1] = -INFINITY;    /* object 3: an infinite velocity, the last particle */
  vel[0 * PER_OBJECT + 20][0] = MAX_SPEED;     /* object 0: at the limit only */
  vel[0 * PER_OBJECT + 20][1] = 0.0f;

  fl_health h;
  fl_buffer bpos = {0}, bvel = {0};
  ENSURE(fl_health_create(gpu, MAX_SPEED, &h));
  for (uint32_t o = 0; o < OBJECTS; o++) {
    uint32_t word;
    ENSURE(fl_health_watch(&h, 10 + o, &word) && word == o);
  }
  ENSURE(fl_fixture_buffer_with(gpu, sizeof pos, pos, "pos", &bpos));
  ENSURE(fl_fixture_buffer_with(gpu, sizeof vel, vel, "vel", &bvel));

  uint32_t want[OBJECTS] = {0}, turned = 0;
  for (uint32_t i = 0; i < OBJECTS * PER_OBJECT; i++) want[i / PER_OBJECT] |= expected_bits(pos[i], vel[i]);
  for (uint32_t o = 0; o < OBJECTS; o++) turned += want[o] != 0;
  ENSURE(turned == 3);
  ENSURE(run_frame(gpu, &h, &bpos, &bvel, 7, record_ranges) == turned);
  for (uint32_t o = 0; o < OBJECTS; o++) {
    if (h.bits[o] != want[o]) fprintf(stderr, "  object %u: bits %u, expected %u\n", o, h.bits[o], want[o]);
    ENSURE(h.bits[o] == want[o]);
    ENSURE(h.object[o] == 10 + o);
    if (want[o]) ENSURE(h.frame[o] == 7);
  }

  /* Frame 9: object 0 turns too; the others keep their first frame (the words are sticky). */
  vel[0 * PER_OBJECT + 20][0] = 501.0f;
  ENSURE(fl_buffer_upload(gpu, &bvel, 0, vel, sizeof vel));
  ENSURE(run_frame(gpu, &h, &bpos, &bvel, 9, record_ranges) == 1);
  ENSURE(h.bits[0] == FL_HEALTH_TOO_FAST && h.frame[0] == 9);
  ENSURE(h.frame[1] == 7 && h.frame[2] == 7 && h.frame[3] == 7);
  ENSURE(fl_health_collect(&h, 0) == 0); /* nothing pending */

  fl_buffer_destroy(gpu, &bpos);
  fl_buffer_destroy(gpu, &bvel);
  fl_health_destroy(&h);
}

/* Snow: 3 materials interleaved in one buffer; F_E's second row carries the material in w. The snow
 * stats' GRID_FULL word (the sparse grid ran out of blocks) marks every snow object. */
#define SNOW 1000
static fl_buffer snow_fe, snow_stats;

static void record_snow(fl_health *h, fl_rec *r, const fl_buffer *pos, const fl_buffer *vel)
{
  fl_health_push push = {.count = SNOW, .word = 2, .max_speed = h->max_speed};
  fl_rec_pass(r, &(fl_pass){.kernel = "mpm/health", FL_PUSH(push), .threads = SNOW, .no_barrier = true,
                            FL_BUFFERS(pos, vel, &snow_fe, &h->flags, &snow_stats)});
}

static void body_snow(fl_gpu *gpu)
{
  static float pos[SNOW][4], vel[SNOW][4], fe[3 * SNOW][4];
  calm(pos, vel, SNOW);
  for (uint32_t p = 0; p < SNOW; p++) {
    for (int row = 0; row < 3; row++)
      for (int c = 0; c < 4; c++) fe[3 * p + row][c] = (c == row) ? 1.0f : 0.0f;
    fe[3 * p + 1][3] = (float)(p % 3);
  }
  pos[3 * 200 + 1][2] = NAN;    /* material 1 */
  vel[3 * 50 + 2][0] = -700.0f; /* material 2 */

  fl_health h;
  fl_buffer bpos = {0}, bvel = {0};
  ENSURE(fl_health_create(gpu, MAX_SPEED, &h));
  for (uint32_t w = 0; w < 5; w++) { /* words 2, 3, 4 are the snow objects' */
    uint32_t word;
    ENSURE(fl_health_watch(&h, w, &word));
  }
  ENSURE(fl_fixture_buffer_with(gpu, sizeof pos, pos, "pos", &bpos));
  ENSURE(fl_fixture_buffer_with(gpu, sizeof vel, vel, "vel", &bvel));
  ENSURE(fl_fixture_buffer_with(gpu, sizeof fe, fe, "fe", &snow_fe));
  uint32_t stats[FL_SNOW_STAT_WORDS] = {0};
  ENSURE(fl_fixture_buffer_with(gpu, sizeof stats, stats, "snow stats", &snow_stats));
  uint32_t want[5] = {0};
  for (uint32_t p = 0; p < SNOW; p++) want[2 + p % 3] |= expected_bits(pos[p], vel[p]);
  ENSURE(want[3] == FL_HEALTH_NOT_FINITE && want[4] == FL_HEALTH_TOO_FAST && want[2] == 0);
  ENSURE(run_frame(gpu, &h, &bpos, &bvel, 3, record_snow) == 2);
  for (uint32_t w = 0; w < 5; w++) ENSURE(h.bits[w] == want[w]);
  fl_buffer_destroy(gpu, &snow_stats);
  stats[FL_SNOW_STAT_GRID_FULL] = 3;
  ENSURE(fl_fixture_buffer_with(gpu, sizeof stats, stats, "snow stats", &snow_stats));
  ENSURE(run_frame(gpu, &h, &bpos, &bvel, 4, record_snow) == 1); /* word 2 turns bad; 3 and 4 already were */
  ENSURE(h.bits[2] == FL_HEALTH_GRID_FULL && h.bits[3] == want[3] && h.bits[4] == want[4]); /* first bits kept */
  ENSURE(strstr(fl_health_reason(FL_HEALTH_GRID_FULL), "raise sim.snow_grid_slack or grid_spacing") != NULL);
  fl_buffer_destroy(gpu, &snow_stats);
  fl_buffer_destroy(gpu, &snow_fe);
  fl_buffer_destroy(gpu, &bpos);
  fl_buffer_destroy(gpu, &bvel);
  fl_health_destroy(&h);
}

static void body_limit(fl_gpu *gpu)
{
  fl_health h;
  ENSURE(fl_health_create(gpu, MAX_SPEED, &h));
  uint32_t word = 0;
  for (uint32_t o = 0; o < FL_HEALTH_MAX_WORDS; o++) ENSURE(fl_health_watch(&h, o, &word));
  fl_error_clear();
  ENSURE(!fl_health_watch(&h, FL_HEALTH_MAX_WORDS, &word));
  ENSURE(fl_fixture_error_has("more than"));
  fl_health_destroy(&h);
}

/* A sheet pinned at two corners whose stretch gives (compliance 1e-3 m/N), watched at 5 % strain. */
static const char STRAIN_SCENE[] =
    "{\"sim\": {\"dt\": 0.0166666667, \"substeps\": 4, \"max_strain\": 0.05, \"gravity\": [0, -9.81, 0],"
    " \"domain\": {\"min\": [-2, -2, -2], \"max\": [2, 2, 2]}}, \"objects\": [{\"type\": \"cloth\", \"name\": \"sheet\","
    " \"resolution\": [12, 12], \"size\": [1, 1], \"center\": [0, 1, 0], \"plane\": \"xy\","
    " \"pin\": [\"top-left\", \"top-right\"], \"stretch_compliance\": 1e-3, \"shear_compliance\": 1e-3}]}";

static void body_strain(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  ENSURE(fl_fixture_make_world(gpu, STRAIN_SCENE, &scene, &world) && fl_profiler_create(gpu, &prof));
  const double limit = scene.sim.max_strain;
  int calm = 0, first = -1;
  double at_first = 0, worst = 0;
  for (int f = 1; f <= 40; f++) {
    ENSURE(fl_fixture_step_frames(gpu, world, &prof, 1, true, NULL));
    fl_object_stats st;
    ENSURE(fl_world_stats(world, 0, &st));
    double cpu = fl_fixture_stat(&st, NULL, "max_strain"); /* over the stretch constraints: a lower bound */
    bool flagged = (st.unstable & FL_HEALTH_STRETCHED) != 0;
    worst = fmax(worst, cpu);
    /* float lengths on the GPU, double on the CPU: 1e-4 of the limit either way is not decided */
    ENSURE_MSG(!(cpu > limit * (1 + 1e-4)) || flagged, "frame %d: strain %.5f past %.3g, not flagged", f, cpu, limit);
    if (!flagged) {
      ENSURE_MSG(cpu <= limit * (1 + 1e-4), "frame %d: strain %.5f unflagged", f, cpu);
      calm++;
    } else if (first < 0) {
      first = f, at_first = cpu;
    }
  }
  char message[256];
  ENSURE(fl_world_unstable(world, message, sizeof message));
  printf("  %d calm frames, flagged at frame %d (strain %.4f of the limit %.3g; at most %.4f); \"%s\"\n", calm, first,
         at_first, limit, worst, message);
  ENSURE_MSG(calm >= 1 && first > 0, "%d calm frames, first flagged at %d", calm, first);
  ENSURE(strstr(message, "stretched past sim.max_strain") != NULL);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
}

FL_GPU_TEST(test_ranges, body_ranges)
FL_GPU_TEST(test_snow, body_snow)
FL_GPU_TEST(test_limit, body_limit)
FL_GPU_TEST(test_strain, body_strain)

static const fl_test_case cases[] = {
    {"ranges", test_ranges},
    {"snow_materials", test_snow},
    {"word_limit", test_limit},
    {"strain", test_strain},
};
FL_TEST_MAIN(cases)
