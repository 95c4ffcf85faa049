#ifndef SWITCHBOARD_CJANSSON_SHIM_H
#define SWITCHBOARD_CJANSSON_SHIM_H
#include <jansson.h>

/// Function forms of jansson's macros, which Swift cannot import.
static inline json_type sb_json_typeof(const json_t *json) { return json_typeof(json); }
static inline size_t sb_json_real_precision(int digits) { return JSON_REAL_PRECISION(digits); }
static inline size_t sb_json_max_indent(int spaces) { return JSON_INDENT(spaces); }
#endif
