/*
 * host3.c — a minimal FMI 3.0 co-simulation importer used by the tests of
 * package cabi (fmi3_test.go compiles it with gcc). It dlopens unpacked
 * mbfmu FMUs (FMI 3.0, and FMI 2.0 for comparison) and drives them through
 * the C ABI only, with its own prototypes (fmi3.h, fmi2.h).
 *
 * Most modes take a SPEC of the model's value references, given by the Go
 * side from the FMU's description:
 *
 *   SPEC = VR_TAU VR_TIME NY VR_Y... NA (VR_A N_A)... NM VR_M...
 *
 * tau the input, time the independent variable, Y the scalar outputs, A the
 * array outputs with their number of elements, M a list mixing scalars,
 * arrays and time for one fmi3GetFloat64 call. A "record" is one
 * fmi3GetFloat64 of Y, then every A, then time (NY + ΣN_A + 1 values).
 *
 *   host3 run    DIR3 N SPEC        N steps of 1 ms, tau = 0.01·sin(0.01k)
 *                                   before step k; after initialisation and
 *                                   each step prints "Y3 k Y..." (one call
 *                                   on the scalars), "R3 k record" and
 *                                   "M3 k M..." (one call on the M list)
 *   host3 equiv  DIR3 DIR2 N SPEC   run, then the FMI 2.0 FMU of the same
 *                                   model through the FMI 2.0 API with the
 *                                   same inputs: "Y2 k Y..."
 *   host3 state  DIR3 SPEC          300 steps, get + serialise the FMU
 *                                   state, 300 more ("S1 k record"), restore
 *                                   the deserialised state and run them
 *                                   again ("S2"), and in a second instance
 *                                   ("S3")
 *   host3 derivs DIR3 N SPEC NU VR_U... NK VR_K...
 *                                   output derivatives and a difference
 *                                   quotient of the motion after N steps;
 *                                   directional and adjoint derivatives of
 *                                   the unknowns U w.r.t. the knowns K
 *   host3 checks DIR3 SPEC          wrong states, bad arguments, unsupported
 *                                   calls, invalid instances, FMI 2.0/3.0
 *                                   instances crossed, intermediate update
 *                                   and early return ("ok"/"FAIL" lines)
 *   host3 nan    DIR3 VR_TIME       a step that ends in a non-finite output
 *   host3 alloc  DIR3 SPEC          steady-state loop for the allocation
 *                                   count (alloc_test.go)
 *
 * Values are printed as hexadecimal floats (%a): the Go side compares them
 * bit for bit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2.h"
#include "fmi3.h"

#if defined(__aarch64__)
#define BINDIR3 "aarch64-linux"
#define BINDIR2 "aarch64-linux"
#else
#define BINDIR3 "x86_64-linux"
#define BINDIR2 "linux64"
#endif

#define H 1e-3

/* Every FMI 3.0 function (fmi3.h): load checks that each one is exported. */
#define FMI3_FUNCS(F)                                                                                           \
    F(fmi3GetVersion) F(fmi3SetDebugLogging) F(fmi3InstantiateModelExchange) F(fmi3InstantiateCoSimulation)      \
    F(fmi3InstantiateScheduledExecution) F(fmi3FreeInstance) F(fmi3EnterInitializationMode)                      \
    F(fmi3ExitInitializationMode) F(fmi3EnterEventMode) F(fmi3Terminate) F(fmi3Reset) F(fmi3GetFloat32)          \
    F(fmi3GetFloat64) F(fmi3GetInt8) F(fmi3GetUInt8) F(fmi3GetInt16) F(fmi3GetUInt16) F(fmi3GetInt32)            \
    F(fmi3GetUInt32) F(fmi3GetInt64) F(fmi3GetUInt64) F(fmi3GetBoolean) F(fmi3GetString) F(fmi3GetBinary)        \
    F(fmi3GetClock) F(fmi3SetFloat32) F(fmi3SetFloat64) F(fmi3SetInt8) F(fmi3SetUInt8) F(fmi3SetInt16)           \
    F(fmi3SetUInt16) F(fmi3SetInt32) F(fmi3SetUInt32) F(fmi3SetInt64) F(fmi3SetUInt64) F(fmi3SetBoolean)         \
    F(fmi3SetString) F(fmi3SetBinary) F(fmi3SetClock) F(fmi3GetNumberOfVariableDependencies)                     \
    F(fmi3GetVariableDependencies) F(fmi3GetFMUState) F(fmi3SetFMUState) F(fmi3FreeFMUState)                     \
    F(fmi3SerializedFMUStateSize) F(fmi3SerializeFMUState) F(fmi3DeserializeFMUState)                            \
    F(fmi3GetDirectionalDerivative) F(fmi3GetAdjointDerivative) F(fmi3EnterConfigurationMode)                    \
    F(fmi3ExitConfigurationMode) F(fmi3GetIntervalDecimal) F(fmi3GetIntervalFraction) F(fmi3GetShiftDecimal)    \
    F(fmi3GetShiftFraction) F(fmi3SetIntervalDecimal) F(fmi3SetIntervalFraction) F(fmi3SetShiftDecimal)          \
    F(fmi3SetShiftFraction) F(fmi3EvaluateDiscreteStates) F(fmi3UpdateDiscreteStates)                            \
    F(fmi3EnterContinuousTimeMode) F(fmi3CompletedIntegratorStep) F(fmi3SetTime) F(fmi3SetContinuousStates)     \
    F(fmi3GetContinuousStateDerivatives) F(fmi3GetEventIndicators) F(fmi3GetContinuousStates)                    \
    F(fmi3GetNominalsOfContinuousStates) F(fmi3GetNumberOfEventIndicators) F(fmi3GetNumberOfContinuousStates)    \
    F(fmi3EnterStepMode) F(fmi3GetOutputDerivatives) F(fmi3DoStep) F(fmi3ActivateModelPartition)

/* The FMI 2.0 functions this host calls. */
#define FMI2_FUNCS(F)                                                                                           \
    F(fmi2Instantiate) F(fmi2FreeInstance) F(fmi2SetupExperiment) F(fmi2EnterInitializationMode)                 \
    F(fmi2ExitInitializationMode) F(fmi2DoStep) F(fmi2GetReal) F(fmi2SetReal) F(fmi2Terminate)                   \
    F(fmi2GetFMUstate)

typedef struct {
    void* lib;
    char token[128]; /* instantiationToken (FMI 3.0) or guid (FMI 2.0) */
    char dir[4096];
    char res[4200]; /* FMI 3.0 resourcePath: DIR/resources/ */
#define F(name) __typeof__(&name) name;
    FMI3_FUNCS(F)
    FMI2_FUNCS(F)
#undef F
    /* mbfmuTestMallocs of the allocation tests' probe build, else NULL */
    unsigned long long (*mallocs)(void);
} fmu_t;

