/* tests/unit/test_spirv_reflect.c: SPIR-V reflection against modules that
 * glslangValidator compiles at test time from the GLSL embedded below (into a
 * fresh temporary directory), plus malformed and randomly mutated input that must
 * be rejected without crashing. $FLURRY_GLSLANG overrides the compiler's path. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "gpu/spirv_reflect.h"
#include "test.h"

static char tmp_dir[256];

/* Removes the temporary directory at exit. */
static void remove_temp_dir(void)
{
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  if (tmp_dir[0] && system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmp_dir);
}

/* Creates the per-run temporary directory once; "" on failure. */
static const char *temp_dir(void)
{
  if (tmp_dir[0]) return tmp_dir;
  const char *base = getenv("TMPDIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/flurry_spirv_XXXXXX", base && base[0] ? base : "/tmp");
  if (!mkdtemp(tmp_dir)) tmp_dir[0] = '\0';
  else atexit(remove_temp_dir);
  return tmp_dir;
}

/* Compiles `glsl` for `stage` ("comp", "vert", "frag") and `env` ("vulkan1.2")
 * with glslangValidator into a malloc'd word array of exactly the module's size;
 * NULL (with the compiler's output printed) on failure. */
static uint32_t *compile_glsl(const char *name, const char *stage, const char *env,
                              const char *glsl, size_t *word_count)
{
  const char *dir = temp_dir();
  if (!dir[0]) return NULL;
  char src[512], spv[512], log_path[512], cmd[2048];
  snprintf(src, sizeof src, "%s/%s.%s.glsl", dir, name, stage);
  snprintf(spv, sizeof spv, "%s/%s.%s.spv", dir, name, stage);
  snprintf(log_path, sizeof log_path, "%s/%s.%s.log", dir, name, stage);
  FILE *f = fopen(src, "wb");
  if (!f) return NULL;
  fputs(glsl, f);
  fclose(f);
  const char *glslang = getenv("FLURRY_GLSLANG");
  snprintf(cmd, sizeof cmd, "'%s' -V --target-env %s -S %s -o '%s' '%s' > '%s' 2>&1",
           glslang && glslang[0] ? glslang : "glslangValidator", env, stage, spv, src, log_path);
  if (system(cmd) != 0) {
    fprintf(stderr, "  glslangValidator failed on %s:\n", src);
    snprintf(cmd, sizeof cmd, "cat '%s' >&2", log_path);
    if (system(cmd) != 0) fprintf(stderr, "  (no log)\n");
    return NULL;
  }
  f = fopen(spv, "rb");
  if (!f) return NULL;
  uint32_t *words = NULL;
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (size > 0 && size % 4 == 0 && fseek(f, 0, SEEK_SET) == 0) {
    words = malloc((size_t)size);
    if (words && fread(words, 1, (size_t)size, f) != (size_t)size) {
      free(words);
      words = NULL;
    }
  }
  fclose(f);
  *word_count = words ? (size_t)size / 4 : 0;
  return words;
}

/* Compiles and reflects in one go; false when either step fails. */
static bool reflect_glsl(const char *name, const char *stage, const char *env, const char *glsl,
                         fl_spirv_info *info)
{
  size_t n = 0;
  uint32_t *words = compile_glsl(name, stage, env, glsl, &n);
  if (!words) return false;
  bool ok = fl_spirv_reflect(words, n, info);
  if (!ok) fprintf(stderr, "  reflect %s: %s\n", name, fl_error_message());
  free(words);
  return ok;
}

static const fl_spirv_binding *find_binding(const fl_spirv_info *info, uint32_t set, uint32_t binding)
{
  for (uint32_t i = 0; i < info->binding_count; i++)
    if (info->bindings[i].set == set && info->bindings[i].binding == binding)
      return &info->bindings[i];
  return NULL;
}

