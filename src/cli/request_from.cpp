#include "cli/request_from.h"

#include <tuple>

#include "events/event.h"
#include "job/check_setup.h"

namespace obscheck {
namespace {

// The observer's kind and symbols, from the option that names them; its knobs were
// stored in the request as they were read.
ObserverRequest observer_request_from(const Options& o) {
  ObserverRequest r = o.request.observer;
  r.kind = !o.probes.empty()        ? ObserverKind::probes
           : !o.breakpoints.empty() ? ObserverKind::breakpoints
           : !r.frequencies.empty() ? ObserverKind::sampling
           : !r.command.empty()     ? ObserverKind::command
           : !r.build.empty()       ? ObserverKind::build
                                    : ObserverKind::counters;
  r.symbols = !o.probes.empty() ? o.probes : o.breakpoints;
  return r;
}

// How the target starts, as the options say (job/check_setup.h launch_spec_for turns
// it into a LaunchSpec).
LaunchRequest launch_request_from(const Options& o) {
  LaunchRequest l = o.request.launch;
  l.argv = o.target;
  return l;
}

}  // namespace

SweepRequest sweep_request_from(const Options& o) {
  SweepRequest s = o.sweep;
  const CheckRequest& c = o.request;
  std::tie(s.counters, s.runs, s.warmup, s.warmup_given, s.seed, s.seed_given, s.backend, s.sim_cache, s.confidence) =
      std::tie(o.counters, c.runs, c.warmup, c.warmup_given, c.seed, c.seed_given, c.backend, c.sim_cache, o.confidence);
  s.launch = launch_request_from(o);
  return s;
}

CheckRequest asked_check_request(const Options& o) {
  CheckRequest r = o.request;
  r.observer = observer_request_from(o);
  if (!o.counters.empty()) r.counters = CounterList(split_event_list(o.counters));
  r.leftovers = leftovers_from_string(o.leftovers);
  r.launch = launch_request_from(o);
  return r;
}

SettledRequest check_request_from(const Options& o) {
  return settle_backend(asked_check_request(o), to_string(o.request.backend), o.request.sim_cache);
}

}  // namespace obscheck
