/*
 * host.c — a minimal FMI 2.0 co-simulation importer used by the tests of
 * package cabi (cabi_test.go compiles it with gcc). It dlopens unpacked
 * mbfmu FMUs of the test model fmu/testdata/pendulum.xml and drives them
 * through the C ABI only.
 *
 *   host run     DIR N            normal call sequence, prints the outputs
 *   host threads DIR N            the same in two threads on two instances
 *   host two     DIR1 DIR2 N      two different FMUs in one process
 *   host checks  DIR FOREIGN NAN  wrong states, bad arguments, NULL pointers,
 *                                 FMU state round trip, discard, resource
 *                                 locations, instantiate/free cycles
 *   host alloc   DIR              steady-state loop for the allocation count
 *   host bench   DIR              ns per call through the C ABI
 *   host loop    DIR N H VR_U VR_Y1 G1 [VR_Y2 G2 ...]
 *                                 a feedback loop u = Σ Gk·yk over N steps
 *                                 of H s through the C ABI (any model):
 *                                 each step sets u, calls fmi2DoStep and
 *                                 reads the y; prints the time of the
 *                                 fmi2DoStep calls (median, p99, max) and
 *                                 the last outputs; BEGIN/END markers on
 *                                 stderr around the loop (see mark)
 *   host derivs  DIR N            input derivatives in, output derivatives
 *                                 out (and a difference quotient of the
 *                                 motion at step N/2)
 *   host jac     DIR N H NU (VR_U AMP)... NX VR_X... NY VR_Y... M
 *                                 directional derivatives of any model
 *                                 after N steps w.r.t. states and inputs,
 *                                 central differences w.r.t. the inputs,
 *                                 then M more steps (see jac below)
 *   host replay  DIR N H NU (VR_U AMP)... NY VR_Y...
 *                                 two runs of any model, masters with
 *                                 t += H and with t = k·H: prints whether
 *                                 the outputs agree bit for bit
 *
 * Outputs are printed as hexadecimal floats (%a) so the Go side can compare
 * them bit for bit. Value references of the test model: tau 0 (input),
 * tip_x 1, tip_y 2, omega 3 (outputs), m 4 (fixed), c 5 (tunable).
 */
#define _GNU_SOURCE
#ifdef _WIN32
/* Windows (built with MinGW-w64, run under wine in the tests): the same
 * host loads binaries/win64/ID.dll. */
#include <stdio.h>
#include <windows.h>
#define RTLD_NOW 0
#define RTLD_LOCAL 0
static void* dlopen(const char* path, int flags) { (void)flags; return (void*)LoadLibraryA(path); }
static void* dlsym(void* lib, const char* name) { return (void*)GetProcAddress((HMODULE)lib, name); }
static const char* dlerror(void) {
    static char buf[64];
    snprintf(buf, sizeof buf, "Windows error %lu", (unsigned long)GetLastError());
    return buf;
}
#define BINDIR "win64"
#define LIBEXT ".dll"
#else
#include <dlfcn.h>
#if defined(__aarch64__)
#define BINDIR "aarch64-linux" /* FMI 3.0's name; FMI 2.0 names no aarch64 platform */
#else
#define BINDIR "linux64"
#endif
#define LIBEXT ".so"
#endif
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmi2.h"

enum { VR_TAU = 0, VR_TIPX = 1, VR_TIPY = 2, VR_OMEGA = 3, VR_M = 4, VR_C = 5, VR_BAD = 4 };
#define NOUT 3
#define H 0.01

/* The FMI functions of one loaded FMU. */
typedef struct {
    void* lib;
    char guid[128];
    char dir[4096];
#define F(name) __typeof__(&name) name;
    F(fmi2GetTypesPlatform) F(fmi2GetVersion) F(fmi2SetDebugLogging) F(fmi2Instantiate)
    F(fmi2FreeInstance) F(fmi2SetupExperiment) F(fmi2EnterInitializationMode)
    F(fmi2ExitInitializationMode) F(fmi2Terminate) F(fmi2Reset) F(fmi2GetReal) F(fmi2GetInteger)
    F(fmi2GetBoolean) F(fmi2GetString) F(fmi2SetReal) F(fmi2SetInteger) F(fmi2SetBoolean)
    F(fmi2SetString) F(fmi2GetFMUstate) F(fmi2SetFMUstate) F(fmi2FreeFMUstate)
    F(fmi2SerializedFMUstateSize) F(fmi2SerializeFMUstate) F(fmi2DeSerializeFMUstate)
    F(fmi2GetDirectionalDerivative) F(fmi2SetRealInputDerivatives)
    F(fmi2GetRealOutputDerivatives) F(fmi2DoStep) F(fmi2CancelStep) F(fmi2GetStatus)
    F(fmi2GetRealStatus) F(fmi2GetIntegerStatus) F(fmi2GetBooleanStatus) F(fmi2GetStringStatus)
#undef F
    /* mbfmuTestMallocs, the Go runtime's count of heap allocations
     * (runtime.MemStats.Mallocs), exported only by the runtime library
     * that the allocation tests build (alloc_test.go); NULL otherwise. */
    unsigned long long (*mallocs)(void);
} fmu_t;

static void die(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "host: ");
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

/* load reads DIR/modelDescription.xml and dlopens the binary. */
static void load(fmu_t* f, const char* dir) {
    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "%s", dir);
    char path[4200], id[256];
    snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
    FILE* fp = fopen(path, "rb");
    if (!fp) die("cannot open %s", path);
    static __thread char xml[1 << 16];
    size_t n = fread(xml, 1, sizeof xml - 1, fp);
    xml[n] = 0;
    fclose(fp);
    attr(xml, "guid", f->guid, sizeof f->guid);
    attr(xml, "modelIdentifier", id, sizeof id);
    snprintf(path, sizeof path, "%s/binaries/" BINDIR "/%s" LIBEXT, dir, id);
    f->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!f->lib) die("dlopen %s: %s", path, dlerror());
#define F(name) if (!(f->name = (__typeof__(&name))dlsym(f->lib, #name))) die("missing symbol " #name);
    F(fmi2GetTypesPlatform) F(fmi2GetVersion) F(fmi2SetDebugLogging) F(fmi2Instantiate)
    F(fmi2FreeInstance) F(fmi2SetupExperiment) F(fmi2EnterInitializationMode)
    F(fmi2ExitInitializationMode) F(fmi2Terminate) F(fmi2Reset) F(fmi2GetReal) F(fmi2GetInteger)
    F(fmi2GetBoolean) F(fmi2GetString) F(fmi2SetReal) F(fmi2SetInteger) F(fmi2SetBoolean)
    F(fmi2SetString) F(fmi2GetFMUstate) F(fmi2SetFMUstate) F(fmi2FreeFMUstate)
    F(fmi2SerializedFMUstateSize) F(fmi2SerializeFMUstate) F(fmi2DeSerializeFMUstate)
    F(fmi2GetDirectionalDerivative) F(fmi2SetRealInputDerivatives)
    F(fmi2GetRealOutputDerivatives) F(fmi2DoStep) F(fmi2CancelStep) F(fmi2GetStatus)
    F(fmi2GetRealStatus) F(fmi2GetIntegerStatus) F(fmi2GetBooleanStatus) F(fmi2GetStringStatus)
