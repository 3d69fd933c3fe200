/* core/file: whole-file I/O and the data directory lookup. */
#define _GNU_SOURCE
#include "core/file.h"

#include "core/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FLURRY_DATA_DIR
#define FLURRY_DATA_DIR "."
#endif

char *fl_file_read(const char *path, size_t *size_out, size_t max_size)
{
  if (max_size == 0) max_size = (size_t)256 << 20;
  struct stat st;
  if (stat(path, &st) != 0) {
    fl_error_set("cannot read %s: %s", path, strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    fl_error_set("cannot read %s: not a regular file", path);
    return NULL;
  }
  if ((size_t)st.st_size > max_size) {
    fl_error_set("cannot read %s: %lld bytes is more than the limit of %zu", path,
                 (long long)st.st_size, max_size);
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    fl_error_set("cannot read %s: %s", path, strerror(errno));
    return NULL;
  }
  size_t size = (size_t)st.st_size;
  char *data = malloc(size + 1);
  if (!data) {
    fclose(f);
    fl_error_set("cannot read %s: out of memory", path);
    return NULL;
  }
  size_t got = fread(data, 1, size, f);
  int failed = ferror(f);
  fclose(f);
  if (failed || got != size) {
    free(data);
    fl_error_set("cannot read %s: short read", path);
    return NULL;
  }
  data[size] = 0;
  if (size_out) *size_out = size;
  return data;
}

FILE *fl_file_create(const char *path)
{
  FILE *f = fopen(path, "wb");
  if (!f) fl_error_set("cannot write %s: %s", path, strerror(errno));
  errno = 0; /* fl_file_finish reports the errno of the first failed write */
  return f;
}

bool fl_file_finish(FILE *f, const char *path)
{
  int err = 0;
  if (fflush(f) != 0 || ferror(f)) err = errno ? errno : EIO; /* the failed write's errno */
  struct stat st;
  bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
  if (fclose(f) != 0 && !err) err = errno;
  if (!err) return true;
  if (regular) unlink(path); /* never a partial file; never /dev/full itself */
  return fl_error_set("cannot write %s: %s", path, strerror(err));
}

bool fl_file_write(const char *path, const void *data, size_t size)
{
  FILE *f = fl_file_create(path);
  if (!f) return false;
  fwrite(data, 1, size, f);
  return fl_file_finish(f, path);
}

const char *fl_path_dir(const char *path, char *out, size_t out_size)
{
  snprintf(out, out_size, "%s", path);
  for (size_t n = strlen(out); n > 1 && out[n - 1] == '/'; n--) out[n - 1] = 0; /* "a/b/" is "a/b" */
  char *slash = strrchr(out, '/');
  if (!slash) snprintf(out, out_size, ".");
  else if (slash == out) slash[1] = 0;
  else *slash = 0;
  return out;
}

bool fl_path_check_writable(const char *what, const char *path, bool is_dir)
{
  size_t n = strlen(path);
  if (!is_dir && n > 0 && path[n - 1] == '/') /* a directory, existing or not: fl_path_dir drops the '/' */
    return fl_error_set("%s: cannot write %s: %s (a path ending in '/' names a directory; name a file in a writable "
                        "directory)", what, path, strerror(EISDIR));
  struct stat st;
  if (stat(path, &st) == 0) {
    int err = 0;
    if (is_dir && !S_ISDIR(st.st_mode)) err = ENOTDIR;
    else if (!is_dir && S_ISDIR(st.st_mode)) err = EISDIR;
    else if (access(path, W_OK) != 0) err = errno;
    if (!err) return true;
    return fl_error_set("%s: cannot write %s: %s (name %s)", what, path, strerror(err),
                        is_dir ? "a writable directory" : "a file in a writable directory");
  }
  int err = errno;
  char dir[PATH_MAX];
  fl_path_dir(path, dir, sizeof dir);
  if (err == ENOENT) err = access(dir, W_OK) == 0 ? 0 : errno;
  if (!err) return true;
  return fl_error_set("%s: cannot write %s: %s (the directory %s must exist and be writable)", what, path,
                      strerror(err), dir);
}

bool fl_file_exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool dir_has_shaders(const char *dir)
{
  char probe[PATH_MAX + 16];
  struct stat st;
  snprintf(probe, sizeof probe, "%s/shaders", dir);
  return stat(probe, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *fl_data_dir(void)
{
  static char dir[PATH_MAX];
  if (dir[0]) return dir;
  const char *env = getenv("FLURRY_DATA_DIR");
  if (env && env[0]) {
    snprintf(dir, sizeof dir, "%s", env);
    return dir;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    if (dir_has_shaders(exe)) {
      snprintf(dir, sizeof dir, "%s", exe);
      return dir;
    }
  }
  snprintf(dir, sizeof dir, "%s", FLURRY_DATA_DIR);
  return dir;
}

const char *fl_data_path(char *out, size_t out_size, const char *rel)
{
  snprintf(out, out_size, "%s/%s", fl_data_dir(), rel);
  return out;
}
