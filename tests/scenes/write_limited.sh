#!/usr/bin/env bash
# tests/scenes/write_limited.sh KIB DIR -- COMMAND...: runs the command in an
# emptied DIR under a file size limit of KIB KiB (RLIMIT_FSIZE: a real write
# failure, EFBIG, like a full disk) and passes its exit code on, unless it left
# a file in DIR: a write that fails must leave no partial PNG behind.
set -u
kib=$1 dir=$2; shift 2; [ "$1" = "--" ] && shift
rm -rf "$dir" && mkdir -p "$dir"
(ulimit -f "$kib" && exec "$@"); code=$?
if [ -n "$(ls -A "$dir")" ]; then echo "partial files left in $dir:" >&2; ls -l "$dir" >&2; exit 0; fi
exit $code
