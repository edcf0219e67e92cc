#include "run/measurer.h"

#include <optional>

#include "observe/counters.h"
#include "observe/inprocess.h"
#include "observe/probes.h"
#include "observe/sim.h"
#include "run/host_sample.h"
#include "run/measure.h"
#include "run/signals.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The host's load around a run (other processes' CPU time, the run queue): read while
// the target is corked, and once it is reaped.
class HostLoad {
 public:
  void before() { before_ = read_proc_stat(); }
  void after(RunRecord& rec) const {
    const std::optional<ProcStat> after = read_proc_stat();
    if (before_ && after) rec.extra["host"] = host_load_json(*before_, *after, rec.exit.usage, ticks_);
  }

 private:
  std::optional<ProcStat> before_;
  long ticks_ = clock_ticks_per_second();
};

class SimMeasurer final : public Measurer {
 public:
  SimMeasurer(const Plan& plan, const CheckSpec& spec) : spec_(spec) {
    for (const Configuration& c : plan.configs) {
      simulated_.emplace_back();
      for (std::size_t e : event_indexes(spec, c.level.programmed)) simulated_.back().push_back(spec.sim_events.at(e));
    }
  }
  bool measure(std::size_t config, LaunchSpec& launch, RunRecord& rec) override {
    HostLoad host;
    try {
      host.before();
      SimRun run = run_sim_interruptible(launch, *spec_.sim, simulated_.at(config));
      rec.exit = std::move(run.exit);
      rec.readings = std::move(run.readings);
      host.after(rec);
    } catch (const Error& e) {
      if (InterruptGuard::interrupted()) return false;  // valgrind killed by us: no counts, not a failure
      if (e.kind() != ErrorKind::target_failed) throw;
      // A simulation that timed out is journalled as a native one would be: a failed
      // run without counts, which ends the sweep unless failures are ignored.
      rec.exit.timed_out = true;
      rec.exit.wall_ns = static_cast<std::uint64_t>(spec_.base.timeout_s * 1e9);
    }
    return !InterruptGuard::interrupted();  // killed by us mid-run: not a measurement
  }

 private:
  const CheckSpec& spec_;
  std::vector<std::vector<SimEvent>> simulated_;
};

// perf_event, from outside the target or from inside it.
class PerfMeasurer final : public Measurer {
 public:
  PerfMeasurer(const Plan& plan, const CheckSpec& spec, const Observer& observer)
      : spec_(spec), observer_(observer), plan_(plan) {
    for (const Configuration& c : plan.configs) {
      programmed_.push_back(event_indexes(spec, c.level.programmed));
      EventSet metrics;
      for (std::size_t item : c.level.programmed) {
        std::vector<std::size_t> group;
        for (std::size_t e : spec.item_events.at(item)) {
          group.push_back(metrics.events.size());
          metrics.events.push_back(spec.events.events.at(e));
        }
        metrics.groups.push_back(std::move(group));
      }
      own_.emplace_back();
      sets_.push_back(concat_events(metrics, observer.events(c.level), &own_.back()));
    }
  }

  bool measure(std::size_t config, LaunchSpec& launch, RunRecord& rec) override {
    const bool inside = spec_.mode == CountingMode::inprocess;
    ResultPipe pipe;
    launch.pass_fds.clear();
    if (inside) {
      pipe = make_result_pipe();
      launch.pass_fds.push_back({pipe.write_end.get(), kInprocessResultFd});
    }
    CorkedChild child = CorkedChild::spawn(launch);
    pipe.write_end.reset();  // the child holds its copy; EOF once it is gone
    InterruptGuard::set_current_group(child.pid());
    CounterSet counters;
    if (!inside) counters = CounterSet::open(child.pid(), sets_[config]);
    const Level& level = plan_.configs.at(config).level;
    std::unique_ptr<Attachment> watching = observer_.attach(child.pid(), level);
    HostLoad host;
    host.before();
    if (watching) watching->start();
    child.release();
    rec.exit = child.wait();
    if (watching) watching->collect(rec);
    host.after(rec);
    InterruptGuard::set_current_group(-1);
    if (InterruptGuard::interrupted()) return false;  // killed by us mid-run: not a measurement
    if (!inside) {
      rec.readings = counters.read();
      observer_.collect(rec, sets_[config], own_[config]);
    } else if (const std::string text = drain_result(pipe.read_end.get()); rec.exit.ok() || !text.empty()) {
      // A failed run without a result has nothing to read; a successful one must have one.
      rec.readings = match_inprocess_readings(parse_inprocess_result(text, spec_.base.argv.at(0)), spec_.events,
                                              programmed_[config]);
    }
    return true;
  }

 private:
  const CheckSpec& spec_;
  const Observer& observer_;
  const Plan& plan_;
  std::vector<std::vector<std::size_t>> programmed_, own_;
  std::vector<EventSet> sets_;
};

}  // namespace

std::unique_ptr<Measurer> make_measurer(const Plan& plan, const CheckSpec& spec, const Observer& observer) {
  if (spec.sim) return std::make_unique<SimMeasurer>(plan, spec);
  return std::make_unique<PerfMeasurer>(plan, spec, observer);
}

}  // namespace obscheck
