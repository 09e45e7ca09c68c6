/* A Williams design for interleaved benchmark turns (turns.h). */
#include "turns.h"

int loom_tool_turns_period(int n)
{
    return n % 2 == 0 ? n : 2 * n;
}

void loom_tool_turns(int round, int n, int *order)
{
    int row = round % loom_tool_turns_period(n), shift = row % n, mirror = row >= n, i;

    /* Base row 0, 1, n-1, 2, n-2, ...: its successive differences are
     * 1, -2, 3, -4, ... mod n, all distinct for an even n, so shifting it
     * by each of 0..n-1 puts every ordered pair side by side exactly once.
     * For an odd n the differences repeat in pairs, and the mirrored rows
     * supply the pairs the shifted rows miss. */
    for (i = 0; i < n; ++i) {
        int base = i % 2 ? (i + 1) / 2 : (n - i / 2) % n;
        int at = mirror ? n - 1 - i : i;

        order[at] = (base + shift) % n;
    }
}