static void die(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "host3: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

/* attr copies the value of attribute name="…" of modelDescription.xml. */
static void attr(const char* xml, const char* name, char* out, size_t n) {
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char* p = strstr(xml, key);
    if (!p) die("modelDescription.xml has no %s", name);
    p += strlen(key);
    size_t i = 0;
    while (p[i] && p[i] != '"' && i + 1 < n) { out[i] = p[i]; i++; }
    out[i] = 0;
}

/* load reads DIR/modelDescription.xml and dlopens the binary of an FMI 3.0
 * (version 3) or FMI 2.0 (version 2) FMU. */
static void load(fmu_t* f, const char* dir, int version) {
    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "%s", dir);
    snprintf(f->res, sizeof f->res, "%s/resources/", dir);
    char path[4300], id[256];
    snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
    FILE* fp = fopen(path, "rb");
    if (!fp) die("cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char* xml = malloc((size_t)size + 1);
    size_t n = fread(xml, 1, (size_t)size, fp);
    xml[n] = 0;
    fclose(fp);
    if (version == 3) {
        char v[16];
        attr(xml, "fmiVersion", v, sizeof v);
        if (strcmp(v, "3.0") != 0) die("%s: fmiVersion %s, want 3.0", path, v);
        attr(xml, "instantiationToken", f->token, sizeof f->token);
    } else {
        attr(xml, "guid", f->token, sizeof f->token);
    }
    attr(xml, "modelIdentifier", id, sizeof id);
    free(xml);
    snprintf(path, sizeof path, "%s/binaries/%s/%s.so", dir, version == 3 ? BINDIR3 : BINDIR2, id);
    f->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!f->lib) die("dlopen %s: %s", path, dlerror());
#define F(name) if (!(f->name = (__typeof__(&name))dlsym(f->lib, #name))) die("missing symbol " #name);
    FMI3_FUNCS(F)
    FMI2_FUNCS(F)
#undef F
    f->mallocs = (unsigned long long (*)(void))dlsym(f->lib, "mbfmuTestMallocs");
}

/* mark writes BEGIN/END markers (and the probe build's allocation count)
 * on stderr, as host.c does. */
static void mark(const fmu_t* f, const char* what) {
    int begin = !strcmp(what, "BEGIN");
    if (begin) fprintf(stderr, "%s\n", what);
    if (f->mallocs) fprintf(stderr, "MALLOCS %s %llu\n", what, f->mallocs());
    if (!begin) fprintf(stderr, "%s\n", what);
}

/* ---- logging ---------------------------------------------------------- */

static int nlog[6];          /* messages per status, FMI 3.0 and FMI 2.0 loggers */
static char lastlog[4096];   /* the last message */
static int envTag, envWrong; /* the instanceEnvironment handed over, and how often another came back */
/* the environment handed over: &envTag, or with HOST_ENV_INT set a small
 * integer (opaque to the FMU, which must never take it for a pointer) */
static void* envExpect = &envTag;
static int verbose;

static void logmsg(fmi3InstanceEnvironment env, fmi3Status st, fmi3String cat, fmi3String msg) {
    snprintf(lastlog, sizeof lastlog, "%s", msg ? msg : "(null)");
    if ((int)st >= 0 && (int)st <= 4) nlog[st]++;
    if (env != envExpect) envWrong++;
    if (verbose) fprintf(stderr, "[3|%s|%d] %s\n", cat ? cat : "?", (int)st, lastlog);
}

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st, fmi2String cat,
                    fmi2String fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lastlog, sizeof lastlog, fmt, ap);
    va_end(ap);
    if ((int)st >= 0 && (int)st <= 5) nlog[st]++;
    if (verbose) fprintf(stderr, "[2|%s|%s|%d] %s\n", name ? name : "?", cat ? cat : "?", (int)st, lastlog);
    (void)env;
}

static const fmi2CallbackFunctions callbacks2ptr = {logger2, NULL, NULL, NULL, NULL};
static const fmi2CallbackFunctions callbacks2int = {logger2, NULL, NULL, NULL, (void*)(uintptr_t)2};
static const fmi2CallbackFunctions* callbacks2 = &callbacks2ptr;

/* uri turns a path into a percent-encoded file:// URI (FMI 2.0). */
static void uri(const char* path, char* out, size_t n) {
    size_t j = snprintf(out, n, "file://");
    for (const unsigned char* p = (const unsigned char*)path; *p && j + 4 < n; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
            out[j++] = *p;
        else
            j += snprintf(out + j, n - j, "%%%02X", *p);
    }
    out[j] = 0;
}

#define CHECK(call) do { int s_ = (int)(call); if (s_ != 0) die("%s returned %d: %s", #call, s_, lastlog); } while (0)

static fmi3Instance inst3(fmu_t* f, const char* name) {
    fmi3Instance c = f->fmi3InstantiateCoSimulation(name, f->token, f->res, fmi3False, fmi3False, fmi3False,
                                                    fmi3False, NULL, 0, envExpect, logmsg, NULL);
    if (!c) die("fmi3InstantiateCoSimulation failed: %s", lastlog);
    return c;
}

static fmi3Instance start3(fmu_t* f, const char* name) {
    fmi3Instance c = inst3(f, name);
    CHECK(f->fmi3EnterInitializationMode(c, fmi3False, 0, 0, fmi3False, 0));
    CHECK(f->fmi3ExitInitializationMode(c));
    return c;
}

static fmi2Component start2(fmu_t* f, const char* name) {
    char res[4300], loc[13000];
    snprintf(res, sizeof res, "%s/resources", f->dir);
    uri(res, loc, sizeof loc);
    fmi2Component c = f->fmi2Instantiate(name, fmi2CoSimulation, f->token, loc, callbacks2, fmi2False, fmi2False);
    if (!c) die("fmi2Instantiate failed: %s", lastlog);
    CHECK(f->fmi2SetupExperiment(c, fmi2False, 0, 0, fmi2False, 0));
    CHECK(f->fmi2EnterInitializationMode(c));
    CHECK(f->fmi2ExitInitializationMode(c));
    return c;
}

/* ---- the model's value references -------------------------------------- */

#define MAXV 128
typedef struct {
    fmi3ValueReference tau, time;
    size_t ny, na, nm;
    fmi3ValueReference y[MAXV], a[16], m[MAXV];
    size_t an[16];
    fmi3ValueReference rec[MAXV]; /* the record: Y, A, time */
    size_t nrec, nrecv, nmv;      /* value references and values of the record, values of M */
} spec_t;

static size_t nvalues(const spec_t* s, const fmi3ValueReference* vr, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t e = 1;
        for (size_t j = 0; j < s->na; j++)
            if (vr[i] == s->a[j]) e = s->an[j];
        k += e;
    }
    return k;
}

static unsigned long arg(int* i, int argc, char** argv) {
    if (*i >= argc) die("SPEC: too few arguments");
    return strtoul(argv[(*i)++], NULL, 10);
}

