// read_cpuid: the live CPU's answers to the CPUID leaves host/ uses.
#include "host/host_info.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstring>

namespace obscheck {

CpuidInfo read_cpuid() {
  CpuidInfo c;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, cx = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &cx, &d)) return c;
  c.available = true;
  c.max_leaf = a;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &cx, 4);
  c.vendor = vendor;
  __cpuid(1, a, b, cx, d);
  c.hypervisor_bit = (cx >> 31) & 1;
  if (c.hypervisor_bit) {
    // Leaf 0x40000000 is reserved for hypervisors; only meaningful with the bit set.
    __cpuid(0x40000000, a, b, cx, d);
    char sig[13] = {};
    std::memcpy(sig, &b, 4);
    std::memcpy(sig + 4, &cx, 4);
    std::memcpy(sig + 8, &d, 4);
    c.hypervisor_signature = sig;  // stops at the first NUL ("KVMKVMKVM\0\0\0")
  }
  if (c.max_leaf >= 0xA) {
    __cpuid_count(0xA, 0, a, b, cx, d);
    c.perfmon_version = a & 0xff;
    c.perfmon_gp_counters = (a >> 8) & 0xff;
    c.perfmon_gp_width = (a >> 16) & 0xff;
    c.perfmon_fixed_counters = d & 0x1f;
  }
  const unsigned max_ext = __get_cpuid_max(0x80000000, nullptr);
  if (max_ext >= 0x80000001) {
    __cpuid(0x80000001, a, b, cx, d);
    c.amd_perfctr_ext_core = (cx >> 23) & 1;
  }
  if (max_ext >= 0x80000022) {
    __cpuid(0x80000022, a, b, cx, d);
    c.amd_perfmon_v2 = a & 1;
    c.amd_core_counters = c.amd_perfmon_v2 ? (b & 0xf) : 0;
  }
#endif
  return c;
}

}  // namespace obscheck
