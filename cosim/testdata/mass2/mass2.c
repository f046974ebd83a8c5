/*
 * mass2.c — a third-party FMI 2.0 co-simulation FMU written in C for the
 * tests of package cosim: mass 2 of the two-mass oscillator of
 * examples/two-mass-cosim (mass2.xml), with input interpolation and output
 * derivatives.
 *
 * Variables (value references):
 *   0 x1   input      displacement of mass 1 (m)
 *   1 v1   input      velocity of mass 1 (m/s)
 *   2 x2   output     displacement of mass 2 (m)
 *   3 v2   output     velocity of mass 2 (m/s)
 *   4 m2, 5 k2, 6 k12, 7 c12   parameters
 *
 *   m2 x2'' = −k2 x2 − k12 (x2 − x1) − c12 (v2 − v1)
 *
 * integrated by RK4 with sub-steps of at most 0.1 ms. canInterpolateInputs:
 * fmi2SetRealInputDerivatives (order 1) makes the inputs follow
 * u + u̇ (τ − t) over the next step, after which they hold the values they
 * reached. maxOutputDerivativeOrder = 1: fmi2GetRealOutputDerivatives gives
 * x2' = v2 and v2' = the acceleration at the current state and inputs.
 * Built with -DNO_DERIVS it exports neither function (while its
 * modelDescription.xml still declares them).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmi2.h"

#define GUID "{5a1c7d2e-0b4f-4c11-9d3e-2f8a6b9c0d14}"
enum { VR_X1, VR_V1, VR_X2, VR_V2, VR_M2, VR_K2, VR_K12, VR_C12, NVARS };
enum { INSTANTIATED, INIT_MODE, STEP_COMPLETE, TERMINATED };

typedef struct {
    fmi2CallbackFunctions cb;
    char name[64];
    int state;
    double v[NVARS];
    double du[2]; /* input derivatives for the next step */
} mass_t;

static fmi2Status fail(mass_t* p, const char* msg) {
    if (p->cb.logger != NULL) p->cb.logger(p->cb.componentEnvironment, p->name, fmi2Error, "logStatusError", "%s", msg);
    return fmi2Error;
}

const char* fmi2GetTypesPlatform(void) { return "default"; }
const char* fmi2GetVersion(void) { return "2.0"; }
fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String cats[]) {
    (void)c; (void)on; (void)n; (void)cats;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid, fmi2String res,
                              const fmi2CallbackFunctions* cb, fmi2Boolean visible, fmi2Boolean loggingOn) {
    (void)res; (void)visible; (void)loggingOn;
    if (cb == NULL || cb->allocateMemory == NULL || type != fmi2CoSimulation || guid == NULL || strcmp(guid, GUID) != 0)
        return NULL;
    mass_t* p = cb->allocateMemory(1, sizeof(mass_t));
    if (p == NULL) return NULL;
    memcpy(&p->cb, cb, sizeof *cb);
    snprintf(p->name, sizeof p->name, "%s", name ? name : "");
    p->v[VR_M2] = 1.5;
    p->v[VR_K2] = 60;
    p->v[VR_K12] = 150;
    p->v[VR_C12] = 1;
    p->v[VR_X1] = 0.1;
    p->state = INSTANTIATED;
    return p;
}