#undef F
    f->mallocs = (unsigned long long (*)(void))dlsym(f->lib, "mbfmuTestMallocs");
}

/* mark writes the marker BEGIN or END of a measured loop on stderr; with a
 * runtime library that exports mbfmuTestMallocs it also writes the Go
 * runtime's allocation count there, read inside the markers, as
 * "MALLOCS BEGIN n" after BEGIN and "MALLOCS END n" before END. */
static void mark(const fmu_t* f, const char* what) {
    int begin = !strcmp(what, "BEGIN");
    if (begin) fprintf(stderr, "%s\n", what);
    if (f->mallocs) fprintf(stderr, "MALLOCS %s %llu\n", what, f->mallocs());
    if (!begin) fprintf(stderr, "%s\n", what);
}

/* The logger counts messages per status and keeps the last one, per thread. */
static __thread int nlog[6];
static __thread char lastlog[2048];
static int verbose;

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st, fmi2String cat,
                   fmi2String fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lastlog, sizeof lastlog, fmt, ap);
    va_end(ap);
    if (st >= 0 && st <= 5) nlog[st]++;
    if (verbose) fprintf(stderr, "[%s|%s|%d] %s\n", name ? name : "?", cat ? cat : "?", st, lastlog);
    (void)env;
}

static const fmi2CallbackFunctions callbacks = {logger, NULL, NULL, NULL, NULL};

/* uri turns a path into a percent-encoded file:// URI. */
static void uri(const char* path, char* out, size_t n) {
    size_t j = snprintf(out, n, "file://");
    if (path[0] && path[1] == ':') j += snprintf(out + j, n - j, "/"); /* file:///C:/… */
    for (const unsigned char* p = (const unsigned char*)path; *p && j + 4 < n; p++) {
        if (*p == '\\') { out[j++] = '/'; continue; }
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/-._~", *p))
            out[j++] = *p;
        else
            j += snprintf(out + j, n - j, "%%%02X", *p);
    }
    out[j] = 0;
}

static fmi2Component instantiate(fmu_t* f, const char* name) {
    char loc[8192], res[4200];
    snprintf(res, sizeof res, "%s/resources", f->dir);
    uri(res, loc, sizeof loc);
    strcat(loc, "/");
    fmi2Component c = f->fmi2Instantiate(name, fmi2CoSimulation, f->guid, loc, &callbacks, fmi2False, fmi2False);
    if (!c) die("fmi2Instantiate failed: %s", lastlog);
    return c;
}

/* tau is the input during step k (exact in binary64, same in Go). */
static double tau(int k) { return 0.01 * (double)((k * 7) % 23) - 0.1; }

#define CHECK(call) do { fmi2Status s_ = (call); if (s_ != fmi2OK) die("%s returned %d: %s", #call, s_, lastlog); } while (0)

/* run_sequence is the normal call sequence of a master: m = 1.5 set before
 * fmi2SetupExperiment, tau before each step, c changed to 0.2 at step n/2,
 * communication points t0 + k·h. out receives n × NOUT outputs. */
static void run_sequence(fmu_t* f, const char* name, int n, double* out) {
    fmi2Component c = instantiate(f, name);
    const fmi2ValueReference vm = VR_M, vc = VR_C, vt = VR_TAU, vo[NOUT] = {VR_TIPX, VR_TIPY, VR_OMEGA};
    const double m = 1.5, cc = 0.2;
    CHECK(f->fmi2SetReal(c, &vm, 1, &m));
    double u0 = tau(1);
    CHECK(f->fmi2SetReal(c, &vt, 1, &u0));
    CHECK(f->fmi2SetupExperiment(c, fmi2True, 1e-6, 0.0, fmi2False, 0.0));
    CHECK(f->fmi2EnterInitializationMode(c));
    CHECK(f->fmi2ExitInitializationMode(c));
    for (int k = 1; k <= n; k++) {
        double u = tau(k);
        CHECK(f->fmi2SetReal(c, &vt, 1, &u));
        if (k == n / 2) CHECK(f->fmi2SetReal(c, &vc, 1, &cc));
        CHECK(f->fmi2DoStep(c, (double)(k - 1) * H, H, fmi2True));
        CHECK(f->fmi2GetReal(c, vo, NOUT, out + (size_t)(k - 1) * NOUT));
    }
    CHECK(f->fmi2Terminate(c));
    f->fmi2FreeInstance(c);
}

static void print_outputs(const char* tag, const double* out, int n) {
    for (int k = 0; k < n; k++)
        printf("%s %d %a %a %a\n", tag, k + 1, out[k * NOUT], out[k * NOUT + 1], out[k * NOUT + 2]);
}

typedef struct {
    fmu_t* f;
    const char* name;
    int n;
    double* out;
} job_t;

static void* job(void* p) {
    job_t* j = p;
    run_sequence(j->f, j->name, j->n, j->out);
    return NULL;
}

static void run_threads(job_t* jobs, int nj) {
    pthread_t th[4];
    for (int i = 0; i < nj; i++)
        if (pthread_create(&th[i], NULL, job, &jobs[i])) die("pthread_create");
    for (int i = 0; i < nj; i++) pthread_join(th[i], NULL);
}

/* ---- checks ---------------------------------------------------------- */

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

/* expect_status checks a status and, for an error, that it was logged. */
static void expect_status(fmi2Status got, fmi2Status want, const char* what) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s -> %d (want %d)", what, got, want);
    expect(got == want, buf);
}

