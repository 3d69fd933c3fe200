/* tests/gpu/test_coupling.c: the snow <-> cloth coupling (issue 18, docs/COUPLING.md):
 *   kernel_vs_cpu    one coupling substep's two halves (weights and contact; release and apply) on
 *                    the GPU against the CPU reference coupling_cpu.c from the same inputs (every
 *                    other particle of the first 10 rows and the right half of the rest take a soft
 *                    body's volume share, the left half of the rest a balloon's, and the triangles of
 *                    either half carry surface samples, with their share): the sheet's normals, the
 *                    carried particles' w and velocity, the attachments (the samples' too), then
 *                    the particle velocities, restored w, impulses and grid velocities agree; snow + cloth
 *                    momentum changes by the parcels' gravity only (to 1e-3)
 *   hold_vs_cpu      the same substep as a hold (sim.coupling_substeps "xpbd": every particle and sample
 *                    an immovable boundary, the free ones' reactions deferred): the grid, impulses and
 *                    deferred words agree with the CPU, nothing is carried, snow + cloth momentum
 *                    (the deferred words counted as the cloth's) is kept (to 1e-3); then a coupled
 *                    contact takes the deferred momentum in (velocities agree, the words are zero)
 *   free_momentum    no gravity, no pins: a snowball hits a free cloth; the total momentum of
 *                    snow + cloth is kept within 1 %, the cloth took a real share of it, and the
 *                    kinetic energy did not grow (the contacts are inelastic)
 *   hammock          the built-in snow-hammock: over 300 frames (checked after each of the first 60,
 *                    the landing, then every tenth) no snow particle
 *                    is below the cloth inside its footprint by more than a snow grid cell, the
 *                    hammock catches the snowball (its centre below the pinned edges from frame 30 on), and
 *                    the cloth's centre sag over the last second (the snow's swing died down to a
 *                    mean speed under 0.1 m/s) is within 15 % of a CPU estimate: the same cloth
 *                    (the CPU XPBD reference, xpbd_cpu.c, the GPU's mean substep length) under
 *                    the snowball's weight, each snow particle's mass on the cloth particle under
 *                    it, relaxed to rest
 *   crater           the built-in snow-bank: the soft ball thrown into the bank goes below the
 *                    snow's surface and, after 40 frames, rests in a crater on the bank: the snow
 *                    that was in its footprint (top 0.6 cells) was pushed out of it
 *   opt_out          "coupling": false on the cloth: the snowball passes through it untouched;
 *                    "coupling" on only some snow objects, or not a boolean, is a clear error
 * The snow sliding off snow-roof: test_coupling_roof.c; snow caught by a soft body's and a balloon's
 * closed surfaces: test_coupling_catch.c (their own CTests, for time). */
#include "gpu_fixture.h"
#include "world_fixture.h"
#include "sim/coupling/coupling.h"
#include "sim/coupling/coupling_cpu.h"
#include "sim/common/mesh_cpu.h"
#include "sim/xpbd/xpbd_cpu.h"
#include "coupling_fixture.h"

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

/* One coupling substep (hold: a hold substep, then a coupled contact that takes in what it deferred)
 * on the GPU and the CPU reference from the same inputs. */
