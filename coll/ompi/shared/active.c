/* Schedules in flight advanced by Open MPI's progress (active.h). */
#include "coll/ompi/shared/active.h"

void loom_ompi_actives_push(loom_ompi_actives_t *list, loom_ompi_active_t *item)
{
    item->status = LOOM_INPROGRESS;     /* only the walk changes it from now on */
    pthread_mutex_lock(&list->lock);
    item->next = list->head;
    list->head = item;
    pthread_mutex_unlock(&list->lock);
}

int loom_ompi_actives_progress(loom_ompi_actives_t *list, const loom_ompi_walk_t *walk)
{
    loom_ompi_active_t *item, *first, **link, *done = NULL;
    int events = 0;

    if (__atomic_load_n(&list->head, __ATOMIC_RELAXED) == NULL ||
        __atomic_exchange_n(&list->walking, 1, __ATOMIC_ACQUIRE)) {
        return 0;
    }
    pthread_mutex_lock(&list->lock);
    first = list->head;
    pthread_mutex_unlock(&list->lock);
    for (item = first; item != NULL; item = item->next) {
        item->status = loom_sched_progress(item->sched);
        if (item->status == LOOM_INPROGRESS && walk->running != NULL) {
            walk->running(item, walk->arg);
        }
    }
    pthread_mutex_lock(&list->lock);
    for (link = &list->head; *link != NULL;) {
        item = *link;
        if (item->status != LOOM_INPROGRESS) {
            *link = item->next;
            item->next = done;
            done = item;
        } else {
            link = &item->next;
        }
    }
    pthread_mutex_unlock(&list->lock);
    __atomic_store_n(&list->walking, 0, __ATOMIC_RELEASE);
    while (done != NULL) {
        item = done;
        done = item->next;
        item->next = NULL;
        walk->done(item, walk->arg);
        ++events;
    }
    return events;
}
