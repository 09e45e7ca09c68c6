/* Loom's log output captured in memory, for tests that check what Loom
 * says (the message, the position, the valid words). */
#ifndef LOOM_TEST_LOG_CAPTURE_H
#define LOOM_TEST_LOG_CAPTURE_H

#include "common/log.h"

#include <stdio.h>
#include <string.h>

static char log_buf[4096];
static FILE *log_mem;

static inline void capture_start(void)
{
    memset(log_buf, 0, sizeof(log_buf));
    log_mem = fmemopen(log_buf, sizeof(log_buf) - 1, "w");
    loom_log_set_stream(log_mem);
}

static inline void capture_stop(void)
{
    fflush(log_mem);
    fclose(log_mem);
    loom_log_set_stream(NULL);
}

#endif
