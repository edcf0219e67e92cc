// record/: the runs of a journal as the analyses read them — one column per field the
// verdicts use, one row per run line in journal order, and nothing else of a line
// (the output head, the observer's extras other than the host's load, and the
// configuration's id are not kept).
// A million runs take about 130 MB here, against several hundred bytes a run as
// RunRecords; a live check appends each run as it is recorded, and a reader of a
// journal can fill it line by line without building RunRecords at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "record/number_column.h"
#include "record/run_record.h"

namespace obscheck {

struct RunTable {
  // One entry per row.
  std::vector<std::uint32_t> index;   // RunRecord::index (Trial::index)
  std::vector<std::uint32_t> block;
  std::vector<std::uint32_t> config;
  std::vector<std::uint8_t> warmup;
  std::vector<std::uint8_t> timed_out;
  std::vector<std::int32_t> signal;
  std::vector<std::int32_t> exit_code;
  std::vector<std::uint32_t> digest;  // into `digests`; 0: the output was not captured
  std::vector<std::string> digests{std::string()};  // interned output digests; [0] is ""

  // The driver's metrics (check_metrics): wall time and the rusage of wait4.
  NumberColumn wall_ns, utime_ns, stime_ns, maxrss_kb, minflt, nvcsw, nivcsw;
  // The driver's own peak the kernel carried across the run's exec (ExitInfo::
  // pre_exec_maxrss_kb), a floor under maxrss_kb: NaN when not recorded (journals
  // written before it was). May be shorter than the other columns in a table built by
  // hand: a missing entry is NaN.
  NumberColumn pre_exec_maxrss_kb;

  // The host's load during the run, as the runner records it in extra["host"]
  // (run/host_sample.h; RunRecord::host): other processes' CPU time over the run (ns, from /proc/stat's
  // tick counts less the target's own CPU time; journals written before both sides
  // were taken in ticks can hold a tick below 0), the host's idle CPU time over the
  // run (ns; NaN in journals without it) and the run queue at its end (procs_running,
  // the driver included). NaN when not recorded. host_idle_cpu_ns may be shorter than
  // the other columns in a table built by hand: a missing entry is NaN.
  NumberColumn host_other_cpu_ns, host_procs_running, host_idle_cpu_ns;
  // The host's busy CPU time over the run, every process's (ns, whole ticks; NaN in
  // journals without it; may be shorter than the other columns, as host_idle_cpu_ns).
  NumberColumn host_busy_cpu_ns;

  // One column per distinct reading name, in order of first appearance.
  struct Readings {
    std::string name;
    NumberColumn value;                   // NaN: the run has no such reading, or it never ran
    std::vector<std::uint8_t> multiplexed;  // the reading was multiplexed (scaled by `scale`)
    std::vector<float> scale;             // time_enabled / time_running (1 exact, 0 never ran)
  };
  std::vector<Readings> readings;

  std::size_t size() const { return index.size(); }

  // One row's fields other than its readings, as both a RunRecord and a journal line
  // (record/journal_reader.h add_run) give them.
  struct Row {
    std::size_t index = 0, block = 0, config = 0;
    bool warmup = false, timed_out = false;
    int signal = 0, exit_code = 0;
    std::string_view digest;  // "" when the output was not captured
    double wall_ns = 0, utime_ns = 0, stime_ns = 0, maxrss_kb = 0, minflt = 0, nvcsw = 0, nivcsw = 0;
    double host_other_cpu_ns = 0, host_procs_running = 0;  // NaN when not recorded
    double host_idle_cpu_ns = std::numeric_limits<double>::quiet_NaN();
    double host_busy_cpu_ns = std::numeric_limits<double>::quiet_NaN();
    double pre_exec_maxrss_kb = std::numeric_limits<double>::quiet_NaN();
  };
  // Appends a row (its readings absent until set_reading) and returns its number.
  // Throws Error(io) when a field does not fit its column (an index, block or
  // configuration beyond 2^32).
  std::size_t append(const Row& row);
  // Sets one reading of row `row`, adding its column when the name is new. A value
  // that is not finite is stored as NaN.
  void set_reading(std::size_t row, const std::string& name, double value, bool multiplexed, double scale);

  // Appends one row from a run as the runner records it.
  void add(const RunRecord& r);
  // The column of a reading name, or nullptr.
  const Readings* find(const std::string& name) const;

 private:
  Readings& column(const std::string& name);
};

RunTable run_table_of(const std::vector<RunRecord>& runs);

// A row's host-load columns from a run's decoded extra "host" (record/run_fields.h
// HostLoadRecord): each member present as its value, each absent (or no "host" at
// all: a journal written before it was recorded, or a run /proc/stat could not be
// read for) as NaN.
void set_host_load(RunTable::Row& row, const std::optional<HostLoadRecord>& host);

// The driver's own metrics of a run, taken the same way whatever is observed: wall time
// and the reaped process's rusage. One list for every command, in the order reports
// give them. `column` is the check's RunTable column, or null for a metric the check
// leaves out (major faults: page-cache misses outside the program, zero in a warm
// check); `measure` reports them all.
struct DriverMetric {
  const char* name;
  const char* unit;
  double (*of)(const ExitInfo&);           // its value in one run
  NumberColumn RunTable::*column;          // null: not among the check's metrics
};
const std::vector<DriverMetric>& driver_metrics();

// A counter's unit: perf's software clocks count nanoseconds, every other event counts.
std::string counter_unit(const std::string& name);

}  // namespace obscheck
