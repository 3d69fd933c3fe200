/* gpu/spirv_reflect: SPIR-V reflection for pipeline layouts (see spirv_reflect.h).
 *
 * Three walks over the instruction stream: the first validates every
 * instruction's length and the minimum length of each opcode this file reads,
 * and collects the defining instruction of each result id into an array sorted
 * by id (so memory follows the module's size, not its declared id bound); the
 * second records OpNames and the decorations that matter here; the third reads
 * the entry point, execution modes, spec constants and resource variables.
 * Every operand access is bounded by the instruction's validated word count, and
 * type walks carry a depth limit and a work budget, so hostile input (cyclic or
 * exponentially shared types) ends in an error rather than a crash or a hang. */
#include "gpu/spirv_reflect.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#define SPV_MAGIC 0x07230203u
#define SPV_MAGIC_SWAPPED 0x03022307u
#define SPV_HEADER_WORDS 5u

/* Opcodes read here. */
enum {
  OP_NAME = 5,
  OP_ENTRY_POINT = 15,
  OP_EXECUTION_MODE = 16,
  OP_TYPE_VOID = 19,
  OP_TYPE_BOOL = 20,
  OP_TYPE_INT = 21,
  OP_TYPE_FLOAT = 22,
  OP_TYPE_VECTOR = 23,
  OP_TYPE_MATRIX = 24,
  OP_TYPE_IMAGE = 25,
  OP_TYPE_SAMPLER = 26,
  OP_TYPE_SAMPLED_IMAGE = 27,
  OP_TYPE_ARRAY = 28,
  OP_TYPE_RUNTIME_ARRAY = 29,
  OP_TYPE_STRUCT = 30,
  OP_TYPE_POINTER = 32,
  OP_TYPE_LAST = 38,
  OP_CONSTANT_TRUE = 41,
  OP_CONSTANT_FALSE = 42,
  OP_CONSTANT = 43,
  OP_CONSTANT_COMPOSITE = 44,
  OP_CONSTANT_NULL = 46,
  OP_SPEC_CONSTANT_TRUE = 48,
  OP_SPEC_CONSTANT_FALSE = 49,
  OP_SPEC_CONSTANT = 50,
  OP_SPEC_CONSTANT_COMPOSITE = 51,
  OP_SPEC_CONSTANT_OP = 52,
  OP_VARIABLE = 59,
  OP_DECORATE = 71,
  OP_MEMBER_DECORATE = 72,
  OP_EXECUTION_MODE_ID = 331,
  OP_TYPE_ACCELERATION_STRUCTURE = 5341,
};

/* Decorations, execution modes, storage classes, built-ins, dims. */
enum {
  DEC_SPEC_ID = 1,
  DEC_BLOCK = 2,
  DEC_BUFFER_BLOCK = 3,
  DEC_ROW_MAJOR = 4,
  DEC_COL_MAJOR = 5,
  DEC_ARRAY_STRIDE = 6,
  DEC_MATRIX_STRIDE = 7,
  DEC_BUILTIN = 11,
  DEC_BINDING = 33,
  DEC_DESCRIPTOR_SET = 34,
  DEC_OFFSET = 35,
  MODE_LOCAL_SIZE = 17,
  MODE_LOCAL_SIZE_ID = 38,
  SC_UNIFORM_CONSTANT = 0,
  SC_UNIFORM = 2,
  SC_PUSH_CONSTANT = 9,
  SC_STORAGE_BUFFER = 12,
  BUILTIN_WORKGROUP_SIZE = 25,
  DIM_BUFFER = 5,
  DIM_SUBPASS_DATA = 6,
};

/* Per-id flags. */
enum {
  ID_HAS_SET = 1u << 0,
  ID_HAS_BINDING = 1u << 1,
  ID_HAS_SPEC_ID = 1u << 2,
  ID_BLOCK = 1u << 3,
  ID_BUFFER_BLOCK = 1u << 4,
  ID_HAS_BUILTIN = 1u << 5,
  ID_HAS_ARRAY_STRIDE = 1u << 6,
};

#define TYPE_DEPTH_LIMIT 32
#define TYPE_WORK_LIMIT (1u << 20)
#define SIZE_LIMIT 0xffffffffull

typedef struct {
  uint32_t id;
  uint32_t def;  /* word index of the defining instruction */
  uint32_t name; /* word index of its OpName; 0 = none */
  uint32_t set, binding, spec_id, builtin, array_stride;
  uint32_t flags;
} spv_id;

typedef struct {
  uint32_t id, member, decoration, value;
} spv_member_dec;

