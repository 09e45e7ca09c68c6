#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>

const char *const loom_log_level_names[] = {
    "error", "warn", "info", "debug", "trace", NULL
};

int loom_log_current_level = LOOM_LOG_WARN;

static char loom_log_prefix[64];
static FILE *loom_log_stream;
/* One message is one write: threads do not interleave their lines. */
static pthread_mutex_t loom_log_lock = PTHREAD_MUTEX_INITIALIZER;

void loom_log_set_level(loom_log_level_t level)
{
    loom_log_current_level = (int)level;
}

void loom_log_set_prefix(const char *prefix)
{
    snprintf(loom_log_prefix, sizeof(loom_log_prefix), "%s",
             prefix == NULL ? "" : prefix);
}

void loom_log_set_stream(FILE *stream)
{
    loom_log_stream = stream;
}

void loom_log_emit(loom_log_level_t level, const char *subsys,
                   const char *file, int line, const char *fmt, ...)
{
    FILE *out = (loom_log_stream == NULL) ? stderr : loom_log_stream;
    const char *base = strrchr(file, '/');
    char text[1024], msg[1400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);

    /* Built whole, written once: lines of several ranks sharing a terminal
     * do not interleave. */
    if (level >= LOOM_LOG_DEBUG) {
        snprintf(msg, sizeof(msg), "[loom%s%s] %s %s: %s (%s:%d)\n",
                 loom_log_prefix[0] ? " " : "", loom_log_prefix,
                 loom_log_level_names[level], subsys, text, base ? base + 1 : file,
                 line);
    } else {
        snprintf(msg, sizeof(msg), "[loom%s%s] %s %s: %s\n",
                 loom_log_prefix[0] ? " " : "", loom_log_prefix,
                 loom_log_level_names[level], subsys, text);
    }
    pthread_mutex_lock(&loom_log_lock);
    fputs(msg, out);
    fflush(out);
    pthread_mutex_unlock(&loom_log_lock);
}
