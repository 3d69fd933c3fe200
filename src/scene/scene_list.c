/* scene/scene_list: the built-in scene names, from the data directory. */
#include "scene/scene_list.h"

#include "core/file.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_names(const void *a, const void *b) { return strcmp(a, b); }

int fl_scene_builtin_names(char (*names)[FL_SCENE_NAME_MAX], int max)
{
  char dir_path[1024];
  fl_data_path(dir_path, sizeof dir_path, "assets/scenes");
  DIR *dir = opendir(dir_path);
  if (!dir) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) && n < max) {
    size_t len = strlen(e->d_name);
    if (len <= 5 || len - 5 >= FL_SCENE_NAME_MAX || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    memcpy(names[n], e->d_name, len - 5);
    names[n][len - 5] = 0;
    n++;
  }
  closedir(dir);
  qsort(names, (size_t)n, sizeof names[0], compare_names);
  return n;
}
