/* Which int8 dot products this CPU has for llama.cpp's quantized kernels, as
 * int8 multiply-adds per FP32 one (PROBE_INT8_*, probe.h); the speed model
 * scales a quantized kernel's rate by it (planner/speed.c cpu_share). Read
 * from CPUID and the auxiliary vector, so a binary built for any x86-64 or
 * AArch64 tells them apart; it assumes a llama.cpp built for this CPU
 * (GGML_NATIVE, its default). */
#include "probe/probe_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

/* CPUID leaf 7 bits (Intel SDM vol. 2A, CPUID): sub-leaf 0 ECX[11] AVX512_VNNI, sub-leaf 1 EAX[4] AVX-VNNI. */
#define CPUID7_0_ECX_AVX512_VNNI (1u << 11)
#define CPUID7_1_EAX_AVX_VNNI (1u << 4)
/* Linux arm64 hwcaps (arch/arm64/include/uapi/asm/hwcap.h). */
#define ARM_HWCAP_ASIMDDP (1ul << 20)
#define ARM_HWCAP2_I8MM (1ul << 13)

const char *probe_int8_name(double per_fp32) {
    return per_fp32 >= PROBE_INT8_I8MM  ? "Arm i8mm"
           : per_fp32 >= PROBE_INT8_DOT ? "VNNI or Arm dotprod"
           : per_fp32 > 0               ? "AVX2, no VNNI"
                                        : "not known";
}

double probe_int8_per_fp32(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) return 0;
    unsigned a, b, c, d;
    bool vnni512 = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & CPUID7_0_ECX_AVX512_VNNI) &&
                   __builtin_cpu_supports("avx512vl");
    bool vnni256 = __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & CPUID7_1_EAX_AVX_VNNI);
    return vnni512 || vnni256 ? PROBE_INT8_DOT : PROBE_INT8_AVX2;
#elif defined(__aarch64__) && defined(__linux__)
    if (getauxval(AT_HWCAP2) & ARM_HWCAP2_I8MM) return PROBE_INT8_I8MM;
    return getauxval(AT_HWCAP) & ARM_HWCAP_ASIMDDP ? PROBE_INT8_DOT : 0;
#else
    return 0;
#endif
}
