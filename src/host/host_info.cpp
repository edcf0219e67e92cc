#include "host/host_info.h"

#include <sys/utsname.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace obscheck {

namespace {

namespace fs = std::filesystem;

// x86 has four debug-address registers, DR0-DR3 (Intel SDM Vol. 3B, 18.2); the perf
// breakpoint PMU hands out exactly these.
constexpr unsigned kX86BreakpointSlots = 4;

// AMD core counters without Fn8000_0022: four legacy PERF_CTRs, six with PerfCtrExtCore
// (AMD APM Vol. 2, 13.2).
constexpr unsigned kAmdLegacyCounters = 4;
constexpr unsigned kAmdExtCoreCounters = 6;

// Capability bit numbers (linux/capability.h).
constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;

std::string trim(std::string_view s) {
  const auto* ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
}

class Tree {
 public:
  explicit Tree(const std::string& root) : root_(root.empty() ? "/" : root) {}

  fs::path path(std::string_view rel) const { return root_ / rel; }

  std::optional<std::string> read(std::string_view rel) const {
    std::ifstream in(path(rel));
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return ss.str();
  }

  // The file's content without surrounding white space.
  std::optional<std::string> line(std::string_view rel) const {
    auto text = read(rel);
    if (!text) return std::nullopt;
    return trim(*text);
  }

  std::optional<long long> integer(std::string_view rel) const {
    auto text = line(rel);
    if (!text) return std::nullopt;
    long long v = 0;
    const auto* end = text->data() + text->size();
    auto [p, ec] = std::from_chars(text->data(), end, v);
    if (ec != std::errc{} || p != end) return std::nullopt;
    return v;
  }

  bool exists(std::string_view rel) const {
    std::error_code ec;
    return fs::exists(path(rel), ec);
  }

  std::vector<std::string> list(std::string_view rel) const {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(path(rel), ec), end; !ec && it != end; it.increment(ec))
      names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path root_;
};

std::optional<int> as_int(std::optional<long long> v) {
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

// "key<tabs>: value" lines of /proc/cpuinfo; the first CPU's value.
std::string cpuinfo_field(const std::string& cpuinfo, std::string_view key) {
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(std::string_view(line).substr(0, colon)) == key)
      return trim(std::string_view(line).substr(colon + 1));
  }
  return {};
}

bool has_word(const std::string& words, std::string_view word) {
  std::istringstream in(words);
  for (std::string w; in >> w;)
    if (w == word) return true;
  return false;
}

// "always [madvise] never" -> "madvise".
std::string bracketed(const std::string& text) {
  const auto open = text.find('[');
  const auto close = text.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return trim(text);
  return text.substr(open + 1, close - open - 1);
}

// Value of `name=` on the kernel command line, "" when absent.
std::string cmdline_param(const std::string& cmdline, std::string_view name) {
  std::istringstream in(cmdline);
  const std::string prefix = std::string(name) + "=";
  for (std::string w; in >> w;) {
    if (w == "--") break;  // what follows belongs to init, not the kernel
    if (w.rfind(prefix, 0) == 0) return w.substr(prefix.size());
  }
  return {};
}

std::vector<int> cpu_list_file(const Tree& t, std::string_view rel) {
  auto text = t.line(rel);
  if (!text) return {};
  return parse_cpu_list(*text).value_or(std::vector<int>{});
}

std::string hypervisor_from_signature(const std::string& sig) {
  struct Known {
    std::string_view signature, name;
  };
  // Signatures from each vendor's CPUID leaf 0x40000000 documentation.
  static constexpr Known kKnown[] = {
      {"KVMKVMKVM", "KVM"},          {"Microsoft Hv", "Hyper-V"},
      {"VMwareVMware", "VMware"},    {"XenVMMXenVMM", "Xen"},
      {"TCGTCGTCGTCG", "QEMU (TCG)"}, {"VBoxVBoxVBox", "VirtualBox"},
      {"bhyve bhyve ", "bhyve"},     {"ACRNACRNACRN", "ACRN"},
      {" lrpepyh  vr", "Parallels"}, {"QNXQVMBSQG", "QNX"},
  };
  for (const auto& k : kKnown)
    if (sig == k.signature) return std::string(k.name);
  return sig;
}

// DMI strings of known virtual platforms ("" when the vendor is a hardware maker).
std::string hypervisor_from_dmi(const std::string& vendor, const std::string& product) {
  struct Known {
    std::string_view needle, name;
  };
  static constexpr Known kVendors[] = {
      {"QEMU", "QEMU"},       {"VMware", "VMware"},     {"Xen", "Xen"},
      {"innotek", "VirtualBox"}, {"Parallels", "Parallels"}, {"Amazon EC2", "AWS Nitro"},
      {"Google", "Google Compute Engine"}, {"OpenStack", "OpenStack"}, {"Bochs", "Bochs"},
  };
  for (const auto& k : kVendors)
    if (vendor.find(k.needle) != std::string::npos) {
      // EC2 bare-metal instances carry the same vendor; their product ends in ".metal".
      if (k.name == "AWS Nitro" && product.ends_with(".metal")) return {};
      return std::string(k.name);
    }
  if (vendor.find("Microsoft") != std::string::npos && product.find("Virtual") != std::string::npos)
    return "Hyper-V";
  if (product.find("KVM") != std::string::npos) return "KVM";
  return {};
}

