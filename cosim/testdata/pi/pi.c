/*
 * pi.c — a third-party FMI 2.0 co-simulation FMU written in C for the tests
 * of package cosim: a discrete PI controller.
 *
 * Variables (value references):
 *   0 r   input      setpoint
 *   1 y   input      measurement
 *   2 u   output     controller output
 *   3 kp  parameter  proportional gain (tunable)
 *   4 ki  parameter  integral gain, 1/s (tunable)
 *
 * Law, per fmi2DoStep(t, h) with the inputs r, y set before the step:
 *   e = r - y;  I += ki * e * h;  u = kp * e + I
 * so the output at t+h uses the inputs held over [t, t+h) (forward Euler
 * integral). Before the first step u = kp * (r - y).
 *
 * The FMU follows the FMI 2.0 co-simulation state machine (instantiated,
 * initialisation mode, step complete, terminated), allocates its instance
 * with the importer's allocateMemory, checks the GUID and reports errors
 * through the logger.
 */
#include <stdio.h>
#include <string.h>

#include "fmi2.h"

#define GUID "{8c4e810f-3df3-4a00-8276-176fa3c9f000}"
#define NVARS 5

enum { VR_R, VR_Y, VR_U, VR_KP, VR_KI };
enum { INSTANTIATED, INIT_MODE, STEP_COMPLETE, TERMINATED };

typedef struct {
    fmi2CallbackFunctions cb;
    char name[64];
    int state;
    int logging;
    double v[NVARS];
    double integral;
    double time;
} pi_t;

static void logf_(pi_t* p, fmi2Status st, const char* cat, const char* msg) {
    if (p->cb.logger != NULL && (p->logging || st != fmi2OK)) {
        /* the message goes through the format string: exercise it */
        p->cb.logger(p->cb.componentEnvironment, p->name, st, cat, "%s", msg);
    }
}

const char* fmi2GetTypesPlatform(void) { return "default"; }
const char* fmi2GetVersion(void) { return "2.0"; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String cats[]) {
    (void)n; (void)cats;
    ((pi_t*)c)->logging = on;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid, fmi2String res,
                              const fmi2CallbackFunctions* cb, fmi2Boolean visible, fmi2Boolean loggingOn) {
    (void)res; (void)visible;
    if (cb == NULL || cb->allocateMemory == NULL || cb->freeMemory == NULL) {
        return NULL;
    }
    if (type != fmi2CoSimulation || guid == NULL || strcmp(guid, GUID) != 0) {
        if (cb->logger != NULL) {
            cb->logger(cb->componentEnvironment, name ? name : "", fmi2Error, "logStatusError",
                       "wrong fmuType or GUID %s (want %s)", guid ? guid : "(null)", GUID);
        }
        return NULL;
    }
    pi_t* p = cb->allocateMemory(1, sizeof(pi_t));
    if (p == NULL) {
        return NULL;
    }
    memcpy(&p->cb, cb, sizeof *cb);
    snprintf(p->name, sizeof p->name, "%s", name ? name : "");
    p->logging = loggingOn;
    p->v[VR_KP] = 1;
    p->v[VR_KI] = 0;
    p->state = INSTANTIATED;
    logf_(p, fmi2OK, "logAll", "instantiated");
    return p;
}

void fmi2FreeInstance(fmi2Component c) {
    if (c != NULL) {
        pi_t* p = c;
        fmi2CallbackFreeMemory fr = p->cb.freeMemory;
        fr(p);
    }
}

static fmi2Status bad(pi_t* p, const char* fn) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s not allowed in state %d", fn, p->state);
    logf_(p, fmi2Error, "logStatusError", msg);
    return fmi2Error;
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tolDef, fmi2Real tol, fmi2Real start,
                               fmi2Boolean stopDef, fmi2Real stop) {
    pi_t* p = c;
    (void)tolDef; (void)tol; (void)stopDef; (void)stop;
    if (p->state != INSTANTIATED) return bad(p, "fmi2SetupExperiment");
    p->time = start;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    pi_t* p = c;
    if (p->state != INSTANTIATED) return bad(p, "fmi2EnterInitializationMode");
    p->state = INIT_MODE;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    pi_t* p = c;
    if (p->state != INIT_MODE) return bad(p, "fmi2ExitInitializationMode");
    p->integral = 0;
    p->v[VR_U] = p->v[VR_KP] * (p->v[VR_R] - p->v[VR_Y]);
    p->state = STEP_COMPLETE;
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) {
    pi_t* p = c;
    if (p->state != STEP_COMPLETE) return bad(p, "fmi2Terminate");
    p->state = TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c) {
    pi_t* p = c;
    p->state = INSTANTIATED;
    p->integral = 0;
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real v[]) {
    pi_t* p = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= NVARS) return bad(p, "fmi2GetReal (unknown value reference)");
        v[i] = p->v[vr[i]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Real v[]) {
    pi_t* p = c;
    if (p->state == TERMINATED) return bad(p, "fmi2SetReal");
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= NVARS || vr[i] == VR_U) return bad(p, "fmi2SetReal (not an input or parameter)");
    }
    for (size_t i = 0; i < n; i++) p->v[vr[i]] = v[i];
    return fmi2OK;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noSetPrior) {
    pi_t* p = c;
    (void)noSetPrior;
    if (p->state != STEP_COMPLETE) return bad(p, "fmi2DoStep");
    if (!(h > 0)) return bad(p, "fmi2DoStep (step size must be > 0)");
    double e = p->v[VR_R] - p->v[VR_Y];
    p->integral += p->v[VR_KI] * e * h;
    p->v[VR_U] = p->v[VR_KP] * e + p->integral;
    p->time = t + h;
    return fmi2OK;
}

/* Everything else is not supported: it says so. */
#define UNSUPPORTED(sig)                                                   \
    sig {                                                                  \
        logf_((pi_t*)c, fmi2Error, "logStatusError", "not supported");     \
        return fmi2Error;                                                  \
    }
UNSUPPORTED(fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Integer v[]))
UNSUPPORTED(fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Boolean v[]))
UNSUPPORTED(fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2String v[]))
UNSUPPORTED(fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer v[]))
UNSUPPORTED(fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Boolean v[]))
UNSUPPORTED(fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2String v[]))
UNSUPPORTED(fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* s))
UNSUPPORTED(fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate s))
UNSUPPORTED(fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* s))
UNSUPPORTED(fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t* n))
UNSUPPORTED(fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte b[], size_t n))
UNSUPPORTED(fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte b[], size_t n, fmi2FMUstate* s))
UNSUPPORTED(fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference u[], size_t nu,
                                                    const fmi2ValueReference k[], size_t nk,
                                                    const fmi2Real dk[], fmi2Real du[]))
UNSUPPORTED(fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                                   const fmi2Integer o[], const fmi2Real v[]))
UNSUPPORTED(fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                                    const fmi2Integer o[], fmi2Real v[]))
UNSUPPORTED(fmi2Status fmi2CancelStep(fmi2Component c))
UNSUPPORTED(fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind k, fmi2Status* v))
UNSUPPORTED(fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind k, fmi2Real* v))
UNSUPPORTED(fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind k, fmi2Integer* v))
UNSUPPORTED(fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind k, fmi2Boolean* v))
UNSUPPORTED(fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind k, fmi2String* v))
