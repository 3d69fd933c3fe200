/* render/panel_imgui.cpp: the Dear ImGui bridge (Debian's libimgui-dev 1.86,
 * its GLFW and Vulkan backends). The project's only C++: it draws an
 * fl_panel_model as widgets (scene list, pause/step/reset, parameter sliders,
 * the sorted pass table, the frame-time graph) and reports the actions. */
#include "render/panel_imgui.h"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

/* A widget as last drawn, so a scripted click can find it. */
struct Widget {
  char id[112];
  ImVec2 min, max;
};

struct Click {
  bool pending, down;           /* the press is due / the button is held: release next frame */
  ImVec2 at;
};

struct State {
  bool glfw, vulkan;
  bool srgb;
  Widget widgets[128];
  int widget_count;
  Click click;
  float edit[FL_PANEL_MAX_KNOBS];   /* a slider's value while it is dragged */
  bool editing[FL_PANEL_MAX_KNOBS];
  char edit_key[FL_PANEL_MAX_KNOBS][112];
  uint32_t rows_shown;
  char title_shown[64];
  float right_edge; /* x of the panel's right side as last drawn, 0 when collapsed */
};

State *g;

/* Stands in for the surface and swapchain functions the backend loads for its
 * ImGui_ImplVulkanH_* window helpers, which flurry never calls (a headless
 * device has no such extension, and the backend refuses to start on a NULL). */
[[noreturn]] void unavailable()
{
  std::fprintf(stderr, "flurry: panel: a Vulkan surface or swapchain function was called through Dear ImGui\n");
  std::abort();
}

PFN_vkVoidFunction load_vulkan(const char *name, void *user)
{
  const fl_panel_vk *vk = static_cast<const fl_panel_vk *>(user);
  PFN_vkVoidFunction f = vk->get_instance_proc_addr(vk->instance, name);
  if (!f && std::strstr(name, "KHR")) f = reinterpret_cast<PFN_vkVoidFunction>(&unavailable);
  return f;
}

/* ImGui's colours are sRGB values; an sRGB attachment expects linear ones. */
void style_colours(bool srgb)
{
  ImGui::StyleColorsDark();
  ImGuiStyle &s = ImGui::GetStyle();
  s.WindowRounding = 4.0f;
  s.FrameRounding = 2.0f;
  s.Colors[ImGuiCol_WindowBg].w = 0.82f;
  if (!srgb) return;
  for (int i = 0; i < ImGuiCol_COUNT; i++) {
    ImVec4 &c = s.Colors[i];
    c.x = std::pow(c.x, 2.2f), c.y = std::pow(c.y, 2.2f), c.z = std::pow(c.z, 2.2f);
  }
}

void remember(const char *id)
{
  if (!g || g->widget_count >= (int)(sizeof g->widgets / sizeof g->widgets[0]) || !ImGui::IsItemVisible()) return;
  Widget &w = g->widgets[g->widget_count++];
  std::snprintf(w.id, sizeof w.id, "%s", id);
  w.min = ImGui::GetItemRectMin();
  w.max = ImGui::GetItemRectMax();
}

/* A collapsing section, clickable by scripts as "header:NAME". */
bool header(const char *name, ImGuiTreeNodeFlags flags)
{
  bool open = ImGui::CollapsingHeader(name, flags);
  char id[112];
  std::snprintf(id, sizeof id, "header:%s", name);
  remember(id);
  return open;
}

void scene_list(const fl_panel_model *m, fl_panel_actions *out)
{
  float rows = (float)(m->scene_count < 7 ? m->scene_count : 7);
  if (!ImGui::BeginListBox("##scenes", ImVec2(-1.0f, rows * ImGui::GetTextLineHeightWithSpacing() + 4.0f)))
    return;
  for (uint32_t i = 0; i < m->scene_count; i++) {
    bool current = (int)i == m->current;
    if (ImGui::Selectable(m->scenes[i], current) && !current) out->switch_scene = (int)i;
    if (current && ImGui::IsWindowAppearing()) ImGui::SetScrollHereY();
    char id[112];
    std::snprintf(id, sizeof id, "scene:%s", m->scenes[i]);
    remember(id);
  }
  ImGui::EndListBox();
}

void controls(const fl_panel_model *m, fl_panel_actions *out)
{
  if (ImGui::Button(m->paused ? "Run" : "Pause")) out->toggle_pause = true;
  remember("pause");
  ImGui::SameLine();
  if (ImGui::Button("Step")) out->step = true;
  remember("step");
  ImGui::SameLine();
  if (ImGui::Button("Reset")) out->reset = true;
  remember("reset");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", m->paused ? "paused" : "");
}