typedef struct {
  const uint32_t *w;
  size_t n;
  uint32_t bound;
  spv_id *ids;       /* one per defining instruction, sorted by id */
  size_t id_count;
  spv_member_dec *mdecs;
  size_t mdec_count, mdec_cap;
  uint32_t type_work; /* type_size calls so far, against TYPE_WORK_LIMIT */
} spv_ctx;

/* The fewest words (opcode word included) an instruction read here may have. */
static uint32_t min_words(uint32_t op)
{
  switch (op) {
  case OP_NAME: return 3;
  case OP_ENTRY_POINT: return 4;
  case OP_EXECUTION_MODE: return 3;
  case OP_EXECUTION_MODE_ID: return 3;
  case OP_TYPE_INT: return 4;
  case OP_TYPE_FLOAT: return 3;
  case OP_TYPE_VECTOR: return 4;
  case OP_TYPE_MATRIX: return 4;
  case OP_TYPE_IMAGE: return 9;
  case OP_TYPE_SAMPLED_IMAGE: return 3;
  case OP_TYPE_ARRAY: return 4;
  case OP_TYPE_RUNTIME_ARRAY: return 3;
  case OP_TYPE_POINTER: return 4;
  case OP_CONSTANT: return 4;
  case OP_SPEC_CONSTANT: return 4;
  case OP_VARIABLE: return 4;
  case OP_DECORATE: return 3;
  case OP_MEMBER_DECORATE: return 4;
  default: return 1;
  }
}

/* The operand index of the result id an instruction defines, or 0 when it
 * defines none that this file looks up. */
static uint32_t result_index(uint32_t op)
{
  if ((op >= OP_TYPE_VOID && op <= OP_TYPE_LAST) || op == OP_TYPE_ACCELERATION_STRUCTURE)
    return 1;
  if ((op >= OP_CONSTANT_TRUE && op <= OP_CONSTANT_NULL) ||
      (op >= OP_SPEC_CONSTANT_TRUE && op <= OP_SPEC_CONSTANT_OP) || op == OP_VARIABLE)
    return 2;
  return 0;
}

/* Copies the NUL-terminated literal string that starts at operand `first` of the
 * instruction at `ins` (of `wc` words) into out, truncating; false if unterminated. */
static bool read_string(const uint32_t *ins, uint32_t wc, uint32_t first, char *out, size_t out_size)
{
  size_t len = 0;
  for (uint32_t i = first; i < wc; i++) {
    for (int b = 0; b < 4; b++) {
      char ch = (char)((ins[i] >> (8 * b)) & 0xffu);
      if (ch == '\0') {
        out[len] = '\0';
        return true;
      }
      if (len + 1 < out_size) out[len++] = ch;
    }
  }
  out[len] = '\0';
  return false;
}

