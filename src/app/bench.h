/* app/bench: the copy-kernel bandwidth ceiling (shaders/common/copy.comp),
 * measured in the same run as the passes it is compared with. */
#pragma once
#include "gpu/gpu.h"

/* Times `repeats` copies of `bytes` (read + write) with timestamps; returns the
 * median GB/s, counting both the bytes read and the bytes written. */
bool fl_bench_copy_ceiling(fl_gpu *gpu, uint64_t bytes, uint32_t repeats, double *gbps_out);