static void kernel_vs_cpu(fl_gpu *gpu, bool hold)
{
  fl_scene scene;
  fl_world *world = NULL;
  ENSURE(fl_fixture_make_world(gpu, SCENE("[0, -9.81, 0]", "[-1, -1, -1]", "[1, 1, 1]", ", \"pin\": [\"top-left\", \"top-right\", \"bottom-left\", \"bottom-right\", \"corner:10,10\", \"corner:9,10\"]", ""),
                               &scene, &world));
  /* The state at load: the ball's grid (Stomakhin 2013 step 2's P2G) reaches the sheet, falling at 3 m/s,
   * where two pinned particles (immovable boundaries) sit among the free ones. */
  fl_coupling *c = fl_world_coupling(world);
  ENSURE(c->gpu && c->coupled_count == 400);
  const fl_snow_build *b = &c->snow->build;
  uint32_t n = c->particle_count;
  uint64_t nodes = b->node_count;
  float(*grid)[8] = malloc(nodes * 32), (*grid_gpu)[8] = malloc(nodes * 32), (*grid_before)[8] = malloc(nodes * 32);
  float(*pos)[4], (*vel)[4], (*imp)[4], (*vel_gpu)[4], (*imp_gpu)[4], (*pos_gpu)[4], (*att_gpu)[4];
  float(*pos0)[4] = malloc((size_t)n * 16), (*vel0)[4] = malloc((size_t)n * 16), (*imp0)[4] = NULL;
  uint32_t *coupled = malloc((size_t)n * 4);
  ENSURE(grid && grid_gpu && grid_before && coupled && pos0 && vel0);
  ENSURE(fl_snow_read_grid_dense(c->snow, &c->snow->gridv, 8, (uint32_t *)grid));
  ENSURE(fl_buffer_readback(gpu, &c->coupled, 0, coupled, (uint64_t)n * 4));
  /* every kind of share: every other particle of the sheet's first 10 rows and the right half of the
   * rest take a soft body's volume share, the left half of the rest a balloon's (a closed sheet's), and
   * the triangles of either half are sampled (surface samples, with the volume and the sheet's share) */
  for (uint32_t p = 0; p < n; p++)
    if (p % 2 || p >= 200) coupled[p] = p >= 200 && p % 20 < 10 ? FL_COUPLING_CLOSED : FL_COUPLING_VOLUME;
  ENSURE(fl_buffer_upload(gpu, &c->coupled, 0, coupled, (uint64_t)n * 4));
  ENSURE(fl_coupling_set_samples(c, (const float(*)[4])c->xpbd->build.positions, coupled));
  uint32_t ns = c->sample_count, (*samples)[4] = malloc(((size_t)ns + 1) * 16);
  ENSURE(ns > 0 && samples && fl_buffer_readback(gpu, &c->samples, 0, samples, (uint64_t)ns * 16));
  ENSURE(read_vec4s(gpu, &c->xpbd->pos, n, &pos) && read_vec4s(gpu, &c->xpbd->vel, n, &vel) &&
         read_vec4s(gpu, &c->impulse, n + ns, &imp));
  memcpy(grid_before, grid, nodes * 32);
  memcpy(pos0, pos, (size_t)n * 16);
  memcpy(vel0, vel, (size_t)n * 16);
  imp0 = malloc(((size_t)n + ns) * 16);
  ENSURE(imp0);
  memcpy(imp0, imp, ((size_t)n + ns) * 16);
  /* The first half on the GPU and the CPU, from the same inputs, with a 1 ms substep's gravity and
   * the boundary lagging 4 ms; the attachments compared as well. */
  fl_coupling_push push;
  fl_step frame = {.sim = &scene.sim, .dt = 1.0f / 60.0f};
  c->frame = frame;
  c->xpbd_time = 1.0;
  fl_coupling_push_fill(c, 0.001f, 0.996f, &push);
  push.hold = hold;
  gpu_half(gpu, world, c, &push, true);
  /* the sheet's vertex normals at the contact's state (coupling/normals), on the CPU */
  float(*normals)[4] = malloc((size_t)n * 16), (*normals_gpu)[4];
  ENSURE(normals);
  fl_mesh_normals_cpu(&(fl_cpu_mesh){.positions = pos, .indices = c->xpbd->build.triangles, .vertex_count = n,
                                     .triangle_count = c->xpbd->build.triangle_count},
                      normals);
  /* the triangles' face normals (common/face_normals: cross(b - a, c - a)) for the samples */
  uint32_t nt = c->xpbd->build.triangle_count, *tri = c->xpbd->build.triangles;
  float(*faces)[4] = calloc(nt, 16), (*faces_gpu)[4];
  ENSURE(faces && read_vec4s(gpu, &c->face_normals, nt, &faces_gpu));
  for (uint32_t t = 0; t < nt; t++) {
    const float *a = pos[tri[3 * t]], *bb = pos[tri[3 * t + 1]], *cc = pos[tri[3 * t + 2]];
    float e[3] = {bb[0] - a[0], bb[1] - a[1], bb[2] - a[2]}, f[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]};
    faces[t][0] = e[1] * f[2] - e[2] * f[1];
    faces[t][1] = e[2] * f[0] - e[0] * f[2];
    faces[t][2] = e[0] * f[1] - e[1] * f[0];
  }
  double worst_f = worst_of((const float(*)[4])faces_gpu, (const float(*)[4])faces, nt, 4);
  fl_coupling_cpu_surface surface = {.samples = (const uint32_t(*)[4])samples, .count = ns, .triangles = tri,
                                     .face_normals = (const float(*)[4])faces};
  fl_coupling_cpu state;
  int32_t(*deferred)[4] = calloc(n, 16), (*deferred_gpu)[4] = malloc((size_t)n * 16);
  ENSURE(deferred && deferred_gpu);
  ENSURE(fl_coupling_cpu_contact(&push, n, pos, vel, coupled, (const float(*)[4])normals, imp, deferred,
                                 (const float(*)[8])grid, &surface, &state));
  ENSURE(read_vec4s(gpu, &c->xpbd->pos, n, &pos_gpu) && read_vec4s(gpu, &c->xpbd->vel, n, &vel_gpu) &&
         read_vec4s(gpu, &c->attach, n * FL_COUPLING_ATTACH_VEC4S, &att_gpu) && read_vec4s(gpu, &c->normals, n, &normals_gpu));
  double worst_n = worst_of((const float(*)[4])normals_gpu, (const float(*)[4])normals, n, 4);
  free(normals_gpu);
  double worst_w = worst_of((const float(*)[4])pos_gpu, (const float(*)[4])pos, n, 4);
  double worst_vc = worst_of((const float(*)[4])vel_gpu, (const float(*)[4])vel, n, 3);
  double worst_att = 0;
  for (uint32_t p = 0; p < n; p++)
    for (uint32_t k = 0; k < (hold ? 2u : FL_COUPLING_ATTACH_VEC4S); k++) /* a hold writes only [0], [1] */
      worst_att = fmax(worst_att, worst_of((const float(*)[4])att_gpu + FL_COUPLING_ATTACH_VEC4S * p + k,
                                           (const float(*)[4])state.attach + FL_COUPLING_ATTACH_VEC4S * p + k, 1, 4));
  float(*satt_gpu)[4];
  ENSURE(read_vec4s(gpu, &c->sample_attach, ns * FL_COUPLING_SAMPLE_VEC4S, &satt_gpu));
  worst_att = fmax(worst_att, worst_of((const float(*)[4])satt_gpu, (const float(*)[4])state.sample_attach,
                                       ns * FL_COUPLING_SAMPLE_VEC4S, 4));
  free(satt_gpu);
  uint32_t attached = 0, samples_attached = 0, closed_attached = 0;
  double carried = 0, gravity_momentum[3] = {0};
  for (uint32_t p = 0; p < n; p++)
    if (state.attach[FL_COUPLING_ATTACH_VEC4S * p][3] > 0) {
      attached++;
      carried += state.attach[FL_COUPLING_ATTACH_VEC4S * p][3];
    }
  /* the samples' parcels: their free vertices' shares lose the gravity too; a pinned vertex's share
   * (corner:10,10 and corner:9,10 are in rows 10-19) rides on the pin, which takes the reaction
   * -b_k M (v_pin + u' - v_parcel) */
  double sample_free = 0, pin_reaction[3] = {0};
  for (uint32_t k = 0; k < ns; k++) {
    const float *sa = state.sample_attach[FL_COUPLING_SAMPLE_VEC4S * k];
    float bw[3];
    memcpy(&bw[0], &samples[k][1], 4);
    memcpy(&bw[1], &samples[k][2], 4);
    bw[2] = 1.0f - bw[0] - bw[1];
    /* a hold's sample: recorded -J at once (imp), its pinned vertices' parts go to the pins */
    bool met = hold ? imp[n + k][3] != imp0[n + k][3] : sa[3] > 0;
    if (!met) continue;
    samples_attached++;
    closed_attached += coupled[tri[3 * samples[k][0]]] == FL_COUPLING_CLOSED; /* a balloon's: the sheet's share */
    for (int j = 0; j < 3; j++) {
      uint32_t v = tri[3 * samples[k][0] + j];
      if (hold && !(pos0[v][3] > 0))
        for (int a = 0; a < 3; a++) pin_reaction[a] += bw[j] * (imp[n + k][a] - imp0[n + k][a]);
      else if (hold) continue;
      else if (pos0[v][3] > 0) sample_free += bw[j] * sa[3];
      else
        for (int a = 0; a < 3; a++) pin_reaction[a] -= bw[j] * sa[3] * (vel0[v][a] + sa[4 + a]);
    }
  }
  for (int a = 0; a < 3; a++) gravity_momentum[a] = (carried + sample_free) * push.gravity_h[a];
  free(pos_gpu);
  free(vel_gpu);
  /* The second half, with nothing between (an XPBD substep that leaves the pairs as they are). */
  gpu_half(gpu, world, c, &push, false);
  fl_coupling_cpu_release(&push, n, pos, vel, coupled, imp, grid, &surface, &state);
  fl_coupling_cpu_free(&state);
  ENSURE(fl_snow_read_grid_dense(c->snow, &c->snow->gridv, 8, (uint32_t *)grid_gpu));
  ENSURE(read_vec4s(gpu, &c->impulse, n + ns, &imp_gpu) && read_vec4s(gpu, &c->xpbd->vel, n, &vel_gpu) &&
         read_vec4s(gpu, &c->xpbd->pos, n, &pos_gpu) &&
         fl_buffer_readback(gpu, &c->deferred, 0, deferred_gpu, (uint64_t)n * 16));
  /* the deferred words: fixed-point sums of the same reactions (FMA contraction may move a unit) */
  double worst_d = 0, deferred_sum = 0;
  for (uint32_t p = 0; p < n; p++)
    for (int a = 0; a < 3; a++) {
      worst_d = fmax(worst_d, fabs((double)deferred_gpu[p][a] - deferred[p][a]) / (16.0 + 1e-3 * abs(deferred[p][a])));
      deferred_sum += fabs(deferred[p][a] / push.momentum_scale);
    }
  double worst_v = worst_of((const float(*)[4])vel_gpu, (const float(*)[4])vel, n, 3), worst_j = 0, worst_g = 0;
  double dp_snow[3] = {0}, dp_cloth[3] = {0}, magnitude = 0, w_back = 0;
  uint32_t touched = 0, pins = 0;
  for (uint32_t p = 0; p < n; p++) {
    pins += pos0[p][3] == 0 && imp[p][3] != imp0[p][3];
    for (int a = 0; a < 4; a++) worst_j = fmax(worst_j, fabs(imp_gpu[p][a] - imp[p][a]) / (1e-4 + fabs(imp[p][a])));
    /* what the cloth received: a free particle's momentum change and its deferred momentum, a pin's
     * reaction (its impulse record) */
    for (int a = 0; a < 3; a++)
      dp_cloth[a] += pos0[p][3] > 0 ? (vel_gpu[p][a] - vel0[p][a]) / pos0[p][3] + deferred_gpu[p][a] / push.momentum_scale
                                    : imp_gpu[p][a] - imp0[p][a];
    w_back = fmax(w_back, fabs(pos_gpu[p][3] - pos0[p][3]));
    touched += imp[p][3] != imp0[p][3];
  }
  for (uint32_t k = n; k < n + ns; k++)
    for (int a = 0; a < 4; a++) worst_j = fmax(worst_j, fabs(imp_gpu[k][a] - imp[k][a]) / (1e-4 + fabs(imp[k][a])));
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
   * from the parcels (the XPBD substeps give it), so snow + cloth gain -sum(M) g h; a hold takes none. */
  double residual[3];
  for (int a = 0; a < 3; a++) residual[a] = dp_snow[a] + dp_cloth[a] + pin_reaction[a] + gravity_momentum[a];
  printf("  %u surface samples, %u met snow (%u a balloon's); ", ns, samples_attached, closed_attached);
  printf("  %u particles in contact (%u pinned), %u carrying %.4g kg of snow; worst difference: normal %.2g, face %.2g, w %.2g, carried velocity %.2g, "
         "attachment %.2g, velocity %.2g, impulse %.2g (relative), grid velocity %.2g; w restored to %.2g; snow "
         "gained (%.4g, %.4g, %.4g) N s, cloth (%.4g, %.4g, %.4g)\n",
         touched, pins, attached, carried, worst_n, worst_f, worst_w, worst_vc, worst_att, worst_v, worst_j, worst_g, w_back, dp_snow[0],
         dp_snow[1], dp_snow[2], dp_cloth[0], dp_cloth[1], dp_cloth[2]);
  printf("  deferred: %.4g N s in all, worst difference %.2g (units of 16 + 1e-3 of the CPU's)\n", deferred_sum, worst_d);
  ENSURE_MSG(touched >= 20 && (hold ? attached == 0 : attached >= 20) && pins >= 1,
             "%u particles met the snow, %u carried it, %u pinned", touched, attached, pins);
  ENSURE_MSG(samples_attached >= 20, "only %u of %u surface samples met snow", samples_attached, ns);
  ENSURE_MSG(closed_attached >= 10 && samples_attached - closed_attached >= 10,
             "only %u of the balloon's and %u of the soft body's surface samples met snow", closed_attached,
             samples_attached - closed_attached);
  ENSURE(worst_n <= 1e-5 && worst_f <= 1e-5 && worst_w <= 1e-5 && worst_vc <= 1e-4 && worst_att <= 1e-4);
  ENSURE(worst_v <= 1e-4 && worst_j <= 1e-3 && worst_g <= 1e-4 && w_back == 0.0 && worst_d <= 1.0);
  ENSURE_MSG(hold ? deferred_sum > 0 : deferred_sum == 0, "deferred %.3g N s", deferred_sum);
  ENSURE_MSG(len3(residual) <= 1e-3 * magnitude, "the exchange left %.3g N s of %.3g", len3(residual), magnitude);
  if (hold) { /* a coupled contact next takes the deferred momentum in: velocities agree, words zero */
    push.hold = 0;
    gpu_half(gpu, world, c, &push, true);
    ENSURE(fl_coupling_cpu_contact(&push, n, pos, vel, coupled, (const float(*)[4])normals, imp, deferred,
                                   (const float(*)[8])grid, &surface, &state));
    fl_coupling_cpu_free(&state);
    free(vel_gpu);
    ENSURE(read_vec4s(gpu, &c->xpbd->vel, n, &vel_gpu) &&
           fl_buffer_readback(gpu, &c->deferred, 0, deferred_gpu, (uint64_t)n * 16));
    double worst_taken = worst_of((const float(*)[4])vel_gpu, (const float(*)[4])vel, n, 3);
    uint32_t left = 0;
    for (uint32_t p = 0; p < n; p++) left += deferred_gpu[p][0] || deferred_gpu[p][1] || deferred_gpu[p][2];
    printf("  the coupled contact after it: worst velocity difference %.2g, %u particles with deferred words left\n",
           worst_taken, left);
    ENSURE(worst_taken <= 1e-4 && left == 0);
  }
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
  free(samples);
  free(faces);
  free(faces_gpu);
  free(deferred);
  free(deferred_gpu);
  free(normals);
  fl_world_destroy(world);
}
static void kernel_vs_cpu_body(fl_gpu *gpu) { kernel_vs_cpu(gpu, false); }
static void hold_vs_cpu_body(fl_gpu *gpu) { kernel_vs_cpu(gpu, true); }
FL_GPU_TEST(test_kernel_vs_cpu, kernel_vs_cpu_body)
FL_GPU_TEST(test_hold_vs_cpu, hold_vs_cpu_body)

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
                     double *snow_min_y, double energy[2])
{
  char json[2048];
  snprintf(json, sizeof json, SCENE("[0, 0, 0]", "[-2, -2, -2]", "[2, 2, 2]", "%s", ""), cloth_extra);
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  fl_object_stats s[2];
  ENSURE(fl_fixture_make_world(gpu, json, &scene, &world));
  total_momentum(world, s, p0);
  energy[0] = s[0].kinetic_energy + s[1].kinetic_energy;
  ENSURE(fl_profiler_create(gpu, &prof));
  ENSURE(fl_fixture_step_frames(gpu, world, &prof, frames, true, NULL));
  fl_profiler_destroy(&prof);
  total_momentum(world, s, p1);
  energy[1] = s[0].kinetic_energy + s[1].kinetic_energy;
  memcpy(cloth, s[0].momentum, sizeof s[0].momentum);
  *snow_min_y = s[1].bbox_min[1];
  ENSURE(s[0].nan_count == 0 && s[1].nan_count == 0);
  fl_world_destroy(world);
}

