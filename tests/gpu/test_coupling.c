/* tests/gpu/test_coupling.c: the snow <-> cloth coupling (issue 18, docs/COUPLING.md):
 *   kernel_vs_cpu    one coupling substep's two halves (weights and contact; release and apply) on
 *                    the GPU against the CPU reference coupling_cpu.c from the same inputs: the
 *                    carried particles' w and velocity, the attachments, then the particle
 *                    velocities, restored w, impulses and grid velocities agree; snow + cloth
 *                    momentum changes by the parcels' gravity only (to 1e-3)
 *   free_momentum    no gravity, no pins: a snowball hits a free cloth; the total momentum of
 *                    snow + cloth is kept within 1 %, and the cloth took a real share of it
 *   opt_out          "coupling": false on the cloth: the snowball passes through it untouched;
 *                    "coupling" on only some snow objects, or not a boolean, is a clear error */
#include "gpu_fixture.h"
#include "world_fixture.h"
#include "sim/coupling/coupling.h"
#include "sim/coupling/coupling_cpu.h"

#include <math.h>
#include <stdlib.h>

#define SCENE(gravity, lo, hi, cloth_extra, snow_extra)                                                          \
  "{\"sim\": {\"dt\": 0.0166666667, \"substeps\": 10, \"gravity\": " gravity ", \"domain\": {\"min\": " lo        \
  ", \"max\": " hi "}}, \"objects\": ["                                                                          \
  "{\"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [20, 20], \"size\": [0.8, 0.8], \"center\": [0, 0, 0]," \
  " \"mass\": 2, \"damping\": 0, \"bend_compliance\": 1e-2" cloth_extra "},"                                      \
  "{\"type\": \"snow\", \"name\": \"ball\", \"center\": [0, 0.2, 0], \"radius\": 0.12, \"grid_spacing\": 0.04,"  \
  " \"velocity\": [0, -3, 0]" snow_extra "}]}"

static double len3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static bool read_vec4s(fl_gpu *gpu, const fl_buffer *b, uint32_t n, float (**out)[4])
{
  *out = malloc((size_t)n * 16 + 16);
  return *out && fl_buffer_readback(gpu, b, 0, *out, (uint64_t)n * 16);
}

/* Runs one half of a GPU coupling substep (contact, or release and apply) on the world's buffers. */
static void gpu_half(fl_gpu *gpu, fl_world *world, fl_coupling *c, const fl_coupling_push *push, bool contact)
{
  VkCommandBuffer cmd;
  ENSURE(fl_gpu_begin_once(gpu, &cmd));
  fl_rec r = fl_world_rec(world, cmd, NULL, 0);
  if (contact) fl_coupling_record_contact(c, &r, push);
  else fl_coupling_record_release(c, &r, push);
  ENSURE(fl_gpu_end_once(gpu, cmd) && !r.failed);
}

/* The worst difference of n vec4s (components < comps), relative to 1 + |cpu|. */
static double worst_of(const float (*gpu)[4], const float (*cpu)[4], uint32_t n, int comps)
{
  double worst = 0;
  for (uint32_t p = 0; p < n; p++)
    for (int a = 0; a < comps; a++) worst = fmax(worst, fabs(gpu[p][a] - cpu[p][a]) / (1.0 + fabs(cpu[p][a])));
  return worst;
}

