// xpbd/tether.glsl: long range attachments (Kim, Chentanez and Mueller 2012, "Long Range Attachments: A
// Method to Simulate Inextensible Clothing in Computer Games"; xpbd_spec.h step 4b), run by xpbd/contacts
// on each particle before its collider contacts (the CPU reference's order; one dispatch fewer). A particle
// of a cloth with "tethers" may be no farther from its two pinned particles (flurry_shared.h
// fl_gpu_tether) than their distances across the sheet at rest: projected onto the two spheres in turn,
// FL_TETHER_ROUNDS times (alternating projections onto two balls approach their intersection).
// C = |x_k - x_pin| - rest <= 0 with w_pin = 0, so the projection moves x_k alone, whatever its mass (a
// load the coupling adds to it too). Pins never move in xpbd/contacts (w = 0 returns first), so the
// particles are independent. Include after the kernel's `pos` buffer.
layout(std430, binding = FL_XPBD_B_TETHER) readonly buffer Tethers { fl_gpu_tether tethers[]; };

// x put back on the sphere of radius rest around pin `pin` when it is outside it.
void fl_tether_one(inout vec3 x, uint pin, float rest)
{
  if (pin == FL_TETHER_NONE) return;
  vec3 d = x - pos[pin].xyz;
  float len = length(d);
  if (len > rest) x = pos[pin].xyz + d * (rest / len);
}

// Particle k's tethers applied to x, its position (pc.tethers: some particle has one).
void fl_tether(uint k, inout vec3 x)
{
  if (pc.tethers == 0u) return;
  fl_gpu_tether t = tethers[k];
  for (int round = 0; round < FL_TETHER_ROUNDS; round++) {
    fl_tether_one(x, t.pin0, t.rest0);
    fl_tether_one(x, t.pin1, t.rest1);
  }
}
