/* scene/scene_list: the built-in scene names (the .json files in assets/scenes), sorted. */
#pragma once
#include <stdint.h>

#include "scene/scene.h"

/* Fills up to `max` names (file stems) in sorted order; returns how many, or -1
 * when the directory cannot be opened. */
int fl_scene_builtin_names(char (*names)[FL_SCENE_NAME_MAX], int max);