static int id_cmp(const void *pa, const void *pb)
{
  const spv_id *a = pa, *b = pb;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* The record of a defined id, or NULL. */
static spv_id *find_id(const spv_ctx *c, uint32_t id)
{
  spv_id key = {.id = id};
  return c->id_count ? bsearch(&key, c->ids, c->id_count, sizeof *c->ids, id_cmp) : NULL;
}

/* The instruction defining `id`, with its opcode and word count; NULL when none. */
static const uint32_t *def_of(const spv_ctx *c, uint32_t id, uint32_t *op, uint32_t *wc)
{
  const spv_id *d = find_id(c, id);
  if (!d) return NULL;
  const uint32_t *ins = c->w + d->def;
  *op = ins[0] & 0xffffu;
  *wc = ins[0] >> 16;
  return ins;
}

/* Like def_of, but records "id N is not defined" (naming `what`) when missing. */
static const uint32_t *need_def(const spv_ctx *c, uint32_t id, const char *what, uint32_t *op,
                                uint32_t *wc)
{
  const uint32_t *ins = def_of(c, id, op, wc);
  if (!ins) fl_error_set("spirv: %s refers to undefined id %u", what, id);
  return ins;
}

/* The OpName of `id`, or "" (names are informative; a bad one is just dropped). */
static void id_name(const spv_ctx *c, uint32_t id, char *out, size_t out_size)
{
  out[0] = '\0';
  const spv_id *d = find_id(c, id);
  if (!d || d->name == 0) return;
  const uint32_t *ins = c->w + d->name;
  if (!read_string(ins, ins[0] >> 16, 2, out, out_size)) out[0] = '\0';
}

/* The value of a scalar integer or boolean constant (the default of a spec
 * constant) and its SpecId, UINT32_MAX when it is not specializable. */
static bool const_value(const spv_ctx *c, uint32_t id, const char *what, uint32_t *value,
                        uint32_t *spec_id)
{
  uint32_t op, wc;
  const uint32_t *ins = need_def(c, id, what, &op, &wc);
  if (!ins) return false;
  bool spec = false;
  switch (op) {
  case OP_SPEC_CONSTANT:
  case OP_CONSTANT:
    if (wc > 4 && ins[4] != 0) return fl_error_set("spirv: %s (id %u) is out of range", what, id);
    *value = ins[3];
    spec = op == OP_SPEC_CONSTANT;
    break;
  case OP_SPEC_CONSTANT_TRUE: spec = true; *value = 1; break;
  case OP_SPEC_CONSTANT_FALSE: spec = true; *value = 0; break;
  case OP_CONSTANT_TRUE: *value = 1; break;
  case OP_CONSTANT_FALSE: *value = 0; break;
  default: return fl_error_set("spirv: %s (id %u) is not a scalar constant", what, id);
  }
  const spv_id *d = find_id(c, id); /* found: need_def succeeded */
  *spec_id = spec && (d->flags & ID_HAS_SPEC_ID) ? d->spec_id : UINT32_MAX;
  return true;
}

static int mdec_cmp(const void *pa, const void *pb)
{
  const spv_member_dec *a = pa, *b = pb;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  if (a->member != b->member) return a->member < b->member ? -1 : 1;
  if (a->decoration != b->decoration) return a->decoration < b->decoration ? -1 : 1;
  return 0;
}

/* Finds a member decoration recorded in pass 2; true and its value when present. */
static bool member_dec(const spv_ctx *c, uint32_t id, uint32_t member, uint32_t decoration,
                       uint32_t *value)
{
  spv_member_dec key = {id, member, decoration, 0};
  const spv_member_dec *hit = c->mdec_count
      ? bsearch(&key, c->mdecs, c->mdec_count, sizeof *c->mdecs, mdec_cmp) : NULL;
  if (hit && value) *value = hit->value;
  return hit != NULL;
}

/* Appends one member decoration, growing the array. */
static bool push_mdec(spv_ctx *c, uint32_t id, uint32_t member, uint32_t decoration, uint32_t value)
{
  if (c->mdec_count == c->mdec_cap) {
    size_t cap = c->mdec_cap ? c->mdec_cap * 2 : 64;
    spv_member_dec *grown = realloc(c->mdecs, cap * sizeof *grown);
    if (!grown) return fl_error_set("spirv: out of memory");
    c->mdecs = grown;
    c->mdec_cap = cap;
  }
  c->mdecs[c->mdec_count++] = (spv_member_dec){id, member, decoration, value};
  return true;
}

/* Pass 1: checks the header and every instruction's length; builds the id table. */
static bool pass_validate(spv_ctx *c)
{
  if (c->n < SPV_HEADER_WORDS)
    return fl_error_set("spirv: %zu words is too short for a module header", c->n);
  if (c->w[0] == SPV_MAGIC_SWAPPED)
    return fl_error_set("spirv: byte-swapped module (magic 0x%08x) is not supported", c->w[0]);
  if (c->w[0] != SPV_MAGIC) return fl_error_set("spirv: bad magic 0x%08x", c->w[0]);
  c->bound = c->w[3];
  if (c->bound == 0) return fl_error_set("spirv: id bound is 0");
  if (c->n > UINT32_MAX) return fl_error_set("spirv: module too large");
  size_t defs = 0;
  for (size_t at = SPV_HEADER_WORDS; at < c->n;) {
    uint32_t wc = c->w[at] >> 16, op = c->w[at] & 0xffffu;
    if (wc == 0) return fl_error_set("spirv: zero-length instruction at word %zu", at);
    if (wc > c->n - at)
      return fl_error_set("spirv: instruction at word %zu runs past the end (truncated module)", at);
    if (wc < min_words(op))
      return fl_error_set("spirv: opcode %u at word %zu has only %u words", op, at, wc);
    uint32_t ri = result_index(op);
    if (ri) {
      if (wc <= ri) return fl_error_set("spirv: opcode %u at word %zu has no result id", op, at);
      uint32_t id = c->w[at + ri];
      if (id == 0 || id >= c->bound)
        return fl_error_set("spirv: result id %u at word %zu is outside the bound %u", id, at, c->bound);
      defs++;
    }
    if (op == OP_NAME || op == OP_DECORATE || op == OP_MEMBER_DECORATE) {
      uint32_t id = c->w[at + 1];
      if (id >= c->bound)
        return fl_error_set("spirv: target id %u at word %zu is outside the bound %u", id, at, c->bound);
    }
    at += wc;
  }
  if (defs == 0) return fl_error_set("spirv: module defines nothing");
  c->ids = calloc(defs, sizeof *c->ids);
  if (!c->ids) return fl_error_set("spirv: out of memory for %zu ids", defs);
  for (size_t at = SPV_HEADER_WORDS; at < c->n; at += c->w[at] >> 16) {
    uint32_t ri = result_index(c->w[at] & 0xffffu);
    if (ri) c->ids[c->id_count++] = (spv_id){.id = c->w[at + ri], .def = (uint32_t)at};
  }
  qsort(c->ids, c->id_count, sizeof *c->ids, id_cmp);
  for (size_t i = 1; i < c->id_count; i++)
    if (c->ids[i].id == c->ids[i - 1].id)
      return fl_error_set("spirv: id %u is defined twice", c->ids[i].id);
  return true;
}

/* Pass 2: records names and decorations of defined ids, and member decorations. */
static bool pass_index(spv_ctx *c)
{
  for (size_t at = SPV_HEADER_WORDS; at < c->n;) {
    const uint32_t *ins = c->w + at;
    uint32_t wc = ins[0] >> 16, op = ins[0] & 0xffffu;
    spv_id *d = op == OP_NAME || op == OP_DECORATE ? find_id(c, ins[1]) : NULL;
    if (op == OP_NAME && d) {
      d->name = (uint32_t)at;
    } else if (op == OP_DECORATE && d) {
      uint32_t dec = ins[2];
      if (dec == DEC_BLOCK) d->flags |= ID_BLOCK;
      if (dec == DEC_BUFFER_BLOCK) d->flags |= ID_BUFFER_BLOCK;
      if (dec == DEC_SPEC_ID || dec == DEC_ARRAY_STRIDE || dec == DEC_BUILTIN ||
          dec == DEC_BINDING || dec == DEC_DESCRIPTOR_SET) {
        if (wc < 4) return fl_error_set("spirv: decoration %u at word %zu lacks its operand", dec, at);
        uint32_t lit = ins[3];
        switch (dec) {
        case DEC_SPEC_ID: d->spec_id = lit; d->flags |= ID_HAS_SPEC_ID; break;
        case DEC_ARRAY_STRIDE: d->array_stride = lit; d->flags |= ID_HAS_ARRAY_STRIDE; break;
        case DEC_BUILTIN: d->builtin = lit; d->flags |= ID_HAS_BUILTIN; break;
        case DEC_BINDING: d->binding = lit; d->flags |= ID_HAS_BINDING; break;
        default: d->set = lit; d->flags |= ID_HAS_SET; break;
        }
      }
    } else if (op == OP_MEMBER_DECORATE) {
      uint32_t dec = ins[3];
      if (dec == DEC_OFFSET || dec == DEC_MATRIX_STRIDE) {
        if (wc < 5) return fl_error_set("spirv: member decoration at word %zu lacks its operand", at);
        if (!push_mdec(c, ins[1], ins[2], dec, ins[4])) return false;
      } else if (dec == DEC_ROW_MAJOR) {
        if (!push_mdec(c, ins[1], ins[2], dec, 1)) return false;
      }
    }
    at += wc;
  }
  if (c->mdec_count) qsort(c->mdecs, c->mdec_count, sizeof *c->mdecs, mdec_cmp);
  return true;
}

/* Bytes a value of type `id` occupies in an explicitly laid out block. `mstride`
 * and `row_major` come from the enclosing struct member (0: not decorated). */
static bool type_size(spv_ctx *c, uint32_t id, uint32_t mstride, bool row_major, int depth,
                      uint64_t *size)
{
  if (depth > TYPE_DEPTH_LIMIT) return fl_error_set("spirv: types nest too deeply (cyclic?)");
  if (++c->type_work > TYPE_WORK_LIMIT) return fl_error_set("spirv: type graph too large");
  uint32_t op, wc;
  const uint32_t *ins = need_def(c, id, "a block member type", &op, &wc);
  if (!ins) return false;
  uint64_t s = 0;
  switch (op) {
  case OP_TYPE_BOOL: s = 4; break;
  case OP_TYPE_INT:
  case OP_TYPE_FLOAT:
    if (ins[2] == 0 || ins[2] % 8 != 0 || ins[2] > 64)
      return fl_error_set("spirv: scalar type %u has width %u", id, ins[2]);
    s = ins[2] / 8;
    break;
  case OP_TYPE_POINTER: s = 8; break; /* a physical storage buffer address */
  case OP_TYPE_VECTOR: {
    uint64_t comp;
    if (!type_size(c, ins[2], 0, false, depth + 1, &comp)) return false;
    s = comp * ins[3];
    break;
  }
  case OP_TYPE_MATRIX: {
    uint32_t cop, cwc;
    const uint32_t *col = need_def(c, ins[2], "a matrix column type", &cop, &cwc);
    if (!col) return false;
    if (cop != OP_TYPE_VECTOR) return fl_error_set("spirv: matrix %u column is not a vector", id);
    uint64_t col_size;
    if (!type_size(c, ins[2], 0, false, depth + 1, &col_size)) return false;
    uint64_t cols = ins[3], rows = col[3];
    if (mstride) s = (row_major ? rows : cols) * mstride;
    else s = cols * col_size;
    break;
  }
  case OP_TYPE_ARRAY: {
    uint32_t len, spec;
    if (!const_value(c, ins[3], "an array length", &len, &spec)) return false;
    uint64_t elem;
    const spv_id *d = find_id(c, id);
    if (d->flags & ID_HAS_ARRAY_STRIDE) elem = d->array_stride;
    else if (!type_size(c, ins[2], mstride, row_major, depth + 1, &elem)) return false;
    s = elem * len;
    break;
  }
  case OP_TYPE_RUNTIME_ARRAY: s = 0; break;
  case OP_TYPE_STRUCT: {
    uint64_t next = 0;
    for (uint32_t m = 0; m + 2 < wc; m++) {
      uint32_t off = 0, stride = 0;
      uint64_t msize;
      uint64_t start = member_dec(c, id, m, DEC_OFFSET, &off) ? off : next;
      member_dec(c, id, m, DEC_MATRIX_STRIDE, &stride);
      bool rm = member_dec(c, id, m, DEC_ROW_MAJOR, NULL);
      if (!type_size(c, ins[2 + m], stride, rm, depth + 1, &msize)) return false;
      next = start + msize;
      if (next > s) s = next;
    }
    break;
  }
  default: return fl_error_set("spirv: type %u (opcode %u) has no size in a block", id, op);
  }
  if (s > SIZE_LIMIT) return fl_error_set("spirv: type %u is too large", id);
  *size = s;
  return true;
}

static const char *stage_name(VkShaderStageFlags stage)
{
  switch (stage) {
  case VK_SHADER_STAGE_VERTEX_BIT: return "vertex";
  case VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT: return "tessellation control";
  case VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT: return "tessellation evaluation";
  case VK_SHADER_STAGE_GEOMETRY_BIT: return "geometry";
  case VK_SHADER_STAGE_FRAGMENT_BIT: return "fragment";
  case VK_SHADER_STAGE_COMPUTE_BIT: return "compute";
  default: return "unknown";
  }
}

const char *fl_spirv_descriptor_type_name(VkDescriptorType type)
{
  switch (type) {
  case VK_DESCRIPTOR_TYPE_SAMPLER: return "sampler";
  case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: return "combined image sampler";
  case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: return "sampled image";
  case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: return "storage image";
  case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER: return "uniform texel buffer";
  case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: return "storage texel buffer";
  case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: return "uniform buffer";
  case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: return "storage buffer";
  case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT: return "input attachment";
  case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR: return "acceleration structure";
  default: return "descriptor";
  }
}

/* The descriptor type of an OpTypeImage by its Dim and Sampled operands. */
static bool image_type(const uint32_t *img, uint32_t id, VkDescriptorType *type)
{
  uint32_t dim = img[3], sampled = img[7];
  if (dim == DIM_SUBPASS_DATA) *type = VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
  else if (sampled == 1) *type = dim == DIM_BUFFER ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                                   : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
  else if (sampled == 2) *type = dim == DIM_BUFFER ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
                                                   : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
  else return fl_error_set("spirv: image type %u has Sampled=%u (need 1 or 2)", id, sampled);
  return true;
}

/* Adds one resource variable to out->bindings (merging an identical alias). */
static bool add_binding(spv_ctx *c, fl_spirv_info *out, uint32_t var, uint32_t base_type,
                        VkDescriptorType type, uint32_t count)
{
  fl_spirv_binding b = {.type = type, .count = count};
  id_name(c, var, b.name, sizeof b.name);
  if (b.name[0] == '\0') id_name(c, base_type, b.name, sizeof b.name);
  const spv_id *d = find_id(c, var);
  if (!(d->flags & ID_HAS_SET) || !(d->flags & ID_HAS_BINDING))
    return fl_error_set("spirv: resource '%s' (id %u) lacks a DescriptorSet or Binding decoration",
                        b.name, var);
  b.set = d->set;
  b.binding = d->binding;
  for (uint32_t i = 0; i < out->binding_count; i++) {
    const fl_spirv_binding *o = &out->bindings[i];
    if (o->set != b.set || o->binding != b.binding) continue;
    if (o->type == b.type && o->count == b.count) return true; /* an alias of the same resource */
    return fl_error_set("spirv: set %u binding %u is both '%s' (%s[%u]) and '%s' (%s[%u])", b.set,
                        b.binding, o->name, fl_spirv_descriptor_type_name(o->type), o->count,
                        b.name, fl_spirv_descriptor_type_name(b.type), b.count);
  }
  if (out->binding_count >= FL_SPIRV_MAX_BINDINGS)
    return fl_error_set("spirv: more than %d descriptor bindings", FL_SPIRV_MAX_BINDINGS);
  out->bindings[out->binding_count++] = b;
  return true;
}

/* Classifies one OpVariable: a descriptor, the push-constant block, or neither. */
static bool reflect_variable(spv_ctx *c, const uint32_t *ins, fl_spirv_info *out)
{
  uint32_t var = ins[2], storage = ins[3];
  if (storage != SC_UNIFORM_CONSTANT && storage != SC_UNIFORM && storage != SC_STORAGE_BUFFER &&
      storage != SC_PUSH_CONSTANT)
    return true;
  uint32_t op, wc;
  const uint32_t *ptr = need_def(c, ins[1], "a variable's type", &op, &wc);
  if (!ptr) return false;
  if (op != OP_TYPE_POINTER) return fl_error_set("spirv: variable %u's type is not a pointer", var);
  uint32_t type_id = ptr[3];

  if (storage == SC_PUSH_CONSTANT) {
    uint64_t size;
    if (!type_size(c, type_id, 0, false, 0, &size)) return false;
    size = (size + 3) & ~(uint64_t)3;
    if (size > UINT32_MAX) return fl_error_set("spirv: push-constant block too large");
    if (size > out->push_constant_size) out->push_constant_size = (uint32_t)size;
    return true;
  }

  /* Strip (possibly nested) arrays into a descriptor count. */
  uint64_t count = 1;
  const uint32_t *t = NULL;
  for (int depth = 0;; depth++) {
    if (depth > TYPE_DEPTH_LIMIT) return fl_error_set("spirv: variable %u's type nests too deeply", var);
    t = need_def(c, type_id, "a resource type", &op, &wc);
    if (!t) return false;
    if (op == OP_TYPE_ARRAY) {
      uint32_t len, spec;
      if (!const_value(c, t[3], "an array length", &len, &spec)) return false;
      if (len == 0) return fl_error_set("spirv: variable %u has an array of length 0", var);
      count *= len;
      if (count > UINT32_MAX) return fl_error_set("spirv: variable %u's array is too large", var);
    } else if (op == OP_TYPE_RUNTIME_ARRAY) {
      count = 0;
    } else {
      break;
    }
    type_id = t[2];
  }

  VkDescriptorType type = VK_DESCRIPTOR_TYPE_MAX_ENUM;
  if (storage == SC_STORAGE_BUFFER || storage == SC_UNIFORM) {
    if (op != OP_TYPE_STRUCT)
      return fl_error_set("spirv: buffer variable %u's type is not a struct", var);
    uint32_t flags = find_id(c, type_id)->flags;
    if (storage == SC_STORAGE_BUFFER || (flags & ID_BUFFER_BLOCK))
      type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    else if (flags & ID_BLOCK)
      type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    else
      return fl_error_set("spirv: uniform variable %u's struct is neither Block nor BufferBlock", var);
  } else if (op == OP_TYPE_SAMPLED_IMAGE) {
    uint32_t iop, iwc;
    const uint32_t *img = need_def(c, t[2], "a sampled image", &iop, &iwc);
    if (!img) return false;
    if (iop != OP_TYPE_IMAGE) return fl_error_set("spirv: sampled image %u wraps no image", type_id);
    type = img[3] == DIM_BUFFER ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                : VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  } else if (op == OP_TYPE_IMAGE) {
    if (!image_type(t, type_id, &type)) return false;
  } else if (op == OP_TYPE_SAMPLER) {
    type = VK_DESCRIPTOR_TYPE_SAMPLER;
  } else if (op == OP_TYPE_ACCELERATION_STRUCTURE) {
    type = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
  } else {
    return fl_error_set("spirv: UniformConstant variable %u has unsupported type opcode %u", var, op);
  }
  return add_binding(c, out, var, type_id, type, (uint32_t)count);
}

/* Inserts a SpecId into the sorted, unique list. */
static bool add_spec_id(fl_spirv_info *out, uint32_t spec_id)
{
  uint32_t i = 0;
  while (i < out->spec_constant_count && out->spec_constant_ids[i] < spec_id) i++;
  if (i < out->spec_constant_count && out->spec_constant_ids[i] == spec_id) return true;
  if (out->spec_constant_count >= FL_SPIRV_MAX_SPEC_CONSTANTS)
    return fl_error_set("spirv: more than %d specialization constants", FL_SPIRV_MAX_SPEC_CONSTANTS);
  memmove(&out->spec_constant_ids[i + 1], &out->spec_constant_ids[i],
          (out->spec_constant_count - i) * sizeof out->spec_constant_ids[0]);
  out->spec_constant_ids[i] = spec_id;
  out->spec_constant_count++;
  return true;
}

/* Sets the workgroup size from three constant ids (LocalSizeId or WorkgroupSize). */
static bool local_size_from_ids(const spv_ctx *c, const uint32_t ids[3], fl_spirv_info *out)
{
  for (int i = 0; i < 3; i++)
    if (!const_value(c, ids[i], "a workgroup size", &out->local_size[i], &out->local_size_spec_id[i]))
      return false;
  return true;
}

static int binding_cmp(const void *pa, const void *pb)
{
  const fl_spirv_binding *a = pa, *b = pb;
  if (a->set != b->set) return a->set < b->set ? -1 : 1;
  if (a->binding != b->binding) return a->binding < b->binding ? -1 : 1;
  return 0;
}

/* Pass 3: entry point, execution modes, spec constants and resources. */
static bool pass_reflect(spv_ctx *c, fl_spirv_info *out)
{
  uint32_t entry_id = 0;
  bool have_entry = false;
  for (size_t at = SPV_HEADER_WORDS; at < c->n && !have_entry;) {
    const uint32_t *ins = c->w + at;
    uint32_t wc = ins[0] >> 16, op = ins[0] & 0xffffu;
    if (op == OP_ENTRY_POINT) {
      switch (ins[1]) {
      case 0: out->stage = VK_SHADER_STAGE_VERTEX_BIT; break;
      case 1: out->stage = VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT; break;
      case 2: out->stage = VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT; break;
      case 3: out->stage = VK_SHADER_STAGE_GEOMETRY_BIT; break;
      case 4: out->stage = VK_SHADER_STAGE_FRAGMENT_BIT; break;
      case 5: out->stage = VK_SHADER_STAGE_COMPUTE_BIT; break;
      default: return fl_error_set("spirv: unsupported execution model %u", ins[1]);
      }
      entry_id = ins[2];
      if (!read_string(ins, wc, 3, out->entry, sizeof out->entry))
        return fl_error_set("spirv: entry point name is not terminated");
      have_entry = true;
    }
    at += wc;
  }
  if (!have_entry) return fl_error_set("spirv: module has no entry point");

  for (size_t at = SPV_HEADER_WORDS; at < c->n;) {
    const uint32_t *ins = c->w + at;
    uint32_t wc = ins[0] >> 16, op = ins[0] & 0xffffu;
    at += wc;
    if ((op == OP_EXECUTION_MODE || op == OP_EXECUTION_MODE_ID) && ins[1] == entry_id) {
      uint32_t mode = ins[2];
      if ((mode == MODE_LOCAL_SIZE && op == OP_EXECUTION_MODE) ||
          (mode == MODE_LOCAL_SIZE_ID && op == OP_EXECUTION_MODE_ID)) {
        if (wc < 6) return fl_error_set("spirv: LocalSize needs three operands");
        if (mode == MODE_LOCAL_SIZE) {
          for (int i = 0; i < 3; i++) {
            out->local_size[i] = ins[3 + i];
            out->local_size_spec_id[i] = UINT32_MAX;
          }
        } else if (!local_size_from_ids(c, ins + 3, out)) {
          return false;
        }
      }
    } else if (op == OP_SPEC_CONSTANT || op == OP_SPEC_CONSTANT_TRUE || op == OP_SPEC_CONSTANT_FALSE) {
      const spv_id *d = find_id(c, ins[2]);
      if ((d->flags & ID_HAS_SPEC_ID) && !add_spec_id(out, d->spec_id)) return false;
    } else if (op == OP_VARIABLE) {
      if (!reflect_variable(c, ins, out)) return false;
    }
  }

  /* The WorkgroupSize built-in overrides the LocalSize execution modes. */
  for (size_t i = 0; i < c->id_count; i++) {
    const spv_id *d = &c->ids[i];
    if (!(d->flags & ID_HAS_BUILTIN) || d->builtin != BUILTIN_WORKGROUP_SIZE) continue;
    const uint32_t *ins = c->w + d->def;
    uint32_t wc = ins[0] >> 16, op = ins[0] & 0xffffu;
    if (op != OP_CONSTANT_COMPOSITE && op != OP_SPEC_CONSTANT_COMPOSITE) continue;
    if (wc < 6) return fl_error_set("spirv: WorkgroupSize needs three components");
    if (!local_size_from_ids(c, ins + 3, out)) return false;
  }

  qsort(out->bindings, out->binding_count, sizeof out->bindings[0], binding_cmp);
  return true;
}

bool fl_spirv_reflect(const uint32_t *words, size_t word_count, fl_spirv_info *out)
{
  if (!out) return fl_error_set("spirv: no output");
  memset(out, 0, sizeof *out);
  for (int i = 0; i < 3; i++) out->local_size_spec_id[i] = UINT32_MAX;
  if (!words && word_count) return fl_error_set("spirv: no input");
  spv_ctx c = {.w = words, .n = word_count};
  bool ok = pass_validate(&c) && pass_index(&c) && pass_reflect(&c, out);
  free(c.ids);
  free(c.mdecs);
  if (!ok) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 3; i++) out->local_size_spec_id[i] = UINT32_MAX;
  }
  return ok;
}