void read_identity(const Tree& t, HostInfo& h, bool live) {
  h.hostname = t.line("proc/sys/kernel/hostname").value_or("");
  h.kernel_release = t.line("proc/sys/kernel/osrelease").value_or("");
  h.kernel_version = t.line("proc/sys/kernel/version").value_or("");
  h.arch = t.line("proc/sys/kernel/arch").value_or("");
  if (h.arch.empty() && live) {
    utsname u{};
    if (::uname(&u) == 0) h.arch = u.machine;
  }
}

void read_cpu(const Tree& t, HostInfo& h, const std::string& cpuinfo) {
  h.cpu_vendor = cpuinfo_field(cpuinfo, "vendor_id");
  h.cpu_model = cpuinfo_field(cpuinfo, "model name");
  h.present_cpus = cpu_list_file(t, "sys/devices/system/cpu/present");
  h.online_cpus = cpu_list_file(t, "sys/devices/system/cpu/online");
  if (auto v = t.integer("sys/devices/system/cpu/smt/active")) h.smt_active = *v != 0;
  h.smt_control = t.line("sys/devices/system/cpu/smt/control").value_or("");
  h.clocksource =
      t.line("sys/devices/system/clocksource/clocksource0/current_clocksource").value_or("");
  std::istringstream avail(
      t.line("sys/devices/system/clocksource/clocksource0/available_clocksource").value_or(""));
  for (std::string w; avail >> w;) h.available_clocksources.push_back(w);
}

void read_frequency(const Tree& t, HostInfo& h) {
  for (int cpu : h.online_cpus) {
    const std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/";
    if (auto g = t.line(dir + "scaling_governor")) h.governors.push_back({cpu, *g});
    if (h.cpufreq_driver.empty()) h.cpufreq_driver = t.line(dir + "scaling_driver").value_or("");
  }
  // intel_pstate has its own knob and ignores cpufreq/boost; check it first.
  constexpr std::string_view kNoTurbo = "sys/devices/system/cpu/intel_pstate/no_turbo";
  constexpr std::string_view kBoost = "sys/devices/system/cpu/cpufreq/boost";
  if (auto v = t.integer(kNoTurbo)) {
    h.boost = *v == 0;
    h.boost_control = "/" + std::string(kNoTurbo);
  } else if (auto b = t.integer(kBoost)) {
    h.boost = *b != 0;
    h.boost_control = "/" + std::string(kBoost);
  }
}

void read_virtualization(const Tree& t, HostInfo& h, const std::string& cpuinfo) {
  auto note = [&](const std::string& name, std::string evidence) {
    h.virtualized = true;
    if (h.hypervisor.empty()) h.hypervisor = name;
    h.hypervisor_evidence.push_back(std::move(evidence));
  };
  if (h.cpuid.hypervisor_bit && !h.cpuid.hypervisor_signature.empty())
    note(hypervisor_from_signature(h.cpuid.hypervisor_signature),
         "cpuid leaf 0x40000000 signature \"" + h.cpuid.hypervisor_signature + "\"");
  else if (h.cpuid.hypervisor_bit)
    note("", "cpuid leaf 1 hypervisor bit");
  if (has_word(cpuinfo_field(cpuinfo, "flags"), "hypervisor"))
    note("", "\"hypervisor\" flag in /proc/cpuinfo");
  if (auto type = t.line("sys/hypervisor/type"); type && !type->empty()) {
    std::string name = *type == "xen" ? "Xen" : *type;
    note(name, "/sys/hypervisor/type is \"" + *type + "\"");
  }
  const auto vendor = t.line("sys/class/dmi/id/sys_vendor").value_or("");
  const auto product = t.line("sys/class/dmi/id/product_name").value_or("");
  if (auto name = hypervisor_from_dmi(vendor, product); !name.empty())
    note(name, "DMI says \"" + vendor + "\" / \"" + product + "\"");
}

bool is_core_pmu(const std::string& name) {
  return name == "cpu" || name == "cpu_core" || name == "cpu_atom" ||
         name.starts_with("armv8_") || name.starts_with("armv7_");
}

bool is_x86(const std::string& arch) {
  return arch == "x86_64" || arch == "i386" || arch == "i686";
}

void count_counters(HostInfo& h) {
  const auto& c = h.cpuid;
  if (h.core_pmus.empty()) {
    h.counters_source = "no core PMU in /sys/bus/event_source/devices";
    return;
  }
  if (c.perfmon_version > 0) {
    h.gp_counters = c.perfmon_gp_counters;
    h.fixed_counters = c.perfmon_version >= 2 ? c.perfmon_fixed_counters : 0;
    h.counters_source = "cpuid leaf 0xa";
  } else if (c.vendor == "AuthenticAMD" || c.vendor == "HygonGenuine") {
    if (c.amd_perfmon_v2) {
      h.gp_counters = c.amd_core_counters;
      h.counters_source = "cpuid 0x80000022";
    } else {
      h.gp_counters = c.amd_perfctr_ext_core ? kAmdExtCoreCounters : kAmdLegacyCounters;
      h.counters_source = "cpuid 0x80000001 PerfCtrExtCore";
    }
  } else {
    h.counters_source = "unknown for this CPU";
  }
}