void knobs(const fl_panel_model *m, fl_panel_actions *out)
{
  if (m->knob_count == 0) return;
  ImGui::TextDisabled("a released slider restarts the scene");
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  for (uint32_t i = 0; i < m->knob_count && i < FL_PANEL_MAX_KNOBS; i++) {
    const fl_panel_knob &k = m->knobs[i];
    char id[112];
    if (k.component >= 0) std::snprintf(id, sizeof id, "knob:%s.%d", k.key, k.component);
    else std::snprintf(id, sizeof id, "knob:%s", k.key);
    /* a slider keeps its own value while dragged; otherwise it shows the scene's */
    if (!g->editing[i] || std::strcmp(g->edit_key[i], id) != 0) {
      g->edit[i] = k.value;
      std::snprintf(g->edit_key[i], sizeof g->edit_key[i], "%s", id);
    }
    ImGui::PushID(id);
    if (k.integer) {
      int v = (int)std::lround(g->edit[i]);
      ImGui::SliderInt(k.label, &v, (int)k.min, (int)k.max, "%d", ImGuiSliderFlags_AlwaysClamp);
      g->edit[i] = (float)v;
    } else {
      ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp | (k.logarithmic ? ImGuiSliderFlags_Logarithmic : 0);
      ImGui::SliderFloat(k.label, &g->edit[i], k.min, k.max, "%.3g", flags);
    }
    g->editing[i] = ImGui::IsItemActive();
    if (ImGui::IsItemDeactivatedAfterEdit()) {
      out->knob = (int)i;
      out->knob_value = g->edit[i];
      g->editing[i] = false;
    }
    remember(id);
    ImGui::PopID();
  }
  ImGui::PopItemWidth();
}

void passes(const fl_panel_model *m)
{
  char overlay[48];
  std::snprintf(overlay, sizeof overlay, "frame %.1f ms", m->frame_ms_now);
  float top = 0.0f;
  for (uint32_t i = 0; i < m->frame_count; i++) top = m->frame_ms[i] > top ? m->frame_ms[i] : top;
  ImGui::PlotLines("##frames", m->frame_ms, (int)m->frame_count, 0, overlay, 0.0f, top * 1.2f + 1.0f,
                   ImVec2(ImGui::GetContentRegionAvail().x, 48.0f)); /* 1.86's plots take no negative width */
  g->rows_shown = 0;
  if (ImGui::BeginTable("passes", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthStretch);
    for (uint32_t i = 0; i < m->pass_count; i++) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%8.3f", m->passes[i].ms);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(m->passes[i].name);
      g->rows_shown++;
    }
    if (m->more_passes) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%8.3f", m->more_ms);
      ImGui::TableNextColumn();
      ImGui::TextDisabled("(%u more passes)", m->more_passes);
    }
    ImGui::EndTable();
  }
  if (m->untimed) ImGui::TextDisabled("a queue cannot write timestamps: untimed");
}

} // namespace

