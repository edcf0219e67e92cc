#include "run/observers.h"

#include <optional>

#include "observe/observer_kinds.h"
#include "observe/probes.h"
#include "observe/sampling.h"
#include "observe/wrap.h"

namespace obscheck {
namespace {

// The counters alone: every level's dose is its counter list, which the measurer
// programs; nothing else to attach or collect.
class CounterObserver final : public Observer {};

// Uprobes or hardware breakpoints: level k counts the first k, beside the metrics.
class ProbeObserver final : public Observer {
 public:
  explicit ProbeObserver(EventSet probes) : probes_(std::move(probes)) {}
  EventSet events(const Level& level) const override {
    EventSet first;
    const auto* attached = std::get_if<ProbesAttached>(&level.knob);
    const std::size_t k = attached ? attached->probes : 0;
    for (std::size_t i = 0; i < k; ++i) {
      first.groups.push_back({first.events.size()});
      first.events.push_back(probes_.events.at(i));
    }
    return first;
  }
  void collect(RunRecord& rec, const EventSet& counted, const std::vector<std::size_t>& own) const override {
    if (own.empty()) return;
    // Probe hit counts go beside the metrics, not among them: they are the dose.
    for (const ProbeHit& h : probe_hits(rec.readings, counted, own)) rec.probe_hits[h.name] = h.hits;
    rec.readings.resize(own.front());
  }

 private:
  EventSet probes_;
};

class SamplingAttachment final : public Attachment {
 public:
  explicit SamplingAttachment(Sampler s) : sampler_(std::move(s)) {}
  void start() override {
    if (sampler_.active()) drainer_.emplace(sampler_);
  }
  void collect(RunRecord& rec) override {
    drainer_.reset();  // stops the thread and drains the last records
    if (!sampler_.active()) return;
    const SamplingStats st = sampler_.stats();
    rec.sampling = SamplingRecord{st.frequency, st.samples,   st.lost,          st.throttles,
                                  st.unthrottles, st.run_ns, achieved_hz(st)};
  }

 private:
  Sampler sampler_;
  std::optional<SamplerThread> drainer_;
};

// A sampling profiler's own mechanism: level "freq" Hz samples the event (0: none).
class SamplingObserver final : public Observer {
 public:
  explicit SamplingObserver(EventDesc event) : event_(std::move(event)) {}
  std::unique_ptr<Attachment> attach(pid_t child, const Level& level) const override {
    const auto* sampled = std::get_if<SampledAt>(&level.knob);
    return std::make_unique<SamplingAttachment>(
        Sampler::open(child, event_, sampled ? sampled->freq : 0));
  }

 private:
  EventDesc event_;
};

// A profiler command: level "wrap" runs the target inside the template ("0": bare),
// always through obscheck-exec, so that the counters start at the target's own exec
// and its own output is compared (run/measurer.cpp CommandMeasurer).
class CommandObserver final : public Observer {
 public:
  CommandObserver(std::string command, std::string shim) : command_(std::move(command)), shim_(std::move(shim)) {}
  LaunchSpec launch(const LaunchSpec& base, const Level& level) const override {
    LaunchSpec corked = base;
    corked.path = shim_;
    corked.argv = {shim_, base.path};
    corked.argv.insert(corked.argv.end(), base.argv.begin(), base.argv.end());
    return wrap_launch(corked, command_, std::get<WrappedAt>(level.knob).wrap);
  }

 private:
  std::string command_;
  std::string shim_;
};

// Compile-time probes: level "variant" runs that build of the program.
class BuildObserver final : public Observer {
 public:
  explicit BuildObserver(std::vector<std::string> variants) : variants_(std::move(variants)) {}
  LaunchSpec launch(const LaunchSpec& base, const Level& level) const override {
    LaunchSpec l = base;
    l.path = variants_.at(std::get<BuiltVariantRun>(level.knob).variant);
    l.argv.at(0) = l.path;
    return l;
  }

 private:
  std::vector<std::string> variants_;
};

}  // namespace

std::unique_ptr<Observer> make_observer(const ObserverSpec& spec) {
  switch (observer_info(spec.kind).attach) {
    case Attach::counters_only: return std::make_unique<CounterObserver>();
    case Attach::counts_beside: return std::make_unique<ProbeObserver>(spec.probes);
    case Attach::watches_child: return std::make_unique<SamplingObserver>(spec.sample_event);
    case Attach::wraps_launch: return std::make_unique<CommandObserver>(spec.command, spec.exec_shim);
    case Attach::runs_a_variant: return std::make_unique<BuildObserver>(spec.variants);
  }
  return std::make_unique<CounterObserver>();
}

}  // namespace obscheck
