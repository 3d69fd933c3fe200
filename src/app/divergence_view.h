/* app/divergence_view: how the app shows a mass-spring divergence: the label
 * over each object counts its resets and says while it is frozen; the panel
 * says why it diverges, its step against the stability limit (ms_spec.h):
 * mu = h / h_c with h_c = pi / omega per spring, omega = sqrt(kappa / M_ij)
 * and M_ij = m / 2 for the grid's equal masses (Kang 2018, Section 4; NOTES.md). */
#pragma once
#include <stddef.h>

#include "render/markers.h"
#include "scene/scene.h"
#include "sim/massspring/ms_object.h"

/* mu = h / h_c of mass-spring object `d` at substep length `h` (s). */
double fl_ms_step_ratio(const fl_mass_spring_desc *d, double h);
/* The mu from which a grid of this layout diverges under its integrator
 * (measured, ms_spec.h), or 0 when the integrator holds at any step (IM). */
double fl_ms_stability_limit(const fl_mass_spring_desc *d);
/* Rewrites each mass-spring label (its text starts with the object's name)
 * with the object's state: "E  frozen: diverged (2 resets)" or "E  2 resets". */
void fl_divergence_labels(fl_marker *markers, uint32_t count, const fl_ms_watch *watch, uint32_t n);
/* One line per mass-spring object of `scene`: its mu against its limit, and its state. */
void fl_divergence_notes(const fl_scene *scene, const fl_ms_watch *watch, uint32_t n, char *out, size_t size);
