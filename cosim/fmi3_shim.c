/*
 * fmi3_shim.c — see fmi3_shim.h.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_shim.h"
#include "_cgo_export.h"

struct mbfmu_dl3 {
    void* lib;
    fmi3Instance c;
    /* the instanceEnvironment: a real pointer to the Go handle, never the
     * small integer itself (an FMU written in Go keeps it in a pointer
     * variable, where its garbage collector takes a value below 4096 for
     * a corrupt pointer) */
    uintptr_t* env;
#define F(name) __typeof__(&name) name;
    F(fmi3GetVersion) F(fmi3InstantiateCoSimulation) F(fmi3FreeInstance)
    F(fmi3EnterInitializationMode) F(fmi3ExitInitializationMode) F(fmi3Terminate)
    F(fmi3GetFloat64) F(fmi3SetFloat64) F(fmi3DoStep)
    F(fmi3GetOutputDerivatives) /* optional: may be NULL */
#undef F
};

/* The FMI 3.0 logger: hands the message to Go. */
static void mbfmu_logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                          fmi3String message) {
    if (env == NULL) {
        return;
    }
    goFMI3Log(*(uintptr_t*)env, (int)status, (char*)(category ? category : ""), (char*)(message ? message : ""));
}

mbfmu_dl3* mbfmu_dl3_open(const char* path, char* err, size_t errlen) {
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(err, errlen, "dlopen: %s", dlerror());
        return NULL;
    }
    mbfmu_dl3* h = calloc(1, sizeof *h);
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
    F(fmi3GetVersion) F(fmi3InstantiateCoSimulation) F(fmi3FreeInstance)
    F(fmi3EnterInitializationMode) F(fmi3ExitInitializationMode) F(fmi3Terminate)
    F(fmi3GetFloat64) F(fmi3SetFloat64) F(fmi3DoStep)
#undef F
    h->fmi3GetOutputDerivatives = (__typeof__(&fmi3GetOutputDerivatives))dlsym(lib, "fmi3GetOutputDerivatives");
    return h;
}

void mbfmu_dl3_free_instance(mbfmu_dl3* h) {
    if (h->c != NULL) {
        h->fmi3FreeInstance(h->c);
        h->c = NULL;
    }
    free(h->env);
    h->env = NULL;
}

void mbfmu_dl3_close(mbfmu_dl3* h) {
    if (h == NULL) {
        return;
    }
    mbfmu_dl3_free_instance(h);
    dlclose(h->lib);
    free(h);
}

const char* mbfmu_dl3_version(mbfmu_dl3* h) { return h->fmi3GetVersion(); }

int mbfmu_dl3_instantiate(mbfmu_dl3* h, const char* name, const char* token, const char* resources,
                          uintptr_t env, int loggingOn) {
    h->env = malloc(sizeof *h->env);
    if (h->env == NULL) {
        return -1;
    }
    *h->env = env;
    h->c = h->fmi3InstantiateCoSimulation(name, token, resources, fmi3False, loggingOn ? fmi3True : fmi3False,
                                          fmi3False, fmi3False, NULL, 0, (fmi3InstanceEnvironment)h->env,
                                          mbfmu_logger3, NULL);
    if (h->c == NULL) {
        free(h->env);
        h->env = NULL;
        return -1;
    }
    return 0;
}

int mbfmu_dl3_enter_init(mbfmu_dl3* h, double start, int stopDefined, double stop) {
    return h->fmi3EnterInitializationMode(h->c, fmi3False, 0.0, start, stopDefined ? fmi3True : fmi3False, stop);
}
int mbfmu_dl3_exit_init(mbfmu_dl3* h) { return h->fmi3ExitInitializationMode(h->c); }
int mbfmu_dl3_terminate(mbfmu_dl3* h) { return h->fmi3Terminate(h->c); }
int mbfmu_dl3_set_float64(mbfmu_dl3* h, const uint32_t* vr, size_t n, const double* v) {
    return h->fmi3SetFloat64(h->c, vr, n, v, n);
}
int mbfmu_dl3_get_float64(mbfmu_dl3* h, const uint32_t* vr, size_t n, double* v) {
    return h->fmi3GetFloat64(h->c, vr, n, v, n);
}
mbfmu_dl3_step mbfmu_dl3_do_step(mbfmu_dl3* h, double t, double dt, int noSetPrior) {
    fmi3Boolean event = fmi3False, terminate = fmi3False, early = fmi3False;
    fmi3Float64 lastTime = t;
    mbfmu_dl3_step r;
    r.status = h->fmi3DoStep(h->c, t, dt, noSetPrior ? fmi3True : fmi3False, &event, &terminate, &early, &lastTime);
    r.flags = (event ? 1 : 0) | (terminate ? 2 : 0) | (early ? 4 : 0);
    r.last = lastTime;
    return r;
}
int mbfmu_dl3_has_output_derivs(mbfmu_dl3* h) { return h->fmi3GetOutputDerivatives != NULL; }
int mbfmu_dl3_get_output_derivs(mbfmu_dl3* h, const uint32_t* vr, size_t n, const int32_t* order, double* v) {
    if (h->fmi3GetOutputDerivatives == NULL) return fmi3Error;
    return h->fmi3GetOutputDerivatives(h->c, vr, n, order, v, n);
}
