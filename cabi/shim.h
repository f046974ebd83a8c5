/*
 * shim.h — C helpers of the runtime library (package cabi): the memory
 * behind fmi2Component and fmi2FMUstate, and the logger trampoline.
 */
#ifndef MBFMU_SHIM_H
#define MBFMU_SHIM_H

#include <stdint.h>
#include "fmi2.h"
#define MBFMU_ENV_PARAM uintptr_t
#include "fmi3.h"

/* const-pointer types for the Go signatures of the exports (cgo drops
 * const, so the exports use these to match the prototypes in fmi2.h). */
typedef const fmi2ValueReference*    mbfmu_ConstVRPtr;
typedef const fmi2Real*              mbfmu_ConstRealPtr;
typedef const fmi2Integer*           mbfmu_ConstIntegerPtr;
typedef const fmi2Boolean*           mbfmu_ConstBooleanPtr;
typedef const fmi2String*            mbfmu_ConstStringPtr;
typedef const fmi2Byte*              mbfmu_ConstBytePtr;
typedef const fmi2CallbackFunctions* mbfmu_ConstCallbacksPtr;
typedef const fmi3ValueReference*    mbfmu_ConstVR3Ptr;
typedef const fmi3Float64*           mbfmu_ConstFloat64Ptr;
typedef const fmi3Int32*             mbfmu_ConstInt32Ptr;
typedef const fmi3String*            mbfmu_ConstString3Ptr;
typedef const fmi3Byte*              mbfmu_ConstByte3Ptr;
typedef const size_t*                mbfmu_ConstSizePtr;
typedef const fmi3Binary*            mbfmu_ConstBinaryPtr;
typedef const fmi3Clock*             mbfmu_ConstClockPtr;
typedef const fmi3UInt64*            mbfmu_ConstUInt64Ptr;
typedef const fmi3Float32*           mbfmu_ConstFloat32Ptr;
typedef const fmi3Int8*              mbfmu_ConstInt8Ptr;
typedef const fmi3UInt8*             mbfmu_ConstUInt8Ptr;
typedef const fmi3Int16*             mbfmu_ConstInt16Ptr;
typedef const fmi3UInt16*            mbfmu_ConstUInt16Ptr;
typedef const fmi3UInt32*            mbfmu_ConstUInt32Ptr;
typedef const fmi3Int64*             mbfmu_ConstInt64Ptr;
typedef const fmi3Boolean*           mbfmu_ConstBoolean3Ptr;

/* An fmi2Component or fmi2FMUstate points to one of these, allocated with
 * calloc. The magic number is checked by every entry point and cleared
 * before the block is freed; it is not in the first two words, which
 * malloc reuses for its own lists in freed blocks. */
typedef struct {
    uint64_t  reserved[2];
    uint64_t  magic;
    uintptr_t handle; /* runtime/cgo.Handle of the Go object */
} mbfmu_box;

#define MBFMU_COMPONENT_MAGIC UINT64_C(0x4d42464d55434f4d) /* "MBFMUCOM" */
#define MBFMU_STATE_MAGIC     UINT64_C(0x4d42464d55535441) /* "MBFMUSTA" */

mbfmu_box*  mbfmu_box_new(uint64_t magic, uintptr_t handle);
void        mbfmu_box_free(mbfmu_box* b);

/* mbfmu_log calls the importer's variadic logger with "%s" and the message
 * (the logger runs vsnprintf on its format). */
void        mbfmu_log(fmi2CallbackLogger logger, uintptr_t env, fmi2String instance,
                      fmi2Status status, fmi2String category, fmi2String message);

/* mbfmu_log3 calls an FMI 3.0 logMessage callback. */
void        mbfmu_log3(fmi3LogMessageCallback logger, uintptr_t env, fmi3Status status,
                       fmi3String category, fmi3String message);

/* mbfmu_iu calls an FMI 3.0 intermediateUpdate callback and returns the
 * master's answer by value (a Go pointer passed to C would be moved to the
 * heap: an allocation per internal step). */
typedef struct {
    fmi3Boolean earlyReturnRequested;
    fmi3Float64 earlyReturnTime;
} mbfmu_iu_answer;
mbfmu_iu_answer mbfmu_iu(fmi3IntermediateUpdateCallback cb, uintptr_t env, fmi3Float64 t,
                         fmi3Boolean canReturnEarly);

/* The environment and logger of fmi2Instantiate's callbacks (the
 * environment as an integer: the importer's value is opaque). */
uintptr_t   mbfmu_callbacks_env(const fmi2CallbackFunctions* f);

fmi2String  mbfmu_types_platform(void);
fmi3String  mbfmu_version3(void);
fmi2String  mbfmu_version(void);
fmi2String  mbfmu_empty(void);

#endif /* MBFMU_SHIM_H */