static void free_momentum_body(fl_gpu *gpu)
{
  double p0[3] = {0}, p1[3] = {0}, cloth[3] = {0}, d[3], low = 0, e[2] = {0};
  free_run(gpu, "", fl_fixture_trim(20, 15), p0, p1, cloth, &low, e);
  for (int a = 0; a < 3; a++) d[a] = p1[a] - p0[a];
  printf("  momentum before (%.5g, %.5g, %.5g), after (%.5g, %.5g, %.5g) N s: drift %.3g %%; the cloth holds "
         "%.4g N s; the snow's lowest point %.3f m; kinetic energy %.4g J, then %.4g J\n",
         p0[0], p0[1], p0[2], p1[0], p1[1], p1[2], 100 * len3(d) / len3(p0), len3(cloth), low, e[0], e[1]);
  ENSURE_MSG(e[1] <= e[0], "the exchange made energy: %.4g J, then %.4g J", e[0], e[1]); /* contacts are inelastic */
  ENSURE(len3(p0) > 1.0);
  ENSURE_MSG(len3(d) <= 0.01 * len3(p0), "momentum drifted %.3g %%", 100 * len3(d) / len3(p0));
  ENSURE_MSG(len3(cloth) >= 0.2 * len3(p0), "the cloth took only %.3g of %.3g N s", len3(cloth), len3(p0));
}
FL_GPU_TEST(test_free_momentum, free_momentum_body)



