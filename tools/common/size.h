/*
 * Byte counts as the tools' users type and read them: "8", "256K", "64M",
 * "1G" (K = 1024).  Shared by loom-bench and loom-sim.
 */
#ifndef LOOM_TOOL_SIZE_H
#define LOOM_TOOL_SIZE_H

#include <stddef.h>

/* text into bytes; 0 on success, -1 for anything else ("-1", " 8", "3X"). */
int loom_tool_size_parse(const char *text, size_t *bytes_p);

/* bytes as the shortest of "123", "4K", "64M", "1G" into buf. */
const char *loom_tool_size_format(size_t bytes, char *buf, size_t len);

#endif
