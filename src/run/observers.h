// run/: what the chosen observer does to one run of a check, beside the counters that
// are its metrics (docs/design.md: observe/). One implementation per kind of
// dose; the measurer (run/measurer.h) calls them at the same points of every run:
//   launch:  how the level starts the target (wrapped in a profiler command, or the
//            level's build variant; else the target as given);
//   events:  what the level counts beside the metrics (probes and breakpoints: the
//            first k, opened with the counters so they are read together);
//   attach:  what watches the corked child while it runs (sampling: a ring buffer
//            drained on a thread, as a profiler does);
//   collect: what the observer recorded, moved out of the readings into the run's
//            `extra` (probe hits, samples taken and lost): the dose, not a metric.
#pragma once

#include <sys/types.h>

#include <memory>
#include <vector>

#include "events/event.h"
#include "launch/launcher.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "run/check.h"

namespace obscheck {

// The descriptors obscheck-exec (probes/exec/) is handed through a profiler command:
// its control socket and the pipe that becomes the target's output.
inline constexpr int kExecControlFd = 3;
inline constexpr int kExecOutputFd = 4;

// An observer's hold on one running child; ended by collect.
class Attachment {
 public:
  virtual ~Attachment() = default;
  virtual void start() {}                  // just before the child is released
  virtual void collect(RunRecord& rec) = 0;  // after it was reaped
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual LaunchSpec launch(const LaunchSpec& base, const Level&) const { return base; }
  virtual EventSet events(const Level&) const { return {}; }
  virtual std::unique_ptr<Attachment> attach(pid_t, const Level&) const { return nullptr; }
  // rec.readings hold the metrics', then those of events() at indexes `own` of the
  // counted set: the observer moves its part out into rec.extra.
  virtual void collect(RunRecord&, const EventSet& /*counted*/, const std::vector<std::size_t>& /*own*/) const {}
};

// The observer a check's spec names: the mechanism its kind's row gives
// (observe/observer_kinds.h ObserverKindInfo::attach).
std::unique_ptr<Observer> make_observer(const ObserverSpec& spec);

}  // namespace obscheck