static void kernel_vs_cpu_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  ENSURE(fl_fixture_make_world(gpu, SCENE("[0, -9.81, 0]", "[-1, -1, -1]", "[1, 1, 1]", ", \"pin\": [\"top-left\", \"top-right\", \"bottom-left\", \"bottom-right\"]", ""),
                               &scene, &world));
  /* The state at load: the ball's grid (Stomakhin 2013 step 2's P2G) reaches the sheet, falling at 3 m/s. */
  fl_coupling *c = fl_world_coupling(world);
  ENSURE(c->gpu && c->coupled_count == 400);
  const fl_snow_build *b = &c->snow->build;
  uint32_t n = c->particle_count;
  uint64_t nodes = b->node_count;
  float(*grid)[8] = malloc(nodes * 32), (*grid_gpu)[8] = malloc(nodes * 32), (*grid_before)[8] = malloc(nodes * 32);
  float(*pos)[4], (*vel)[4], (*imp)[4], (*vel_gpu)[4], (*imp_gpu)[4], (*pos_gpu)[4], (*att_gpu)[4];
  float(*pos0)[4] = malloc((size_t)n * 16), (*vel0)[4] = malloc((size_t)n * 16), (*imp0)[4] = malloc((size_t)n * 16);
  uint32_t *coupled = malloc((size_t)n * 4);
  ENSURE(grid && grid_gpu && grid_before && coupled && pos0 && vel0 && imp0);
  ENSURE(fl_snow_read_grid_dense(c->snow, &c->snow->gridv, 8, (uint32_t *)grid));
  ENSURE(read_vec4s(gpu, &c->xpbd->pos, n, &pos) && read_vec4s(gpu, &c->xpbd->vel, n, &vel) &&
         read_vec4s(gpu, &c->impulse, n, &imp));
  ENSURE(fl_buffer_readback(gpu, &c->coupled, 0, coupled, (uint64_t)n * 4));
  memcpy(grid_before, grid, nodes * 32);
  memcpy(pos0, pos, (size_t)n * 16);
  memcpy(vel0, vel, (size_t)n * 16);
  memcpy(imp0, imp, (size_t)n * 16);
  /* The first half on the GPU and the CPU, from the same inputs, with a 1 ms substep's gravity and
   * the boundary lagging 4 ms; the attachments compared as well. */
  fl_coupling_push push;
  fl_step frame = {.sim = &scene.sim, .dt = 1.0f / 60.0f};
  c->frame = frame;
  c->xpbd_time = 1.0;
  fl_coupling_push_fill(c, 0.001f, 0.996f, &push);
  gpu_half(gpu, world, c, &push, true);
  fl_coupling_cpu state;
  ENSURE(fl_coupling_cpu_contact(&push, n, pos, vel, coupled, imp, (const float(*)[8])grid, &state));
  ENSURE(read_vec4s(gpu, &c->xpbd->pos, n, &pos_gpu) && read_vec4s(gpu, &c->xpbd->vel, n, &vel_gpu) &&
         read_vec4s(gpu, &c->attach, n * FL_COUPLING_ATTACH_VEC4S, &att_gpu));
  double worst_w = worst_of((const float(*)[4])pos_gpu, (const float(*)[4])pos, n, 4);
  double worst_vc = worst_of((const float(*)[4])vel_gpu, (const float(*)[4])vel, n, 3);
  double worst_att = worst_of((const float(*)[4])att_gpu, (const float(*)[4])state.attach, n * FL_COUPLING_ATTACH_VEC4S, 4);
  uint32_t attached = 0;
  double carried = 0, gravity_momentum[3] = {0};
  for (uint32_t p = 0; p < n; p++)
    if (state.attach[FL_COUPLING_ATTACH_VEC4S * p][3] > 0) {
      attached++;
      carried += state.attach[FL_COUPLING_ATTACH_VEC4S * p][3];
    }
  for (int a = 0; a < 3; a++) gravity_momentum[a] = carried * push.gravity_h[a];
  free(pos_gpu);
  free(vel_gpu);
  /* The second half, with nothing between (an XPBD substep that leaves the pairs as they are). */
  gpu_half(gpu, world, c, &push, false);
  fl_coupling_cpu_release(&push, n, pos, vel, coupled, imp, grid, &state);
  fl_coupling_cpu_free(&state);
  ENSURE(fl_snow_read_grid_dense(c->snow, &c->snow->gridv, 8, (uint32_t *)grid_gpu));
  ENSURE(read_vec4s(gpu, &c->impulse, n, &imp_gpu) && read_vec4s(gpu, &c->xpbd->vel, n, &vel_gpu) &&
         read_vec4s(gpu, &c->xpbd->pos, n, &pos_gpu));
  double worst_v = worst_of((const float(*)[4])vel_gpu, (const float(*)[4])vel, n, 3), worst_j = 0, worst_g = 0;
  double dp_snow[3] = {0}, dp_cloth[3] = {0}, magnitude = 0, w_back = 0;
  uint32_t touched = 0;
  for (uint32_t p = 0; p < n; p++) {
    for (int a = 0; a < 4; a++) worst_j = fmax(worst_j, fabs(imp_gpu[p][a] - imp[p][a]) / (1e-4 + fabs(imp[p][a])));
    /* what the cloth received: a free particle's momentum change, a pin's reaction (its impulse record) */
    for (int a = 0; a < 3; a++)
      dp_cloth[a] += pos0[p][3] > 0 ? (vel_gpu[p][a] - vel0[p][a]) / pos0[p][3] : imp_gpu[p][a] - imp0[p][a];
    w_back = fmax(w_back, fabs(pos_gpu[p][3] - pos0[p][3]));
    touched += imp[p][3] != imp0[p][3];
  }
  /* Grid velocities node by node, as momentum: a light node's v = p / m carries the rounding of p
   * (FMA contraction on a GPU, not on the CPU) over a tiny m, so each difference is weighed by the
   * node's share of the heaviest node's mass (on an H100 unweighted light nodes differed by 2.2e-4). */
  double m_max = 0;
  for (uint64_t i = 0; i < nodes; i++) m_max = fmax(m_max, grid[i][3]);
  for (uint64_t i = 0; i < nodes; i++) {
    double share = m_max > 0 ? fmin(1.0, grid[i][3] / (1e-3 * m_max)) : 1.0;
    for (int a = 0; a < 3; a++) {
      worst_g = fmax(worst_g, share * fabs(grid_gpu[i][a] - grid[i][a]) / (1.0 + fabs(grid[i][a])));
      double dp = grid_gpu[i][3] * (grid_gpu[i][a] - grid_before[i][a]);
      dp_snow[a] += dp;
      magnitude += fabs(dp);
    }
  }
  /* Momentum: with no XPBD substep between, the pairs lose only the gravity the contact took back
   * from the parcels (the XPBD substeps give it), so snow + cloth gain -sum(M) g h. */
  double residual[3];
  for (int a = 0; a < 3; a++) residual[a] = dp_snow[a] + dp_cloth[a] + gravity_momentum[a];
  printf("  %u particles in contact, %u carrying %.4g kg of snow; worst difference: w %.2g, carried velocity %.2g, "
         "attachment %.2g, velocity %.2g, impulse %.2g (relative), grid velocity %.2g; w restored to %.2g; snow "
         "gained (%.4g, %.4g, %.4g) N s, cloth (%.4g, %.4g, %.4g)\n",
         touched, attached, carried, worst_w, worst_vc, worst_att, worst_v, worst_j, worst_g, w_back, dp_snow[0],
         dp_snow[1], dp_snow[2], dp_cloth[0], dp_cloth[1], dp_cloth[2]);
  ENSURE_MSG(touched >= 20 && attached >= 20, "only %u particles met the snow, %u carried it", touched, attached);
  ENSURE(worst_w <= 1e-5 && worst_vc <= 1e-4 && worst_att <= 1e-4);
  ENSURE(worst_v <= 1e-4 && worst_j <= 1e-3 && worst_g <= 1e-4 && w_back == 0.0);
  ENSURE_MSG(len3(residual) <= 1e-3 * magnitude, "the exchange left %.3g N s of %.3g", len3(residual), magnitude);
  free(grid);
  free(grid_gpu);
  free(grid_before);
  free(coupled);
  free(pos);
  free(vel);
  free(imp);
  free(pos0);
  free(vel0);
  free(imp0);
  free(vel_gpu);
  free(imp_gpu);
  free(pos_gpu);
  free(att_gpu);
  fl_world_destroy(world);
}
FL_GPU_TEST(test_kernel_vs_cpu, kernel_vs_cpu_body)