void fmi2FreeInstance(fmi2Component c) {
    if (c != NULL) ((mass_t*)c)->cb.freeMemory(c);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean a, fmi2Real b, fmi2Real d, fmi2Boolean e, fmi2Real f) {
    (void)a; (void)b; (void)d; (void)e; (void)f;
    return ((mass_t*)c)->state == INSTANTIATED ? fmi2OK : fail(c, "fmi2SetupExperiment: wrong state");
}
fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    mass_t* p = c;
    if (p->state != INSTANTIATED) return fail(p, "fmi2EnterInitializationMode: wrong state");
    p->state = INIT_MODE;
    return fmi2OK;
}
fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    mass_t* p = c;
    if (p->state != INIT_MODE) return fail(p, "fmi2ExitInitializationMode: wrong state");
    p->state = STEP_COMPLETE;
    return fmi2OK;
}
fmi2Status fmi2Terminate(fmi2Component c) {
    ((mass_t*)c)->state = TERMINATED;
    return fmi2OK;
}
fmi2Status fmi2Reset(fmi2Component c) {
    ((mass_t*)c)->state = INSTANTIATED;
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real v[]) {
    mass_t* p = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= NVARS) return fail(p, "fmi2GetReal: unknown value reference");
        v[i] = p->v[vr[i]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Real v[]) {
    mass_t* p = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= NVARS || vr[i] == VR_X2 || vr[i] == VR_V2) return fail(p, "fmi2SetReal: not an input or parameter");
        p->v[vr[i]] = v[i];
    }
    return fmi2OK;
}

/* acc is mass 2's acceleration at (x2, v2) with the inputs x1, v1. */
static double acc(const mass_t* p, double x2, double v2, double x1, double v1) {
    const double* v = p->v;
    return (-v[VR_K2] * x2 - v[VR_K12] * (x2 - x1) - v[VR_C12] * (v2 - v1)) / v[VR_M2];
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noSetPrior) {
    mass_t* p = c;
    (void)t; (void)noSetPrior;
    if (p->state != STEP_COMPLETE || !(h > 0)) return fail(p, "fmi2DoStep: wrong state or step");
    int n = (int)ceil(h / 1e-4 - 1e-9);
    double dt = h / n, x = p->v[VR_X2], v = p->v[VR_V2];
    double x1 = p->v[VR_X1], v1 = p->v[VR_V1], d1 = p->du[0], d2 = p->du[1];
    for (int k = 0; k < n; k++) {
        double s = k * dt; /* time since t */
        double a1 = acc(p, x, v, x1 + d1 * s, v1 + d2 * s);
        double xa = x + 0.5 * dt * v, va = v + 0.5 * dt * a1;
        double a2 = acc(p, xa, va, x1 + d1 * (s + 0.5 * dt), v1 + d2 * (s + 0.5 * dt));
        double xb = x + 0.5 * dt * va, vb = v + 0.5 * dt * a2;
        double a3 = acc(p, xb, vb, x1 + d1 * (s + 0.5 * dt), v1 + d2 * (s + 0.5 * dt));
        double xc = x + dt * vb, vc = v + dt * a3;
        double a4 = acc(p, xc, vc, x1 + d1 * (s + dt), v1 + d2 * (s + dt));
        x += dt / 6 * (v + 2 * va + 2 * vb + vc);
        v += dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
    }
    p->v[VR_X2] = x;
    p->v[VR_V2] = v;
    /* the inputs hold what they reached; the derivatives applied to this step */
    p->v[VR_X1] = x1 + d1 * h;
    p->v[VR_V1] = v1 + d2 * h;
    p->du[0] = p->du[1] = 0;
    return fmi2OK;
}

#ifndef NO_DERIVS
fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                       const fmi2Integer o[], const fmi2Real v[]) {
    mass_t* p = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] > VR_V1 || o[i] != 1) return fail(p, "fmi2SetRealInputDerivatives: inputs x1, v1, order 1 only");
        p->du[vr[i]] = v[i];
    }
    return fmi2OK;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                        const fmi2Integer o[], fmi2Real v[]) {
    mass_t* p = c;
    for (size_t i = 0; i < n; i++) {
        if ((vr[i] != VR_X2 && vr[i] != VR_V2) || o[i] != 1) return fail(p, "fmi2GetRealOutputDerivatives: outputs x2, v2, order 1 only");
        v[i] = vr[i] == VR_X2 ? p->v[VR_V2] : acc(p, p->v[VR_X2], p->v[VR_V2], p->v[VR_X1], p->v[VR_V1]);
    }
    return fmi2OK;
}
#endif
