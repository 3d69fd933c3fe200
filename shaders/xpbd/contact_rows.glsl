// xpbd/contact_rows.glsl: the fields of a neighbour's fl_gpu_xpbd_object that a particle contact reads, fetched
// as two vec4 rows of the record instead of five named scalars. A contact loop reads the record of every
// candidate neighbour, and on lavapipe (llvmpipe) two row loads cost less than five scalar ones: the named
// scalar loads made xpbd/self 11 % slower on softbodies (issue 20; docs/PERFORMANCE.md, "Refactors measured
// side by side"). The rows follow the record's std430 layout, which src/sim/shared_layout.c asserts field by
// field. Include after xpbd/buffers.glsl; it declares a second, read-only view of the objects binding.
#ifndef FL_XPBD_CONTACT_ROWS_GLSL
#define FL_XPBD_CONTACT_ROWS_GLSL

layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer ObjectRows { vec4 object_rows[]; };

struct fl_contact_side {
  float static_friction, kinetic_friction;
  float thickness;    // m
  bool self_collision; // collides with itself (either mode)
  bool body;          // a soft body or balloon: collides with every other object
};

fl_contact_side fl_contact_side_of(uint object)
{
  vec4 row0 = object_rows[FL_XPBD_OBJECT_ROWS * object];     // static_friction, kinetic_friction, thickness, damping
  vec4 row2 = object_rows[FL_XPBD_OBJECT_ROWS * object + 2u]; // lift, damping_model, self_collision, body
  return fl_contact_side(row0.x, row0.y, row0.z, floatBitsToUint(row2.z) != 0u, floatBitsToUint(row2.w) != 0u);
}

#endif