/* The total momentum of every object (snow + cloth), and each object's stats. */
static void total_momentum(fl_world *world, fl_object_stats s[2], double p[3])
{
  p[0] = p[1] = p[2] = 0;
  for (uint32_t i = 0; i < 2; i++) {
    ENSURE(fl_world_stats(world, i, &s[i]));
    for (int a = 0; a < 3; a++) p[a] += s[i].momentum[a];
  }
}

/* Runs the free-floating scene (cloth extra keys) for `frames`: the momentum before and after,
 * and the cloth's momentum after. */
static void free_run(fl_gpu *gpu, const char *cloth_extra, int frames, double p0[3], double p1[3], double cloth[3],
                     double *snow_min_y)
{
  char json[2048];
  snprintf(json, sizeof json, SCENE("[0, 0, 0]", "[-2, -2, -2]", "[2, 2, 2]", "%s", ""), cloth_extra);
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  fl_object_stats s[2];
  ENSURE(fl_fixture_make_world(gpu, json, &scene, &world));
  total_momentum(world, s, p0);
  ENSURE(fl_profiler_create(gpu, &prof));
  ENSURE(fl_fixture_step_frames(gpu, world, &prof, frames, true, NULL));
  fl_profiler_destroy(&prof);
  total_momentum(world, s, p1);
  memcpy(cloth, s[0].momentum, sizeof s[0].momentum);
  *snow_min_y = s[1].bbox_min[1];
  ENSURE(s[0].nan_count == 0 && s[1].nan_count == 0);
  fl_world_destroy(world);
}

