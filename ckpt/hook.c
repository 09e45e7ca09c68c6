#include "ckpt/hook.h"

/* Exported under LOOM_CKPT_HOOK_SYMBOL for the loom component (hook.h). */
loom_ckpt_hook_t loom_ckpt_hook = { .version = LOOM_CKPT_HOOK_VERSION };
