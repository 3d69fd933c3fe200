/* core/file: whole-file reads and writes, and finding the program's data
 * directory (SPIR-V and assets) from any working directory. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

/* Reads a whole file into a NUL-terminated malloc'd buffer; on failure records
 * "cannot read PATH: reason" and returns NULL. `max_size` 0 means 256 MiB. */
char *fl_file_read(const char *path, size_t *size_out, size_t max_size);
/* Writes `size` bytes to `path`, replacing it; records an error on failure. */
bool fl_file_write(const char *path, const void *data, size_t size);
/* True when `path` names an existing regular file. */
bool fl_file_exists(const char *path);
/* The directory that holds shaders/ and assets/: $FLURRY_DATA_DIR, else the
 * executable's directory when it has shaders/, else the configure-time FLURRY_DATA_DIR. */
const char *fl_data_dir(void);
/* Joins fl_data_dir() and `rel` into `out`; returns out. */
const char *fl_data_path(char *out, size_t out_size, const char *rel);
