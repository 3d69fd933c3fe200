/* sim/mpm/snow_implicit: the semi-implicit velocity solve of MPM snow on the GPU (see snow_implicit.h). */
#include "sim/mpm/snow_implicit.h"

#include "core/log.h"

#include <math.h>
#include <string.h>

#define VEC4 16u

static bool make(fl_gpu *gpu, uint64_t bytes, const char *what, fl_buffer *out)
{
  return fl_buffer_create(gpu, bytes ? bytes : 16, FL_MEMORY_DEVICE, what, out);
}

bool fl_snow_implicit_create(fl_gpu *gpu, const fl_snow_implicit_inputs *in, fl_snow_implicit *out)
{
  memset(out, 0, sizeof *out);
  out->gpu = gpu;
  out->particles = in->particles;
  out->nodes = in->nodes;
  out->compare_and_swap = in->compare_and_swap;
  out->in = *in;
  uint64_t n = in->nodes, np = in->particles;
  bool ok = make(gpu, np * FL_SNOW_CR_PARTICLE_VEC4S * VEC4, "snow implicit particle data", &out->pdata) &&
            make(gpu, n * 4, "snow implicit node info", &out->info) &&
            make(gpu, n * VEC4, "snow implicit Hessian accumulator", &out->hacc) &&
            make(gpu, n * VEC4, "snow implicit z", &out->z) && make(gpu, n * VEC4, "snow implicit r", &out->r) &&
            make(gpu, n * VEC4, "snow implicit p", &out->p) && make(gpu, n * VEC4, "snow implicit Br", &out->br) &&
            make(gpu, n * VEC4, "snow implicit Bp", &out->bp) && fl_buffer_fill(gpu, &out->hacc, 0) &&
            fl_reduce_create(gpu, in->nodes ? in->nodes : 1, FL_SNOW_CR_SLOT_COUNT, &out->reduce);
  ok = ok && fl_reduce_bind_dot(&out->reduce, &out->z, &out->z, FL_SNOW_CR_SLOT_BB, &out->dot_bb) &&
       fl_reduce_bind_dot(&out->reduce, &out->bp, &out->bp, FL_SNOW_CR_SLOT_APAP, &out->dot_bpbp) &&
       fl_reduce_bind_dot(&out->reduce, &out->r, &out->br, FL_SNOW_CR_SLOT_RAR0, &out->dot_rbr[0]) &&
       fl_reduce_bind_dot(&out->reduce, &out->r, &out->br, FL_SNOW_CR_SLOT_RAR1, &out->dot_rbr[1]) &&
       fl_reduce_bind_dot(&out->reduce, &out->r, &out->r, FL_SNOW_CR_SLOT_RR, &out->dot_rr);
  if (!ok) {
    fl_snow_implicit_destroy(out);
    return fl_error_wrap("snow semi-implicit solve: create");
  }
  return true;
}

void fl_snow_implicit_destroy(fl_snow_implicit *im)
{
  if (!im->gpu) return;
  fl_gpu *gpu = im->gpu;
  fl_reduce_destroy(gpu, &im->reduce);
  fl_buffer *buffers[] = {&im->pdata, &im->info, &im->hacc, &im->z, &im->r, &im->p, &im->br, &im->bp};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(gpu, buffers[i]);
  memset(im, 0, sizeof *im);
}

/* One node-wise CR step (mpm/implicit_update.comp) of `mode` at iteration `it`, then a barrier. */
static void update(const fl_snow_implicit *im, fl_rec *r, fl_mpm_push *pc, uint32_t mode, uint32_t it)
{
  pc->arg = mode | it << 8;
  fl_rec_pass(r, &(fl_pass){.kernel = "mpm/implicit_update", FL_PUSH(*pc), .threads = im->nodes,
                            FL_BUFFERS(&im->info, &im->hacc, &im->z, &im->r, &im->p, &im->br, &im->bp,
                                       fl_reduce_results(&im->reduce))});
}

/* hacc += H (info vec): vec = z (whatever the residual) or r, then a barrier. */
static void apply(const fl_snow_implicit *im, fl_rec *r, fl_mpm_push *pc, bool of_z)
{
  pc->arg = of_z ? FL_SNOW_CR_APPLY_ALWAYS : 0u;
  fl_rec_pass(r, &(fl_pass){.kernel = im->compare_and_swap ? "mpm/implicit_apply_cas" : "mpm/implicit_apply_float",
                            FL_PUSH(*pc), .threads = im->particles,
                            FL_BUFFERS(im->in.pos, im->in.fe, &im->pdata, &im->info, of_z ? &im->z : &im->r,
                                       &im->hacc, fl_reduce_results(&im->reduce), im->in.block_hash)});
}

static void dot(const fl_snow_implicit *im, fl_rec *r, const fl_reduce_binding *b)
{
  fl_reduce_record(&im->reduce, b, r, im->nodes);
  fl_rec_barrier(r);
}