static const char *const COMPUTE_GLSL =
    "#version 460\n"
    "layout(local_size_x_id = 0, local_size_x = 64, local_size_y = 2) in;\n"
    "layout(constant_id = 5) const float STIFFNESS = 1.0;\n"
    "layout(constant_id = 3) const bool USE_GRID = true;\n"
    "struct Particle { vec4 pos; vec4 vel; };\n"
    "layout(std430, set = 0, binding = 0) buffer Particles { Particle p[]; } particles;\n"
    "layout(std430, set = 0, binding = 2) readonly buffer Forces { vec4 f[]; };\n"
    "layout(std430, set = 1, binding = 0) writeonly buffer Out { uint o[]; } outb;\n"
    "layout(std140, set = 0, binding = 1) uniform Params { mat4 m; vec3 g; float dt; } params;\n"
    "layout(push_constant) uniform Push { vec4 a; uint b; mat4 c; } pc;\n"
    "void main() {\n"
    "  uint i = gl_GlobalInvocationID.x;\n"
    "  vec4 v = particles.p[i].vel + f[i] * params.dt * STIFFNESS + pc.a + pc.c[0];\n"
    "  particles.p[i].vel = USE_GRID ? v : params.m * v;\n"
    "  outb.o[i] = pc.b;\n"
    "}\n";

static void test_compute_bindings(void)
{
  fl_spirv_info info;
  ENSURE(reflect_glsl("compute", "comp", "vulkan1.2", COMPUTE_GLSL, &info));
  ENSURE(info.stage == VK_SHADER_STAGE_COMPUTE_BIT);
  ENSURE(strcmp(info.entry, "main") == 0);
  ENSURE(info.binding_count == 4);
  const uint32_t want_set[4] = {0, 0, 0, 1}, want_binding[4] = {0, 1, 2, 0};
  const VkDescriptorType want_type[4] = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                         VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                         VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                         VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
  const char *want_name[4] = {"particles", "params", "Forces", "outb"};
  for (int i = 0; i < 4; i++) {
    const fl_spirv_binding *b = &info.bindings[i];
    ENSURE_MSG(b->set == want_set[i] && b->binding == want_binding[i], "#%d is %u/%u", i, b->set,
               b->binding);
    ENSURE_MSG(b->type == want_type[i], "#%d type %d", i, (int)b->type);
    ENSURE(b->count == 1);
    ENSURE_MSG(strcmp(b->name, want_name[i]) == 0, "#%d name '%s'", i, b->name);
  }
  /* std430 push block: vec4 @0 (16), uint @16 (4), mat4 @32 (64) -> 96. */
  ENSURE_MSG(info.push_constant_size == 96, "push %u", info.push_constant_size);
}

static void test_compute_local_size_spec(void)
{
  fl_spirv_info info;
  ENSURE(reflect_glsl("compute", "comp", "vulkan1.2", COMPUTE_GLSL, &info));
  ENSURE(info.local_size[0] == 64 && info.local_size[1] == 2 && info.local_size[2] == 1);
  ENSURE(info.local_size_spec_id[0] == 0);
  ENSURE(info.local_size_spec_id[1] == UINT32_MAX && info.local_size_spec_id[2] == UINT32_MAX);
  ENSURE_MSG(info.spec_constant_count == 3, "%u spec constants", info.spec_constant_count);
  ENSURE(info.spec_constant_ids[0] == 0 && info.spec_constant_ids[1] == 3 &&
         info.spec_constant_ids[2] == 5);
}

static void test_local_size_id(void)
{
  /* For SPIR-V 1.6 glslang writes OpExecutionModeId LocalSizeId instead. */
  fl_spirv_info info;
  ENSURE(reflect_glsl("compute13", "comp", "vulkan1.3", COMPUTE_GLSL, &info));
  ENSURE(info.local_size[0] == 64 && info.local_size[1] == 2 && info.local_size[2] == 1);
  ENSURE(info.local_size_spec_id[0] == 0);
  ENSURE(info.local_size_spec_id[1] == UINT32_MAX && info.local_size_spec_id[2] == UINT32_MAX);
  ENSURE(info.spec_constant_count == 3);
  ENSURE(info.binding_count == 4 && info.push_constant_size == 96);
}

