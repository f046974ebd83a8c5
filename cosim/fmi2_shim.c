/*
 * fmi2_shim.c — see fmi2_shim.h.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2_shim.h"
#include "_cgo_export.h"

struct mbfmu_dl {
    void* lib;
    fmi2Component c;
    fmi2CallbackFunctions* cb; /* must outlive the instance */
    /* the componentEnvironment: a real pointer to the Go handle, never the
     * small integer itself (an FMU written in Go, as mbfmu's runtime is,
     * may hold it in a pointer variable, where its garbage collector takes
     * a value below 4096 for a corrupt pointer) */
    uintptr_t* env;
#define F(name) __typeof__(&name) name;
    F(fmi2GetTypesPlatform) F(fmi2GetVersion) F(fmi2Instantiate) F(fmi2FreeInstance)
    F(fmi2SetupExperiment) F(fmi2EnterInitializationMode) F(fmi2ExitInitializationMode)
    F(fmi2Terminate) F(fmi2GetReal) F(fmi2SetReal) F(fmi2DoStep)
    F(fmi2SetRealInputDerivatives) F(fmi2GetRealOutputDerivatives) /* optional: may be NULL */
#undef F
};

/* The FMI logger: formats the variadic message and passes it to Go. */
static void mbfmu_logger(fmi2ComponentEnvironment env, fmi2String instanceName, fmi2Status status,
                         fmi2String category, fmi2String message, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, message);
    if (message == NULL) {
        buf[0] = 0;
    } else {
        vsnprintf(buf, sizeof buf, message, ap);
    }
    va_end(ap);
    if (env == NULL) {
        return;
    }
    goFMI2Log(*(uintptr_t*)env, (char*)(instanceName ? instanceName : ""), (int)status,
              (char*)(category ? category : ""), buf);
}

mbfmu_dl* mbfmu_dl_open(const char* path, char* err, size_t errlen) {
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(err, errlen, "dlopen: %s", dlerror());
        return NULL;
    }
    mbfmu_dl* h = calloc(1, sizeof *h);
    if (h == NULL) {
        dlclose(lib);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->lib = lib;
#define F(name)                                                                \
    h->name = (__typeof__(&name))dlsym(lib, #name);                            \
    if (h->name == NULL) {                                                     \
        snprintf(err, errlen, "the library does not export %s", #name);        \
        dlclose(lib);                                                          \
        free(h);                                                               \
        return NULL;                                                           \
    }
    F(fmi2GetTypesPlatform) F(fmi2GetVersion) F(fmi2Instantiate) F(fmi2FreeInstance)
    F(fmi2SetupExperiment) F(fmi2EnterInitializationMode) F(fmi2ExitInitializationMode)
    F(fmi2Terminate) F(fmi2GetReal) F(fmi2SetReal) F(fmi2DoStep)
#undef F
    h->fmi2SetRealInputDerivatives = (__typeof__(&fmi2SetRealInputDerivatives))dlsym(lib, "fmi2SetRealInputDerivatives");
    h->fmi2GetRealOutputDerivatives = (__typeof__(&fmi2GetRealOutputDerivatives))dlsym(lib, "fmi2GetRealOutputDerivatives");
    return h;
}

void mbfmu_dl_free_instance(mbfmu_dl* h) {
    if (h->c != NULL) {
        h->fmi2FreeInstance(h->c);
        h->c = NULL;
    }
    free(h->cb);
    h->cb = NULL;
    free(h->env);
    h->env = NULL;
}

void mbfmu_dl_close(mbfmu_dl* h) {
    if (h == NULL) {
        return;
    }
    mbfmu_dl_free_instance(h);
    dlclose(h->lib);
    free(h);
}

const char* mbfmu_dl_version(mbfmu_dl* h) { return h->fmi2GetVersion(); }
const char* mbfmu_dl_platform(mbfmu_dl* h) { return h->fmi2GetTypesPlatform(); }

int mbfmu_dl_instantiate(mbfmu_dl* h, const char* name, const char* guid, const char* resources,
                         uintptr_t env, int loggingOn) {
    h->env = malloc(sizeof *h->env);
    if (h->env == NULL) {
        return -1;
    }
    *h->env = env;
    fmi2CallbackFunctions cb = {mbfmu_logger, calloc, free, NULL, (fmi2ComponentEnvironment)h->env};
    h->cb = malloc(sizeof cb);
    if (h->cb == NULL) {
        free(h->env);
        h->env = NULL;
        return -1;
    }
    memcpy(h->cb, &cb, sizeof cb);
    h->c = h->fmi2Instantiate(name, fmi2CoSimulation, guid, resources, h->cb, fmi2False,
                              loggingOn ? fmi2True : fmi2False);
    if (h->c == NULL) {
        free(h->cb);
        h->cb = NULL;
        free(h->env);
        h->env = NULL;
        return -1;
    }
    return 0;
}

int mbfmu_dl_setup(mbfmu_dl* h, double start, int stopDefined, double stop) {
    return h->fmi2SetupExperiment(h->c, fmi2False, 0.0, start, stopDefined ? fmi2True : fmi2False, stop);
}
int mbfmu_dl_enter_init(mbfmu_dl* h) { return h->fmi2EnterInitializationMode(h->c); }
int mbfmu_dl_exit_init(mbfmu_dl* h) { return h->fmi2ExitInitializationMode(h->c); }
int mbfmu_dl_terminate(mbfmu_dl* h) { return h->fmi2Terminate(h->c); }
int mbfmu_dl_set_real(mbfmu_dl* h, const unsigned int* vr, size_t n, const double* v) {
    return h->fmi2SetReal(h->c, vr, n, v);
}
int mbfmu_dl_get_real(mbfmu_dl* h, const unsigned int* vr, size_t n, double* v) {
    return h->fmi2GetReal(h->c, vr, n, v);
}
int mbfmu_dl_do_step(mbfmu_dl* h, double t, double dt, int noSetPrior) {
    return h->fmi2DoStep(h->c, t, dt, noSetPrior ? fmi2True : fmi2False);
}
int mbfmu_dl_has_derivs(mbfmu_dl* h) {
    return (h->fmi2SetRealInputDerivatives != NULL ? 1 : 0) | (h->fmi2GetRealOutputDerivatives != NULL ? 2 : 0);
}
int mbfmu_dl_set_input_derivs(mbfmu_dl* h, const unsigned int* vr, size_t n, const int* order, const double* v) {
    if (h->fmi2SetRealInputDerivatives == NULL) return fmi2Error;
    return h->fmi2SetRealInputDerivatives(h->c, vr, n, order, v);
}
int mbfmu_dl_get_output_derivs(mbfmu_dl* h, const unsigned int* vr, size_t n, const int* order, double* v) {
    if (h->fmi2GetRealOutputDerivatives == NULL) return fmi2Error;
    return h->fmi2GetRealOutputDerivatives(h->c, vr, n, order, v);
}
