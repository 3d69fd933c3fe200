/* tests/scenes/check_trace: the --trace checks (check_trace.c), run by check_report --trace. */
#pragma once
#include <cjson/cJSON.h>

/* Checks a parsed trace against the same run's parsed report; returns the number of failures (printed). */
int check_trace(const cJSON *report, const cJSON *trace);
