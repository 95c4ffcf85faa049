#ifndef SWITCHBOARD_CICUREGEX_H
#define SWITCHBOARD_CICUREGEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A compiled ICU regular expression (URegularExpression), opaque to Swift. ICU's headers rename every
/// function by its version (uregex_open_72), which Swift cannot follow: these wrappers give it fixed names.
typedef struct sb_regex sb_regex;

/// Compiles `pattern` (UTF-8, `length` bytes). Returns NULL when it does not compile, with ICU's
/// error name (a static string, never the pattern) in `*error_name`.
sb_regex *sb_regex_compile(const char *pattern, size_t length, const char **error_name);

/// A copy that may match on another thread while the original is matched elsewhere or cloned again.
/// NULL when there is no memory.
sb_regex *sb_regex_clone(const sb_regex *regex);

void sb_regex_close(sb_regex *regex);

/// What sb_regex_search found.
typedef enum {
    sb_regex_found = 1,
    sb_regex_not_found = 0,
    /// The match ran past `tick_limit` steps of the engine.
    sb_regex_out_of_time = -1,
    /// The match needed more than `stack_bytes` of backtracking memory.
    sb_regex_out_of_memory = -2,
    /// `keep_going` said stop.
    sb_regex_stopped = -3,
    sb_regex_failed = -4,
} sb_regex_outcome;

/// Called every tick of a long match (a tick is ICU's time-limit unit, thousands of engine steps);
/// returning false stops the match.
typedef bool (*sb_regex_keep_going)(void);

/// Searches `text` (UTF-8, `length` bytes) for a match anywhere (unanchored), with at most
/// `tick_limit` ticks (> 0) and `stack_bytes` of backtracking memory; `*ticks_used` gets the ticks
/// it took. `regex` must not be used by another thread meanwhile (match on a clone).
sb_regex_outcome sb_regex_search(sb_regex *regex, const char *text, size_t length, int32_t tick_limit,
                                 int32_t stack_bytes, sb_regex_keep_going keep_going, int32_t *ticks_used);

#endif