static void test_literal_local_size(void)
{
  fl_spirv_info info;
  ENSURE(reflect_glsl("literal", "comp", "vulkan1.2",
                      "#version 450\nlayout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;\n"
                      "void main() {}\n",
                      &info));
  ENSURE(info.local_size[0] == 8 && info.local_size[1] == 4 && info.local_size[2] == 2);
  for (int i = 0; i < 3; i++) ENSURE(info.local_size_spec_id[i] == UINT32_MAX);
  ENSURE(info.binding_count == 0 && info.push_constant_size == 0 && info.spec_constant_count == 0);
}

#define PUSH_LAYOUT_GLSL(layout)                                                    \
  "#version 460\n"                                                                  \
  "layout(local_size_x = 1) in;\n"                                                  \
  "struct S { vec3 v; float f; };\n"                                                \
  "layout(push_constant, " layout ") uniform P { float a[3]; vec2 b; mat3 c; S s[2];\n" \
  "  layout(row_major) mat2x4 r; } pc;\n"                                           \
  "layout(std430, binding = 0) buffer O { float o; };\n"                            \
  "void main() { o = pc.a[1] + pc.b.x + pc.c[1].y + pc.s[1].f + pc.r[1].x; }\n"

static void test_push_constant_layouts(void)
{
  fl_spirv_info info;
  /* std140: a[3] stride 16 -> 48; b @48 -> 56; mat3 @64 (3 x 16) -> 112; s[2] @112 (2 x 16)
   * -> 144; row-major mat2x4 @144, 4 rows x 16 -> 208. */
  ENSURE(reflect_glsl("push140", "comp", "vulkan1.2", PUSH_LAYOUT_GLSL("std140"), &info));
  ENSURE_MSG(info.push_constant_size == 208, "std140 push %u", info.push_constant_size);
  /* std430: a[3] -> 12; b @16 -> 24; mat3 @32 -> 80; s[2] @80 -> 112; r @112, 4 rows x 8 -> 144. */
  ENSURE(reflect_glsl("push430", "comp", "vulkan1.2", PUSH_LAYOUT_GLSL("std430"), &info));
  ENSURE_MSG(info.push_constant_size == 144, "std430 push %u", info.push_constant_size);
}

