/* sim/material: helpers the material rows share (see material.h). */
#include "sim/material.h"

#include "core/log.h"

#include <stdlib.h>

bool fl_read_particle_state(fl_gpu *gpu, const fl_buffer *pos, const fl_buffer *vel, uint32_t first, uint32_t count,
                            float (**pos_out)[4], float (**vel_out)[4], uint32_t *count_out)
{
  VkDeviceSize bytes = (VkDeviceSize)count * 16, offset = (VkDeviceSize)first * 16;
  float(*p)[4] = malloc(bytes ? bytes : 16), (*v)[4] = malloc(bytes ? bytes : 16);
  bool ok = p && v;
  if (!ok) fl_error_set("out of host memory reading back %u particles", (unsigned)count);
  ok = ok && fl_buffer_readback(gpu, pos, offset, p, bytes) && fl_buffer_readback(gpu, vel, offset, v, bytes);
  if (!ok) {
    free(p);
    free(v);
    return false;
  }
  *pos_out = p;
  *vel_out = v;
  *count_out = count;
  return true;
}