/* The CPU estimate of the cloth's static sag under the snow: the CPU XPBD reference of the same cloth
 * from its rest state, each snow particle's mass `m_snow` added to the free cloth particle nearest
 * below it (in x, z) at the GPU's final state, relaxed with the GPU's substep length h (damped,
 * until the centre moves less than 1 um in 0.1 s). Returns the centre particle's drop (NaN: out of memory). */
static double cpu_static_sag(const fl_xpbd_build *b, const fl_sim_desc *sim, const float (*cloth)[4],
                             const float (*snow)[4], uint32_t n_snow, double m_snow, uint32_t centre, float h,
                             double *seconds)
{
  fl_xpbd_cpu cpu;
  double *load = calloc(b->particle_count, sizeof *load);
  if (!load || !fl_xpbd_cpu_create(b, &cpu)) {
    free(load);
    return NAN; /* out of memory: fails the comparison */
  }
  for (uint32_t i = 0; i < n_snow; i++) {
    uint32_t best = 0;
    float d_best = 1e30f;
    for (uint32_t p = 0; p < b->particle_count; p++) {
      float dx = cloth[p][0] - snow[i][0], dz = cloth[p][2] - snow[i][2], d = dx * dx + dz * dz;
      if (b->positions[p][3] > 0 && d < d_best) {
        d_best = d;
        best = p;
      }
    }
    load[best] += m_snow;
  }
  for (uint32_t p = 0; p < b->particle_count; p++)
    if (cpu.x[p][3] > 0) cpu.x[p][3] = (float)(1.0 / (1.0 / cpu.x[p][3] + load[p]));
  double y0 = b->positions[centre][1], last = y0;
  uint32_t per_check = (uint32_t)ceilf(0.1f / h), checks = 0;
  for (; checks < 200; checks++) {
    for (uint32_t k = 0; k < per_check; k++) {
      fl_xpbd_cpu_substep(&cpu, sim, NULL, 0, h, h * (float)(k + 1));
      for (uint32_t p = 0; p < b->particle_count; p++)
        for (int a = 0; a < 3; a++) cpu.v[p][a] *= 1.0f - 20.0f * h; /* relaxation: the rest state does not depend on it */
    }
    if (checks > 5 && fabs(cpu.x[centre][1] - last) < 1e-6) break;
    last = cpu.x[centre][1];
  }
  *seconds = (checks + 1) * per_check * h;
  double sag = y0 - cpu.x[centre][1];
  free(load);
  fl_xpbd_cpu_destroy(&cpu);
  return sag;
}