/* parse_spec reads a SPEC at argv[*i] and advances *i past it. */
static void parse_spec(spec_t* s, int* i, int argc, char** argv) {
    memset(s, 0, sizeof *s);
    s->tau = (fmi3ValueReference)arg(i, argc, argv);
    s->time = (fmi3ValueReference)arg(i, argc, argv);
    s->ny = arg(i, argc, argv);
    if (s->ny < 1 || s->ny > 64) die("SPEC: NY");
    for (size_t k = 0; k < s->ny; k++) s->y[k] = (fmi3ValueReference)arg(i, argc, argv);
    s->na = arg(i, argc, argv);
    if (s->na < 1 || s->na > 16) die("SPEC: NA");
    for (size_t k = 0; k < s->na; k++) {
        s->a[k] = (fmi3ValueReference)arg(i, argc, argv);
        s->an[k] = arg(i, argc, argv);
    }
    s->nm = arg(i, argc, argv);
    if (s->nm > MAXV) die("SPEC: NM");
    for (size_t k = 0; k < s->nm; k++) s->m[k] = (fmi3ValueReference)arg(i, argc, argv);
    for (size_t k = 0; k < s->ny; k++) s->rec[s->nrec++] = s->y[k];
    for (size_t k = 0; k < s->na; k++) s->rec[s->nrec++] = s->a[k];
    s->rec[s->nrec++] = s->time;
    s->nrecv = nvalues(s, s->rec, s->nrec);
    s->nmv = nvalues(s, s->m, s->nm);
    if (s->nrecv > 4 * MAXV || s->nmv > 4 * MAXV) die("SPEC: too many values");
}

static void spec_end(int i, int argc) {
    if (i != argc) die("extra arguments after SPEC");
}

static void print_row(const char* tag, int k, const double* v, size_t n) {
    printf("%s %d", tag, k);
    for (size_t i = 0; i < n; i++) printf(" %a", v[i]);
    printf("\n");
}

/* ---- stepping --------------------------------------------------------- */

/* utau is the input during step k (the same expression in both runs). */
static double utau(int k) { return 0.01 * sin((double)k * 0.01); }

/* step3 sets tau for step k and steps from (k−1)·H, expecting fmi3OK and
 * FMI 3.0's results of a normal step. */
static void step3(fmu_t* f, fmi3Instance c, const spec_t* s, int k) {
    double u = utau(k);
    fmi3Boolean ev = fmi3True, term = fmi3True, early = fmi3True;
    double last = -1;
    CHECK(f->fmi3SetFloat64(c, &s->tau, 1, &u, 1));
    CHECK(f->fmi3DoStep(c, (double)(k - 1) * H, H, fmi3True, &ev, &term, &early, &last));
    if (ev || term || early || last != (double)(k - 1) * H + H)
        die("fmi3DoStep of step %d: eventHandlingNeeded %d terminateSimulation %d earlyReturn %d lastSuccessfulTime %a",
            k, ev, term, early, last);
}

static void record(fmu_t* f, fmi3Instance c, const spec_t* s, double* v) {
    CHECK(f->fmi3GetFloat64(c, s->rec, s->nrec, v, s->nrecv));
}

static void run3(fmu_t* f, const spec_t* s, int n) {
    fmi3Instance c = start3(f, "run");
    double y[MAXV], r[4 * MAXV], m[4 * MAXV];
    for (int k = 0; k <= n; k++) {
        if (k > 0) step3(f, c, s, k);
        CHECK(f->fmi3GetFloat64(c, s->y, s->ny, y, s->ny));
        print_row("Y3", k, y, s->ny);
        record(f, c, s, r);
        print_row("R3", k, r, s->nrecv);
        CHECK(f->fmi3GetFloat64(c, s->m, s->nm, m, s->nmv));
        print_row("M3", k, m, s->nmv);
    }
    CHECK(f->fmi3Terminate(c));
    f->fmi3FreeInstance(c);
}

static void run2(fmu_t* f, const spec_t* s, int n) {
    fmi2Component c = start2(f, "run2");
    const fmi2ValueReference vt = s->tau;
    fmi2ValueReference vy[MAXV];
    double y[MAXV];
    for (size_t i = 0; i < s->ny; i++) vy[i] = s->y[i];
    for (int k = 0; k <= n; k++) {
        if (k > 0) {
            double u = utau(k);
            CHECK(f->fmi2SetReal(c, &vt, 1, &u));
            CHECK(f->fmi2DoStep(c, (double)(k - 1) * H, H, fmi2True));
        }
        CHECK(f->fmi2GetReal(c, vy, s->ny, y));
        print_row("Y2", k, y, s->ny);
    }
    CHECK(f->fmi2Terminate(c));
    f->fmi2FreeInstance(c);
}

/* ---- FMU state -------------------------------------------------------- */

static void state(fmu_t* f, const spec_t* s) {
    enum { N1 = 300, N2 = 300 };
    double r[4 * MAXV];
    fmi3Instance a = start3(f, "state");
    for (int k = 1; k <= N1; k++) step3(f, a, s, k);
    record(f, a, s, r);
    print_row("S0", N1, r, s->nrecv);
    fmi3FMUState st = NULL;
    size_t size = 0;
    CHECK(f->fmi3GetFMUState(a, &st));
    CHECK(f->fmi3SerializedFMUStateSize(a, st, &size));
    unsigned char* blob = malloc(size);
    CHECK(f->fmi3SerializeFMUState(a, st, blob, size));
    CHECK(f->fmi3FreeFMUState(a, &st));
    if (st != NULL) die("fmi3FreeFMUState left the pointer set");
    printf("SIZE %zu\n", size);
    for (int k = N1 + 1; k <= N1 + N2; k++) {
        step3(f, a, s, k);
        record(f, a, s, r);
        print_row("S1", k, r, s->nrecv);
    }
    /* back to step N1 from the serialised bytes only */
    fmi3FMUState d = NULL;
    CHECK(f->fmi3DeserializeFMUState(a, blob, size, &d));
    CHECK(f->fmi3SetFMUState(a, d));
    record(f, a, s, r);
    print_row("S2", N1, r, s->nrecv);
    for (int k = N1 + 1; k <= N1 + N2; k++) {
        step3(f, a, s, k);
        record(f, a, s, r);
        print_row("S2", k, r, s->nrecv);
    }
    /* and in another instance */
    fmi3Instance b = start3(f, "state2");
    fmi3FMUState d2 = NULL;
    CHECK(f->fmi3DeserializeFMUState(b, blob, size, &d2));
    CHECK(f->fmi3SetFMUState(b, d2));
    record(f, b, s, r);
    print_row("S3", N1, r, s->nrecv);
    for (int k = N1 + 1; k <= N1 + N2; k++) {
        step3(f, b, s, k);
        record(f, b, s, r);
        print_row("S3", k, r, s->nrecv);
    }
    CHECK(f->fmi3FreeFMUState(a, &d));
    f->fmi3FreeInstance(a);
    f->fmi3FreeInstance(b); /* frees d2 with it */
    free(blob);
}

/* ---- derivatives ------------------------------------------------------ */

/* rnd is a small deterministic generator of values in [−1, 1). */
static double rnd(void) {
    static uint64_t x = 0x9e3779b97f4a7c15u;
    x = x * 6364136223846793005u + 1442695040888963407u;
    return (double)(x >> 11) / 9007199254740992.0 * 2 - 1;
}

