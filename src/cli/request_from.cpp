#include "cli/request_from.h"

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

}  // namespace

LaunchRequest launch_request_from(const Options& o) {
  LaunchRequest l = o.request.launch;
  l.argv = o.target;
  return l;
}

SweepRequest sweep_request_from(const Options& o) {
  const CheckRequest& c = o.request;
  return {.counters = o.counters, .metric = o.metric, .runs = c.runs, .warmup = c.warmup,
          .warmup_given = c.warmup_given, .seed = c.seed, .seed_given = c.seed_given, .backend = c.backend,
          .sim_cache = c.sim_cache, .confidence = o.confidence, .env_sizes = o.env_sizes,
          .argv0_pads = o.argv0_pads, .link_command = o.link_command, .link_objects = o.link_objects,
          .link_orders = o.link_orders, .contexts = o.contexts, .launch = launch_request_from(o)};
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
