/*
 * fmi3_shim.h — C side of the co-simulation master's FMI 3.0 importer
 * (fmi3dl.go): it dlopens a co-simulation FMU's binary, resolves its fmi3*
 * functions and calls them through the pointers (cgo cannot call C
 * function pointers itself). FMI 3.0's logger is not variadic; it is still
 * a C function, of the exact fmi3LogMessageCallback type, that hands the
 * message to Go.
 */
#ifndef MBFMU_COSIM_FMI3_SHIM_H
#define MBFMU_COSIM_FMI3_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "fmi3.h"

/* One loaded FMU binary and (at most) one instance of it. */
typedef struct mbfmu_dl3 mbfmu_dl3;

/* Loads the library and resolves the functions; NULL and a message in err
 * on failure. */
mbfmu_dl3* mbfmu_dl3_open(const char* path, char* err, size_t errlen);
/* Frees the instance if any, unloads the library and frees h. */
void mbfmu_dl3_close(mbfmu_dl3* h);

const char* mbfmu_dl3_version(mbfmu_dl3* h);
/* fmi3InstantiateCoSimulation with visible, eventModeUsed and
 * earlyReturnAllowed false, no required intermediate variables and no
 * intermediate-update callback; env is passed back to the logger. Returns
 * 0 on success. */
int mbfmu_dl3_instantiate(mbfmu_dl3* h, const char* name, const char* token, const char* resources,
                          uintptr_t env, int loggingOn);
void mbfmu_dl3_free_instance(mbfmu_dl3* h);
/* fmi3EnterInitializationMode without tolerance, with the stop time. */
int mbfmu_dl3_enter_init(mbfmu_dl3* h, double start, int stopDefined, double stop);
int mbfmu_dl3_exit_init(mbfmu_dl3* h);
int mbfmu_dl3_terminate(mbfmu_dl3* h);
/* fmi3SetFloat64 and fmi3GetFloat64 of n scalars (nValues = n). */
int mbfmu_dl3_set_float64(mbfmu_dl3* h, const uint32_t* vr, size_t n, const double* v);
int mbfmu_dl3_get_float64(mbfmu_dl3* h, const uint32_t* vr, size_t n, double* v);
/* fmi3DoStep with noSetFMUStatePriorToCurrentPoint: its status; flags
 * has bit 0 eventHandlingNeeded, bit 1 terminateSimulation, bit 2
 * earlyReturn, and last lastSuccessfulTime. Returned by value: a Go
 * pointer passed to C would be moved to the heap (an allocation a step). */
typedef struct {
    int status;
    int flags;
    double last;
} mbfmu_dl3_step;
mbfmu_dl3_step mbfmu_dl3_do_step(mbfmu_dl3* h, double t, double dt, int noSetPrior);
/* fmi3GetOutputDerivatives is optional here: mbfmu_dl3_has_output_derivs
 * tells whether the library exports it; calling it when missing returns
 * fmi3Error. n scalars (nValues = n). */
int mbfmu_dl3_has_output_derivs(mbfmu_dl3* h);
int mbfmu_dl3_get_output_derivs(mbfmu_dl3* h, const uint32_t* vr, size_t n, const int32_t* order, double* v);

#endif
