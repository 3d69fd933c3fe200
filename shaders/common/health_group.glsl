// common/health_group.glsl: a workgroup's health bits gathered in shared memory and or-ed into one
// object's flag word once (src/sim/common/health.h), so that a bad object costs one global atomic a
// workgroup, not one a particle. The kernel declares its `flags` buffer (uint per word) before it
// includes this; every invocation calls begin and end (barriers), any may call add in between.
#ifndef FL_HEALTH_GROUP_GLSL
#define FL_HEALTH_GROUP_GLSL

shared uint s_health_bits;

void fl_health_group_begin()
{
  if (gl_LocalInvocationIndex == 0u) s_health_bits = 0u;
  barrier();
}

void fl_health_group_add(uint bits)
{
  if (bits != 0u) atomicOr(s_health_bits, bits);
}

void fl_health_group_end(uint word)
{
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_health_bits != 0u) atomicOr(flags[word], s_health_bits);
}

#endif
