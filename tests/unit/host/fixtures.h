// Fixture trees (tests/unit/host/fixtures/<name>/) and the CPUID answers that go with
// them. The CPUID values describe the fixture's CPU; they are inputs, not measurements.
#pragma once

#include "host/host_info.h"

#include <string>

namespace obscheck::test {

inline std::string fixture(const std::string& name) {
  return std::string(OBSCHECK_SOURCE_DIR) + "/tests/unit/host/fixtures/" + name;
}

// A Skylake-class desktop with SMT on: architectural perfmon v4, 4 general-purpose
// counters per logical CPU (8 per core shared by two threads), 3 fixed counters.
inline CpuidInfo skylake_cpuid() {
  CpuidInfo c;
  c.available = true;
  c.vendor = "GenuineIntel";
  c.max_leaf = 0x16;
  c.perfmon_version = 4;
  c.perfmon_gp_counters = 4;
  c.perfmon_gp_width = 48;
  c.perfmon_fixed_counters = 3;
  return c;
}

// What this project's development guest (KVM, no virtual PMU) answers: the hypervisor
// bit and signature are set and leaf 0xA is all zero.
inline CpuidInfo kvm_no_pmu_cpuid() {
  CpuidInfo c;
  c.available = true;
  c.vendor = "GenuineIntel";
  c.max_leaf = 0x24;
  c.hypervisor_bit = true;
  c.hypervisor_signature = "KVMKVMKVM";
  return c;
}

inline CpuidInfo hybrid_cpuid() {
  CpuidInfo c;
  c.available = true;
  c.vendor = "GenuineIntel";
  c.max_leaf = 0x20;
  c.perfmon_version = 5;
  c.perfmon_gp_counters = 8;
  c.perfmon_gp_width = 48;
  c.perfmon_fixed_counters = 4;
  return c;
}

// An AMD Zen 2 guest under Xen: no leaf 0xA, PerfCtrExtCore set, no PerfMonV2.
inline CpuidInfo xen_amd_cpuid() {
  CpuidInfo c;
  c.available = true;
  c.vendor = "AuthenticAMD";
  c.max_leaf = 0x10;
  c.hypervisor_bit = true;
  c.hypervisor_signature = "XenVMMXenVMM";
  c.amd_perfctr_ext_core = true;
  return c;
}

}  // namespace obscheck::test
