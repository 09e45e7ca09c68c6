#include "coll_config.h"
#include "allreduce.h"
#include "common/log.h"

#include <stddef.h>

const loom_config_field_t loom_coll_config_table[] = {
    {
        .name = "verbose", .type = LOOM_CONFIG_ENUM, .default_value = "warn",
        .enum_names = loom_log_level_names,
        .help = "How much Loom prints: error, warn, info (one line per choice), "
                "debug (every collective), trace (every step)",
        .offset = offsetof(loom_coll_config_t, verbose),
    },
    {
        .name = "allreduce_algorithm", .type = LOOM_CONFIG_ENUM,
        .default_value = "auto", .enum_names = loom_allreduce_alg_names,
        .help = "Allreduce algorithm: auto lets Loom choose by size and "
                "rank count; ring forces the bandwidth-optimal ring",
        .offset = offsetof(loom_coll_config_t, allreduce_algorithm),
    },
    LOOM_CONFIG_LAST
};
