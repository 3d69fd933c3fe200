#!/usr/bin/env bash
# tests/scenes/expect_report_error.sh REPORT REGEX -- COMMAND...: runs the command
# (which writes REPORT) and passes its exit code on, after checking that the
# report names the error (its "error" key matches REGEX) and that validation
# counted 0 errors: a failed run still ends with a clean teardown and a report.
set -u
report=$1 regex=$2; shift 2; [ "$1" = "--" ] && shift
rm -f "$report"
"$@"; code=$?
grep -Eq "\"error\":[[:space:]]*\".*$regex" "$report" || { echo "report $report has no error matching /$regex/" >&2; exit 0; }
grep -Eq '"errors":[[:space:]]*0,' "$report" || { echo "report $report counts validation errors" >&2; exit 0; }
exit $code