static void test_old_style_buffer_block(void)
{
  /* SPIR-V 1.0 (Vulkan 1.0) spells storage buffers as Uniform + BufferBlock. */
  fl_spirv_info info;
  ENSURE(reflect_glsl("old", "comp", "vulkan1.0",
                      "#version 450\nlayout(local_size_x = 32) in;\n"
                      "layout(std430, set = 0, binding = 3) buffer Data { uint d[]; } data;\n"
                      "layout(std140, set = 0, binding = 1) uniform U { uint n; } u;\n"
                      "void main() { data.d[gl_GlobalInvocationID.x] = u.n; }\n",
                      &info));
  ENSURE(info.binding_count == 2);
  ENSURE(info.bindings[0].binding == 1 && info.bindings[0].type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER);
  ENSURE(info.bindings[1].binding == 3 && info.bindings[1].type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
  ENSURE(strcmp(info.bindings[1].name, "data") == 0);
  ENSURE(info.local_size[0] == 32 && info.local_size_spec_id[0] == UINT32_MAX);
}

static void test_images_and_arrays(void)
{
  fl_spirv_info info;
  ENSURE(reflect_glsl("images", "comp", "vulkan1.2",
                      "#version 450\nlayout(local_size_x = 8, local_size_y = 8) in;\n"
                      "layout(set = 0, binding = 0, rgba8) uniform writeonly image2D outImg;\n"
                      "layout(set = 0, binding = 1) uniform texture2D tex;\n"
                      "layout(set = 0, binding = 2) uniform sampler samp;\n"
                      "layout(set = 0, binding = 3) uniform sampler2D combined[4];\n"
                      "layout(std430, set = 2, binding = 5) buffer B { vec4 v[]; } bufs[3];\n"
                      "layout(set = 0, binding = 4) uniform samplerBuffer texel;\n"
                      "void main() {\n"
                      "  ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
                      "  vec4 c = texture(sampler2D(tex, samp), vec2(0.5)) + texture(combined[2], vec2(0.5));\n"
                      "  imageStore(outImg, p, c + bufs[1].v[0] + texelFetch(texel, 0));\n"
                      "}\n",
                      &info));
  ENSURE(info.binding_count == 6);
  const fl_spirv_binding *b;
  ENSURE((b = find_binding(&info, 0, 0)) && b->type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE && b->count == 1);
  ENSURE(strcmp(b->name, "outImg") == 0);
  ENSURE((b = find_binding(&info, 0, 1)) && b->type == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE);
  ENSURE((b = find_binding(&info, 0, 2)) && b->type == VK_DESCRIPTOR_TYPE_SAMPLER);
  ENSURE((b = find_binding(&info, 0, 3)) && b->type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER);
  ENSURE(b->count == 4);
  ENSURE((b = find_binding(&info, 0, 4)) && b->type == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER);
  ENSURE((b = find_binding(&info, 2, 5)) && b->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER && b->count == 3);
  ENSURE(strcmp(b->name, "bufs") == 0);
  /* Sorted by (set, binding). */
  for (uint32_t i = 1; i < info.binding_count; i++) {
    const fl_spirv_binding *p = &info.bindings[i - 1], *q = &info.bindings[i];
    ENSURE(p->set < q->set || (p->set == q->set && p->binding < q->binding));
  }
}

static const char *const VERT_GLSL =
    "#version 450\n"
    "layout(set = 0, binding = 0) uniform Camera { mat4 view_proj; vec4 tint; } cam;\n"
    "layout(push_constant) uniform Push { mat4 model; } pc;\n"
    "layout(location = 0) in vec3 pos;\n"
    "void main() { gl_Position = cam.view_proj * pc.model * vec4(pos, 1.0); }\n";

static const char *const FRAG_GLSL =
    "#version 450\n"
    "layout(set = 0, binding = 0) uniform Camera { mat4 view_proj; vec4 tint; } cam;\n"
    "layout(set = 0, binding = 1) uniform sampler2D albedo;\n"
    "layout(location = 0) out vec4 color;\n"
    "void main() { color = texture(albedo, vec2(0.5)) * cam.tint; }\n";

static void test_merge_vertex_fragment(void)
{
  fl_spirv_info st[2];
  ENSURE(reflect_glsl("mesh", "vert", "vulkan1.2", VERT_GLSL, &st[0]));
  ENSURE(reflect_glsl("mesh", "frag", "vulkan1.2", FRAG_GLSL, &st[1]));
  ENSURE(st[0].stage == VK_SHADER_STAGE_VERTEX_BIT && st[1].stage == VK_SHADER_STAGE_FRAGMENT_BIT);
  ENSURE(st[0].push_constant_size == 64 && st[1].push_constant_size == 0);
  ENSURE(st[0].local_size[0] == 0 && st[0].local_size_spec_id[0] == UINT32_MAX);

  fl_spirv_binding merged[8];
  VkShaderStageFlags flags[8];
  uint32_t n = 0, push = 0;
  ENSURE_MSG(fl_spirv_merge_stages(st, 2, merged, &n, 8, flags, &push), "%s", fl_error_message());
  ENSURE(n == 2 && push == 64);
  ENSURE(merged[0].binding == 0 && merged[0].type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER);
  ENSURE(flags[0] == (VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT));
  ENSURE(merged[1].binding == 1 && merged[1].type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER);
  ENSURE(flags[1] == VK_SHADER_STAGE_FRAGMENT_BIT);
  ENSURE(strcmp(merged[1].name, "albedo") == 0);

  /* Too little room is an error, not an overflow; NULL flags/push are allowed. */
  ENSURE(!fl_spirv_merge_stages(st, 2, merged, &n, 1, NULL, NULL));
  fl_error_clear();
  ENSURE(fl_spirv_merge_stages(st, 2, merged, &n, 2, NULL, NULL) && n == 2);
}

static void test_merge_conflict(void)
{
  fl_spirv_info st[2];
  ENSURE(reflect_glsl("mesh", "vert", "vulkan1.2", VERT_GLSL, &st[0]));
  ENSURE(reflect_glsl("clash", "frag", "vulkan1.2",
                      "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D shadow_map;\n"
                      "layout(location = 0) out vec4 color;\n"
                      "void main() { color = texture(shadow_map, vec2(0.5)); }\n",
                      &st[1]));
  fl_spirv_binding merged[8];
  uint32_t n = 99;
  fl_error_clear();
  ENSURE(!fl_spirv_merge_stages(st, 2, merged, &n, 8, NULL, NULL));
  const char *msg = fl_error_message();
  ENSURE_MSG(strstr(msg, "cam") && strstr(msg, "shadow_map") && strstr(msg, "vertex") &&
                 strstr(msg, "fragment") && strstr(msg, "uniform buffer") &&
                 strstr(msg, "combined image sampler"),
             "message: %s", msg);
}

static void test_too_many_bindings(void)
{
  char glsl[4096];
  int len = snprintf(glsl, sizeof glsl, "#version 450\nlayout(local_size_x = 1) in;\n");
  for (int i = 0; i < 33; i++)
    len += snprintf(glsl + len, sizeof glsl - (size_t)len,
                    "layout(std430, binding = %d) buffer B%d { uint v; } b%d;\n", i, i, i);
  snprintf(glsl + len, sizeof glsl - (size_t)len, "void main() {}\n");
  size_t n = 0;
  uint32_t *words = compile_glsl("many", "comp", "vulkan1.2", glsl, &n);
  ENSURE(words);
  fl_spirv_info info;
  fl_error_clear();
  bool ok = fl_spirv_reflect(words, n, &info);
  free(words);
  ENSURE(!ok);
  ENSURE_MSG(strstr(fl_error_message(), "32"), "message: %s", fl_error_message());
}

static void test_malformed_input(void)
{
  fl_spirv_info info;
  ENSURE(!fl_spirv_reflect(NULL, 0, &info));
  uint32_t one = 0x07230203u;
  ENSURE(!fl_spirv_reflect(&one, 1, &info));
  ENSURE(!fl_spirv_reflect(&one, 0, &info));

  size_t n = 0;
  uint32_t *words = compile_glsl("compute", "comp", "vulkan1.2", COMPUTE_GLSL, &n);
  ENSURE(words && n > 20);
  ENSURE(fl_spirv_reflect(words, n, &info));

  /* Bad and byte-swapped magic. */
  uint32_t saved = words[0];
  words[0] = 0xdeadbeefu;
  fl_error_clear();
  ENSURE(!fl_spirv_reflect(words, n, &info));
  ENSURE(strstr(fl_error_message(), "magic"));
  words[0] = 0x03022307u;
  ENSURE(!fl_spirv_reflect(words, n, &info));
  words[0] = saved;

  /* Cut inside the first instruction after the header (OpCapability, 2 words). */
  fl_error_clear();
  ENSURE(!fl_spirv_reflect(words, 6, &info));
  ENSURE_MSG(strstr(fl_error_message(), "truncated"), "message: %s", fl_error_message());
  /* Cut before the entry point: no entry point. */
  ENSURE(!fl_spirv_reflect(words, 5, &info));
  /* Every prefix is handled without reading past it (ASan checks the copy's end). */
  for (size_t len = 0; len < n; len++) {
    uint32_t *prefix = malloc((len ? len : 1) * sizeof *prefix);
    ENSURE(prefix);
    memcpy(prefix, words, len * sizeof *prefix);
    (void)fl_spirv_reflect(prefix, len, &info);
    free(prefix);
  }

  /* A zero-length instruction. */
  saved = words[5];
  words[5] = 0;
  ENSURE(!fl_spirv_reflect(words, n, &info));
  words[5] = saved;

  /* A result id outside the header's bound: lower the bound to 2. */
  saved = words[3];
  words[3] = 2;
  fl_error_clear();
  ENSURE(!fl_spirv_reflect(words, n, &info));
  ENSURE_MSG(strstr(fl_error_message(), "bound"), "message: %s", fl_error_message());
  words[3] = saved;

  /* Failure leaves a cleared result. */
  ENSURE(info.binding_count == 0 && info.push_constant_size == 0);
  ENSURE(fl_spirv_reflect(words, n, &info) && info.binding_count == 4);
  free(words);
}

/* xorshift64*: a fixed-seed generator so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rng(void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static void test_random_input_never_crashes(void)
{
  fl_spirv_info info;
  /* Pure noise, half of it with a valid magic and a plausible header. */
  for (int trial = 0; trial < 1000; trial++) {
    size_t n = rng() % 200;
    uint32_t *w = malloc((n ? n : 1) * sizeof *w);
    ENSURE(w);
    static const uint16_t ops[] = {5, 15, 16, 21, 22, 23, 24, 25, 27, 28, 29, 30, 32, 43, 50,
                                   51, 59, 71, 72, 331};
    for (size_t i = 0; i < n; i++) {
      uint32_t r = rng();
      if (trial & 2) w[i] = r; /* raw noise */
      else if (r & 1) w[i] = (r >> 1) % 64; /* a small id or literal */
      else w[i] = ((1 + (r >> 8) % 8) << 16) | ops[(r >> 16) % (sizeof ops / sizeof ops[0])];
    }
    if ((trial & 1) && n >= 5) {
      w[0] = 0x07230203u;
      w[3] = rng() % 64 + 1;
    }
    (void)fl_spirv_reflect(w, n, &info);
    free(w);
  }
  /* Mutations of real modules: a few words replaced by small or random values. */
  size_t n = 0, n2 = 0;
  uint32_t *base = compile_glsl("compute", "comp", "vulkan1.2", COMPUTE_GLSL, &n);
  uint32_t *base2 = compile_glsl("push140", "comp", "vulkan1.2",
                                 "#version 460\nlayout(local_size_x = 1) in;\n"
                                 "struct S { vec3 v; float f; mat2 m; };\n"
                                 "layout(push_constant) uniform P { S s[2]; uint u[3]; } pc;\n"
                                 "layout(binding = 0) uniform sampler2D t[2];\n"
                                 "layout(binding = 1, r32f) uniform image2D img;\n"
                                 "void main() { imageStore(img, ivec2(0), texture(t[1], vec2(pc.s[1].f))); }\n",
                                 &n2);
  ENSURE(base && base2);
  int accepted = 0;
  for (int trial = 0; trial < 4000; trial++) {
    const uint32_t *src = trial & 1 ? base2 : base;
    size_t len = trial & 1 ? n2 : n;
    uint32_t *w = malloc(len * sizeof *w);
    ENSURE(w);
    memcpy(w, src, len * sizeof *w);
    int edits = 1 + (int)(rng() % 4);
    for (int e = 0; e < edits; e++) {
      size_t at = 5 + rng() % (len - 5);
      switch (rng() % 4) {
      case 0: w[at] = rng(); break;
      case 1: w[at] = rng() % 64; break;
      case 2: w[at] ^= 1u << (rng() % 32); break;
      default: w[at] = (w[at] & 0xffffu) | ((rng() % 12) << 16); break; /* word count */
      }
    }
    if (fl_spirv_reflect(w, len, &info)) {
      accepted++;
      ENSURE(info.binding_count <= FL_SPIRV_MAX_BINDINGS);
      ENSURE(info.spec_constant_count <= FL_SPIRV_MAX_SPEC_CONSTANTS);
      ENSURE(memchr(info.entry, '\0', sizeof info.entry) != NULL);
      for (uint32_t i = 0; i < info.binding_count; i++)
        ENSURE(memchr(info.bindings[i].name, '\0', sizeof info.bindings[i].name) != NULL);
    }
    fl_error_clear();
    free(w);
  }
  ENSURE(accepted > 0); /* some mutations are harmless (names, unused constants) */
  free(base);
  free(base2);
}

static const fl_test_case TESTS[] = {
    {"compute_bindings", test_compute_bindings},
    {"compute_local_size_spec", test_compute_local_size_spec},
    {"local_size_id", test_local_size_id},
    {"literal_local_size", test_literal_local_size},
    {"push_constant_layouts", test_push_constant_layouts},
    {"old_style_buffer_block", test_old_style_buffer_block},
    {"images_and_arrays", test_images_and_arrays},
    {"merge_vertex_fragment", test_merge_vertex_fragment},
    {"merge_conflict", test_merge_conflict},
    {"too_many_bindings", test_too_many_bindings},
    {"malformed_input", test_malformed_input},
    {"random_input_never_crashes", test_random_input_never_crashes},
};
FL_TEST_MAIN(TESTS)
