#include "loom/status.h"

const char *loom_status_string(loom_status_t status)
{
    switch (status) {
    case LOOM_OK:                return "success";
    case LOOM_INPROGRESS:        return "operation in progress";
    case LOOM_ERR_NO_MEMORY:     return "out of memory";
    case LOOM_ERR_INVALID_PARAM: return "invalid parameter";
    case LOOM_ERR_UNSUPPORTED:   return "not supported by loom";
    case LOOM_ERR_TRANSPORT:     return "transport error";
    case LOOM_ERR_TRUNCATED:     return "message truncated";
    case LOOM_ERR_NOT_FOUND:     return "not found";
    case LOOM_ERR_DEADLOCK:      return "no step can progress";
    case LOOM_ERR_IO:            return "input/output error";
    case LOOM_ERR_LAST:          break;
    }
    return "unknown status";
}
