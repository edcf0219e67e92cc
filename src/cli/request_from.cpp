#include "cli/request_from.h"

#include "events/event.h"
#include "job/check_setup.h"

namespace obscheck {
namespace {

ObserverRequest observer_request_from(const Options& o) {
  ObserverRequest r;
  r.kind = !o.probes.empty()         ? ObserverKind::probes
           : !o.breakpoints.empty()  ? ObserverKind::breakpoints
           : !o.sample_freq.empty()  ? ObserverKind::sampling
           : !o.observer_cmd.empty() ? ObserverKind::command
           : !o.build.empty()        ? ObserverKind::build
                                     : ObserverKind::counters;
  r.symbols = !o.probes.empty() ? o.probes : o.breakpoints;
  r.frequencies = o.sample_freq;
  r.sample_event = o.sample_event;
  r.command = o.observer_cmd;
  r.levels = o.levels;
  r.build = o.build;
  r.probe_sites = o.probe_sites;
  return r;
}

}  // namespace

LaunchRequest launch_request_from(const Options& o) {
  LaunchRequest l;
  l.argv = o.target;
  l.aslr = o.aslr;
  l.cpu = o.cpu;
  l.env_pad = o.env_pad;
  l.timeout_s = o.timeout_s;
  l.show_output = o.show_output;
  l.run_as = o.run_as;
  l.keep_output_head = o.keep_output_head;
  return l;
}

SweepRequest sweep_request_from(const Options& o) {
  SweepRequest r;
  r.counters = o.counters;
  r.metric = o.metric;
  r.runs = o.runs;
  r.warmup = o.warmup;
  r.warmup_given = o.warmup_given;
  r.seed = o.seed;
  r.seed_given = o.seed_given;
  r.backend = o.backend;
  r.sim_cache = o.sim_cache;
  r.confidence = o.confidence;
  r.env_sizes = o.env_sizes;
  r.argv0_pads = o.argv0_pads;
  r.link_command = o.link_command;
  r.link_objects = o.link_objects;
  r.link_orders = o.link_orders;
  r.contexts = o.contexts;
  r.launch = launch_request_from(o);
  return r;
}

CheckRequest asked_check_request(const Options& o) {
  CheckRequest r;
  r.observer = observer_request_from(o);
  r.mode = o.mode;
  r.backend = o.backend;
  r.sim_cache = o.sim_cache;
  if (!o.counters.empty()) r.counters = CounterList(split_event_list(o.counters));
  r.allow_missing = o.allow_missing;
  r.margin = o.margin;
  r.seed = o.seed;
  r.seed_given = o.seed_given;
  r.runs = o.runs;
  r.max_runs = o.max_runs;
  r.allow_multiplex = o.allow_multiplex;
  r.warmup = o.warmup;
  r.warmup_given = o.warmup_given;
  r.time_budget = o.time_budget;
  r.ignore_failure = o.ignore_failure;
  r.leftovers = leftovers_from_string(o.leftovers);
  r.launch = launch_request_from(o);
  return r;
}

SettledRequest check_request_from(const Options& o) {
  return settle_backend(asked_check_request(o), to_string(o.backend), o.sim_cache);
}

}  // namespace obscheck
