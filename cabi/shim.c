#include <stdlib.h>
#include "shim.h"

mbfmu_box* mbfmu_box_new(uint64_t magic, uintptr_t handle) {
    mbfmu_box* b = calloc(1, sizeof *b);
    if (b) {
        b->magic = magic;
        b->handle = handle;
    }
    return b;
}

void mbfmu_box_free(mbfmu_box* b) {
    if (b) {
        b->magic = 0;
        b->handle = 0;
        free(b);
    }
}

void mbfmu_log(fmi2CallbackLogger logger, uintptr_t env, fmi2String instance,
               fmi2Status status, fmi2String category, fmi2String message) {
    if (logger) {
        logger((fmi2ComponentEnvironment)env, instance, status, category, "%s", message);
    }
}

void mbfmu_log3(fmi3LogMessageCallback logger, uintptr_t env, fmi3Status status,
                fmi3String category, fmi3String message) {
    if (logger) {
        logger((fmi3InstanceEnvironment)env, status, category, message);
    }
}

mbfmu_iu_answer mbfmu_iu(fmi3IntermediateUpdateCallback cb, uintptr_t env, fmi3Float64 t,
                         fmi3Boolean canReturnEarly) {
    mbfmu_iu_answer a = {fmi3False, 0.0};
    /* inputs may be set and outputs read; an internal step has finished */
    cb((fmi3InstanceEnvironment)env, t, true, true, true, canReturnEarly, &a.earlyReturnRequested, &a.earlyReturnTime);
    return a;
}

uintptr_t mbfmu_callbacks_env(const fmi2CallbackFunctions* f) { return f ? (uintptr_t)f->componentEnvironment : 0; }

fmi3String mbfmu_version3(void) { return "3.0"; }
fmi2String mbfmu_types_platform(void) { return "default"; }
fmi2String mbfmu_version(void) { return "2.0"; }
fmi2String mbfmu_empty(void) { return ""; }
