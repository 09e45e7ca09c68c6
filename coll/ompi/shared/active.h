/*
 * Schedules in flight that Open MPI's progress advances: the nonblocking
 * calls of both components (mca_coll_loom's requests and
 * mca_coll_loomfilter's) are items on a list of their own kind, walked
 * from that component's progress callback.
 *
 * Items are pushed in front under a lock; one walk at a time advances
 * them (a progress call from inside a schedule's progress, or from
 * another thread while one walks, returns at once); the walk unlinks the
 * finished ones under the lock and ends them outside it, so that ending
 * one may start another.  Starts push in front of the walk's first item,
 * and only the walk unlinks: the chain it walks is stable.
 */
#ifndef LOOM_OMPI_ACTIVE_H
#define LOOM_OMPI_ACTIVE_H

#include "coll/core/engine/sched.h"

#include <pthread.h>

typedef struct loom_ompi_active {
    struct loom_ompi_active *next;
    loom_sched_t            *sched;
    loom_status_t           status;     /* LOOM_INPROGRESS while listed; set by the walk */
} loom_ompi_active_t;

typedef struct loom_ompi_actives {
    pthread_mutex_t         lock;
    loom_ompi_active_t      *head;
    int                     walking;
} loom_ompi_actives_t;

#define LOOM_OMPI_ACTIVES_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, NULL, 0 }

/* What a walk does beside advancing: running(item, arg) for each item
 * still in progress (NULL: nothing), done(item, arg) for each finished
 * one, unlinked, outside the lock (item->status says how it ended). */
typedef struct loom_ompi_walk {
    void    (*running)(loom_ompi_active_t *item, void *arg);
    void    (*done)(loom_ompi_active_t *item, void *arg);
    void    *arg;
} loom_ompi_walk_t;

/* Lists item, whose sched is set and already progressed once. */
void loom_ompi_actives_push(loom_ompi_actives_t *list, loom_ompi_active_t *item);

/* Advances every listed item once; returns how many finished. */
int loom_ompi_actives_progress(loom_ompi_actives_t *list, const loom_ompi_walk_t *walk);

#endif
