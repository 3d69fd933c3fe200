/* render/snow_look: how snow is drawn (--snow-view, key V): the lit iso-surface
 * of the grid density with the loose spray as beads (the default), every
 * particle as a bead shaded by its density, or the density as a translucent
 * ray-marched volume. Names for the command line and the report. */
#pragma once
#include <stdbool.h>

typedef enum {
  FL_SNOW_LOOK_SURFACE,   /* render/snow_surface + the spray as render/snow impostors */
  FL_SNOW_LOOK_PARTICLES, /* render/snow: every particle an impostor */
  FL_SNOW_LOOK_VOLUME,    /* render/snow_volume: the density ray-marched, translucent */
  FL_SNOW_LOOK_COUNT
} fl_snow_look;

/* The look named `name` ("surface", "particles" or "volume"); false for any other name. */
bool fl_snow_look_parse(const char *name, fl_snow_look *out);
/* The name of `look`. */
const char *fl_snow_look_name(fl_snow_look look);
/* The look after `look` (key V cycles through them). */
fl_snow_look fl_snow_look_next(fl_snow_look look);