/* Loads built-in scene `name` into a world with a profiler; its coupling, or NULL (the error
 * printed) when it does not load or does not couple. */

static void hammock_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  fl_coupling *c = fl_fixture_builtin_world(gpu, "snow-hammock", &scene, &world, &prof);
  ENSURE(c);
  const fl_xpbd_build *b = &c->xpbd->build;
  float cell = c->snow->build.h, worst = -1e30f;
  uint32_t centre = 0;
  double mid[2] = {0, 0};
  for (uint32_t p = 0; p < b->particle_count; p++) {
    mid[0] += b->positions[p][0] / b->particle_count;
    mid[1] += b->positions[p][2] / b->particle_count;
  }
  for (uint32_t p = 1; p < b->particle_count; p++) /* the particle nearest the cloth's middle */
    if (hypot(b->positions[p][0] - mid[0], b->positions[p][2] - mid[1]) <
        hypot(b->positions[centre][0] - mid[0], b->positions[centre][2] - mid[1]))
      centre = p;
  int frames = fl_fixture_trim(300, 20), below_max = 0; /* SwiftShader: the first contact */
  float(*cloth)[4] = NULL, (*vel)[4] = NULL, (*snow)[4] = NULL, (*snow_v)[4] = NULL;
  uint32_t nc = 0, ns = 0;
  double sag_sum = 0, speed = 0, ball_y[6] = {0}; /* the snowball centre's height at frames 10, 20, .., 60 */
  int sag_count = 0;
  for (int f = 1; f <= frames; f++) { /* checked after every frame of the landing, then every tenth */
    ENSURE(fl_fixture_step_frames(gpu, world, &prof, 1, true, NULL));
    if (f > 60 && f % 10) continue;
    free(cloth);
    free(vel);
    free(snow);
    free(snow_v);
    ENSURE(fl_world_read_state(world, 0, &cloth, &vel, &nc) && fl_world_read_state(world, 1, &snow, &snow_v, &ns));
    uint32_t below = fl_fixture_snow_below((const float(*)[4])cloth, b, (const float(*)[4])snow, ns, cell, &worst);
    if ((int)below > below_max) below_max = (int)below;
    if (f % 10) continue;
    for (uint32_t i = 0; f <= 60 && i < ns; i++) ball_y[f / 10 - 1] += snow[i][1] / ns;
    if (f > frames - 70) { /* the last second, every 10 frames: the mean sag, the snow's mean speed */
      sag_sum += b->positions[centre][1] - cloth[centre][1];
      sag_count++;
      speed = 0;
      for (uint32_t i = 0; i < ns; i++) speed += sqrt(snow_v[i][0] * snow_v[i][0] + snow_v[i][1] * snow_v[i][1] +
                                                    snow_v[i][2] * snow_v[i][2]) / ns;
    }
  }
  fl_object_stats s[2];
  ENSURE(fl_world_stats(world, 0, &s[0]) && fl_world_stats(world, 1, &s[1]));
  printf("  %d frames: at most %d of %u snow particles below the cloth by more than %.2f m (the deepest %.3f m "
         "below it); the snow's mean speed at the end %.3f m/s\n",
         frames, below_max, ns, cell, worst, speed);
  printf("  the snowball's centre (dropped at %.3f m) at frames 10 to 60: %.3f %.3f %.3f %.3f %.3f %.3f m\n",
         (double)scene.objects[1].snow.center[1], ball_y[0], ball_y[1], ball_y[2], ball_y[3], ball_y[4], ball_y[5]);
  /* Caught: from frame 30 on the snowball's centre stays below the pinned edges (0.738 m and lower
   * measured against 0.8 m; SwiftShader's 20 frames do not get there). The flat taut sheet without
   * tethers threw it back up to its drop height (1.196 m at frame 30, 1.22-1.30 m, docs/COUPLING.md). */
  float edges = scene.objects[0].cloth.center[1];
  for (int k = 2; k < 6 && 10 * (k + 1) <= frames; k++)
    ENSURE_MSG(ball_y[k] < edges, "the snowball bounced: its centre %.3f m at frame %d, above the pinned edges (%.3f m)",
               ball_y[k], 10 * (k + 1), (double)edges);
  /* None, as the issue asks. The taut sheet without tethers let 4 of 1088 through in one CI run
   * while it stretched 12 % under the landing; the tethered sag holds the snowball's lowest
   * particle 0.08 m above the cloth, two cells clear of this bound (docs/COUPLING.md). */
  ENSURE_MSG(below_max == 0, "%d of %u snow particles went through the cloth", below_max, ns);
  ENSURE(s[0].nan_count == 0 && s[1].nan_count == 0 && !s[0].unstable && !s[1].unstable);
  if (frames >= 300) {
    double sag = sag_sum / sag_count, seconds = 0;
    float h = scene.sim.dt * (float)frames / (float)c->xpbd_substeps; /* the XPBD substeps' mean length */
    double est = cpu_static_sag(b, &scene.sim, (const float(*)[4])cloth, (const float(*)[4])snow, ns,
                                s[1].mass / ns, centre, h, &seconds);
    printf("  the centre's sag over the last second %.4f m; the CPU estimate under %.3f kg of snow %.4f m "
           "(%.1f s relaxed, h %.3g ms): %+.1f %%\n",
           sag, s[1].mass, est, seconds, 1e3 * h, 100 * (sag - est) / est);
    /* the swing has died down; runs differ by the float atomics' order,
     * 0.028 to 0.101 m/s measured (CI's ASan build, 2026-11-27: 0.101), so the bound is 0.15 */
    ENSURE_MSG(speed < 0.15, "the snow still moves at %.3f m/s", speed);
    ENSURE_MSG(fabs(sag - est) <= 0.15 * est, /* false for a NaN estimate */ "sag %.4f m, CPU estimate %.4f m", sag, est);
  }
  free(cloth);
  free(vel);
  free(snow);
  free(snow_v);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
}
FL_GPU_TEST(test_hammock, hammock_body)

