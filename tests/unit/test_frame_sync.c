/* tests/unit/test_frame_sync: the two-queue handshake of gpu/frames.h on a model
 * of two independent in-order queues, with the timeline values the frame loop
 * really submits (fl_frames_sync_values).
 *
 * Frame n is a compute submission C_n (writes the simulation state and slot
 * n % 2's snapshot) and a graphics submission G_n (reads slot n % 2's snapshot).
 * Happens-before: each queue's own submission order (every compute buffer opens
 * with a compute barrier; the render pass orders the graphics queue), plus an
 * edge from the first submission that signals a timeline to >= v to each
 * submission that waits for >= v. On that graph the test asserts:
 *   - no deadlock: every wait has a signaller and the graph has no cycle, on two
 *     queues and on one queue (C_0 G_0 C_1 G_1 ... in submission order);
 *   - no race: C_n before G_n (read after write) and G_n before C_{n+2}, the next
 *     writer of the same slot (write after read);
 *   - the checks can fail: each wait made one frame early (fl_frames_sync_values'
 *     faults) is reported as the race it causes.
 * What it cannot see (stage and access masks, queue-family ownership) is in
 * docs/PORTING.md, "The two-queue path without a second queue". */
#include "test.h"

#include "gpu/frames.h"

#include <stdbool.h>
#include <string.h>

#define FRAMES 12
#define NODES (2 * FRAMES) /* C_n = 2n, G_n = 2n + 1 */

typedef struct {
  bool edge[NODES][NODES]; /* edge[a][b]: a happens before b (direct) */
  bool reach[NODES][NODES];
  bool missing_signal;
} model;

static int compute_node(int n) { return 2 * n; }
static int graphics_node(int n) { return 2 * n + 1; }

/* The node that first signals `timeline` (0 sim by C, 1 render by G) to a value >= v; -1 if none. */
static int signaller(int timeline, uint64_t v, int fault)
{
  for (int n = 0; n < FRAMES; n++) {
    fl_frame_sync s = fl_frames_sync_values((uint64_t)n, fault);
    if (timeline == 0 && s.compute_signals_sim >= v) return compute_node(n);
    if (timeline == 1 && s.graphics_signals_render >= v) return graphics_node(n);
  }
  return -1;
}

/* Builds the graph; one_queue: a single queue ordering C_0 G_0 C_1 G_1 ... */
static void build(model *m, int fault, bool one_queue)
{
  memset(m, 0, sizeof *m);
  for (int n = 0; n < FRAMES; n++) {
    if (one_queue) {
      m->edge[compute_node(n)][graphics_node(n)] = true;
      if (n + 1 < FRAMES) m->edge[graphics_node(n)][compute_node(n + 1)] = true;
    } else if (n + 1 < FRAMES) {
      m->edge[compute_node(n)][compute_node(n + 1)] = true;
      m->edge[graphics_node(n)][graphics_node(n + 1)] = true;
    }
    fl_frame_sync s = fl_frames_sync_values((uint64_t)n, fault);
    /* Frame n's waits; a wait for a value past the last modelled frame counts as missing. */
    if (s.compute_waits_render > 0) {
      int from = signaller(1, s.compute_waits_render, fault);
      if (from < 0) m->missing_signal = true;
      else m->edge[from][compute_node(n)] = true;
    }
    int from = signaller(0, s.graphics_waits_sim, fault);
    if (from < 0) m->missing_signal = true;
    else m->edge[from][graphics_node(n)] = true;
  }
  memcpy(m->reach, m->edge, sizeof m->reach);
  for (int k = 0; k < NODES; k++) /* transitive closure (Warshall) */
    for (int i = 0; i < NODES; i++)
      if (m->reach[i][k])
        for (int j = 0; j < NODES; j++) m->reach[i][j] |= m->reach[k][j];
}

static bool has_cycle(const model *m)
{
  for (int i = 0; i < NODES; i++)
    if (m->reach[i][i]) return true;
  return false;
}

/* Counts the unordered conflicting pairs (see the top of the file), printing the first. */
static int races(const model *m, const char *what)
{
  int count = 0;
  for (int n = 0; n < FRAMES; n++) {
    bool raw = m->reach[compute_node(n)][graphics_node(n)];
    bool war = n + 2 >= FRAMES || m->reach[graphics_node(n)][compute_node(n + 2)];
    if ((!raw || !war) && count++ == 0)
      printf("  %s: frame %d: %s\n", what, n,
             !raw ? "the simulation may still be writing what the drawing reads"
                  : "the simulation of frame n+2 may overwrite the snapshot the drawing reads");
  }
  return count;
}

static void test_handshake_orders_both_queues(void)
{
  model m;
  build(&m, 0, false);
  ENSURE(!m.missing_signal);
  ENSURE(!has_cycle(&m));
  ENSURE(races(&m, "two queues") == 0);
  build(&m, 0, true);
  ENSURE(!m.missing_signal);
  ENSURE_MSG(!has_cycle(&m), "one queue: a wait waits for a later submission (deadlock)");
  ENSURE(races(&m, "one queue") == 0);
  /* Frames really overlap on two queues: C_{n+1} is not ordered after G_n. */
  build(&m, 0, false);
  ENSURE(!m.reach[graphics_node(3)][compute_node(4)] && !m.reach[compute_node(4)][graphics_node(3)]);
}

static void test_early_waits_are_races(void)
{
  model m;
  build(&m, 1, false); /* graphics waits for the previous frame's simulation */
  ENSURE(!has_cycle(&m));
  ENSURE_MSG(races(&m, "break-graphics-wait") >= FRAMES - 1, "an early graphics wait went unnoticed");
  build(&m, 2, false); /* compute waits for the drawing of frame n-3 */
  ENSURE(!has_cycle(&m));
  ENSURE_MSG(races(&m, "break-compute-wait") >= FRAMES - 4, "an early compute wait went unnoticed");
  /* On one queue, submission order hides both: why the model, not a one-queue run, checks the values. */
  build(&m, 1, true);
  ENSURE(races(&m, "one queue, break-graphics-wait") == 0);
}

static const fl_test_case cases[] = {
    {"handshake_orders_both_queues", test_handshake_orders_both_queues},
    {"early_waits_are_races", test_early_waits_are_races},
};
FL_TEST_MAIN(cases)
