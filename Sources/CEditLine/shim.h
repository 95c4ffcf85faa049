#ifndef SWITCHBOARD_CEDITLINE_SHIM_H
#define SWITCHBOARD_CEDITLINE_SHIM_H
#include <stdio.h>
#include <editline/readline.h>

/// Function forms of the readline globals the prompt sets and reads (Swift 6 cannot touch C globals
/// safely): the prompt owns them, on one thread.
static inline void sb_rl_configure(const char *name, rl_completion_func_t *complete) {
    rl_readline_name = name;
    // libedit's own handlers would restore the default action and re-raise the signal to the whole
    // process group: the prompt takes SIGINT, SIGTERM, SIGHUP and SIGWINCH itself.
    rl_catch_signals = 0;
    rl_catch_sigwinch = 0;
    rl_attempted_completion_function = complete;
}
static inline void sb_rl_completion_settings(int over, int append_character) {
    rl_attempted_completion_over = over;
    rl_completion_append_character = append_character;
}
static inline const char *sb_rl_line_buffer(void) { return rl_line_buffer; }
static inline void sb_flush_stdout(void) { fflush(stdout); }
#endif
