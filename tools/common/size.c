/* Byte counts as users type and read them (size.h). */
#include "size.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int loom_tool_size_parse(const char *text, size_t *bytes_p)
{
    unsigned long long value, scale = 1;
    char *end;

    if (text[0] < '0' || text[0] > '9') {
        return -1;   /* strtoull would take "-1" and " 8" */
    }
    errno = 0;
    value = strtoull(text, &end, 10);
    if (errno != 0 || end == text) {
        return -1;
    }
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': scale = 1ULL << 10; ++end; break;
    case 'm': case 'M': scale = 1ULL << 20; ++end; break;
    case 'g': case 'G': scale = 1ULL << 30; ++end; break;
    default: return -1;
    }
    if (*end != '\0' || value > SIZE_MAX / scale) {
        return -1;
    }
    *bytes_p = (size_t)(value * scale);
    return 0;
}

const char *loom_tool_size_format(size_t bytes, char *buf, size_t len)
{
    static const char suffix[] = "KMG";
    int i;

    for (i = 2; i >= 0; --i) {
        size_t unit = (size_t)1 << (10 * (i + 1));
        if (bytes >= unit && bytes % unit == 0) {
            snprintf(buf, len, "%zu%c", bytes / unit, suffix[i]);
            return buf;
        }
    }
    snprintf(buf, len, "%zu", bytes);
    return buf;
}
