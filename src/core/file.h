/* core/file: whole-file reads and writes, and finding the program's data
 * directory (SPIR-V and assets) from any working directory. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Reads a whole file into a NUL-terminated malloc'd buffer; on failure records
 * "cannot read PATH: reason" and returns NULL. `max_size` 0 means 256 MiB. */
char *fl_file_read(const char *path, size_t *size_out, size_t max_size);
/* Writes `size` bytes to `path`, replacing it; on failure records "cannot write
 * PATH: <errno text>" and leaves no partial file (fl_file_finish). */
bool fl_file_write(const char *path, const void *data, size_t size);
/* Opens `path` for writing (replacing it); NULL with "cannot write PATH: <errno text>". */
FILE *fl_file_create(const char *path);
/* Flushes and closes a file from fl_file_create, checking every write it saw. On
 * failure (a full disk, a file size limit, /dev/full) it removes the partial file
 * when it is a regular one, records "cannot write PATH: <errno text>" and returns false. */
bool fl_file_finish(FILE *f, const char *path);
/* The directory part of `path` into `out` ("." when it has no slash, "/" for "/x"); returns out. */
const char *fl_path_dir(const char *path, char *out, size_t out_size);
/* Checks, before any work, that a run could write `path` (`is_dir`: a directory
 * it creates or fills): an existing one must be of that kind and writable, a new
 * one needs an existing writable directory; a file's path must not end in '/'. On failure records "WHAT: cannot
 * write PATH: <errno text> (...)" and returns false; creates nothing. */
bool fl_path_check_writable(const char *what, const char *path, bool is_dir);
/* True when `path` names an existing regular file. */
bool fl_file_exists(const char *path);
/* The directory that holds shaders/ and assets/: $FLURRY_DATA_DIR, else the
 * executable's directory when it has shaders/, else the configure-time FLURRY_DATA_DIR. */
const char *fl_data_dir(void);
/* Joins fl_data_dir() and `rel` into `out`; returns out. */
const char *fl_data_path(char *out, size_t out_size, const char *rel);