static void free_momentum_body(fl_gpu *gpu)
{
  double p0[3] = {0}, p1[3] = {0}, cloth[3] = {0}, d[3], low = 0;
  free_run(gpu, "", fl_fixture_trim(20, 15), p0, p1, cloth, &low);
  for (int a = 0; a < 3; a++) d[a] = p1[a] - p0[a];
  printf("  momentum before (%.5g, %.5g, %.5g), after (%.5g, %.5g, %.5g) N s: drift %.3g %%; the cloth holds "
         "%.4g N s; the snow's lowest point %.3f m\n",
         p0[0], p0[1], p0[2], p1[0], p1[1], p1[2], 100 * len3(d) / len3(p0), len3(cloth), low);
  ENSURE(len3(p0) > 1.0);
  ENSURE_MSG(len3(d) <= 0.01 * len3(p0), "momentum drifted %.3g %%", 100 * len3(d) / len3(p0));
  ENSURE_MSG(len3(cloth) >= 0.2 * len3(p0), "the cloth took only %.3g of %.3g N s", len3(cloth), len3(p0));
}
FL_GPU_TEST(test_free_momentum, free_momentum_body)

static void opt_out_body(fl_gpu *gpu)
{
  double p0[3] = {0}, p1[3] = {0}, cloth[3] = {0}, low = 0;
  free_run(gpu, ", \"coupling\": false", fl_fixture_trim(20, 15), p0, p1, cloth, &low);
  printf("  opted out: the cloth holds %.3g N s; the snow's lowest point %.3f m (the sheet is at 0)\n", len3(cloth),
         low);
  ENSURE(len3(cloth) <= 1e-6);
  ENSURE(low < -0.1);
  fl_scene scene;
  fl_world *world = NULL;
  fl_error_clear();
  ENSURE(!fl_scene_parse(SCENE("[0, 0, 0]", "[-2, -2, -2]", "[2, 2, 2]", ", \"coupling\": 0", ""), "inline.json",
                         NULL, 0, &scene));
  ENSURE(fl_fixture_error_has("coupling"));
  const char *mixed = "{\"objects\": [{\"type\": \"cloth\"}, {\"type\": \"snow\", \"coupling\": false},"
                      " {\"type\": \"snow\", \"center\": [0, 2, 0]}]}";
  ENSURE(fl_scene_parse(mixed, "inline.json", NULL, 0, &scene));
  fl_error_clear();
  ENSURE(!fl_world_create(gpu, &scene, &world));
  ENSURE(fl_fixture_error_has("share one grid"));
}
FL_GPU_TEST(test_opt_out, opt_out_body)

static const fl_test_case cases[] = {
    {"kernel_vs_cpu", test_kernel_vs_cpu},
    {"free_momentum", test_free_momentum},
    {"opt_out", test_opt_out},
};
FL_TEST_MAIN(cases)
