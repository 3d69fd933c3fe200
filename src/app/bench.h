/* app/bench: the copy-kernel bandwidth ceiling (shaders/common/copy.comp),
 * measured in the same run as the passes it is compared with. */
#pragma once
#include "gpu/gpu.h"

/* The buffer size the copy uses for a request of `bytes`: rounded up to 16,
 * at least 1 MiB (smaller copies measure the dispatch, not the memory), at most
 * the device's maxStorageBufferRange. The bench reports this size. */
uint64_t fl_bench_copy_bytes(const fl_gpu *gpu, uint64_t bytes);
/* Times `repeats` copies of fl_bench_copy_bytes(bytes) (read + write) with
 * timestamps; returns the fastest repeat's GB/s, counting both the bytes read
 * and the bytes written. The fastest, not the median: a ceiling is an upper
 * bound, and on a shared machine the load only ever slows a repeat down (a
 * median taken while other work ran put passes above 100 % of it). */
bool fl_bench_copy_ceiling(fl_gpu *gpu, uint64_t bytes, uint32_t repeats, double *gbps_out);
