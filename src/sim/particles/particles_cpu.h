/* sim/particles/particles_cpu: CPU references of the particle kernels, the
 * same algorithm as the kernels in shaders/particles/, for the GPU-vs-CPU tests. */
#pragma once
#include <stdint.h>

#include "flurry_shared.h"

/* shaders/particles/integrate.comp on `count` particles (pos.w = inverse mass). */
void fl_particles_cpu_integrate(float (*pos)[4], float (*vel)[4], const fl_particles_push *pc);
/* shaders/particles/collide.comp. */
void fl_particles_cpu_collide(float (*pos)[4], float (*vel)[4], const fl_gpu_collider *colliders,
                              const fl_particles_push *pc);
