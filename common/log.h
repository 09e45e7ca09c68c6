/*
 * Logging with levels and subsystem tags.
 *
 * A message below the current level costs one integer comparison: the
 * arguments are not evaluated.  Messages are lowercase and say what failed
 * and with which value; an error is logged once, where it is found.
 */
#ifndef LOOM_LOG_H
#define LOOM_LOG_H

#include <stdio.h>

typedef enum loom_log_level {
    LOOM_LOG_ERROR = 0,
    LOOM_LOG_WARN,
    LOOM_LOG_INFO,
    LOOM_LOG_DEBUG,
    LOOM_LOG_TRACE,
    LOOM_LOG_LEVEL_COUNT
} loom_log_level_t;

/* Names of the levels, indexed by loom_log_level_t, NULL-terminated, for
 * configuration tables ("error", "warn", ...). */
extern const char *const loom_log_level_names[];

/* The current level; read through loom_log_enabled(). */
extern int loom_log_current_level;

void loom_log_set_level(loom_log_level_t level);

/* Text put before every message, for example "rank 3"; copied. */
void loom_log_set_prefix(const char *prefix);

/* Where messages go; NULL means stderr.  Tests point it at a memory stream. */
void loom_log_set_stream(FILE *stream);

void loom_log_emit(loom_log_level_t level, const char *subsys,
                   const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define loom_log_enabled(_level) ((int)(_level) <= loom_log_current_level)

#define loom_log(_level, _subsys, ...)                                       \
    do {                                                                     \
        if (loom_log_enabled(_level)) {                                      \
            loom_log_emit((_level), (_subsys), __FILE__, __LINE__,           \
                          __VA_ARGS__);                                      \
        }                                                                    \
    } while (0)

#define loom_error(_subsys, ...) loom_log(LOOM_LOG_ERROR, _subsys, __VA_ARGS__)
#define loom_warn(_subsys, ...)  loom_log(LOOM_LOG_WARN, _subsys, __VA_ARGS__)
#define loom_info(_subsys, ...)  loom_log(LOOM_LOG_INFO, _subsys, __VA_ARGS__)
#define loom_debug(_subsys, ...) loom_log(LOOM_LOG_DEBUG, _subsys, __VA_ARGS__)
#define loom_trace(_subsys, ...) loom_log(LOOM_LOG_TRACE, _subsys, __VA_ARGS__)

#endif
