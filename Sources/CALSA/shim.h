#pragma once
#include <alsa/asoundlib.h>

/* snd_lib_error_set_handler takes a variadic function pointer, which Swift cannot form:
   install a handler that drops ALSA's own stderr chatter (errors reach us as return codes). */
static inline void tonearm_alsa_error_handler(const char *file, int line, const char *function,
                                              int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void tonearm_alsa_silence_errors(void) {
    snd_lib_error_set_handler(tonearm_alsa_error_handler);
}
