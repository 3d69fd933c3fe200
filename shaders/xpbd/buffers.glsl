// xpbd/buffers.glsl: the binding numbers of the XPBD system's buffers (cloth, soft bodies, balloons). Every
// cloth kernel declares only the ones it uses, at these numbers, so one
// table of buffers (src/sim/xpbd/xpbd.c) serves them all.
#ifndef FL_XPBD_BUFFERS_GLSL
#define FL_XPBD_BUFFERS_GLSL
#define FL_XPBD_B_POS 0          // vec4: xyz, w = inverse mass
#define FL_XPBD_B_PREV 1         // vec4: position at the start of the substep
#define FL_XPBD_B_VEL 2          // vec4
#define FL_XPBD_B_ACCEL 3        // vec4: wind acceleration of this substep
#define FL_XPBD_B_DELTA 4        // vec4: Jacobi corrections (xyz), w: count; or the contact guard's bound (uint per particle)
#define FL_XPBD_B_OBJECT 5       // uint per particle: cloth object index
#define FL_XPBD_B_OBJECTS 6      // fl_gpu_xpbd_object per object
#define FL_XPBD_B_CONSTRAINTS 7  // fl_gpu_distance[] or fl_gpu_bend[]
#define FL_XPBD_B_LAMBDA 8       // float per constraint
#define FL_XPBD_B_DLAMBDA 9      // float per constraint (Jacobi)
#define FL_XPBD_B_FIRST 10       // uint per particle + 1: CSR offsets
#define FL_XPBD_B_ITEMS 11       // uint: CSR items (constraints or triangles)
#define FL_XPBD_B_TRIANGLES 12   // uint, 3 per triangle
#define FL_XPBD_B_TRI_OBJECT 13  // uint per triangle
#define FL_XPBD_B_FACE_FORCE 14  // vec4 per triangle
#define FL_XPBD_B_COLLIDERS 15   // uniform: fl_gpu_collider[FL_MAX_COLLIDERS]
#define FL_XPBD_B_SORTED 16      // spatial hash: particle indices sorted by cell
#define FL_XPBD_B_CELL_START 17  // spatial hash: first sorted entry per table slot
#define FL_XPBD_B_CELL_END 18    // spatial hash: one past the last
#define FL_XPBD_B_CONTACT 19     // uint per particle: 1 after a contact in the last contact passes
#define FL_XPBD_B_BODIES 20      // fl_gpu_body per body
#define FL_XPBD_B_BODY_STATE 21  // vec4 per body (FL_BODY_STATE_VEC4S)
#define FL_XPBD_B_SCRATCH 22     // vec4 per particle: body_volume's gradients and weights (kept for the velocity correction)
#define FL_XPBD_B_SKIN 23        // fl_gpu_skin per drawn vertex
#define FL_XPBD_B_SKINNED 24     // vec4 per drawn vertex (skin.comp output)
#define FL_XPBD_B_TRI_SORTED 25  // triangle hash: triangle indices sorted by the cells their boxes overlap
#define FL_XPBD_B_TRI_START 26   // triangle hash: first sorted entry per table slot
#define FL_XPBD_B_TRI_END 27     // triangle hash: one past the last
#define FL_XPBD_B_TRI_BOX 28     // 2 vec4 per triangle at the hash build: (min, thickness), (max, owned edges | FL_TRI_BODY)
#define FL_XPBD_B_EDGES 29       // uvec2 per unique edge of the colliding meshes (a < b)
#define FL_XPBD_B_TRI_OWNED 30   // uint per triangle: bit k set when it owns its edge k (v[k], v[k+1])
#define FL_XPBD_B_ACCUM 31       // ivec4 per particle: fixed-point contact corrections, w: count
#define FL_XPBD_B_TRI_KEYS 32    // triangle hash build: 8 (table entry) keys per triangle
#define FL_XPBD_B_TRI_VALUES 33  // triangle hash build: 8 triangle indices per triangle
#define FL_XPBD_B_OLDER 34       // vec4: BDF2, the positions one substep before prev
#define FL_XPBD_B_VEL_OLD 35     // vec4: BDF2, the velocities one substep before vel
#define FL_XPBD_B_COLLIDER_TAIL 36 // the collider block again, storage: its tail (common/sdf.glsl)
#define FL_XPBD_B_OPPOSITE 37    // uint per particle: Diziol's opposite particle (itself when none; opposite_pairs.h)
#define FL_XPBD_B_CONTACT_CORRECTIONS 38 // vec4 per particle: self_friction's pushes plus friction, then add_delta
#define FL_XPBD_B_TRI_LIST 39    // the candidate pairs of a substep (tri_pairs): head, vertex pairs, edge pairs
#define FL_XPBD_B_LOAD 40         // vec4 per particle: the body volume correction spared near contacts this substep (contacts' friction)
#define FL_XPBD_B_SELF_SORTED 41  // vec4 per particle: xpbd/self_sort's positions in hash order, w the index (uintBitsToFloat)
#define FL_XPBD_B_TETHER 42       // fl_gpu_tether per particle: its two pinned particles and rest distances (tether.glsl)
#define FL_XPBD_B_COLOURS 43      // uint per colour + 1: a family's colour offsets (xpbd/gs_sweep.glsl, the one-workgroup sweep)
#define FL_XPBD_B_COUNT 44
#endif