static void derivs(fmu_t* f, int n, const spec_t* s, int argc, char** argv) {
    int i = 0;
    size_t nu = arg(&i, argc, argv);
    fmi3ValueReference vu[MAXV], vk[MAXV];
    if (nu < 1 || nu > MAXV) die("derivs: NU");
    for (size_t k = 0; k < nu; k++) vu[k] = (fmi3ValueReference)arg(&i, argc, argv);
    size_t nk = arg(&i, argc, argv);
    if (nk < 1 || nk > MAXV) die("derivs: NK");
    for (size_t k = 0; k < nk; k++) vk[k] = (fmi3ValueReference)arg(&i, argc, argv);
    if (i != argc) die("derivs: extra arguments");
    size_t nuv = nvalues(s, vu, nu);

    fmi3Instance c = start3(f, "derivs");
    for (int k = 1; k <= n; k++) step3(f, c, s, k);
    /* tau is held from here on */
    double r0[4 * MAXV], r1[4 * MAXV], r2[4 * MAXV], d[4 * MAXV];
    fmi3Int32 ones[MAXV];
    for (size_t k = 0; k < MAXV; k++) ones[k] = 1;
    record(f, c, s, r0);
    print_row("F0", n, r0, s->nrecv);
    CHECK(f->fmi3GetOutputDerivatives(c, s->y, s->ny, ones, d, s->ny));
    print_row("DS", n, d, s->ny);
    CHECK(f->fmi3GetOutputDerivatives(c, s->a, s->na, ones, d, nvalues(s, s->a, s->na)));
    print_row("DA", n, d, nvalues(s, s->a, s->na));
    {
        /* arrays and scalars in one call: A0 Y0 A1 Y1 ... */
        fmi3ValueReference mix[32];
        size_t nmix = 0;
        for (size_t k = 0; k < s->na; k++) {
            mix[nmix++] = s->a[k];
            mix[nmix++] = s->y[k % s->ny];
        }
        CHECK(f->fmi3GetOutputDerivatives(c, mix, nmix, ones, d, nvalues(s, mix, nmix)));
        print_row("DM", n, d, nvalues(s, mix, nmix));
    }
    /* the motion over two short steps, then back */
    {
        const double dt = 1e-5, t = (double)n * H;
        fmi3FMUState st = NULL;
        fmi3Boolean ev, term, early;
        double last;
        CHECK(f->fmi3GetFMUState(c, &st));
        CHECK(f->fmi3DoStep(c, t, dt, fmi3False, &ev, &term, &early, &last));
        record(f, c, s, r1);
        CHECK(f->fmi3DoStep(c, t + dt, dt, fmi3False, &ev, &term, &early, &last));
        record(f, c, s, r2);
        CHECK(f->fmi3SetFMUState(c, st));
        CHECK(f->fmi3FreeFMUState(c, &st));
        printf("DT %d %a\n", n, dt);
        print_row("F1", n, r1, s->nrecv);
        print_row("F2", n, r2, s->nrecv);
        record(f, c, s, r1);
        print_row("FB", n, r1, s->nrecv); /* after restoring: F0 again */
    }
    /* directional and adjoint derivatives: three random pairs v, w */
    for (int p = 0; p < 3; p++) {
        double v[MAXV], w[4 * MAXV], jv[4 * MAXV], jtw[MAXV];
        for (size_t k = 0; k < nk; k++) v[k] = rnd();
        for (size_t k = 0; k < nuv; k++) w[k] = rnd();
        CHECK(f->fmi3GetDirectionalDerivative(c, vu, nu, vk, nk, v, nk, jv, nuv));
        CHECK(f->fmi3GetAdjointDerivative(c, vu, nu, vk, nk, w, nuv, jtw, nk));
        print_row("V", p, v, nk);
        print_row("W", p, w, nuv);
        print_row("JV", p, jv, nuv);
        print_row("JTW", p, jtw, nk);
    }
    /* the same unknowns one known at a time: column j of J and, from the
     * adjoint, row i of J agree element by element */
    {
        double e[MAXV], col[4 * MAXV], row[MAXV], one = 1;
        size_t j = nk - 1, ii = 0; /* the last known (the input), the first unknown element */
        memset(e, 0, sizeof e);
        e[j] = 1;
        CHECK(f->fmi3GetDirectionalDerivative(c, vu, nu, vk, nk, e, nk, col, nuv));
        double wi[4 * MAXV];
        memset(wi, 0, sizeof wi);
        wi[ii] = one;
        CHECK(f->fmi3GetAdjointDerivative(c, vu, nu, vk, nk, wi, nuv, row, nk));
        printf("JIJ %a %a\n", col[ii], row[j]);
    }
    f->fmi3FreeInstance(c);
}

/* ---- checks ----------------------------------------------------------- */

static int npass, nfail;

static void expect(int ok, const char* what) {
    if (ok) {
        npass++;
        printf("ok   %s\n", what);
    } else {
        nfail++;
        printf("FAIL %s (last log: %s)\n", what, lastlog);
    }
}

static void expect_status(int got, int want, const char* what) {
    char buf[600];
    snprintf(buf, sizeof buf, "%s -> %d (want %d)", what, got, want);
    expect(got == want, buf);
}

