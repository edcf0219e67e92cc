#include "job/sweep/sweep_request.h"

#include <fmt/core.h>

#include <optional>

#include "job/common/request_bounds.h"
#include "util/error.h"

namespace obscheck {
namespace {

constexpr const char* kWhere = "the journal's sweep request";

template <class T>
T field(const nlohmann::json& j, const char* key) {
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(ErrorKind::io, fmt::format("{}: field {} is missing or has the wrong type", kWhere, key),
                "the journal was not written by obscheck bias or compare, or was edited");
  }
}

nlohmann::json launch_json(const LaunchRequest& l) {
  return {{"argv", l.argv},        {"aslr", l.aslr},
          {"cpu", l.cpu},          {"timeout", l.timeout_s},
          {"show_output", l.show_output}, {"run_as", l.run_as}};
}

LaunchRequest launch_from(const nlohmann::json& j) {
  LaunchRequest l;
  l.argv = field<std::vector<std::string>>(j, "argv");
  l.aslr = field<bool>(j, "aslr");
  l.cpu = field<int>(j, "cpu");
  l.timeout_s = field<double>(j, "timeout");
  l.show_output = field<bool>(j, "show_output");
  l.run_as = field<std::string>(j, "run_as");
  return l;
}

// The request's values against the bounds the command line applies (request_bounds.h),
// so a journal can ask for nothing its command line could not: Error(usage) here, which
// the caller names as the journal's fault.
void check_bounds(const SweepRequest& r) {
  const CheckRequest& c = r.check;
  const auto given = [](int v) { return v != 0 ? std::optional(v) : std::nullopt; };
  AskedValues v{.runs = given(c.runs), .max_runs = std::nullopt, .warmup = c.warmup,
                .warmup_given = c.warmup_given, .link_orders = r.link_orders, .contexts = std::nullopt,
                .cpu = c.launch.cpu >= 0 ? std::optional(c.launch.cpu) : std::nullopt,
                .timeout_s = c.launch.timeout_s != 0 ? std::optional(c.launch.timeout_s) : std::nullopt,
                .margin = c.margin, .time_budget = 0, .confidence = r.confidence, .event_lists = {}};
  check_asked_values(v);
  if (r.contexts < 0) throw Error(ErrorKind::usage, "--contexts cannot be negative");
  check_context_sizes(r);
}

}  // namespace

nlohmann::json sweep_request_json(const SweepRequest& r) {
  const CheckRequest& c = r.check;
  return {{"backend", to_string(c.backend)},
          {"sim_cache", c.sim_cache},
          {"counters", c.counters.items()},
          {"runs", c.runs},
          {"warmup", c.warmup},
          {"warmup_given", c.warmup_given},
          {"seed", c.seed},
          {"seed_given", c.seed_given},
          {"margin", c.margin},
          {"allow_multiplex", c.allow_multiplex},
          {"launch", launch_json(c.launch)},
          {"metric", r.metric},
          {"confidence", r.confidence},
          {"env_sizes", r.env_sizes},
          {"argv0_pads", r.argv0_pads},
          {"link", r.link_command},
          {"objects", r.link_objects},
          {"link_orders", r.link_orders},
          {"contexts", r.contexts},
          {"aa", r.aa},
          {"allow_output_diff", r.allow_output_diff},
          {"fail_on", r.fail_on.words()}};
}

SweepRequest sweep_request_from_json(const nlohmann::json& j, JobKind kind) {
  if (!j.is_object()) throw Error(ErrorKind::io, std::string(kWhere) + " is not an object");
  SweepRequest r;
  CheckRequest& c = r.check;
  c.backend = backend_from_string(field<std::string>(j, "backend"));
  c.sim_cache = field<std::string>(j, "sim_cache");
  c.counters = CounterList(field<std::vector<std::string>>(j, "counters"));
  c.runs = field<int>(j, "runs");
  c.warmup = field<int>(j, "warmup");
  c.warmup_given = field<bool>(j, "warmup_given");
  c.seed = field<std::uint64_t>(j, "seed");
  c.seed_given = field<bool>(j, "seed_given");
  c.margin = field<double>(j, "margin");
  c.allow_multiplex = field<bool>(j, "allow_multiplex");
  c.launch = launch_from(field<nlohmann::json>(j, "launch"));
  r.metric = field<std::string>(j, "metric");
  r.confidence = field<double>(j, "confidence");
  r.env_sizes = field<std::vector<std::size_t>>(j, "env_sizes");
  r.argv0_pads = field<std::vector<std::size_t>>(j, "argv0_pads");
  r.link_command = field<std::string>(j, "link");
  r.link_objects = field<std::vector<std::string>>(j, "objects");
  r.link_orders = field<int>(j, "link_orders");
  r.contexts = field<int>(j, "contexts");
  r.aa = field<bool>(j, "aa");
  r.allow_output_diff = field<bool>(j, "allow_output_diff");
  // The command's outcomes alone (Error(usage) otherwise); none recorded: its default.
  if (const auto words = field<std::vector<std::string>>(j, "fail_on"); !words.empty())
    r.fail_on = fail_on_outcomes(kind == JobKind::compare ? FailOnOf::compare : FailOnOf::bias, words);
  check_bounds(r);
  return r;
}

}  // namespace obscheck
