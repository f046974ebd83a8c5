/*
 * fmi2_shim.h — C side of the co-simulation master's FMI 2.0 importer
 * (fmi2dl.go): it dlopens a third-party co-simulation FMU's binary,
 * resolves its fmi2* functions and calls them through the pointers (cgo
 * cannot call C function pointers itself). The FMI logger is variadic, so it
 * is a C function that formats the message and hands it to Go.
 */
#ifndef MBFMU_COSIM_FMI2_SHIM_H
#define MBFMU_COSIM_FMI2_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "fmi2.h"

/* One loaded FMU binary and (at most) one instance of it. */
typedef struct mbfmu_dl mbfmu_dl;

/* Loads the library and resolves the functions; NULL and a message in err
 * on failure. */
mbfmu_dl* mbfmu_dl_open(const char* path, char* err, size_t errlen);
/* Frees the instance if any, unloads the library and frees h. */
void mbfmu_dl_close(mbfmu_dl* h);

const char* mbfmu_dl_version(mbfmu_dl* h);
const char* mbfmu_dl_platform(mbfmu_dl* h);
/* fmi2Instantiate(fmi2CoSimulation); env is passed back to the logger.
 * Returns 0 on success. */
int mbfmu_dl_instantiate(mbfmu_dl* h, const char* name, const char* guid, const char* resources,
                         uintptr_t env, int loggingOn);
void mbfmu_dl_free_instance(mbfmu_dl* h);
int mbfmu_dl_setup(mbfmu_dl* h, double start, int stopDefined, double stop);
int mbfmu_dl_enter_init(mbfmu_dl* h);
int mbfmu_dl_exit_init(mbfmu_dl* h);
int mbfmu_dl_terminate(mbfmu_dl* h);
int mbfmu_dl_set_real(mbfmu_dl* h, const unsigned int* vr, size_t n, const double* v);
int mbfmu_dl_get_real(mbfmu_dl* h, const unsigned int* vr, size_t n, double* v);
int mbfmu_dl_do_step(mbfmu_dl* h, double t, double dt, int noSetPrior);
/* fmi2SetRealInputDerivatives and fmi2GetRealOutputDerivatives, which are
 * optional here: mbfmu_dl_has_derivs tells which the library exports (bit 0
 * the former, bit 1 the latter); calling a missing one returns fmi2Error. */
int mbfmu_dl_has_derivs(mbfmu_dl* h);
int mbfmu_dl_set_input_derivs(mbfmu_dl* h, const unsigned int* vr, size_t n, const int* order, const double* v);
int mbfmu_dl_get_output_derivs(mbfmu_dl* h, const unsigned int* vr, size_t n, const int* order, double* v);

#endif