extern "C" {

bool fl_panel_imgui_create(struct GLFWwindow *window)
{
  g = new (std::nothrow) State();
  if (!g || !ImGui::CreateContext()) return false;
  ImGuiIO &io = ImGui::GetIO();
  io.IniFilename = nullptr; /* no imgui.ini left in the working directory */
  io.LogFilename = nullptr;
  style_colours(false);
  if (window) g->glfw = ImGui_ImplGlfw_InitForVulkan(window, true);
  return !window || g->glfw;
}

void fl_panel_imgui_destroy(void)
{
  if (!g) return;
  fl_panel_imgui_detach();
  if (g->glfw) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  delete g;
  g = nullptr;
}

bool fl_panel_imgui_attach(const fl_panel_vk *vk)
{
  if (!g || g->vulkan) return false;
  if (!ImGui_ImplVulkan_LoadFunctions(load_vulkan, const_cast<fl_panel_vk *>(vk))) return false;
  ImGui_ImplVulkan_InitInfo info = {};
  info.Instance = vk->instance;
  info.PhysicalDevice = vk->physical;
  info.Device = vk->device;
  info.QueueFamily = vk->queue_family;
  info.Queue = vk->queue;
  info.DescriptorPool = vk->pool;
  info.MinImageCount = vk->image_count;
  info.ImageCount = vk->image_count;
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  if (!ImGui_ImplVulkan_Init(&info, vk->render_pass)) return false;
  g->vulkan = true;
  if (vk->srgb != g->srgb) style_colours(vk->srgb);
  g->srgb = vk->srgb;
  return true;
}

bool fl_panel_imgui_upload_fonts(VkCommandBuffer cmd) { return g && g->vulkan && ImGui_ImplVulkan_CreateFontsTexture(cmd); }

void fl_panel_imgui_fonts_uploaded(void) { ImGui_ImplVulkan_DestroyFontUploadObjects(); }

void fl_panel_imgui_detach(void)
{
  if (!g || !g->vulkan) return;
  ImGui_ImplVulkan_Shutdown();
  g->vulkan = false;
}

void fl_panel_imgui_build(const fl_panel_model *m, float width, float height, float dt, fl_panel_actions *out)
{
  *out = fl_panel_actions{-1, false, false, false, -1, 0.0f};
  if (!g || !g->vulkan) return;
  ImGuiIO &io = ImGui::GetIO();
  if (g->glfw) ImGui_ImplGlfw_NewFrame();
  /* width x height is the swapchain's extent in pixels. GLFW's backend sets the framebuffer scale from the
   * window's size and its framebuffer's, which disagree for a moment while the window is resized (window
   * 1x1, framebuffer 100 wide: a scale of 100 and a 32 000-pixel viewport, window.resize_storm): X11 has
   * no scale, and the panel draws in the extent's pixels. */
  io.DisplaySize = ImVec2(width, height);
  io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
  io.DeltaTime = dt > 0.0f ? dt : 1.0f / 60.0f;
  if (g->click.pending) { /* a scripted click: press over the widget now, release next frame */
    io.MousePos = g->click.at;
    io.MouseDown[0] = true;
    g->click.pending = false;
    g->click.down = true;
  } else if (g->click.down) {
    io.MousePos = g->click.at;
    io.MouseDown[0] = false;
    g->click.down = false;
  }
  ImGui_ImplVulkan_NewFrame();
  ImGui::NewFrame();
  g->widget_count = 0;
  float panel_w = width < 900.0f ? 240.0f : 290.0f;
  ImGui::SetNextWindowPos(ImVec2(8.0f, 8.0f), ImGuiCond_Once);
  ImGui::SetNextWindowSize(ImVec2(panel_w, 0.0f), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(panel_w, 0.0f), ImVec2(panel_w, height > 80.0f ? height - 16.0f : 64.0f));
  std::snprintf(g->title_shown, sizeof g->title_shown, "%s", m->title);
  char title[96];
  std::snprintf(title, sizeof title, "flurry: %s###panel", m->title);
  bool open = ImGui::Begin(title, nullptr, ImGuiWindowFlags_NoSavedSettings);
  g->right_edge = open ? ImGui::GetWindowPos().x + ImGui::GetWindowSize().x : 0.0f;
  if (open) {
    ImGui::Text("%llu particles  %s", (unsigned long long)m->particles, m->quality ? m->quality : "");
    if (header("Scenes", 0)) scene_list(m, out);
    if (header("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) {
      controls(m, out);
      knobs(m, out);
      if (m->notes && m->notes[0]) ImGui::TextWrapped("%s", m->notes);
    }
    if (header("GPU passes", ImGuiTreeNodeFlags_DefaultOpen)) passes(m);
    if (m->help && header("Keys", 0)) ImGui::TextUnformatted(m->help);
  }
  ImGui::End();
  ImGui::Render();
}

void fl_panel_imgui_record(VkCommandBuffer cmd)
{
  ImDrawData *d = ImGui::GetDrawData();
  if (g && g->vulkan && d && d->CmdListsCount) ImGui_ImplVulkan_RenderDrawData(d, cmd);
}

bool fl_panel_imgui_wants_mouse(void) { return g && ImGui::GetIO().WantCaptureMouse; }

bool fl_panel_imgui_click(const char *target, float fx)
{
  if (!g) return false;
  for (int i = 0; i < g->widget_count; i++) {
    const Widget &w = g->widgets[i];
    if (std::strcmp(w.id, target) != 0) continue;
    float x = w.min.x + (fx < 0.0f ? 0.0f : fx > 1.0f ? 1.0f : fx) * (w.max.x - w.min.x);
    g->click = Click{true, false, ImVec2(x, 0.5f * (w.min.y + w.max.y))};
    return true;
  }
  return false;
}

uint32_t fl_panel_imgui_rows_shown(void) { return g ? g->rows_shown : 0; }

const char *fl_panel_imgui_title_shown(void) { return g ? g->title_shown : ""; }

float fl_panel_imgui_right_edge(void) { return g ? g->right_edge : 0.0f; }

} // extern "C"
