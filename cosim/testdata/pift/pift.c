/*
 * pift.c — a third-party co-simulation FMU written in C for the tests of
 * package cosim: a PI controller with DIRECT FEEDTHROUGH, as a controller
 * exported from Simulink or OpenModelica is. One binary exports both the
 * FMI 2.0 (fmi2*) and the FMI 3.0 (fmi3*) functions; modelDescription.xml
 * (FMI 2.0) and modelDescription3.xml (FMI 3.0) describe it.
 *
 * Variables (value references):
 *   0 r     input      setpoint
 *   1 y     input      measurement
 *   2 u     output     u = kp * (r - y) + I        (depends on r and y)
 *   3 a     input      input of the gain channel
 *   4 b     output     b = kb * a                  (depends on a)
 *   5 i     output     the integral I              (depends on no input)
 *   6 kp    parameter  proportional gain
 *   7 ki    parameter  integral gain, 1/s
 *   8 kb    parameter  gain of the second channel
 *   9 time  independent (FMI 3.0 only)
 *
 * The outputs are computed when they are read, from the inputs as last set
 * and the integral: setting an input at a communication point changes the
 * outputs read after it (direct feedthrough). The step commits the point:
 *   fmi2DoStep / fmi3DoStep(t, h):  I += ki * h * (r - y)
 * with the inputs set at t (forward Euler), so u at t_k is
 *   kp * (r_k - y_k) + sum_{j<k} ki * h * (r_j - y_j),
 * the law of mbfmu's <pid> with b = 1 and no derivative or limits.
 *
 * The FMU follows the FMI 2.0 and FMI 3.0 co-simulation state machines and
 * reports calls out of place through the logger.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2.h"
#include "fmi3.h"

#define GUID "{6d0c2a4e-1f3b-4c5d-8e9f-a0b1c2d3e4f5}"
#define NV 9
#define VR_TIME 9

enum { VR_R, VR_Y, VR_U, VR_A, VR_B, VR_I, VR_KP, VR_KI, VR_KB };
enum { INSTANTIATED, INIT_MODE, STEP_MODE, TERMINATED };

typedef struct {
    int fmi3;
    fmi2CallbackFunctions cb2;
    fmi3InstanceEnvironment env3;
    fmi3LogMessageCallback log3;
    char name[64];
    int state;
    int logging;
    double v[NV];
    double integral;
    double time;
} pift_t;

static void logm(pift_t* p, int status, const char* cat, const char* msg) {
    if (!p->logging && status == 0) return;
    if (p->fmi3) {
        if (p->log3 != NULL) p->log3(p->env3, (fmi3Status)status, cat, msg);
    } else if (p->cb2.logger != NULL) {
        p->cb2.logger(p->cb2.componentEnvironment, p->name, (fmi2Status)status, cat, "%s", msg);
    }
}

static int bad(pift_t* p, const char* fn) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s not allowed in state %d", fn, p->state);
    logm(p, 3, "logStatusError", msg);
    return 3; /* fmi2Error == fmi3Error */
}

/* outputs from the inputs as set and the integral */
static void outputs(pift_t* p) {
    p->v[VR_U] = p->v[VR_KP] * (p->v[VR_R] - p->v[VR_Y]) + p->integral;
    p->v[VR_B] = p->v[VR_KB] * p->v[VR_A];
    p->v[VR_I] = p->integral;
}

static pift_t* create(const char* name) {
    pift_t* p = calloc(1, sizeof(pift_t));
    if (p == NULL) return NULL;
    snprintf(p->name, sizeof p->name, "%s", name ? name : "");
    p->v[VR_KP] = 1;
    p->v[VR_KB] = 1;
    p->state = INSTANTIATED;
    return p;
}

static int get(pift_t* p, const unsigned* vr, size_t n, double* v) {
    if (p->state == INSTANTIATED || p->state == TERMINATED) return bad(p, "get");
    outputs(p);
    for (size_t i = 0; i < n; i++) {
        if (p->fmi3 && vr[i] == VR_TIME) {
            v[i] = p->time;
        } else if (vr[i] < NV) {
            v[i] = p->v[vr[i]];
        } else {
            return bad(p, "get (unknown value reference)");
        }
    }
    return 0;
}

static int set(pift_t* p, const unsigned* vr, size_t n, const double* v) {
    if (p->state == TERMINATED) return bad(p, "set");
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= NV || vr[i] == VR_U || vr[i] == VR_B || vr[i] == VR_I) return bad(p, "set (not an input or parameter)");
        if (p->state == STEP_MODE && vr[i] >= VR_KP) return bad(p, "set (a fixed parameter after initialisation)");
    }
    for (size_t i = 0; i < n; i++) p->v[vr[i]] = v[i];
    return 0;
}

static int step(pift_t* p, double t, double h) {
    if (p->state != STEP_MODE) return bad(p, "do step");
    if (!(h > 0)) return bad(p, "do step (step size must be > 0)");
    p->integral += p->v[VR_KI] * h * (p->v[VR_R] - p->v[VR_Y]);
    p->time = t + h;
    return 0;
}

