#include "CICURegex.h"
#include <unicode/uregex.h>
#include <unicode/utext.h>

sb_regex *sb_regex_compile(const char *pattern, size_t length, const char **error_name) {
    UErrorCode status = U_ZERO_ERROR;
    *error_name = NULL;
    if (length > INT32_MAX) {
        *error_name = "U_REGEX_PATTERN_TOO_BIG";
        return NULL;
    }
    UText *text = utext_openUTF8(NULL, pattern, (int64_t)length, &status);
    UParseError where;
    URegularExpression *regex = uregex_openUText(text, 0, &where, &status);
    utext_close(text);
    if (U_FAILURE(status)) {
        *error_name = u_errorName(status);
        if (regex) uregex_close(regex);
        return NULL;
    }
    return (sb_regex *)regex;
}

sb_regex *sb_regex_clone(const sb_regex *regex) {
    UErrorCode status = U_ZERO_ERROR;
    URegularExpression *copy = uregex_clone((const URegularExpression *)regex, &status);
    if (U_FAILURE(status)) {
        if (copy) uregex_close(copy);
        return NULL;
    }
    return (sb_regex *)copy;
}

void sb_regex_close(sb_regex *regex) { uregex_close((URegularExpression *)regex); }

/// What the match callback sees: the caller's check and the ticks counted so far.
typedef struct {
    sb_regex_keep_going keep_going;
    int32_t ticks;
} progress;

static UBool on_tick(const void *context, int32_t steps) {
    progress *state = (progress *)context;
    state->ticks = steps;
    return state->keep_going == NULL || state->keep_going();
}

sb_regex_outcome sb_regex_search(sb_regex *regex, const char *text, size_t length, int32_t tick_limit,
                                 int32_t stack_bytes, sb_regex_keep_going keep_going, int32_t *ticks_used) {
    URegularExpression *re = (URegularExpression *)regex;
    UErrorCode status = U_ZERO_ERROR;
    progress state = {keep_going, 0};
    *ticks_used = 0;
    uregex_setTimeLimit(re, tick_limit > 0 ? tick_limit : 1, &status);
    uregex_setStackLimit(re, stack_bytes, &status);
    uregex_setMatchCallback(re, on_tick, &state, &status);
    UText *subject = utext_openUTF8(NULL, text, (int64_t)length, &status);
    uregex_setUText(re, subject, &status);
    UBool found = U_SUCCESS(status) ? uregex_find(re, 0, &status) : 0;
    // The regex keeps only a shallow reference to the text: detach it before the text goes.
    UErrorCode reset = U_ZERO_ERROR;
    static const UChar empty[1] = {0};
    uregex_setText(re, empty, 0, &reset);
    utext_close(subject);
    *ticks_used = state.ticks;
    switch (status) {
    case U_ZERO_ERROR: return found ? sb_regex_found : sb_regex_not_found;
    case U_REGEX_TIME_OUT: *ticks_used = tick_limit; return sb_regex_out_of_time;
    case U_REGEX_STACK_OVERFLOW: return sb_regex_out_of_memory;
    case U_REGEX_STOPPED_BY_CALLER: return sb_regex_stopped;
    default: return U_SUCCESS(status) ? (found ? sb_regex_found : sb_regex_not_found) : sb_regex_failed;
    }
}
