/*
 * The order in which interleaved contenders take their turns, round by
 * round, in loom-bench and the allreduce micro-benchmark.
 *
 * Why not a plain rotation: what one contender leaves behind (evicted
 * caches, pages freed back to the system, a VM host still reclaiming
 * them) slows whichever runs right after it.  Rotating who goes first
 * keeps every contender behind the same neighbour (b always follows a),
 * so one contender can pay for another's mess in every round.  On this
 * project's VM a 32 MiB temporary that Open MPI's tuned allreduce maps
 * and unmaps per call slowed the next stable 32 MiB memcpy from 1.3 ms
 * to 2 to 37 ms.
 *
 * The order is a Williams design (a Latin square balanced for carry-over):
 * over one period every contender takes every position equally often and
 * follows every other contender equally often (once per n rounds for an
 * even n; twice per 2n rounds for an odd n, whose period adds the mirror
 * rows).  Every rank computes the same order from the round number.
 */
#ifndef LOOM_TOOL_TURNS_H
#define LOOM_TOOL_TURNS_H

/* Rounds after which the design repeats: n for an even n, 2n for odd. */
int loom_tool_turns_period(int n);

/* order[0..n-1]: the contenders 0..n-1 in the order they run in round
 * (any round >= 0; the design repeats with the period).  n >= 1. */
void loom_tool_turns(int round, int n, int *order);

#endif