/* the mode changes both versions share: each returns 0 or bad()'s status */
static int enter_init(pift_t* p, double start, const char* fn) {
    if (p->state != INSTANTIATED) return bad(p, fn);
    p->time = start;
    p->state = INIT_MODE;
    return 0;
}

static int exit_init(pift_t* p, const char* fn) {
    if (p->state != INIT_MODE) return bad(p, fn);
    p->integral = 0;
    p->state = STEP_MODE;
    return 0;
}

static int terminate(pift_t* p, const char* fn) {
    if (p->state != STEP_MODE) return bad(p, fn);
    p->state = TERMINATED;
    return 0;
}

/* ---- FMI 2.0 ---- */

const char* fmi2GetTypesPlatform(void) { return "default"; }
const char* fmi2GetVersion(void) { return "2.0"; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String cats[]) {
    (void)n; (void)cats;
    ((pift_t*)c)->logging = on;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid, fmi2String res,
                              const fmi2CallbackFunctions* cb, fmi2Boolean visible, fmi2Boolean loggingOn) {
    (void)res; (void)visible;
    if (cb == NULL) return NULL;
    if (type != fmi2CoSimulation || guid == NULL || strcmp(guid, GUID) != 0) {
        if (cb->logger != NULL) {
            cb->logger(cb->componentEnvironment, name ? name : "", fmi2Error, "logStatusError",
                       "wrong fmuType or GUID %s (want %s)", guid ? guid : "(null)", GUID);
        }
        return NULL;
    }
    pift_t* p = create(name);
    if (p == NULL) return NULL;
    memcpy(&p->cb2, cb, sizeof *cb);
    p->logging = loggingOn;
    return p;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tolDef, fmi2Real tol, fmi2Real start,
                               fmi2Boolean stopDef, fmi2Real stop) {
    pift_t* p = c;
    (void)tolDef; (void)tol; (void)stopDef; (void)stop;
    if (p->state != INSTANTIATED) return (fmi2Status)bad(p, "fmi2SetupExperiment");
    p->time = start;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    pift_t* p = c;
    return (fmi2Status)enter_init(p, p->time, "fmi2EnterInitializationMode");
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    return (fmi2Status)exit_init(c, "fmi2ExitInitializationMode");
}

fmi2Status fmi2Terminate(fmi2Component c) {
    return (fmi2Status)terminate(c, "fmi2Terminate");
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real v[]) {
    return (fmi2Status)get(c, vr, n, v);
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Real v[]) {
    return (fmi2Status)set(c, vr, n, v);
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noSetPrior) {
    (void)noSetPrior;
    return (fmi2Status)step(c, t, h);
}

/* ---- FMI 3.0 ---- */

const char* fmi3GetVersion(void) { return "3.0"; }

fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean on, size_t n, const fmi3String cats[]) {
    (void)n; (void)cats;
    ((pift_t*)c)->logging = on;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String res, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference required[], size_t nRequired, fmi3InstanceEnvironment env,
    fmi3LogMessageCallback logger, fmi3IntermediateUpdateCallback iu) {
    (void)res; (void)visible; (void)required; (void)nRequired; (void)iu;
    if (token == NULL || strcmp(token, GUID) != 0 || eventModeUsed || earlyReturnAllowed) {
        if (logger != NULL) logger(env, fmi3Error, "logStatusError", "wrong instantiationToken, or event mode or early return asked for");
        return NULL;
    }
    pift_t* p = create(name);
    if (p == NULL) return NULL;
    p->fmi3 = 1;
    p->env3 = env;
    p->log3 = logger;
    p->logging = loggingOn;
    return p;
}

void fmi3FreeInstance(fmi3Instance c) { free(c); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean tolDef, fmi3Float64 tol, fmi3Float64 start,
                                       fmi3Boolean stopDef, fmi3Float64 stop) {
    (void)tolDef; (void)tol; (void)stopDef; (void)stop;
    return (fmi3Status)enter_init(c, start, "fmi3EnterInitializationMode");
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance c) {
    return (fmi3Status)exit_init(c, "fmi3ExitInitializationMode");
}

fmi3Status fmi3Terminate(fmi3Instance c) {
    return (fmi3Status)terminate(c, "fmi3Terminate");
}

fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr, fmi3Float64 v[], size_t nv) {
    if (nv != nvr) return (fmi3Status)bad(c, "fmi3GetFloat64 (nValues does not match)");
    return (fmi3Status)get(c, vr, nvr, v);
}

fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr, const fmi3Float64 v[],
                          size_t nv) {
    if (nv != nvr) return (fmi3Status)bad(c, "fmi3SetFloat64 (nValues does not match)");
    return (fmi3Status)set(c, vr, nvr, v);
}

fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 t, fmi3Float64 h, fmi3Boolean noSetPrior,
                      fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation, fmi3Boolean* earlyReturn,
                      fmi3Float64* lastSuccessfulTime) {
    pift_t* p = c;
    (void)noSetPrior;
    *eventHandlingNeeded = fmi3False;
    *terminateSimulation = fmi3False;
    *earlyReturn = fmi3False;
    *lastSuccessfulTime = t;
    int st = step(p, t, h);
    if (st == 0) *lastSuccessfulTime = p->time;
    return (fmi3Status)st;
}
