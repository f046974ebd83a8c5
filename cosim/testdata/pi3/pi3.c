/*
 * pi3.c — a third-party FMI 3.0 co-simulation FMU written in C for the
 * tests of package cosim: the discrete PI controller of ../pi/pi.c, with
 * FMI 3.0's calls, plus variables the master must leave alone.
 *
 * Variables (value references):
 *   0 r         Float64 input      setpoint
 *   1 y         Float64 input      measurement
 *   2 u         Float64 output     controller output
 *   3 kp        Float64 parameter  proportional gain (tunable)
 *   4 ki        Float64 parameter  integral gain, 1/s (tunable)
 *   5 stop_at   Float64 parameter  from this time on fmi3DoStep asks to
 *                                  terminate (terminateSimulation, fmi3OK)
 *   6 fail_at   Float64 parameter  from this time on fmi3DoStep returns
 *                                  fmi3Discard with terminateSimulation
 *   7 mode      Int32 parameter    (not a Float64: never set by the master)
 *   8 saturated Boolean output     (never read)
 *   9 e_hist    Float64 output array [2]: the last two errors (never read)
 *  10 time      Float64 independent
 *  11 early_at  Float64 parameter  from this time on fmi3DoStep returns
 *                                  early (earlyReturn), which the master
 *                                  did not allow: a broken FMU
 *
 * Law, per fmi3DoStep(t, h) with the inputs r, y set before the step:
 *   e = r - y;  I += ki * e * h;  u = kp * e + I
 * Before the first step u = kp * (r - y).
 *
 * The FMU checks what FMI 3.0 asks of the master's instantiation: the
 * instantiation token, a resourcePath that is a plain path ending with '/'
 * (not a file: URI, as in FMI 2.0), eventModeUsed, earlyReturnAllowed and
 * intermediate update off; it checks the times of
 * fmi3EnterInitializationMode (start 0, a stop time) and follows the
 * co-simulation state machine, reporting errors through the (not
 * variadic) logger.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3.h"

#define TOKEN "{3b1d9c55-2f6e-4e0a-9a47-0c1b2d3e4f53}"
#define NF64 7

enum { VR_R, VR_Y, VR_U, VR_KP, VR_KI, VR_STOP, VR_FAIL, VR_MODE, VR_SAT, VR_EHIST, VR_TIME, VR_EARLY };
enum { INSTANTIATED, INIT_MODE, STEP_MODE, TERMINATED };

typedef struct {
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback logger;
    char name[64];
    int state;
    int logging;
    double v[NF64];
    double ehist[2];
    double integral;
    double time, stop, earlyAt;
} pi_t;

static void logm(pi_t* p, fmi3Status st, const char* cat, const char* msg) {
    if (p->logger != NULL && (p->logging || st != fmi3OK)) {
        p->logger(p->env, st, cat, msg);
    }
}

const char* fmi3GetVersion(void) { return "3.0"; }

fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean on, size_t n, const fmi3String cats[]) {
    (void)n; (void)cats;
    ((pi_t*)c)->logging = on;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String res, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference required[], size_t nRequired, fmi3InstanceEnvironment env,
    fmi3LogMessageCallback logger, fmi3IntermediateUpdateCallback iu) {
    (void)visible; (void)required;
    char msg[512];
    size_t n = res ? strlen(res) : 0;
    msg[0] = 0;
    if (token == NULL || strcmp(token, TOKEN) != 0) {
        snprintf(msg, sizeof msg, "wrong instantiationToken %s (want %s)", token ? token : "(null)", TOKEN);
    } else if (n == 0 || res[0] != '/' || res[n - 1] != '/' || strncmp(res, "file:", 5) == 0) {
        snprintf(msg, sizeof msg, "resourcePath %s is not an absolute path ending with '/'", res ? res : "(null)");
    } else if (eventModeUsed || earlyReturnAllowed || nRequired != 0 || iu != NULL) {
        snprintf(msg, sizeof msg, "eventModeUsed, earlyReturnAllowed or intermediate update asked for");
    }
    if (msg[0] != 0) {
        if (logger != NULL) logger(env, fmi3Error, "logStatusError", msg);
        return NULL;
    }
    pi_t* p = calloc(1, sizeof(pi_t));
    if (p == NULL) {
        return NULL;
    }
    p->env = env;
    p->logger = logger;
    snprintf(p->name, sizeof p->name, "%s", name ? name : "");
    p->logging = loggingOn;
    p->v[VR_KP] = 1;
    p->v[VR_STOP] = 1e300;
    p->v[VR_FAIL] = 1e300;
    p->earlyAt = 1e300;
    p->state = INSTANTIATED;
    /* a '%' in the message: the logger is not printf-like in FMI 3.0 */
    logm(p, fmi3OK, "logAll", "instantiated (100% C)");
    return p;
}