/* The ball (object 1) of a snow-bank run: its lowest point, its centre and mean velocity. */
static void ball_state(const float (*x)[4], const float (*v)[4], uint32_t n, float *low, float c[3], float vm[3])
{
  *low = 1e30f;
  for (int a = 0; a < 3; a++) c[a] = vm[a] = 0;
  for (uint32_t i = 0; i < n; i++) {
    *low = fminf(*low, x[i][1]);
    for (int a = 0; a < 3; a++) {
      c[a] += x[i][a] / (float)n;
      vm[a] += v[i][a] / (float)n;
    }
  }
}

/* Snow particles within `r` of (x, z) in xz and above height y. */
static uint32_t snow_in_column(const float (*snow)[4], uint32_t n, float x, float z, float r, float y)
{
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    k += hypotf(snow[i][0] - x, snow[i][2] - z) < r && snow[i][1] > y;
  return k;
}

static void crater_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  fl_coupling *cp = fl_fixture_builtin_world(gpu, "snow-bank", &scene, &world, &prof);
  ENSURE(cp);
  float cell = cp->snow->build.h;
  float(*snow0)[4] = NULL, (*sv)[4] = NULL, (*ball)[4] = NULL, (*bv)[4] = NULL, (*snow)[4] = NULL;
  uint32_t ns = 0, nb = 0;
  ENSURE(fl_world_read_state(world, 0, &snow0, &sv, &ns));
  free(sv);
  float surface = -1e30f, bank_x0 = 1e30f, low_min = 1e30f, low = 0, c[3] = {0}, vm[3] = {0};
  for (uint32_t i = 0; i < ns; i++) {
    surface = fmaxf(surface, snow0[i][1]);
    bank_x0 = fminf(bank_x0, snow0[i][0]);
  }
  int frames = fl_fixture_trim(40, 12), chunk = 2; /* SwiftShader: the impact (about frame 8) */
  for (int f = 0; f < frames; f += chunk) {
    ENSURE(fl_fixture_step_frames(gpu, world, &prof, chunk, true, NULL));
    free(ball);
    free(bv);
    ENSURE(fl_world_read_state(world, 1, &ball, &bv, &nb));
    ball_state((const float(*)[4])ball, (const float(*)[4])bv, nb, &low, c, vm);
    low_min = fminf(low_min, low);
  }
  ENSURE(fl_world_read_state(world, 0, &snow, &sv, &ns));
  /* the crater: the snow that was in the ball's final footprint (xz within 0.8 radii of its centre),
   * down to 0.6 cells under the surface, was pushed out of it */
  float r = 0.08f, y = surface - 0.6f * cell, speed = sqrtf(vm[0] * vm[0] + vm[1] * vm[1] + vm[2] * vm[2]);
  uint32_t before = snow_in_column((const float(*)[4])snow0, ns, c[0], c[2], r, y),
           after = snow_in_column((const float(*)[4])snow, ns, c[0], c[2], r, y);
  fl_object_stats s[2];
  ENSURE(fl_world_stats(world, 0, &s[0]) && fl_world_stats(world, 1, &s[1]));
  printf("  %d frames: the snow's surface %.3f m; the ball's lowest point %.3f m at the end (deepest %.3f), its "
         "centre (%.3f, %.3f) m at %.3f m/s; snow above %.3f m within %.2f m of it: %u, then %u\n",
         frames, surface, low, low_min, c[0], c[1], speed, y, r, before, after);
  ENSURE(s[0].nan_count == 0 && s[1].nan_count == 0 && !s[0].unstable && !s[1].unstable);
  /* the regression (docs/COUPLING.md): the ball stopped 4.4 cm above the snow and bounced back */
  ENSURE_MSG(low_min <= surface - 0.3f * cell, "the ball went no lower than %.3f m, the snow's surface %.3f m",
             low_min, surface);
  if (frames >= 40) {
    ENSURE_MSG(low <= surface - 0.3f * cell, "the ball ends at %.3f m, above the crater's floor (surface %.3f m)",
               low, surface);
    ENSURE_MSG(c[0] > bank_x0 && speed < 0.2f, "the ball rolled back off the bank: centre x %.3f m at %.3f m/s",
               c[0], speed);
    ENSURE_MSG(before >= 10 && 2 * after <= before, "the footprint kept %u of its %u snow particles", after, before);
  }
  free(snow0);
  free(sv);
  free(snow);
  free(ball);
  free(bv);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
}
FL_GPU_TEST(test_crater, crater_body)


static void opt_out_body(fl_gpu *gpu)
{
  double p0[3] = {0}, p1[3] = {0}, cloth[3] = {0}, low = 0, e[2];
  free_run(gpu, ", \"coupling\": false", fl_fixture_trim(20, 15), p0, p1, cloth, &low, e);
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
    {"hold_vs_cpu", test_hold_vs_cpu},
    {"hammock", test_hammock},
    {"crater", test_crater},
    {"opt_out", test_opt_out},
};
FL_TEST_MAIN(cases)
