#include "cli/request_from.h"

#include "job/check/check_setup.h"

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

// How the target starts, as the options say (job/check/check_setup.h launch_spec_for turns
// it into a LaunchSpec).
LaunchRequest launch_request_from(const Options& o) {
  LaunchRequest l = o.request.launch;
  l.argv = o.target;
  return l;
}

}  // namespace

SweepRequest sweep_request_from(const Options& o) {
  SweepRequest s = o.sweep;
  s.check = o.request;
  s.check.launch = launch_request_from(o);
  s.confidence = o.confidence;
  s.allow_output_diff = o.allow_output_diff;
  s.fail_on = o.fail_on;
  return s;
}

CheckRequest asked_check_request(const Options& o) {
  CheckRequest r = o.request;
  r.observer = observer_request_from(o);
  r.launch = launch_request_from(o);
  return r;
}

SettledRequest check_request_from(const Options& o) {
  return settle_backend(asked_check_request(o));
}

}  // namespace obscheck
