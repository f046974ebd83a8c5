/*
 * bcryptprimitives.c — test support for running the Windows build of the
 * runtime under wine. The Go runtime (1.22 and later) loads ProcessPrng
 * from bcryptprimitives.dll, which every Windows 10 and 11 has but the
 * wine of Debian 12 lacks. win64_test.go builds this stand-in with the
 * MinGW-w64 compiler into the test's own wine prefix only; it is never
 * shipped.
 */
#include <windows.h>
#include <ntsecapi.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!RtlGenRandom(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