void fl_snow_implicit_record(const fl_snow_implicit *im, fl_rec *r, const fl_mpm_push *push, float beta)
{
  const fl_snow_implicit_inputs *in = &im->in;
  fl_mpm_push pc = *push;
  pc.beta = beta;
  pc.arg = 0;
  /* ITERATIONS and STOP are adjacent slots */
  vkCmdFillBuffer(r->cmd, fl_reduce_results(&im->reduce)->buffer, FL_SNOW_CR_SLOT_ITERATIONS * 4, 8, 0);
  fl_rec_pass(r, &(fl_pass){.kernel = "mpm/implicit_prepare", FL_PUSH(pc), .threads = im->particles,
                            .no_barrier = true, FL_BUFFERS(in->vel, in->fe, &im->pdata, in->materials)});
  fl_rec_pass(r, &(fl_pass){.kernel = "mpm/implicit_init", FL_PUSH(pc), .threads = im->nodes,
                            FL_BUFFERS(in->acc, in->gridv, in->colliders, in->materials, &im->info, &im->z,
                                       &im->hacc, in->blocks, in->colliders)});
  dot(im, r, &im->dot_bb); /* b.b, b = z0 */
  apply(im, r, &pc, true); /* H z0 */
  update(im, r, &pc, FL_SNOW_CR_RESIDUAL, 0);
  dot(im, r, &im->dot_rr);
  apply(im, r, &pc, false);
  update(im, r, &pc, FL_SNOW_CR_PRODUCT_FIRST, 0);
  dot(im, r, &im->dot_rbr[0]);
  for (uint32_t k = 0; k < FL_SNOW_CR_ITERATIONS; k++) {
    dot(im, r, &im->dot_bpbp);
    update(im, r, &pc, FL_SNOW_CR_STEP, k);
    dot(im, r, &im->dot_rr);
    if (k + 1 == FL_SNOW_CR_ITERATIONS) break; /* the last update of z needs no new direction */
    apply(im, r, &pc, false);
    update(im, r, &pc, FL_SNOW_CR_PRODUCT, k);
    dot(im, r, &im->dot_rbr[(k + 1) & 1]);
    update(im, r, &pc, FL_SNOW_CR_DIRECTION, k);
  }
  pc.arg = 0;
  fl_rec_pass(r, &(fl_pass){.kernel = "mpm/implicit_finish", FL_PUSH(pc), .threads = im->nodes,
                            FL_BUFFERS(&im->info, &im->z, in->colliders, in->materials, in->gridv, in->blocks,
                                       in->colliders)});
}

uint64_t fl_snow_implicit_bytes(const fl_snow_implicit *im)
{
  uint64_t n = im->nodes, np = im->particles;
  uint64_t products = FL_SNOW_CR_ITERATIONS + 1;
  /* prepare: V0, F_E -> data; init: accumulator, gridv -> info, z, hacc; finish: info, z, gridv */
  uint64_t bytes = np * (16 + 48 + 16 * FL_SNOW_CR_PARTICLE_VEC4S) + n * (32 + 16 + 4 + 16 + 16) + n * (4 + 16 + 32);
  /* a product: each particle reads x, F_E, its data; the grid's info, vector and accumulator once each */
  bytes += products * (np * (16 + 48 + 16 * FL_SNOW_CR_PARTICLE_VEC4S) + n * (4 + 16 + 2 * 16));
  /* the node steps: residual, products (info, hacc, r -> Br, hacc), step (p, Bp, z, r), direction */
  bytes += n * (4 + 16 + 32) + FL_SNOW_CR_ITERATIONS * n * (4 + 16 + 16 + 16 + 16) +
           FL_SNOW_CR_ITERATIONS * n * (16 * 6) + (FL_SNOW_CR_ITERATIONS - 1) * n * (16 * 6);
  /* the dot products */
  bytes += fl_reduce_bytes(&im->reduce, &im->dot_bb, im->nodes) +
           (products + FL_SNOW_CR_ITERATIONS) * fl_reduce_bytes(&im->reduce, &im->dot_rr, im->nodes) +
           FL_SNOW_CR_ITERATIONS * fl_reduce_bytes(&im->reduce, &im->dot_bpbp, im->nodes);
  return bytes;
}

bool fl_snow_implicit_read_status(fl_snow_implicit *im, uint32_t *iterations, float *relative_residual)
{
  float r[FL_SNOW_CR_SLOT_COUNT];
  *iterations = 0;
  *relative_residual = 0;
  if (!fl_buffer_readback(im->gpu, fl_reduce_results(&im->reduce), 0, r, sizeof r)) return false;
  *iterations = (uint32_t)r[FL_SNOW_CR_SLOT_ITERATIONS];
  *relative_residual = r[FL_SNOW_CR_SLOT_BB] > 0 ? sqrtf(r[FL_SNOW_CR_SLOT_RR] / r[FL_SNOW_CR_SLOT_BB]) : 0.0f;
  return true;
}