void read_perf(const Tree& t, HostInfo& h) {
  h.perf_event_paranoid = as_int(t.integer("proc/sys/kernel/perf_event_paranoid"));
  h.perf_events = t.exists("proc/sys/kernel/perf_event_paranoid");
  h.nmi_watchdog = as_int(t.integer("proc/sys/kernel/nmi_watchdog"));
  h.pmus = t.list("sys/bus/event_source/devices");
  for (const auto& p : h.pmus)
    if (is_core_pmu(p)) h.core_pmus.push_back(p);
  for (const auto& p : h.core_pmus) {
    h.pmu_name = t.line("sys/bus/event_source/devices/" + p + "/caps/pmu_name").value_or("");
    if (!h.pmu_name.empty()) break;
  }
  count_counters(h);
  const bool breakpoint_pmu = std::ranges::find(h.pmus, "breakpoint") != h.pmus.end();
  if (breakpoint_pmu && is_x86(h.arch)) h.breakpoint_slots = kX86BreakpointSlots;
}

void read_scheduling(const Tree& t, HostInfo& h) {
  h.isolated_cpus = cpu_list_file(t, "sys/devices/system/cpu/isolated");
  h.nohz_full_cpus = cpu_list_file(t, "sys/devices/system/cpu/nohz_full");
  const auto cmdline = t.line("proc/cmdline").value_or("");
  h.cmdline_isolcpus = cmdline_param(cmdline, "isolcpus");
  h.cmdline_nohz_full = cmdline_param(cmdline, "nohz_full");
  if (auto text = t.line("proc/loadavg")) {
    std::istringstream in(*text);
    LoadAverage l;
    if (in >> l.one >> l.five >> l.fifteen) h.load = l;
  }
}

void read_memory(const Tree& t, HostInfo& h) {
  h.randomize_va_space = as_int(t.integer("proc/sys/kernel/randomize_va_space"));
  h.thp_enabled = bracketed(t.line("sys/kernel/mm/transparent_hugepage/enabled").value_or(""));
  std::istringstream meminfo(t.read("proc/meminfo").value_or(""));
  for (std::string key; meminfo >> key;) {
    if (key == "MemTotal:") {
      meminfo >> h.mem_total_kb;
      break;
    }
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  // /proc/swaps: a header, then "Filename Type Size Used Priority" per device (KiB).
  std::istringstream swaps(t.read("proc/swaps").value_or(""));
  std::string line;
  std::getline(swaps, line);
  while (std::getline(swaps, line)) {
    std::istringstream fields(line);
    std::string name, type;
    std::uint64_t size = 0;
    if (!(fields >> name >> type >> size)) continue;
    ++h.swap_devices;
    h.swap_total_kb += size;
  }
  h.swappiness = as_int(t.integer("proc/sys/vm/swappiness"));
}

void read_privilege(const Tree& t, HostInfo& h) {
  std::istringstream status(t.read("proc/self/status").value_or(""));
  for (std::string line; std::getline(status, line);) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "Uid:") {
      unsigned real = 0, effective = 0;
      if (fields >> real >> effective) h.euid = effective;
    } else if (key == "CapEff:") {
      std::string hex;
      fields >> hex;
      std::uint64_t caps = 0;
      auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), caps, 16);
      if (ec == std::errc{})
        h.perf_capable = ((caps >> kCapPerfmon) & 1) || ((caps >> kCapSysAdmin) & 1);
    }
  }
}

}  // namespace

HostInfo read_host(const std::string& root, const CpuidInfo& cpuid) {
  const Tree t(root);
  HostInfo h;
  h.cpuid = cpuid;
  const auto cpuinfo = t.read("proc/cpuinfo").value_or("");
  read_identity(t, h, fs::path(root.empty() ? "/" : root) == fs::path("/"));
  read_cpu(t, h, cpuinfo);
  read_frequency(t, h);
  read_virtualization(t, h, cpuinfo);
  read_perf(t, h);
  read_scheduling(t, h);
  read_memory(t, h);
  read_privilege(t, h);
  return h;
}

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  const std::string s = trim(text);
  std::string_view rest = s;
  auto number = [](std::string_view v, int& out) {
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    return ec == std::errc{} && p == v.data() + v.size() && out >= 0;
  };
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto dash = item.find('-');
    int lo = 0, hi = 0;
    if (dash == std::string_view::npos) {
      if (!number(item, lo)) return std::nullopt;
      hi = lo;
    } else if (!number(item.substr(0, dash), lo) || !number(item.substr(dash + 1), hi) ||
               hi < lo) {
      return std::nullopt;
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus_in) {
  std::vector<int> cpus = cpus_in;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace obscheck