#define ERR(call) do { int e0_ = nlog[fmi2Error]; fmi2Status s_ = (call); \
    expect_status(s_, fmi2Error, #call); expect(nlog[fmi2Error] > e0_, "  logged: " #call); } while (0)
#define OK(call) expect_status((call), fmi2OK, #call)

static fmi2Component start(fmu_t* f) {
    fmi2Component c = instantiate(f, "checks");
    CHECK(f->fmi2SetupExperiment(c, fmi2False, 0, 0.0, fmi2False, 0));
    CHECK(f->fmi2EnterInitializationMode(c));
    CHECK(f->fmi2ExitInitializationMode(c));
    return c;
}

static long rss_kb(void) {
    FILE* fp = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (fp) {
        if (fscanf(fp, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(fp);
    }
    return resident * 4;
}

static void steps(fmu_t* f, fmi2Component c, double* t, int n, double* out) {
    const fmi2ValueReference vo[NOUT] = {VR_TIPX, VR_TIPY, VR_OMEGA}, vt = VR_TAU;
    for (int k = 0; k < n; k++) {
        double u = (k == n / 3) ? 0.7 : 0.0;
        if (k == n / 3) CHECK(f->fmi2SetReal(c, &vt, 1, &u));
        CHECK(f->fmi2DoStep(c, *t, H, fmi2False));
        *t += H;
        CHECK(f->fmi2GetReal(c, vo, NOUT, out + k * NOUT));
    }
}

static void checks(fmu_t* f, fmu_t* foreign, fmu_t* nanf) {
    const fmi2ValueReference vt = VR_TAU, vx = VR_TIPX, vm = VR_M, vc = VR_C, vbad = 999;
    double v = 0, vals[8];
    fmi2Integer iv = 0;
    fmi2Boolean bv = 0;
    fmi2String sv = NULL;

    expect(strcmp(f->fmi2GetTypesPlatform(), "default") == 0, "fmi2GetTypesPlatform is \"default\"");
    expect(strcmp(f->fmi2GetVersion(), "2.0") == 0, "fmi2GetVersion is \"2.0\"");

    /* Instantiation failures. */
    char loc[8192], res[4200];
    snprintf(res, sizeof res, "%s/resources", f->dir);
    uri(res, loc, sizeof loc);
    expect(f->fmi2Instantiate("x", fmi2CoSimulation, "{wrong}", loc, &callbacks, 0, 0) == NULL, "wrong GUID rejected");
    expect(strstr(lastlog, "does not match") != NULL, "  GUID mismatch logged");
    expect(f->fmi2Instantiate("x", fmi2ModelExchange, f->guid, loc, &callbacks, 0, 0) == NULL, "model exchange rejected");
    expect(f->fmi2Instantiate("x", fmi2CoSimulation, f->guid, "", &callbacks, 0, 0) == NULL, "empty resource location rejected");
    expect(strstr(lastlog, "empty") != NULL, "  empty resource location logged");
    expect(f->fmi2Instantiate("x", fmi2CoSimulation, f->guid, NULL, &callbacks, 0, 0) == NULL, "NULL resource location rejected");
    expect(f->fmi2Instantiate("x", fmi2CoSimulation, NULL, loc, &callbacks, 0, 0) == NULL, "NULL GUID rejected");
    expect(f->fmi2Instantiate("x", fmi2CoSimulation, f->guid, "file:///nonexistent/resources", &callbacks, 0, 0) == NULL, "missing resources rejected");

    /* Every form of fmuResourceLocation importers send. */
    {
        char forms[8][8400];
        int nf = 0;
        snprintf(forms[nf++], sizeof forms[0], "%s/", loc);                  /* fmusim */
        snprintf(forms[nf++], sizeof forms[0], "%s", loc);                   /* FMPy, percent-encoded */
        snprintf(forms[nf++], sizeof forms[0], "file://localhost%s", loc + 7);
        snprintf(forms[nf++], sizeof forms[0], res[1] == ':' ? "file:/%s" : "file:%s", res); /* file:/path */
        snprintf(forms[nf++], sizeof forms[0], "%s", res);                   /* plain path */
        snprintf(forms[nf++], sizeof forms[0], "%s/", f->dir);               /* FMU root */
        uri(f->dir, forms[nf], sizeof forms[0]);                             /* FMU root URI */
        nf++;
        for (int i = 0; i < nf; i++) {
            fmi2Component c = f->fmi2Instantiate("loc", fmi2CoSimulation, f->guid, forms[i], &callbacks, 0, 0);
            char buf[9000];
            snprintf(buf, sizeof buf, "resource location %.8900s", forms[i]);
            expect(c != NULL, buf);
            if (c) f->fmi2FreeInstance(c);
        }
    }
    /* NULL callbacks and instance name are tolerated (no logger). */
    {
        fmi2Component c = f->fmi2Instantiate(NULL, fmi2CoSimulation, f->guid, loc, NULL, 0, 1);
        expect(c != NULL, "instantiate with NULL name and callbacks");
        if (c) {
            expect_status(f->fmi2DoStep(c, 0, H, 0), fmi2Error, "  DoStep before init without a logger");
            f->fmi2FreeInstance(c);
        }
    }

    /* Wrong-state calls: each returns fmi2Error, logs, and changes nothing. */
    fmi2Component c = instantiate(f, "states");
    ERR(f->fmi2DoStep(c, 0, H, 0));
    ERR(f->fmi2GetReal(c, &vx, 1, &v));
    ERR(f->fmi2ExitInitializationMode(c));
    ERR(f->fmi2Terminate(c));
    ERR(f->fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &v));
    v = 0.3;
    OK(f->fmi2SetReal(c, &vt, 1, &v)); /* inputs before SetupExperiment */
    OK(f->fmi2SetupExperiment(c, fmi2True, 1e-4, 0, fmi2False, 0));
    OK(f->fmi2EnterInitializationMode(c));
    ERR(f->fmi2EnterInitializationMode(c));
    ERR(f->fmi2DoStep(c, 0, H, 0));
    v = 2.0;
    OK(f->fmi2SetReal(c, &vm, 1, &v)); /* fixed parameter in initialisation mode */
    OK(f->fmi2GetReal(c, &vx, 1, &v));
    OK(f->fmi2ExitInitializationMode(c));
    ERR(f->fmi2SetupExperiment(c, fmi2False, 0, 0, fmi2False, 0));
    OK(f->fmi2GetReal(c, &vm, 1, &v));
    expect(v == 2.0, "fixed parameter m = 2 after initialisation");
    ERR(f->fmi2SetReal(c, &vm, 1, &v)); /* fixed parameter after initialisation */
    v = 0.3;
    OK(f->fmi2SetReal(c, &vc, 1, &v)); /* tunable parameter between steps */
    OK(f->fmi2DoStep(c, 0, H, 0));

    /* Bad value references, types and values. */
    ERR(f->fmi2GetReal(c, &vbad, 1, &v));
    ERR(f->fmi2SetReal(c, &vx, 1, &v)); /* output */
    v = NAN;
    ERR(f->fmi2SetReal(c, &vt, 1, &v));
    v = INFINITY;
    ERR(f->fmi2SetReal(c, &vt, 1, &v));
    OK(f->fmi2GetReal(c, &vt, 1, &v));
    expect(v == 0.3, "rejected NaN/Inf left the input at 0.3");
    ERR(f->fmi2GetInteger(c, &vt, 1, &iv));
    ERR(f->fmi2SetInteger(c, &vt, 1, &iv));
    ERR(f->fmi2GetBoolean(c, &vt, 1, &bv));
    ERR(f->fmi2SetBoolean(c, &vt, 1, &bv));
    ERR(f->fmi2GetString(c, &vt, 1, &sv));
    ERR(f->fmi2SetString(c, &vt, 1, &sv));
    OK(f->fmi2GetInteger(c, NULL, 0, NULL));
    OK(f->fmi2GetBoolean(c, NULL, 0, NULL));
    OK(f->fmi2GetString(c, NULL, 0, NULL));
    OK(f->fmi2SetString(c, NULL, 0, NULL));
    OK(f->fmi2GetReal(c, NULL, 0, NULL));

    /* NULL pointers. */
    ERR(f->fmi2GetReal(c, NULL, 1, &v));
    ERR(f->fmi2GetReal(c, &vx, 1, NULL));
    ERR(f->fmi2SetReal(c, &vt, 1, NULL));
    ERR(f->fmi2GetFMUstate(c, NULL));
    ERR(f->fmi2SetFMUstate(c, NULL));
    ERR(f->fmi2GetStatus(c, fmi2DoStepStatus, NULL));
    ERR(f->fmi2GetRealStatus(c, fmi2LastSuccessfulTime, NULL));
    ERR(f->fmi2SetDebugLogging(c, fmi2True, 1, NULL));
    ERR(f->fmi2SerializedFMUstateSize(c, NULL, NULL));
    ERR(f->fmi2DeSerializeFMUstate(c, NULL, 10, NULL));
    {
        fmi2String bogus[] = {"logBogus"};
        ERR(f->fmi2SetDebugLogging(c, fmi2True, 1, bogus));
        fmi2String cats[] = {"logEvents", "logStatusError"};
        OK(f->fmi2SetDebugLogging(c, fmi2True, 2, cats));
        OK(f->fmi2SetDebugLogging(c, fmi2False, 0, NULL));
        OK(f->fmi2SetDebugLogging(c, fmi2False, 1, cats));
        fmi2String errs[] = {"logStatusError"};
        OK(f->fmi2SetDebugLogging(c, fmi2True, 1, errs));
    }
    expect_status(f->fmi2DoStep(NULL, 0, H, 0), fmi2Error, "DoStep(NULL component)");
    expect_status(f->fmi2GetReal(NULL, &vx, 1, &v), fmi2Error, "GetReal(NULL component)");
    {
        uint64_t junk[8] = {0};
        expect_status(f->fmi2DoStep((fmi2Component)junk, 0, H, 0), fmi2Error, "DoStep(junk component)");
    }

    /* Time: the master's communication point must match. */
    ERR(f->fmi2DoStep(c, 0.5, H, 0));
    ERR(f->fmi2DoStep(c, H, 0.0, 0));
    ERR(f->fmi2DoStep(c, H, -H, 0));
    OK(f->fmi2DoStep(c, H * (1 + 1e-12), H, 0)); /* snapped */

    /* Derivatives (misuse; the normal use is modes derivs and jac), the
     * asynchronous step and status queries. */
    {
        fmi2Integer order = 1, order3 = 3;
        ERR(f->fmi2SetRealInputDerivatives(c, &vx, 1, &order, &v)); /* an output */
        ERR(f->fmi2SetRealInputDerivatives(c, &vt, 1, &order3, &v));
        ERR(f->fmi2SetRealInputDerivatives(c, &vt, 1, NULL, &v));
        ERR(f->fmi2GetRealOutputDerivatives(c, &vt, 1, &order, &v)); /* an input */
        ERR(f->fmi2GetRealOutputDerivatives(c, &vx, 1, &order3, &v));
        ERR(f->fmi2GetRealOutputDerivatives(c, &vx, 1, &order, NULL));
        OK(f->fmi2GetRealOutputDerivatives(c, &vx, 1, &order, &v));
        v = 1;
        OK(f->fmi2GetDirectionalDerivative(c, &vx, 1, &vt, 1, &v, vals)); /* an output w.r.t. the input */
        expect(vals[0] == 0, "  an output does not depend on the input (no direct feedthrough)");
        ERR(f->fmi2GetDirectionalDerivative(c, &vt, 1, &vx, 1, &v, vals)); /* an input unknown, an output known */
        ERR(f->fmi2GetDirectionalDerivative(c, &vx, 1, &vt, 1, NULL, vals));
        ERR(f->fmi2GetDirectionalDerivative(c, &vx, 1, &vt, 1, &v, NULL));
        ERR(f->fmi2CancelStep(c));
        fmi2Status ds = fmi2Fatal;
        expect_status(f->fmi2GetStatus(c, fmi2DoStepStatus, &ds), fmi2Discard, "GetStatus(DoStepStatus): not pending");
        expect_status(f->fmi2GetStringStatus(c, fmi2PendingStatus, &sv), fmi2Discard, "GetStringStatus(PendingStatus)");
        expect(sv != NULL && sv[0] == 0, "  pending status string is empty");
        expect_status(f->fmi2GetIntegerStatus(c, fmi2DoStepStatus, &iv), fmi2Discard, "GetIntegerStatus");
        ERR(f->fmi2GetRealStatus(c, (fmi2StatusKind)42, &v));
        OK(f->fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &v));
        expect(fabs(v - 2 * H) < 1e-12, "LastSuccessfulTime is the current time");
        OK(f->fmi2GetBooleanStatus(c, fmi2Terminated, &bv));
        expect(bv == fmi2False, "Terminated is false while running");
    }

    /* Terminate, then only getters, Reset and Free. */
    OK(f->fmi2Terminate(c));
    ERR(f->fmi2Terminate(c));
    ERR(f->fmi2DoStep(c, 2 * H, H, 0));
    ERR(f->fmi2SetReal(c, &vt, 1, &v));
    OK(f->fmi2GetReal(c, &vx, 1, &v));
    OK(f->fmi2Reset(c));
    {
        fmi2FMUstate s0 = NULL; /* a state can be taken in any state, even before initialisation */
        OK(f->fmi2GetFMUstate(c, &s0));
        OK(f->fmi2FreeFMUstate(c, &s0));
    }
    OK(f->fmi2SetupExperiment(c, fmi2False, 0, 0, fmi2False, 0));
    OK(f->fmi2EnterInitializationMode(c));
    OK(f->fmi2ExitInitializationMode(c));
    OK(f->fmi2GetReal(c, &vm, 1, &v));
    expect(v == 1.0, "Reset restored m = 1");
    OK(f->fmi2DoStep(c, 0, H, 0));
    f->fmi2FreeInstance(c);
    /* A freed component is rejected without a crash. */
    expect_status(f->fmi2DoStep(c, H, H, 0), fmi2Error, "DoStep on a freed component");
    f->fmi2FreeInstance(c);
    expect(1, "FreeInstance twice did not crash");
    f->fmi2FreeInstance(NULL);
    expect(1, "FreeInstance(NULL) did not crash");

    /* FMU state: get/set/serialise round trip, bit for bit. */
    {
        enum { N1 = 30, N2 = 40 };
        double ref[N2 * NOUT], again[N2 * NOUT], tmp[N1 * NOUT], t = 0, t1;
        fmi2Component a = start(f);
        steps(f, a, &t, N1, tmp);
        fmi2FMUstate s = NULL;
        OK(f->fmi2GetFMUstate(a, &s));
        t1 = t;
        steps(f, a, &t, N2, ref);
        OK(f->fmi2SetFMUstate(a, s));
        t = t1;
        steps(f, a, &t, N2, again);
        expect(memcmp(ref, again, sizeof ref) == 0, "rerun after fmi2SetFMUstate is bit for bit identical");
        fmi2FMUstate s3 = NULL, s4;
        OK(f->fmi2GetFMUstate(a, &s3));
        s4 = s3;
        OK(f->fmi2GetFMUstate(a, &s4)); /* overwrite in place */
        expect(s4 == s3, "fmi2GetFMUstate reuses a non-NULL state");
        OK(f->fmi2FreeFMUstate(a, &s3));

        /* Restore the first snapshot in another instance via serialisation. */
        fmi2Component a2 = start(f);
        fmi2FMUstate first = NULL;
        size_t size = 0;
        OK(f->fmi2SetFMUstate(a, s));
        OK(f->fmi2GetFMUstate(a, &first));
        OK(f->fmi2SerializedFMUstateSize(a, first, &size));
        expect(size > 100, "serialised size is plausible");
        char* blob = malloc(size);
        ERR(f->fmi2SerializeFMUstate(a, first, blob, size - 1));
        OK(f->fmi2SerializeFMUstate(a, first, blob, size));
        fmi2FMUstate d = NULL;
        OK(f->fmi2DeSerializeFMUstate(a2, blob, size, &d));
        OK(f->fmi2SetFMUstate(a2, d));
        /* Both are at t1: run both forward and compare with ref. */
        double ra[N2 * NOUT], rb[N2 * NOUT], ta = t1, tb = t1;
        steps(f, a, &ta, N2, ra);
        steps(f, a2, &tb, N2, rb);
        expect(memcmp(ra, ref, sizeof ra) == 0 && memcmp(rb, ref, sizeof rb) == 0,
               "state deserialised into another instance runs bit for bit identical");
        ERR(f->fmi2SetFMUstate(a2, s)); /* a state of another instance */
        ERR(f->fmi2DeSerializeFMUstate(a2, blob, size / 2, &d));
        blob[0] ^= 1;
        ERR(f->fmi2DeSerializeFMUstate(a2, blob, size, &d));
        blob[0] ^= 1;
        if (foreign) {
            fmi2Component fc = start(foreign);
            fmi2FMUstate fd = NULL;
            int e0 = nlog[fmi2Error];
            expect_status(foreign->fmi2DeSerializeFMUstate(fc, blob, size, &fd), fmi2Error, "state of another FMU rejected");
            expect(nlog[fmi2Error] > e0 && strstr(lastlog, "different FMU") != NULL, "  with a clear message");
            foreign->fmi2FreeInstance(fc);
        }
        OK(f->fmi2FreeFMUstate(a, &s));
        expect(s == NULL, "fmi2FreeFMUstate sets the pointer to NULL");
        OK(f->fmi2FreeFMUstate(a, &s)); /* NULL: nothing to do */
        ERR(f->fmi2SetFMUstate(a, (fmi2FMUstate)blob)); /* not a state */
        free(blob);
        f->fmi2FreeInstance(a); /* frees 'first' with it */
        f->fmi2FreeInstance(a2);
    }

    /* A non-finite output: fmi2Discard, Terminated, LastSuccessfulTime;
     * a master that retries stops because Terminated is true. */
    if (nanf) {
        fmi2Component z = start(nanf);
        fmi2Status st = fmi2OK;
        int k = 0;
        for (; k < 100 && st == fmi2OK; k++) st = nanf->fmi2DoStep(z, (double)k * H, H, 0);
        expect(st == fmi2Discard && k == 26, "NaN output discards the step ending at 0.26 s");
        fmi2Boolean term = 0;
        OK(nanf->fmi2GetBooleanStatus(z, fmi2Terminated, &term));
        expect(term == fmi2True, "  Terminated is true");
        OK(nanf->fmi2GetRealStatus(z, fmi2LastSuccessfulTime, &v));
        expect(fabs(v - 0.25) < 1e-12, "  LastSuccessfulTime is 0.25");
        fmi2Status ds = fmi2OK;
        expect_status(nanf->fmi2GetStatus(z, fmi2DoStepStatus, &ds), fmi2Discard, "  GetStatus(DoStepStatus)");
        expect(ds == fmi2Discard, "  last step status is fmi2Discard");
        ERR(nanf->fmi2DoStep(z, 0.25, H, 0));
        OK(nanf->fmi2GetReal(z, &vx, 1, &v));
        OK(nanf->fmi2Terminate(z));
        nanf->fmi2FreeInstance(z);
    }

    /* Instantiate/free cycles do not leak. */
    {
        long before = 0;
        for (int i = 0; i < 300; i++) {
            if (i == 50) before = rss_kb();
            fmi2Component z = start(f);
            fmi2FMUstate s = NULL;
            CHECK(f->fmi2DoStep(z, 0, H, 0));
            CHECK(f->fmi2GetFMUstate(z, &s)); /* freed with the instance */
            f->fmi2FreeInstance(z);
        }
        long after = rss_kb();
        char buf[128];
        snprintf(buf, sizeof buf, "300 instantiate/free cycles: RSS %ld -> %ld kB", before, after);
        expect(after - before < 20000, buf);
    }
}

/* ---- bench ------------------------------------------------------------ */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void* first_call(void* p) {
    fmu_t* f = ((void**)p)[0];
    fmi2Component c = ((void**)p)[1];
    const fmi2ValueReference vx = VR_TIPX;
    double v, t0 = now();
    f->fmi2GetReal(c, &vx, 1, &v);
    ((double*)((void**)p)[2])[0] = now() - t0;
    return NULL;
}

static void bench(fmu_t* f) {
    fmi2Component c = start(f);
    const fmi2ValueReference vx = VR_TIPX, vt = VR_TAU, vo[NOUT] = {VR_TIPX, VR_TIPY, VR_OMEGA};
    double v = 0, y[NOUT], t = 0;
    int n = 1000000;
    for (int i = 0; i < n / 10; i++) f->fmi2GetReal(c, &vx, 1, &v); /* warm up */
    double t0 = now();
    for (int i = 0; i < n; i++) f->fmi2GetReal(c, &vx, 1, &v);
    printf("bench fmi2GetReal(1 vr) %.1f ns/call\n", (now() - t0) / n * 1e9);
    t0 = now();
    for (int i = 0; i < n; i++) f->fmi2SetReal(c, &vt, 1, &v);
    printf("bench fmi2SetReal(1 vr) %.1f ns/call\n", (now() - t0) / n * 1e9);
    t0 = now();
    for (int i = 0; i < n; i++) f->fmi2GetReal(c, vo, NOUT, y);
    printf("bench fmi2GetReal(3 vr) %.1f ns/call\n", (now() - t0) / n * 1e9);
    fmi2Boolean b;
    t0 = now();
    for (int i = 0; i < n; i++) f->fmi2GetBooleanStatus(c, fmi2Terminated, &b);
    printf("bench fmi2GetBooleanStatus %.1f ns/call\n", (now() - t0) / n * 1e9);
    const double h = 1e-3; /* one engine sub-step per call */
    n = 20000;
    t0 = now();
    for (int i = 0; i < n; i++) {
        f->fmi2DoStep(c, t, h, fmi2True);
        t += h;
    }
    printf("bench fmi2DoStep(h = 1 ms, 1 sub-step) %.1f ns/call\n", (now() - t0) / n * 1e9);
    double dt = 0;
    void* args[3] = {f, c, &dt};
    pthread_t th;
    pthread_create(&th, NULL, first_call, args);
    pthread_join(th, NULL);
    printf("bench first call from a new thread %.1f ns\n", dt * 1e9);
    f->fmi2FreeInstance(c);
}

/* alloc: a steady-state loop of the calls a real-time master makes (2·10⁵
 * iterations after 10³ of warm-up), between markers on stderr (mark): the
 * Go runtime's allocation count read at both markers must not change. */
static void alloc_loop(fmu_t* f) {
    fmi2Component c = start(f);
    const fmi2ValueReference vt = VR_TAU, vc = VR_C, vo[NOUT] = {VR_TIPX, VR_TIPY, VR_OMEGA};
    double y[NOUT], t = 0, u;
    fmi2Boolean term;
    fmi2FMUstate s = NULL;
    CHECK(f->fmi2GetFMUstate(c, &s));
    for (int i = 0; i < 201000; i++) {
        if (i == 1000) mark(f, "BEGIN");
        u = 0.001 * (i % 100);
        CHECK(f->fmi2SetReal(c, &vt, 1, &u));
        if (i % 1000 == 0) CHECK(f->fmi2SetReal(c, &vc, 1, &u));
        CHECK(f->fmi2DoStep(c, t, 1e-3, fmi2True));
        t += 1e-3;
        CHECK(f->fmi2GetReal(c, vo, NOUT, y));
        CHECK(f->fmi2GetBooleanStatus(c, fmi2Terminated, &term));
        if (i % 10000 == 0) {
            CHECK(f->fmi2GetFMUstate(c, &s)); /* reused: no allocation */
            CHECK(f->fmi2SetFMUstate(c, s));
        }
    }
    mark(f, "END");
    f->fmi2FreeInstance(c);
}

/* ---- loop ------------------------------------------------------------- */

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static void feedback_loop(fmu_t* f, int n, double h, int argc, char** argv) {
    if (n < 1 || !(h > 0) || argc < 3 || argc % 2 == 0) die("loop: want N H VR_U VR_Y1 G1 [VR_Y2 G2 ...]");
    const fmi2ValueReference vu = (fmi2ValueReference)atol(argv[0]);
    int ny = (argc - 1) / 2;
    fmi2ValueReference vy[16];
    double g[16], y[16], u = 0, t = 0;
    if (ny > 16) die("loop: at most 16 outputs");
    for (int i = 0; i < ny; i++) {
        vy[i] = (fmi2ValueReference)atol(argv[1 + 2 * i]);
        g[i] = atof(argv[2 + 2 * i]);
    }
    double* dt = calloc((size_t)n, sizeof *dt);
    fmi2Component c = start(f);
    CHECK(f->fmi2GetReal(c, vy, (size_t)ny, y));
    mark(f, "BEGIN");
    for (int k = 0; k < n; k++) {
        u = 0;
        for (int i = 0; i < ny; i++) u += g[i] * y[i];
        CHECK(f->fmi2SetReal(c, &vu, 1, &u));
        double t0 = now();
        fmi2Status st = f->fmi2DoStep(c, t, h, fmi2True);
        dt[k] = now() - t0;
        if (st != fmi2OK) die("loop: fmi2DoStep at t = %g returned %d", t, (int)st);
        t = (k + 1) * h;
        CHECK(f->fmi2GetReal(c, vy, (size_t)ny, y));
    }
    mark(f, "END");
    qsort(dt, (size_t)n, sizeof *dt, cmp_double);
    printf("loop fmi2DoStep(h = %g s) over %d steps: median %.1f ns, p99 %.1f ns, max %.1f ns\n", h, n,
           dt[n / 2] * 1e9, dt[(int)(0.99 * (n - 1))] * 1e9, dt[n - 1] * 1e9);
    printf("loop last u = %.17g y =", u);
    for (int i = 0; i < ny; i++) printf(" %.17g", y[i]);
    printf("\n");
    f->fmi2FreeInstance(c);
    free(dt);
}

/* ---- derivatives ------------------------------------------------------ */

/* dtau and ddtau are the input's derivatives handed over at step k (exact
 * in binary64, same in Go); the second one every third step only. */
static double dtau(int k) { return 0.01 * (double)((k * 5) % 13) - 0.06; }
static double ddtau(int k) { return k % 3 == 0 ? 0.1 * (double)((k * 3) % 7) - 0.3 : 0.0; }

/* derivs drives the pendulum model with tau(k) and its derivatives
 * (fmi2SetRealInputDerivatives, orders 1 and 2) over n steps of H and
 * prints, after each step, the outputs and their first derivatives
 * (fmi2GetRealOutputDerivatives) as "D k y1 y2 y3 dy1 dy2 dy3". At step
 * n/2 it also estimates the derivatives from the motion: it saves the FMU
 * state, takes two steps of 1e-4 s, forms (−3y₀ + 4y₁ − y₂)/(2δ) and
 * restores the state ("F k d1 d2 d3"). */
static void derivs(fmu_t* f, int n) {
    const fmi2ValueReference vt = VR_TAU, vo[NOUT] = {VR_TIPX, VR_TIPY, VR_OMEGA};
    const fmi2Integer one[NOUT] = {1, 1, 1}, o2[2] = {1, 2};
    const fmi2ValueReference vt2[2] = {VR_TAU, VR_TAU};
    fmi2Component c = start(f);
    double y[NOUT], dy[NOUT];
    for (int k = 1; k <= n; k++) {
        double u = tau(k), d[2] = {dtau(k), ddtau(k)};
        CHECK(f->fmi2SetReal(c, &vt, 1, &u));
        CHECK(f->fmi2SetRealInputDerivatives(c, vt2, 2, o2, d));
        CHECK(f->fmi2DoStep(c, (double)(k - 1) * H, H, fmi2True));
        CHECK(f->fmi2GetReal(c, vo, NOUT, y));
        CHECK(f->fmi2GetRealOutputDerivatives(c, vo, NOUT, one, dy));
        printf("D %d %a %a %a %a %a %a\n", k, y[0], y[1], y[2], dy[0], dy[1], dy[2]);
        if (k == n / 2) {
            const double dt = 1e-4;
            double y1[NOUT], y2[NOUT];
            fmi2FMUstate s = NULL;
            CHECK(f->fmi2GetFMUstate(c, &s));
            CHECK(f->fmi2DoStep(c, (double)k * H, dt, fmi2False));
            CHECK(f->fmi2GetReal(c, vo, NOUT, y1));
            CHECK(f->fmi2DoStep(c, (double)k * H + dt, dt, fmi2False));
            CHECK(f->fmi2GetReal(c, vo, NOUT, y2));
            CHECK(f->fmi2SetFMUstate(c, s));
            CHECK(f->fmi2FreeFMUstate(c, &s));
            printf("F %d %a %a %a\n", k, (-3 * y[0] + 4 * y1[0] - y2[0]) / (2 * dt),
                   (-3 * y[1] + 4 * y1[1] - y2[1]) / (2 * dt), (-3 * y[2] + 4 * y1[2] - y2[2]) / (2 * dt));
        }
    }
    /* errors: an output's derivative set, order 3, a derivative of an output requested */
    {
        const fmi2ValueReference vx = VR_TIPX;
        const fmi2Integer o3 = 3;
        double v = 1;
        printf("E %d %d %d %d\n", (int)f->fmi2SetRealInputDerivatives(c, &vx, 1, one, &v),
               (int)f->fmi2SetRealInputDerivatives(c, &vt, 1, &o3, &v),
               (int)f->fmi2GetRealOutputDerivatives(c, &vt, 1, one, &v),
               (int)f->fmi2GetRealOutputDerivatives(c, &vx, 1, o2 + 1, &v));
    }
    f->fmi2FreeInstance(c);
}

/* ---- directional derivatives ------------------------------------------ */

/* jac_input is input i during step k (exact in binary64, same in Go). */
static double jac_input(double amp, int k, int i) { return amp * (0.01 * (double)((7 * k + 5 * i) % 23) - 0.1); }

static void print_row(const char* tag, int k, const double* v, int n) {
    printf("%s %d", tag, k);
    for (int i = 0; i < n; i++) printf(" %a", v[i]);
    printf("\n");
}

/* jac runs any model N steps of H with inputs jac_input, then prints the
 * directional derivatives of the unknowns (fmi2GetDirectionalDerivative):
 * with respect to each state ("S j ..."), to each input ("U i ...") with
 * the central difference of fmi2GetReal of the unknowns as the input is set
 * to u ± 1e-6·(1 + |u|) ("F i ..."), and along the seed 0.25·((3k mod 7) − 3)
 * on every state and input at once ("M 0 ..."); then it takes M more steps,
 * printing the unknowns after each ("Y k ...").
 * Arguments: N H NU (VR_U AMP)... NX VR_X... NY VR_Y... M */
static void jac(fmu_t* f, int n, double h, int argc, char** argv) {
    int a = 0;
    if (n < 1 || !(h > 0) || argc < 1) die("jac: want N H NU (VR_U AMP)... NX VR_X... NY VR_Y... M");
    int nu = atoi(argv[a++]);
    if (nu < 0 || nu > 16 || argc < a + 2 * nu + 1) die("jac: bad inputs");
    fmi2ValueReference vu[16];
    double amp[16], u[16];
    for (int i = 0; i < nu; i++) {
        vu[i] = (fmi2ValueReference)atol(argv[a++]);
        amp[i] = atof(argv[a++]);
    }
    int nx = atoi(argv[a++]);
    if (nx < 0 || argc < a + nx + 1) die("jac: bad states");
    fmi2ValueReference* vx = calloc((size_t)nx + 1, sizeof *vx);
    for (int i = 0; i < nx; i++) vx[i] = (fmi2ValueReference)atol(argv[a++]);
    int ny = atoi(argv[a++]);
    if (ny < 1 || argc != a + ny + 1) die("jac: bad unknowns");
    fmi2ValueReference* vy = calloc((size_t)ny, sizeof *vy);
    for (int i = 0; i < ny; i++) vy[i] = (fmi2ValueReference)atol(argv[a++]);
    int m = atoi(argv[a]);
    double *y = calloc((size_t)ny, sizeof *y), *yp = calloc((size_t)ny, sizeof *y), *ym = calloc((size_t)ny, sizeof *y);
    fmi2Component c = start(f);
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < nu; i++) u[i] = jac_input(amp[i], k, i);
        if (nu > 0) CHECK(f->fmi2SetReal(c, vu, (size_t)nu, u));
        CHECK(f->fmi2DoStep(c, (double)k * h, h, fmi2True));
    }
    const double one = 1;
    for (int j = 0; j < nx; j++) {
        CHECK(f->fmi2GetDirectionalDerivative(c, vy, (size_t)ny, &vx[j], 1, &one, y));
        print_row("S", j, y, ny);
    }
    for (int i = 0; i < nu; i++) {
        CHECK(f->fmi2GetDirectionalDerivative(c, vy, (size_t)ny, &vu[i], 1, &one, y));
        print_row("U", i, y, ny);
        double u0 = u[i], d = 1e-6 * (1 + fabs(u0)), up = u0 + d, um = u0 - d;
        CHECK(f->fmi2SetReal(c, &vu[i], 1, &up));
        CHECK(f->fmi2GetReal(c, vy, (size_t)ny, yp));
        CHECK(f->fmi2SetReal(c, &vu[i], 1, &um));
        CHECK(f->fmi2GetReal(c, vy, (size_t)ny, ym));
        CHECK(f->fmi2SetReal(c, &vu[i], 1, &u0));
        for (int r = 0; r < ny; r++) y[r] = (yp[r] - ym[r]) / (up - um);
        print_row("F", i, y, ny);
    }
    {
        fmi2ValueReference* vk = calloc((size_t)(nx + nu) + 1, sizeof *vk);
        double* seed = calloc((size_t)(nx + nu) + 1, sizeof *seed);
        for (int k = 0; k < nx + nu; k++) {
            vk[k] = k < nx ? vx[k] : vu[k - nx];
            seed[k] = 0.25 * (double)((3 * k) % 7 - 3);
        }
        CHECK(f->fmi2GetDirectionalDerivative(c, vy, (size_t)ny, vk, (size_t)(nx + nu), seed, y));
        print_row("M", 0, y, ny);
        free(vk);
        free(seed);
    }
    for (int k = n; k < n + m; k++) {
        for (int i = 0; i < nu; i++) u[i] = jac_input(amp[i], k, i);
        if (nu > 0) CHECK(f->fmi2SetReal(c, vu, (size_t)nu, u));
        CHECK(f->fmi2DoStep(c, (double)k * h, h, fmi2True));
        CHECK(f->fmi2GetReal(c, vy, (size_t)ny, y));
        print_row("Y", k + 1, y, ny);
    }
    f->fmi2FreeInstance(c);
    free(vx);
    free(vy);
    free(y);
    free(yp);
    free(ym);
}

