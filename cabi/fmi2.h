/*
 * fmi2.h — the FMI 2.0 types and the common and co-simulation function
 * prototypes, written for mbfmu from the FMI 2.0 standard (section 2.1 and
 * 4.2). The cgo preamble of package cabi includes it, so the C compiler
 * checks every //export against these prototypes; C hosts include it too.
 */
#ifndef MBFMU_FMI2_H
#define MBFMU_FMI2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Platform-dependent types ("default" platform). */
typedef void*           fmi2Component;
typedef void*           fmi2ComponentEnvironment;
typedef void*           fmi2FMUstate;
typedef unsigned int    fmi2ValueReference;
typedef double          fmi2Real;
typedef int             fmi2Integer;
typedef int             fmi2Boolean;
typedef char            fmi2Char;
typedef const fmi2Char* fmi2String;
typedef char            fmi2Byte;

#define fmi2True  1
#define fmi2False 0

typedef enum {
    fmi2OK,
    fmi2Warning,
    fmi2Discard,
    fmi2Error,
    fmi2Fatal,
    fmi2Pending
} fmi2Status;

typedef enum {
    fmi2ModelExchange,
    fmi2CoSimulation
} fmi2Type;

typedef enum {
    fmi2DoStepStatus,
    fmi2PendingStatus,
    fmi2LastSuccessfulTime,
    fmi2Terminated
} fmi2StatusKind;

typedef void  (*fmi2CallbackLogger)(fmi2ComponentEnvironment componentEnvironment,
                                    fmi2String instanceName, fmi2Status status,
                                    fmi2String category, fmi2String message, ...);
typedef void* (*fmi2CallbackAllocateMemory)(size_t nobj, size_t size);
typedef void  (*fmi2CallbackFreeMemory)(void* obj);
typedef void  (*fmi2StepFinished)(fmi2ComponentEnvironment componentEnvironment, fmi2Status status);

typedef struct {
    const fmi2CallbackLogger         logger;
    const fmi2CallbackAllocateMemory allocateMemory;
    const fmi2CallbackFreeMemory     freeMemory;
    const fmi2StepFinished           stepFinished;
    const fmi2ComponentEnvironment   componentEnvironment;
} fmi2CallbackFunctions;

/* Common functions. */
const char* fmi2GetTypesPlatform(void);
const char* fmi2GetVersion(void);
fmi2Status  fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories, const fmi2String categories[]);
fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions* functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn);
void        fmi2FreeInstance(fmi2Component c);
fmi2Status  fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                                fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime);
fmi2Status  fmi2EnterInitializationMode(fmi2Component c);
fmi2Status  fmi2ExitInitializationMode(fmi2Component c);
fmi2Status  fmi2Terminate(fmi2Component c);
fmi2Status  fmi2Reset(fmi2Component c);
fmi2Status  fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]);
fmi2Status  fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]);
fmi2Status  fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]);
fmi2Status  fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]);
fmi2Status  fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]);
fmi2Status  fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]);
fmi2Status  fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]);
fmi2Status  fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]);
fmi2Status  fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* FMUstate);
fmi2Status  fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate);
fmi2Status  fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* FMUstate);
fmi2Status  fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t* size);
fmi2Status  fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size);
fmi2Status  fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size, fmi2FMUstate* FMUstate);
fmi2Status  fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                         const fmi2ValueReference vKnown_ref[], size_t nKnown,
                                         const fmi2Real dvKnown[], fmi2Real dvUnknown[]);

/* Co-simulation functions. */
fmi2Status  fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], const fmi2Real value[]);
fmi2Status  fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                         const fmi2Integer order[], fmi2Real value[]);
fmi2Status  fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                       fmi2Boolean noSetFMUStatePriorToCurrentPoint);
fmi2Status  fmi2CancelStep(fmi2Component c);
fmi2Status  fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status* value);
fmi2Status  fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real* value);
fmi2Status  fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer* value);
fmi2Status  fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean* value);
fmi2Status  fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String* value);

#ifdef __cplusplus
}
#endif

#endif /* MBFMU_FMI2_H */
