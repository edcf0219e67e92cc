#include <fmt/core.h>
#include <sys/time.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>

#include "analysis/measure.h"
#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "cli/sim_backend.h"
#include "events/event.h"
#include "record/run_table.h"
#include "report/measure_report.h"
#include "run/measure.h"
#include "util/error.h"

namespace obscheck {
namespace {

// What measure counts when -e is not given: the software events every Linux host
// has (this is also what perf stat falls back to without a PMU).
constexpr const char* kDefaultMeasureEvents = "task-clock,page-faults,ctx-switches,migrations";
// Under --backend sim: every simulated event (they cost nothing extra: cachegrind
// counts them all in one run). Two runs: one measures exactly, the second confirms.
constexpr const char* kDefaultSimMeasureEvents = "instructions,cycles,l1d,l1d-reads,l1i,llc,branches,branch-misses";
constexpr int kSimMeasureRuns = 2;

std::vector<MetricSeries> collect_series(const MeasureResult& r) {
  std::vector<MetricSeries> counters;
  std::map<std::string, std::size_t> slot;
  std::vector<MetricSeries> driver;
  for (const DriverMetric& d : driver_metrics()) driver.push_back(MetricSeries{d.name, d.unit});
  for (const MeasuredRun& run : r.runs) {
    if (run.warmup) continue;
    for (const Reading& rd : run.readings) {
      auto [it, fresh] = slot.emplace(rd.name, counters.size());
      if (fresh) counters.push_back(MetricSeries{rd.name, counter_unit(rd.name), {}, 0, 1.0, true});
      MetricSeries& s = counters[it->second];
      s.values.push_back(rd.value);
      s.running_ns += static_cast<double>(rd.time_running);
      s.enabled_ns += static_cast<double>(rd.time_enabled);
      if (rd.multiplexed) {
        ++s.multiplexed_runs;
        s.max_scale = std::max(s.max_scale, rd.scale);
      }
    }
    for (std::size_t i = 0; i < driver.size(); ++i) driver[i].values.push_back(driver_metrics()[i].of(run.exit));
  }
  for (auto& s : driver) counters.push_back(std::move(s));
  return counters;
}

// Under --backend sim the counts are exact: the driver's own metrics (wall time,
// rusage) time the simulator, not the program, so only the simulated events are
// reported, and runs that do not repeat one another's counts are named.
std::vector<std::string> keep_simulated(std::vector<MetricSeries>& series, const std::vector<SimEvent>& events) {
  std::vector<std::string> notes;
  std::erase_if(series, [&](const MetricSeries& s) {
    return std::none_of(events.begin(), events.end(), [&](const SimEvent& e) { return e.name == s.name; });
  });
  for (const MetricSeries& s : series)
    if (std::adjacent_find(s.values.begin(), s.values.end(), std::not_equal_to<>()) != s.values.end())
      notes.push_back(fmt::format("not deterministic: {} differs between runs (from {:.0f} to {:.0f})", s.name,
                                  *std::min_element(s.values.begin(), s.values.end()),
                                  *std::max_element(s.values.begin(), s.values.end())));
  notes.push_back("wall time and rusage are the simulator's under --backend sim, not the program's: not reported");
  return notes;
}

}  // namespace

int cmd_measure(const Options& o) {
  LaunchSpec launch = launch_spec_from(o);
  const bool sim = sim_backend(o);
  EventSet events;
  std::vector<SimEvent> simulated;
  if (sim) {
    simulated = resolve_sim_events(o.counters.empty() ? kDefaultSimMeasureEvents : o.counters);
  } else {
    events = parse_events(o.counters.empty() ? kDefaultMeasureEvents : o.counters);
    require_available(events);
  }

  MeasureSpec spec{std::move(launch), std::move(events), o.runs, o.warmup, o.ignore_failure};
  if (sim) {
    spec.sim = sim_geometry_from(o);
    spec.sim_events = simulated;
    if (!o.runs_given) spec.runs = kSimMeasureRuns;
    if (!o.warmup_given) spec.warmup = 0;
  }
  Progress progress;
  if (o.progress && !o.json)
    progress = [](int done, int total) { fmt::print(stderr, "\r  run {}/{}", done, total); };
  MeasureResult result = run_measure(spec, progress);
  if (progress) fmt::print(stderr, "\r\x1b[K");

  MeasureFindings f;
  f.argv = o.target;
  f.warmups = static_cast<std::size_t>(std::min<int>(spec.warmup, static_cast<int>(result.runs.size())));
  f.runs = result.runs.size() - f.warmups;
  f.env_bytes = result.env_bytes;
  f.aslr = o.aslr;
  f.cpu = o.cpu;
  // The bootstrap's seed is fixed per invocation so the same data give the same CI.
  const std::uint64_t seed = o.seed_given ? o.seed : 0x6f6273636865636bULL;
  std::vector<MetricSeries> series = collect_series(result);
  if (sim) {
    for (const std::string& line : sim_backend_lines(*spec.sim, simulated)) f.notes.push_back(line);
    for (std::string& n : keep_simulated(series, simulated)) f.notes.push_back(std::move(n));
  }
  for (MetricSeries& s : series) f.metrics.push_back(summarize_metric(std::move(s), seed));
  if (result.interrupted)
    f.notes.push_back(fmt::format("interrupted: {} of {} measured runs done", f.runs, spec.runs));
  if (!result.failure.empty()) f.notes.push_back(result.failure);
  for (const std::string& n : spec.events.notes) f.notes.push_back(n);  // e.g. counted at user level only

  if (f.runs > 0 || o.json)
    emit(o, o.json                       ? measure_json(f)
            : o.csv                      ? measure_csv(f)
            : o.markdown                 ? measure_markdown(f)
            : !o.field_separator.empty() ? measure_separated(f, o.field_separator)
                                         : measure_text(f, o.color));
  if (result.interrupted) return interrupted_exit_code();
  if (!result.failure.empty())
    throw Error(ErrorKind::target_failed, result.failure,
                "use -i/--ignore-failure to record failing runs and go on, or --show-output to see what it printed");
  return 0;
}

}  // namespace obscheck
