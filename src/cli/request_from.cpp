#include "cli/request_from.h"

#include "job/check/check_setup.h"

namespace obscheck {
namespace {

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
  r.launch = launch_request_from(o);
  return r;
}

SettledRequest check_request_from(const Options& o) {
  return settle_backend(asked_check_request(o));
}

}  // namespace obscheck