/* ERR: the call returns fmi3Error and logs an error through logMessage. */
#define ERR(call) do { int e0_ = nlog[fmi3Error]; int s_ = (int)(call); \
    expect_status(s_, fmi3Error, #call); expect(nlog[fmi3Error] > e0_, "  logged: " #call); } while (0)
#define OK(call) expect_status((int)(call), fmi3OK, #call)
/* NULLI: an instantiation that must fail, with a logged error. */
#define NULLI(call) do { int e0_ = nlog[fmi3Error]; fmi3Instance i_ = (call); \
    expect(i_ == NULL, "NULL from " #call); expect(nlog[fmi3Error] > e0_, "  logged: " #call); \
    if (i_) f->fmi3FreeInstance(i_); } while (0)
/* BAD: a call on an invalid instance returns fmi3Error (reported on stderr). */
#define BAD(call) expect_status((int)(call), fmi3Error, #call)

/* The intermediate-update callback of the checks: inside fmi3DoStep, with
 * the instance's lock released, it reads time (a deadlock otherwise), and
 * tries what is not allowed there: fmi3DoStep, fmi3FreeInstance and an FMI
 * 2.0 call. iuBad counts what went wrong; at call iuEarlyAt it asks for an
 * early return. */
static fmu_t* iuF;
static fmi3Instance iuC;
static fmi3ValueReference iuTime;
static int iuN, iuBad, iuEarlyAt, iuCanEarly;
static double iuT[16];

static void iu(fmi3InstanceEnvironment env, fmi3Float64 t, fmi3Boolean setRequested, fmi3Boolean getAllowed,
               fmi3Boolean stepFinished, fmi3Boolean canReturnEarly, fmi3Boolean* earlyReturnRequested,
               fmi3Float64* earlyReturnTime) {
    fmi3Boolean ev, term, early;
    double v = -1, last;
    if (iuN < 16) iuT[iuN] = t;
    iuN++;
    if (env != envExpect || !getAllowed || !setRequested || !stepFinished || canReturnEarly != iuCanEarly) iuBad++;
    if (iuF->fmi3GetFloat64(iuC, &iuTime, 1, &v, 1) != fmi3OK || v != t) iuBad++;
    if (iuF->fmi3DoStep(iuC, t, H, fmi3False, &ev, &term, &early, &last) != fmi3Error) iuBad++;
    iuF->fmi3FreeInstance(iuC); /* refused inside fmi3DoStep */
    if (iuF->fmi2DoStep((fmi2Component)iuC, t, H, fmi2False) != fmi2Error) iuBad++;
    *earlyReturnRequested = iuN == iuEarlyAt;
    *earlyReturnTime = t;
}

static void checks(fmu_t* f, const spec_t* s) {
    const fmi3ValueReference vt = s->tau, vtime = s->time, vy = s->y[0], va = s->a[0], vbad = 99999;
    const size_t na = s->an[0];
    const fmi3Int32 one = 1, two = 2;
    fmi3Boolean ev, term, early, b;
    double v = 0, last, vals[64];
    size_t n = 0;

    expect(strcmp(f->fmi3GetVersion(), "3.0") == 0, "fmi3GetVersion is \"3.0\"");

    /* Instantiation: what the FMU does not offer, and bad arguments. */
    NULLI(f->fmi3InstantiateModelExchange("x", f->token, f->res, 0, 0, envExpect, logmsg));
    NULLI(f->fmi3InstantiateScheduledExecution("x", f->token, f->res, 0, 0, envExpect, logmsg, NULL, NULL, NULL));
    NULLI(f->fmi3InstantiateCoSimulation("x", f->token, f->res, 0, 0, fmi3True, 0, NULL, 0, envExpect, logmsg, NULL));
    expect(strstr(lastlog, "eventModeUsed") != NULL, "  eventModeUsed named in the message");
    NULLI(f->fmi3InstantiateCoSimulation("x", "{wrong}", f->res, 0, 0, 0, 0, NULL, 0, envExpect, logmsg, NULL));
    NULLI(f->fmi3InstantiateCoSimulation("x", f->token, "/nonexistent/resources/", 0, 0, 0, 0, NULL, 0, envExpect, logmsg, NULL));
    {
        fmi3Instance c = f->fmi3InstantiateCoSimulation("x", f->token, f->res, 0, 0, 0, fmi3True, NULL, 0, envExpect, logmsg, NULL);
        expect(c != NULL, "earlyReturnAllowed = true accepted");
        f->fmi3FreeInstance(c);
        c = f->fmi3InstantiateCoSimulation(NULL, f->token, f->res, 0, 1, 0, 0, NULL, 0, NULL, NULL, NULL);
        expect(c != NULL, "NULL instance name and logMessage tolerated");
        if (c) {
            expect_status(f->fmi3DoStep(c, 0, H, 0, &ev, &term, &early, &last), fmi3Error, "  fmi3DoStep before init without a logger");
            f->fmi3FreeInstance(c);
        }
    }

    /* Wrong-state calls: each returns fmi3Error, logs, and changes nothing. */
    fmi3Instance c = inst3(f, "states");
    ERR(f->fmi3DoStep(c, 0, H, 0, &ev, &term, &early, &last));
    ERR(f->fmi3ExitInitializationMode(c));
    ERR(f->fmi3Terminate(c));
    ERR(f->fmi3EnterEventMode(c));
    ERR(f->fmi3EnterStepMode(c));
    v = 0.3;
    OK(f->fmi3SetFloat64(c, &vt, 1, &v, 1)); /* an input before initialisation */
    ERR(f->fmi3SetFloat64(c, &vtime, 1, &v, 1));
    OK(f->fmi3EnterInitializationMode(c, fmi3False, 0, 0, fmi3False, 0));
    ERR(f->fmi3EnterInitializationMode(c, fmi3False, 0, 0, fmi3False, 0));
    ERR(f->fmi3DoStep(c, 0, H, 0, &ev, &term, &early, &last));
    OK(f->fmi3GetFloat64(c, &vy, 1, &v, 1));
    OK(f->fmi3GetFloat64(c, &va, 1, vals, na));
    OK(f->fmi3ExitInitializationMode(c));
    OK(f->fmi3GetFloat64(c, &vtime, 1, &v, 1));
    expect(v == 0, "  time is the start time 0 after initialisation");

    /* Step Mode: what cannot be set, what the FMU does not have. */
    v = 1;
    ERR(f->fmi3SetFloat64(c, &vy, 1, &v, 1));          /* an output */
    ERR(f->fmi3SetFloat64(c, &vtime, 1, &v, 1));       /* time */
    ERR(f->fmi3SetFloat64(c, &va, 1, vals, na));       /* an array output */
    ERR(f->fmi3SetFloat64(c, &vbad, 1, &v, 1));        /* no such variable */
    ERR(f->fmi3GetFloat64(c, &vbad, 1, &v, 1));
    v = NAN;
    ERR(f->fmi3SetFloat64(c, &vt, 1, &v, 1));
    OK(f->fmi3GetFloat64(c, &vt, 1, &v, 1));
    expect(v == 0.3, "  the rejected sets left tau at 0.3");
    ERR(f->fmi3EnterEventMode(c));
    ERR(f->fmi3EnterStepMode(c));
    ERR(f->fmi3EnterConfigurationMode(c));
    ERR(f->fmi3ExitConfigurationMode(c));
    ERR(f->fmi3EvaluateDiscreteStates(c));
    {
        fmi3Boolean a1, a2, a3, a4, a5;
        double t;
        ERR(f->fmi3UpdateDiscreteStates(c, &a1, &a2, &a3, &a4, &a5, &t));
    }
    {
        fmi3Clock ck = false;
        fmi3Int32 i32 = 0;
        fmi3UInt64 u64 = 0;
        fmi3Int8 i8 = 0;
        fmi3Float32 f32 = 0;
        fmi3String str = NULL;
        fmi3Binary bin = NULL;
        size_t bsize = 0;
        fmi3IntervalQualifier q;
        fmi3UInt64 cnt, resl;
        ERR(f->fmi3GetClock(c, &vy, 1, &ck));
        ERR(f->fmi3SetClock(c, &vy, 1, &ck));
        OK(f->fmi3GetClock(c, NULL, 0, NULL));
        ERR(f->fmi3GetInt32(c, &vy, 1, &i32, 1));
        ERR(f->fmi3SetInt32(c, &vt, 1, &i32, 1));
        OK(f->fmi3GetInt32(c, NULL, 0, NULL, 0));
        ERR(f->fmi3GetUInt64(c, &vy, 1, &u64, 1));
        ERR(f->fmi3GetInt8(c, &vy, 1, &i8, 1));
        ERR(f->fmi3GetFloat32(c, &vy, 1, &f32, 1));
        ERR(f->fmi3SetFloat32(c, &vt, 1, &f32, 1));
        ERR(f->fmi3GetBoolean(c, &vy, 1, &b, 1));
        ERR(f->fmi3GetString(c, &vy, 1, &str, 1));
        ERR(f->fmi3GetBinary(c, &vy, 1, &bsize, &bin, 1));
        ERR(f->fmi3GetIntervalDecimal(c, &vy, 1, &v, &q));
        ERR(f->fmi3GetIntervalFraction(c, &vy, 1, &cnt, &resl, &q));
        ERR(f->fmi3GetShiftDecimal(c, &vy, 1, &v));
        ERR(f->fmi3SetIntervalDecimal(c, &vy, 1, &v));
        ERR(f->fmi3SetShiftFraction(c, &vy, 1, &cnt, &resl));
        ERR(f->fmi3ActivateModelPartition(c, vy, 0));
        ERR(f->fmi3GetNumberOfVariableDependencies(c, vy, &n));
    }
    /* Model Exchange calls on a co-simulation instance */
    ERR(f->fmi3EnterContinuousTimeMode(c));
    ERR(f->fmi3SetTime(c, 0));
    ERR(f->fmi3GetNumberOfContinuousStates(c, &n));
    ERR(f->fmi3GetContinuousStates(c, vals, 1));
    ERR(f->fmi3GetContinuousStateDerivatives(c, vals, 1));
    ERR(f->fmi3CompletedIntegratorStep(c, fmi3True, &ev, &term));
    ERR(f->fmi3GetNumberOfEventIndicators(c, &n));
    OK(f->fmi3DoStep(c, 0, H, fmi3False, &ev, &term, &early, &last));
    expect(!ev && !term && !early && last == H, "  a normal step: no event, no termination, no early return, lastSuccessfulTime = H");

    /* nValues that does not match the value references: nothing written. */
    {
        for (int i = 0; i < 64; i++) vals[i] = 12345;
        ERR(f->fmi3GetFloat64(c, &va, 1, vals, na - 1));
        ERR(f->fmi3GetFloat64(c, &va, 1, vals, na + 1));
        ERR(f->fmi3GetFloat64(c, s->m, s->nm, vals, s->nmv - 1));
        ERR(f->fmi3GetFloat64(c, s->m, s->nm, vals, s->nmv + 1));
        ERR(f->fmi3GetFloat64(c, &vy, 1, vals, 0));
        int untouched = 1;
        for (int i = 0; i < 64; i++) untouched = untouched && vals[i] == 12345;
        expect(untouched, "  the rejected fmi3GetFloat64 calls wrote no value");
        OK(f->fmi3GetFloat64(c, &va, 1, vals, na));
        expect(vals[na] == 12345 && vals[0] != 12345, "  fmi3GetFloat64 of the array wrote exactly its elements");
        double two_v[2] = {0.7, 0.7};
        ERR(f->fmi3SetFloat64(c, &vt, 1, two_v, 2));
        ERR(f->fmi3SetFloat64(c, &vt, 1, two_v, 0));
        OK(f->fmi3GetFloat64(c, &vt, 1, &v, 1));
        expect(v == 0.3, "  the rejected fmi3SetFloat64 calls left tau at 0.3");
        for (int i = 0; i < 64; i++) vals[i] = 12345;
        ERR(f->fmi3GetOutputDerivatives(c, &va, 1, &one, vals, na - 1));
        ERR(f->fmi3GetOutputDerivatives(c, &vt, 1, &one, vals, 1)); /* an input */
        ERR(f->fmi3GetOutputDerivatives(c, &vy, 1, &two, vals, 1)); /* order 2 */
        ERR(f->fmi3GetOutputDerivatives(c, &vtime, 1, &one, vals, 1));
        v = 1;
        ERR(f->fmi3GetDirectionalDerivative(c, &vy, 1, &vt, 1, &v, 2, vals, 1));
        ERR(f->fmi3GetDirectionalDerivative(c, &va, 1, &vt, 1, &v, 1, vals, na - 1));
        ERR(f->fmi3GetAdjointDerivative(c, &vy, 1, &vt, 1, &v, 1, vals, 2));
        ERR(f->fmi3GetAdjointDerivative(c, &va, 1, &vt, 1, vals + 10, na + 1, vals, 1));
        ERR(f->fmi3GetDirectionalDerivative(c, &vt, 1, &vy, 1, &v, 1, vals, 1)); /* an input unknown, an output known */
        untouched = 1;
        for (int i = 0; i < 10; i++) untouched = untouched && vals[i] == 12345;
        expect(untouched, "  the rejected derivative calls wrote no value");
    }

    /* NULL pointers. */
    ERR(f->fmi3GetFloat64(c, NULL, 1, &v, 1));
    ERR(f->fmi3GetFloat64(c, &vy, 1, NULL, 1));
    ERR(f->fmi3SetFloat64(c, &vt, 1, NULL, 1));
    ERR(f->fmi3DoStep(c, H, H, 0, NULL, &term, &early, &last));
    ERR(f->fmi3DoStep(c, H, H, 0, &ev, &term, &early, NULL));
    ERR(f->fmi3GetFMUState(c, NULL));
    ERR(f->fmi3SetFMUState(c, NULL));
    ERR(f->fmi3SerializedFMUStateSize(c, NULL, &n));
    ERR(f->fmi3DeserializeFMUState(c, NULL, 10, NULL));
    ERR(f->fmi3GetOutputDerivatives(c, &vy, 1, NULL, vals, 1));
    ERR(f->fmi3SetDebugLogging(c, fmi3True, 1, NULL));
    OK(f->fmi3GetFloat64(c, NULL, 0, NULL, 0));
    {
        fmi3String bogus[] = {"logBogus"}, cats[] = {"logEvents"};
        ERR(f->fmi3SetDebugLogging(c, fmi3True, 1, bogus));
        OK(f->fmi3SetDebugLogging(c, fmi3True, 1, cats));
        OK(f->fmi3SetDebugLogging(c, fmi3False, 1, cats));
    }

    /* Communication points. */
    ERR(f->fmi3DoStep(c, 0.5, H, 0, &ev, &term, &early, &last));
    ERR(f->fmi3DoStep(c, H, 0, 0, &ev, &term, &early, &last));
    ERR(f->fmi3DoStep(c, H, -H, 0, &ev, &term, &early, &last));
    OK(f->fmi3DoStep(c, H, H, 0, &ev, &term, &early, &last)); /* still usable after all of the above */
    OK(f->fmi3GetFloat64(c, &vtime, 1, &v, 1));
    expect(v == H + H, "  time is the communication point 2H");

    /* FMU state misuse. */
    {
        fmi3FMUState st = NULL;
        size_t size = 0;
        OK(f->fmi3GetFMUState(c, &st));
        OK(f->fmi3SerializedFMUStateSize(c, st, &size));
        expect(size > 100, "  serialised size is plausible");
        unsigned char* blob = malloc(size);
        ERR(f->fmi3SerializeFMUState(c, st, blob, size - 1));
        OK(f->fmi3SerializeFMUState(c, st, blob, size));
        fmi3FMUState d = NULL;
        ERR(f->fmi3DeserializeFMUState(c, blob, size / 2, &d));
        blob[0] ^= 1;
        ERR(f->fmi3DeserializeFMUState(c, blob, size, &d));
        blob[0] ^= 1;
        expect(d == NULL, "  failed deserialisations made no state");
        ERR(f->fmi3SetFMUState(c, (fmi3FMUState)blob)); /* not a state */
        OK(f->fmi3FreeFMUState(c, &st));
        expect(st == NULL, "  fmi3FreeFMUState sets the pointer to NULL");
        OK(f->fmi3FreeFMUState(c, &st));
        free(blob);
    }

    /* Invalid instances: no logMessage to use, so stderr (counted by the
     * Go side). */
    BAD(f->fmi3DoStep(NULL, 0, H, 0, &ev, &term, &early, &last));
    BAD(f->fmi3GetFloat64(NULL, &vy, 1, &v, 1));
    BAD(f->fmi3EnterInitializationMode(NULL, 0, 0, 0, 0, 0));
    {
        uint64_t junk[8] = {0};
        BAD(f->fmi3DoStep((fmi3Instance)junk, 0, H, 0, &ev, &term, &early, &last));
    }
    f->fmi3FreeInstance(NULL);
    expect(1, "fmi3FreeInstance(NULL) did not crash");

    /* An FMI 2.0 instance of the same library in the FMI 3.0 calls ... */
    {
        fmi2Component c2 = start2(f, "fmi2");
        const fmi2ValueReference vy2 = vy;
        BAD(f->fmi3DoStep((fmi3Instance)c2, 0, H, 0, &ev, &term, &early, &last));
        BAD(f->fmi3GetFloat64((fmi3Instance)c2, &vy, 1, &v, 1));
        BAD(f->fmi3SetFloat64((fmi3Instance)c2, &vt, 1, &v, 1));
        BAD(f->fmi3Reset((fmi3Instance)c2));
        f->fmi3FreeInstance((fmi3Instance)c2);
        expect_status(f->fmi2DoStep(c2, 0, H, fmi2True), fmi2OK, "  the FMI 2.0 instance is unharmed (fmi2DoStep)");
        expect_status(f->fmi2GetReal(c2, &vy2, 1, &v), fmi2OK, "  and not freed by fmi3FreeInstance");
        f->fmi2FreeInstance(c2);
    }
    /* ... and an FMI 3.0 instance in the FMI 2.0 calls. */
    {
        const fmi2ValueReference vy2 = vy, vt2 = vt;
        fmi2FMUstate s2 = NULL;
        expect_status(f->fmi2DoStep((fmi2Component)c, 2 * H, H, fmi2True), fmi2Error, "fmi2DoStep(FMI 3.0 instance)");
        expect_status(f->fmi2GetReal((fmi2Component)c, &vy2, 1, &v), fmi2Error, "fmi2GetReal(FMI 3.0 instance)");
        expect_status(f->fmi2SetReal((fmi2Component)c, &vt2, 1, &v), fmi2Error, "fmi2SetReal(FMI 3.0 instance)");
        expect_status(f->fmi2GetFMUstate((fmi2Component)c, &s2), fmi2Error, "fmi2GetFMUstate(FMI 3.0 instance)");
        expect_status(f->fmi2Terminate((fmi2Component)c), fmi2Error, "fmi2Terminate(FMI 3.0 instance)");
        f->fmi2FreeInstance((fmi2Component)c);
        OK(f->fmi3GetFloat64(c, &vtime, 1, &v, 1));
        expect(v == H + H, "  the FMI 3.0 instance is unharmed (still at 2H, not freed by fmi2FreeInstance)");
        OK(f->fmi3DoStep(c, 2 * H, H, fmi3True, &ev, &term, &early, &last));
    }

    /* Intermediate update through the C ABI: a 5 ms step calls back at the
     * internal steps 1..4 ms; with earlyReturnAllowed, an early return
     * asked at the second ends the step at 2 ms. */
    iuF = f;
    iuTime = vtime;
    for (int pass = 0; pass < 2; pass++) {
        iuN = iuBad = 0;
        iuEarlyAt = pass ? 2 : 0;
        iuCanEarly = pass;
        iuC = f->fmi3InstantiateCoSimulation("iu", f->token, f->res, 0, 0, 0, pass ? fmi3True : fmi3False, NULL, 0,
                                             envExpect, logmsg, iu);
        expect(iuC != NULL, pass ? "instantiate with intermediateUpdate, earlyReturnAllowed" : "instantiate with intermediateUpdate");
        if (!iuC) continue;
        OK(f->fmi3EnterInitializationMode(iuC, fmi3False, 0, 0, fmi3False, 0));
        OK(f->fmi3ExitInitializationMode(iuC));
        early = fmi3True;
        OK(f->fmi3DoStep(iuC, 0, 5 * H, fmi3False, &ev, &term, &early, &last));
        int times = 1;
        for (int k = 0; k < iuN && k < 16; k++) times = times && fabs(iuT[k] - (k + 1) * H) < 1e-12;
        if (pass == 0) {
            expect(iuN == 4 && times, "  intermediateUpdate called at 1, 2, 3, 4 ms");
            expect(!early && last == 5 * H, "  no early return: the step ends at 5 ms");
        } else {
            expect(iuN == 2 && times, "  intermediateUpdate called at 1, 2 ms");
            expect(early && fabs(last - 2 * H) < 1e-12, "  earlyReturn, lastSuccessfulTime 2 ms");
            OK(f->fmi3GetFloat64(iuC, &vtime, 1, &v, 1));
            expect(fabs(v - 2 * H) < 1e-12, "  time is 2 ms");
            OK(f->fmi3DoStep(iuC, last, H, fmi3False, &ev, &term, &early, &last));
        }
        expect(iuBad == 0, "  inside the callback: time read, fmi3DoStep and fmi2DoStep refused, fmi3FreeInstance not done");
        f->fmi3FreeInstance(iuC);
    }

    /* Terminate, then only getters, Reset and Free. */
    OK(f->fmi3Terminate(c));
    ERR(f->fmi3Terminate(c));
    ERR(f->fmi3DoStep(c, 3 * H, H, 0, &ev, &term, &early, &last));
    ERR(f->fmi3SetFloat64(c, &vt, 1, &v, 1));
    OK(f->fmi3GetFloat64(c, &vy, 1, &v, 1));
    OK(f->fmi3GetFloat64(c, &va, 1, vals, na));
    OK(f->fmi3Reset(c));
    OK(f->fmi3EnterInitializationMode(c, fmi3False, 0, 0, fmi3False, 0));
    OK(f->fmi3ExitInitializationMode(c));
    OK(f->fmi3GetFloat64(c, &vt, 1, &v, 1));
    expect(v == 0, "  fmi3Reset restored tau's start value 0");
    OK(f->fmi3DoStep(c, 0, H, 0, &ev, &term, &early, &last));
    f->fmi3FreeInstance(c);
    BAD(f->fmi3DoStep(c, H, H, 0, &ev, &term, &early, &last)); /* freed */
    f->fmi3FreeInstance(c);
    expect(1, "fmi3FreeInstance twice did not crash");
    expect(envWrong == 0, "logMessage always received the instanceEnvironment given");
}

/* ---- a non-finite output ----------------------------------------------- */

static void nan_step(fmu_t* f, fmi3ValueReference vtime) {
    fmi3Instance z = start3(f, "nan");
    fmi3Status st = fmi3OK;
    fmi3Boolean ev = 0, term = 0, early = 0;
    double last = -1, t = -1;
    int k = 0, d0 = nlog[fmi3Discard];
    for (; k < 100 && st == fmi3OK; k++) st = f->fmi3DoStep(z, (double)k * 0.01, 0.01, fmi3False, &ev, &term, &early, &last);
    printf("NAN steps %d status %d terminate %d event %d early %d last %a\n", k, (int)st, term, ev, early, last);
    printf("NANLOG %d %s\n", nlog[fmi3Discard] - d0, lastlog);
    CHECK(f->fmi3GetFloat64(z, &vtime, 1, &t, 1));
    printf("NANTIME %a\n", t);
    int e0 = nlog[fmi3Error];
    st = f->fmi3DoStep(z, last, 0.01, fmi3False, &ev, &term, &early, &last);
    printf("NANAGAIN %d logged %d\n", (int)st, nlog[fmi3Error] - e0);
    printf("NANTERMINATE %d\n", (int)f->fmi3Terminate(z));
    f->fmi3FreeInstance(z);
}

/* ---- allocation loop -------------------------------------------------- */

/* alloc: fmi3SetFloat64, fmi3DoStep and fmi3GetFloat64 of the M list
 * (arrays among it), 10⁴ iterations after 10³ of warm-up, between the
 * markers (see mark). */
static void alloc_loop(fmu_t* f, const spec_t* s) {
    fmi3Instance c = start3(f, "alloc");
    double m[4 * MAXV];
    for (int k = 1; k <= 11000; k++) {
        if (k == 1001) mark(f, "BEGIN");
        step3(f, c, s, k);
        CHECK(f->fmi3GetFloat64(c, s->m, s->nm, m, s->nmv));
    }
    mark(f, "END");
    f->fmi3FreeInstance(c);
}

/* allociu: fmi3DoStep of 10 internal steps with an intermediate-update
 * callback that reads time and the M list and sets the input at each
 * internal point (9 a step), 2000 steps after 200 of warm-up. */
static fmu_t* aiF;
static fmi3Instance aiC;
static const spec_t* aiS;
static double aiM[4 * MAXV];

static void alloc_iu_cb(fmi3InstanceEnvironment env, fmi3Float64 t, fmi3Boolean setRequested,
                        fmi3Boolean getAllowed, fmi3Boolean stepFinished, fmi3Boolean canReturnEarly,
                        fmi3Boolean* earlyReturnRequested, fmi3Float64* earlyReturnTime) {
    double v, u = 0.01 * sin(t);
    (void)env, (void)setRequested, (void)getAllowed, (void)stepFinished, (void)canReturnEarly;
    *earlyReturnTime = t;
    CHECK(aiF->fmi3GetFloat64(aiC, &aiS->time, 1, &v, 1));
    CHECK(aiF->fmi3GetFloat64(aiC, aiS->m, aiS->nm, aiM, aiS->nmv));
    CHECK(aiF->fmi3SetFloat64(aiC, &aiS->tau, 1, &u, 1));
    *earlyReturnRequested = fmi3False;
}

static void alloc_iu_loop(fmu_t* f, const spec_t* s) {
    aiF = f;
    aiS = s;
    aiC = f->fmi3InstantiateCoSimulation("allociu", f->token, f->res, fmi3False, fmi3False, fmi3False, fmi3True, NULL, 0,
                                          envExpect, logmsg, alloc_iu_cb);
    if (!aiC) die("fmi3InstantiateCoSimulation failed: %s", lastlog);
    CHECK(f->fmi3EnterInitializationMode(aiC, fmi3False, 0, 0, fmi3False, 0));
    CHECK(f->fmi3ExitInitializationMode(aiC));
    for (int k = 1; k <= 2200; k++) {
        fmi3Boolean ev, term, early;
        double last, u = utau(k);
        if (k == 201) mark(f, "BEGIN");
        CHECK(f->fmi3SetFloat64(aiC, &s->tau, 1, &u, 1));
        CHECK(f->fmi3DoStep(aiC, (double)(k - 1) * 10 * H, 10 * H, fmi3True, &ev, &term, &early, &last));
        if (early || term) die("allociu: step %d returned early or asked to terminate", k);
    }
    mark(f, "END");
    f->fmi3FreeInstance(aiC);
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    verbose = getenv("HOST_VERBOSE") != NULL;
    if (argc < 3) die("usage: host3 run|equiv|state|derivs|checks|nan|alloc|allociu DIR ...");
    const char* mode = argv[1];
    if (getenv("HOST_ENV_INT")) {
        envExpect = (void*)(uintptr_t)1;
        callbacks2 = &callbacks2int;
    }
    static fmu_t f3, f2;
    static spec_t s;
    load(&f3, argv[2], 3);
    int i;
    if (!strcmp(mode, "run") && argc > 4) {
        i = 4;
        parse_spec(&s, &i, argc, argv);
        spec_end(i, argc);
        run3(&f3, &s, atoi(argv[3]));
    } else if (!strcmp(mode, "equiv") && argc > 5) {
        load(&f2, argv[3], 2);
        if (f2.fmi2DoStep == f3.fmi2DoStep) die("the two FMUs share one library");
        i = 5;
        parse_spec(&s, &i, argc, argv);
        spec_end(i, argc);
        run3(&f3, &s, atoi(argv[4]));
        run2(&f2, &s, atoi(argv[4]));
    } else if (!strcmp(mode, "state")) {
        i = 3;
        parse_spec(&s, &i, argc, argv);
        spec_end(i, argc);
        state(&f3, &s);
    } else if (!strcmp(mode, "derivs") && argc > 4) {
        i = 4;
        parse_spec(&s, &i, argc, argv);
        derivs(&f3, atoi(argv[3]), &s, argc - i, argv + i);
    } else if (!strcmp(mode, "checks")) {
        i = 3;
        parse_spec(&s, &i, argc, argv);
        spec_end(i, argc);
        checks(&f3, &s);
        printf("%d passed, %d failed\n", npass, nfail);
        return nfail ? 1 : 0;
    } else if (!strcmp(mode, "nan") && argc == 4) {
        nan_step(&f3, (fmi3ValueReference)atol(argv[3]));
    } else if (!strcmp(mode, "alloc")) {
        i = 3;
        parse_spec(&s, &i, argc, argv);
        spec_end(i, argc);
        alloc_loop(&f3, &s);
    } else if (!strcmp(mode, "allociu")) {
        i = 3;
        parse_spec(&s, &i, argc, argv);
        spec_end(i, argc);
        alloc_iu_loop(&f3, &s);
    } else {
        die("bad arguments");
    }
    return 0;
}