void fmi3FreeInstance(fmi3Instance c) { free(c); }

static fmi3Status bad(pi_t* p, const char* fn) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s not allowed in state %d", fn, p->state);
    logm(p, fmi3Error, "logStatusError", msg);
    return fmi3Error;
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean tolDef, fmi3Float64 tol, fmi3Float64 start,
                                       fmi3Boolean stopDef, fmi3Float64 stop) {
    pi_t* p = c;
    (void)tolDef; (void)tol;
    if (p->state != INSTANTIATED) return bad(p, "fmi3EnterInitializationMode");
    if (start != 0 || !stopDef || !(stop > start)) {
        logm(p, fmi3Error, "logStatusError", "fmi3EnterInitializationMode: want start time 0 and a stop time");
        return fmi3Error;
    }
    p->time = start;
    p->stop = stop;
    p->state = INIT_MODE;
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance c) {
    pi_t* p = c;
    if (p->state != INIT_MODE) return bad(p, "fmi3ExitInitializationMode");
    p->integral = 0;
    p->v[VR_U] = p->v[VR_KP] * (p->v[VR_R] - p->v[VR_Y]);
    p->state = STEP_MODE;
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance c) {
    pi_t* p = c;
    if (p->state != STEP_MODE) return bad(p, "fmi3Terminate");
    p->state = TERMINATED;
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr, fmi3Float64 v[], size_t nv) {
    pi_t* p = c;
    size_t k = 0;
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] < NF64 && k < nv) {
            v[k++] = p->v[vr[i]];
        } else if (vr[i] == VR_EARLY && k < nv) {
            v[k++] = p->earlyAt;
        } else if (vr[i] == VR_EHIST && k + 1 < nv) {
            v[k++] = p->ehist[0];
            v[k++] = p->ehist[1];
        } else if (vr[i] == VR_TIME && k < nv) {
            v[k++] = p->time;
        } else {
            return bad(p, "fmi3GetFloat64 (unknown value reference or too few values)");
        }
    }
    if (k != nv) return bad(p, "fmi3GetFloat64 (nValues does not match)");
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr, const fmi3Float64 v[],
                          size_t nv) {
    pi_t* p = c;
    if (p->state == TERMINATED) return bad(p, "fmi3SetFloat64");
    if (nv != nvr) return bad(p, "fmi3SetFloat64 (nValues does not match)");
    for (size_t i = 0; i < nvr; i++) {
        if ((vr[i] >= NF64 && vr[i] != VR_EARLY) || vr[i] == VR_U) return bad(p, "fmi3SetFloat64 (not an input or parameter)");
    }
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] == VR_EARLY) {
            p->earlyAt = v[i];
        } else {
            p->v[vr[i]] = v[i];
        }
    }
    return fmi3OK;
}

fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 t, fmi3Float64 h, fmi3Boolean noSetPrior,
                      fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation, fmi3Boolean* earlyReturn,
                      fmi3Float64* lastSuccessfulTime) {
    pi_t* p = c;
    (void)noSetPrior;
    if (p->state != STEP_MODE) return bad(p, "fmi3DoStep");
    if (!(h > 0)) return bad(p, "fmi3DoStep (step size must be > 0)");
    *eventHandlingNeeded = fmi3False;
    *earlyReturn = fmi3False;
    *terminateSimulation = fmi3False;
    *lastSuccessfulTime = t;
    if (t >= p->v[VR_FAIL]) {
        *terminateSimulation = fmi3True;
        logm(p, fmi3Discard, "logStatusDiscard", "fail_at reached: the step is discarded");
        return fmi3Discard;
    }
    if (t >= p->earlyAt) { /* half a step, and says so */
        h /= 2;
        *earlyReturn = fmi3True;
    }
    double e = p->v[VR_R] - p->v[VR_Y];
    p->ehist[1] = p->ehist[0];
    p->ehist[0] = e;
    p->integral += p->v[VR_KI] * e * h;
    p->v[VR_U] = p->v[VR_KP] * e + p->integral;
    p->time = t + h;
    *lastSuccessfulTime = p->time;
    if (p->time >= p->v[VR_STOP]) {
        *terminateSimulation = fmi3True;
        logm(p, fmi3OK, "logAll", "stop_at reached: terminateSimulation");
    }
    return fmi3OK;
}