/* ---- replay ----------------------------------------------------------- */

/* replay runs one FMU twice, with the same inputs, as two kinds of master
 * do: one advances its time as t += H, the other computes t_k = k·H and
 * steps by t_{k+1} − t_k. The outputs must agree bit for bit. Arguments:
 * N H NU (VR_U AMP)... NY VR_Y...; input i at step k is AMP_i·sin(0.37k + i). */
static void replay(fmu_t* f, int n, double h, int argc, char** argv) {
    if (n < 1 || !(h > 0) || argc < 2) die("replay: want N H NU (VR_U AMP)... NY VR_Y...");
    int nu = atoi(argv[0]);
    if (nu < 0 || nu > 16 || argc < 2 + 2 * nu) die("replay: bad inputs");
    fmi2ValueReference vu[16], vy[256];
    double amp[16], u[16];
    for (int i = 0; i < nu; i++) {
        vu[i] = (fmi2ValueReference)atol(argv[1 + 2 * i]);
        amp[i] = atof(argv[2 + 2 * i]);
    }
    int ny = atoi(argv[1 + 2 * nu]);
    if (ny < 1 || ny > 256 || argc != 2 + 2 * nu + ny) die("replay: bad outputs");
    for (int i = 0; i < ny; i++) vy[i] = (fmi2ValueReference)atol(argv[2 + 2 * nu + i]);
    double* out[2];
    for (int m = 0; m < 2; m++) {
        out[m] = calloc((size_t)n * (size_t)ny, sizeof(double));
        fmi2Component c = start(f);
        double t = 0;
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < nu; i++) u[i] = amp[i] * sin(0.37 * k + i);
            if (nu > 0) CHECK(f->fmi2SetReal(c, vu, (size_t)nu, u));
            double tk = m == 0 ? t : (double)k * h;
            double hk = m == 0 ? h : (double)(k + 1) * h - (double)k * h;
            fmi2Status st = f->fmi2DoStep(c, tk, hk, fmi2True);
            if (st != fmi2OK) die("replay: fmi2DoStep at t = %.17g returned %d (%s)", tk, (int)st, lastlog);
            t += h;
            CHECK(f->fmi2GetReal(c, vy, (size_t)ny, out[m] + (size_t)k * (size_t)ny));
        }
        f->fmi2FreeInstance(c);
    }
    for (int k = 0; k < n; k++)
        for (int i = 0; i < ny; i++) {
            double a = out[0][(size_t)k * (size_t)ny + (size_t)i], b = out[1][(size_t)k * (size_t)ny + (size_t)i];
            if (memcmp(&a, &b, sizeof a) != 0) {
                printf("replay differ at step %d output %d: %a (t += H) %a (k·H)\n", k + 1, (int)vy[i], a, b);
                return;
            }
        }
    printf("replay same %d steps %d outputs\n", n, ny);
    free(out[0]);
    free(out[1]);
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    verbose = getenv("HOST_VERBOSE") != NULL;
    if (argc < 3) die("usage: host run|threads|two|checks|bench|loop DIR ...");
    const char* mode = argv[1];
    static fmu_t f1, f2, f3;
    load(&f1, argv[2]);
    if (!strcmp(mode, "run") && argc == 4) {
        int n = atoi(argv[3]);
        double* out = calloc((size_t)n * NOUT, sizeof *out);
        run_sequence(&f1, "run", n, out);
        print_outputs("A", out, n);
    } else if (!strcmp(mode, "threads") && argc == 4) {
        int n = atoi(argv[3]);
        job_t jobs[2] = {{&f1, "t1", n, calloc((size_t)n * NOUT, sizeof(double))},
                         {&f1, "t2", n, calloc((size_t)n * NOUT, sizeof(double))}};
        run_threads(jobs, 2);
        if (memcmp(jobs[0].out, jobs[1].out, (size_t)n * NOUT * sizeof(double)) != 0) die("the two threads differ");
        print_outputs("A", jobs[0].out, n);
    } else if (!strcmp(mode, "two") && argc == 5) {
        load(&f2, argv[3]);
        int n = atoi(argv[4]);
        if (f1.fmi2DoStep == f2.fmi2DoStep) die("the two FMUs share one library");
        job_t jobs[2] = {{&f1, "a", n, calloc((size_t)n * NOUT, sizeof(double))},
                         {&f2, "b", n, calloc((size_t)n * NOUT, sizeof(double))}};
        run_threads(jobs, 2); /* both runtimes at once */
        print_outputs("A", jobs[0].out, n);
        print_outputs("B", jobs[1].out, n);
    } else if (!strcmp(mode, "checks") && argc == 5) {
        load(&f2, argv[3]);
        load(&f3, argv[4]);
        checks(&f1, &f2, &f3);
        printf("%d passed, %d failed\n", npass, nfail);
        return nfail ? 1 : 0;
    } else if (!strcmp(mode, "alloc")) {
        alloc_loop(&f1);
    } else if (!strcmp(mode, "bench")) {
        bench(&f1);
    } else if (!strcmp(mode, "derivs") && argc == 4) {
        derivs(&f1, atoi(argv[3]));
    } else if (!strcmp(mode, "jac") && argc >= 7) {
        jac(&f1, atoi(argv[3]), atof(argv[4]), argc - 5, argv + 5);
    } else if (!strcmp(mode, "replay") && argc >= 7) {
        replay(&f1, atoi(argv[3]), atof(argv[4]), argc - 5, argv + 5);
    } else if (!strcmp(mode, "loop") && argc >= 5) {
        feedback_loop(&f1, atoi(argv[3]), atof(argv[4]), argc - 5, argv + 5);
    } else {
        die("bad arguments");
    }
    return 0;
}