/* The first of stages[0..upto) that declares set/binding, for conflict messages. */
static const fl_spirv_binding *first_decl(const fl_spirv_info *stages, int upto, uint32_t set,
                                          uint32_t binding, VkShaderStageFlags *stage)
{
  for (int s = 0; s < upto; s++)
    for (uint32_t i = 0; i < stages[s].binding_count && i < FL_SPIRV_MAX_BINDINGS; i++)
      if (stages[s].bindings[i].set == set && stages[s].bindings[i].binding == binding) {
        *stage = stages[s].stage;
        return &stages[s].bindings[i];
      }
  return NULL;
}

bool fl_spirv_merge_stages(const fl_spirv_info *stages, int count, fl_spirv_binding *out,
                           uint32_t *out_count, uint32_t max_out,
                           VkShaderStageFlags *stage_flags_out, uint32_t *push_size_out)
{
  if (!out_count || (count > 0 && (!stages || (!out && max_out > 0))))
    return fl_error_set("spirv: merge given no stages or no output");
  uint32_t n = 0, push = 0;
  *out_count = 0;
  if (push_size_out) *push_size_out = 0;
  for (int s = 0; s < count; s++) {
    const fl_spirv_info *st = &stages[s];
    if (st->binding_count > FL_SPIRV_MAX_BINDINGS)
      return fl_error_set("spirv: %s stage has a corrupt binding count", stage_name(st->stage));
    if (st->push_constant_size > push) push = st->push_constant_size;
    for (uint32_t i = 0; i < st->binding_count; i++) {
      const fl_spirv_binding *b = &st->bindings[i];
      uint32_t k = 0;
      while (k < n && binding_cmp(&out[k], b) < 0) k++;
      if (k < n && binding_cmp(&out[k], b) == 0) {
        if (out[k].type != b->type || out[k].count != b->count) {
          VkShaderStageFlags first_stage = 0;
          const fl_spirv_binding *f = first_decl(stages, s, b->set, b->binding, &first_stage);
          if (!f) f = &out[k];
          return fl_error_set("spirv: set %u binding %u is '%s' (%s[%u]) in the %s stage but '%s' "
                              "(%s[%u]) in the %s stage", b->set, b->binding, f->name,
                              fl_spirv_descriptor_type_name(f->type), f->count,
                              stage_name(first_stage), b->name,
                              fl_spirv_descriptor_type_name(b->type), b->count,
                              stage_name(st->stage));
        }
        if (stage_flags_out) stage_flags_out[k] |= (VkShaderStageFlags)st->stage;
        continue;
      }
      if (n >= max_out) return fl_error_set("spirv: more than %u merged bindings", max_out);
      memmove(&out[k + 1], &out[k], (n - k) * sizeof *out);
      out[k] = *b;
      if (stage_flags_out) {
        memmove(&stage_flags_out[k + 1], &stage_flags_out[k], (n - k) * sizeof *stage_flags_out);
        stage_flags_out[k] = (VkShaderStageFlags)st->stage;
      }
      n++;
    }
  }
  *out_count = n;
  if (push_size_out) *push_size_out = push;
  return true;
}
