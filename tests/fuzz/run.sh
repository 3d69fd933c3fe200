#!/bin/sh
# tests/fuzz/run.sh: runs a built libFuzzer target on its seed corpus for a
# while, working on a temporary copy so the repository is not modified.
#   tests/fuzz/run.sh BUILD/tests/fuzz/fuzz_scene [SECONDS=60] [CORPUS_DIR]
# CORPUS_DIR defaults to tests/fuzz/corpus/NAME for a binary named fuzz_NAME.
# Exits non-zero when the fuzzer finds a crash; the reproducer is kept and named.
set -eu

if [ $# -lt 1 ]; then
  echo "usage: $0 FUZZ_BINARY [SECONDS] [CORPUS_DIR]" >&2
  exit 2
fi
bin=$1
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$bin")
corpus=${3:-$here/corpus/${name#fuzz_}}
dict=$here/${name#fuzz_}.dict

[ -x "$bin" ] || { echo "$0: $bin is not an executable (build with -DFLURRY_FUZZ=ON)" >&2; exit 2; }
[ -d "$corpus" ] || { echo "$0: no corpus directory $corpus" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/flurry-fuzz-$name.XXXXXX")
mkdir -p "$work/corpus" "$work/artifacts"
cp "$corpus"/* "$work/corpus/" 2>/dev/null || true

set -- -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1
[ -f "$dict" ] && set -- "$@" -dict="$dict"

status=0
"$bin" "$@" "$work/corpus" || status=$?
if [ "$status" -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
  echo "$0: $name failed (exit $status); reproducers in $work/artifacts:" >&2
  ls -l "$work/artifacts" >&2
  [ "$status" -ne 0 ] || status=1
  exit "$status"
fi
rm -rf "$work"
echo "$0: $name ran ${seconds}s without a crash"
