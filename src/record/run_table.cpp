#include "record/run_table.h"

#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "util/error.h"
#include "util/timeval.h"

namespace obscheck {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::uint32_t narrow(std::size_t v, const char* what, std::size_t run) {
  if (v > std::numeric_limits<std::uint32_t>::max())
    throw Error(ErrorKind::io, fmt::format("run {}: {} {} is out of range", run, what, v));
  return static_cast<std::uint32_t>(v);
}


}  // namespace

RunTable::Readings& RunTable::column(const std::string& name) {
  for (Readings& c : readings)
    if (c.name == name) return c;
  Readings& c = readings.emplace_back();
  c.name = name;
  const std::size_t rows = size();
  c.value.assign(rows, kNaN);
  c.multiplexed.assign(rows, 0);
  c.scale.assign(rows, std::numeric_limits<float>::quiet_NaN());
  return c;
}

const RunTable::Readings* RunTable::find(const std::string& name) const {
  for (const Readings& c : readings)
    if (c.name == name) return &c;
  return nullptr;
}

std::size_t RunTable::append(const Row& r) {
  const std::size_t row = size();
  index.push_back(narrow(r.index, "index", r.index));
  block.push_back(narrow(r.block, "block", r.index));
  config.push_back(narrow(r.config, "configuration", r.index));
  warmup.push_back(r.warmup);
  timed_out.push_back(r.timed_out);
  signal.push_back(r.signal);
  exit_code.push_back(r.exit_code);
  std::uint32_t id = 0;
  if (!r.digest.empty()) {
    // Few distinct digests (one per behaviour of the target): a linear look-up is cheap.
    for (std::size_t k = 1; k < digests.size() && !id; ++k)
      if (digests[k] == r.digest) id = static_cast<std::uint32_t>(k);
    if (!id) {
      id = narrow(digests.size(), "digest", r.index);
      digests.emplace_back(r.digest);
    }
  }
  digest.push_back(id);
  wall_ns.push_back(r.wall_ns);
  utime_ns.push_back(r.utime_ns);
  stime_ns.push_back(r.stime_ns);
  maxrss_kb.push_back(r.maxrss_kb);
  minflt.push_back(r.minflt);
  nvcsw.push_back(r.nvcsw);
  nivcsw.push_back(r.nivcsw);
  host_other_cpu_ns.push_back(r.host_other_cpu_ns);
  host_procs_running.push_back(r.host_procs_running);
  host_idle_cpu_ns.resize(host_procs_running.size() - 1, kNaN);
  host_idle_cpu_ns.push_back(r.host_idle_cpu_ns);
  host_busy_cpu_ns.resize(host_procs_running.size() - 1, kNaN);
  host_busy_cpu_ns.push_back(r.host_busy_cpu_ns);
  pre_exec_maxrss_kb.resize(host_procs_running.size() - 1, kNaN);
  pre_exec_maxrss_kb.push_back(r.pre_exec_maxrss_kb);
  for (Readings& c : readings) {
    c.value.push_back(kNaN);
    c.multiplexed.push_back(0);
    c.scale.push_back(std::numeric_limits<float>::quiet_NaN());
  }
  return row;
}

void RunTable::set_reading(std::size_t row, const std::string& name, double value, bool multiplexed, double scale) {
  Readings& c = column(name);
  c.value.set(row, std::isfinite(value) ? value : kNaN);
  c.multiplexed[row] = multiplexed;
  c.scale[row] = static_cast<float>(scale);
}

void RunTable::add(const RunRecord& r) {
  const struct rusage& u = r.exit.usage;
  Row row;
  row.index = r.index;
  row.block = r.block;
  row.config = r.config;
  row.warmup = r.warmup;
  row.timed_out = r.exit.timed_out;
  row.signal = r.exit.signal;
  row.exit_code = r.exit.exit_code;
  row.digest = r.exit.output_digest;
  row.wall_ns = static_cast<double>(r.exit.wall_ns);
  row.utime_ns = static_cast<double>(timeval_ns(u.ru_utime));
  row.stime_ns = static_cast<double>(timeval_ns(u.ru_stime));
  row.maxrss_kb = static_cast<double>(u.ru_maxrss);
  row.minflt = static_cast<double>(u.ru_minflt);
  row.nvcsw = static_cast<double>(u.ru_nvcsw);
  row.nivcsw = static_cast<double>(u.ru_nivcsw);
  if (r.exit.pre_exec_maxrss_kb) row.pre_exec_maxrss_kb = static_cast<double>(*r.exit.pre_exec_maxrss_kb);
  set_host_load(row, r.host);
  const std::size_t n = append(row);
  for (const Reading& reading : r.readings)
    set_reading(n, reading.name, reading.value, reading.multiplexed, reading.scale);
}

void set_host_load(RunTable::Row& row, const std::optional<HostLoadRecord>& host) {
  const auto value = [](const auto& v) { return v ? static_cast<double>(*v) : kNaN; };
  row.host_other_cpu_ns = host ? value(host->other_cpu_ns) : kNaN;
  row.host_procs_running = host ? value(host->procs_running) : kNaN;
  row.host_idle_cpu_ns = host ? value(host->idle_cpu_ns) : kNaN;
  row.host_busy_cpu_ns = host ? value(host->busy_cpu_ns) : kNaN;
}

RunTable run_table_of(const std::vector<RunRecord>& runs) {
  RunTable t;
  for (const RunRecord& r : runs) t.add(r);
  return t;
}

const std::vector<DriverMetric>& driver_metrics() {
  static const std::vector<DriverMetric> metrics = {
      {"wall-time", "ns", [](const ExitInfo& e) { return static_cast<double>(e.wall_ns); }, &RunTable::wall_ns},
      {"user-time", "ns", [](const ExitInfo& e) { return static_cast<double>(timeval_ns(e.usage.ru_utime)); },
       &RunTable::utime_ns},
      {"system-time", "ns", [](const ExitInfo& e) { return static_cast<double>(timeval_ns(e.usage.ru_stime)); },
       &RunTable::stime_ns},
      {"max-rss", "KiB", [](const ExitInfo& e) { return static_cast<double>(e.usage.ru_maxrss); },
       &RunTable::maxrss_kb},
      {"minor-faults(ru)", "count", [](const ExitInfo& e) { return static_cast<double>(e.usage.ru_minflt); },
       &RunTable::minflt},
      {"major-faults(ru)", "count", [](const ExitInfo& e) { return static_cast<double>(e.usage.ru_majflt); },
       nullptr},
      {"vol-ctx-switches(ru)", "count", [](const ExitInfo& e) { return static_cast<double>(e.usage.ru_nvcsw); },
       &RunTable::nvcsw},
      {"invol-ctx-switches(ru)", "count", [](const ExitInfo& e) { return static_cast<double>(e.usage.ru_nivcsw); },
       &RunTable::nivcsw},
  };
  return metrics;
}

std::string counter_unit(const std::string& name) {
  return (name == "task-clock" || name == "cpu-clock" || name == "duration_time") ? "ns" : "count";
}

}  // namespace obscheck
