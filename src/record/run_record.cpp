#include "record/run_record.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

#include "record/journal_reader.h"
#include "util/error.h"
#include "util/timeval.h"

namespace obscheck {

namespace {

nlohmann::json finite_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

[[noreturn]] void bad_field(const std::string& field, const std::string& why) {
  throw Error(ErrorKind::io, fmt::format("field {} {}", field, why));
}

double value_or_nan(const std::optional<double>& x) {
  return x ? *x : std::numeric_limits<double>::quiet_NaN();
}

// Appends a JSON string (quotes and escapes as nlohmann's dump writes them).
void append_string(std::string& out, const std::string& s) {
  out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Appends a double as JSON: shortest round-trip digits, ".0" on an integral value (as
// nlohmann writes floats, so the value reads back as a float), null when not finite.
void append_double(std::string& out, double x) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
  const std::size_t start = out.size();
  fmt::format_to(std::back_inserter(out), "{}", x);
  if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

void append_bool(std::string& out, bool b) { out += b ? "true" : "false"; }

}  // namespace

RunRecord run_record_for(const Plan& plan, const Trial& trial) {
  RunRecord r;
  r.index = trial.index;
  r.block = trial.block;
  r.position = trial.position;
  r.config = trial.config;
  r.config_id = plan.configs.at(trial.config).id;
  r.warmup = trial.warmup;
  return r;
}

void to_json(nlohmann::json& j, const ExitInfo& e) {
  j = {{"code", e.exit_code},
       {"signal", e.signal},
       {"timed_out", e.timed_out},
       {"wall_ns", e.wall_ns},
       {"output_sha256", e.output_digest.empty() ? nlohmann::json() : nlohmann::json(e.output_digest)},
       {"output_bytes", e.output_bytes}};
}

nlohmann::json rusage_to_json(const struct rusage& r) {
  return {{"utime_ns", timeval_ns(r.ru_utime)},
          {"stime_ns", timeval_ns(r.ru_stime)},
          {"maxrss_kb", r.ru_maxrss},
          {"minflt", r.ru_minflt},
          {"majflt", r.ru_majflt},
          {"nvcsw", r.ru_nvcsw},
          {"nivcsw", r.ru_nivcsw}};
}

void to_json(nlohmann::json& j, const Reading& r) {
  j = {{"name", r.name},
       {"raw", r.raw},
       {"enabled", r.time_enabled},
       {"running", r.time_running},
       {"value", finite_or_null(r.value)},
       {"multiplexed", r.multiplexed},
       {"scale", finite_or_null(r.scale)}};
  if (!r.fault.empty()) j["fault"] = r.fault;
}

void to_json(nlohmann::json& j, const RunRecord& r) {
  j = {{"type", "run"},
       {"index", r.index},
       {"block", r.block},
       {"position", r.position},
       {"config", r.config},
       {"config_id", r.config_id},
       {"warmup", r.warmup},
       {"env_bytes", r.env_bytes},
       {"exit", r.exit},
       {"rusage", rusage_to_json(r.exit.usage)},
       {"readings", r.readings},
       {"extra", r.extra}};
  if (r.exit.pre_exec_maxrss_kb) j["rusage"]["pre_exec_maxrss_kb"] = *r.exit.pre_exec_maxrss_kb;
}

RunRecord run_record_of(const RunFields& f) {
  RunRecord r;
  r.index = f.index;
  r.block = f.block;
  r.position = f.position;
  r.config = f.config;
  r.config_id = f.config_id;
  r.warmup = f.warmup;
  r.env_bytes = f.env_bytes;
  ExitInfo& e = r.exit;
  e.exit_code = static_cast<int>(f.code);
  e.signal = static_cast<int>(f.signal);
  e.timed_out = f.timed_out;
  e.wall_ns = f.wall_ns;
  e.output_digest = f.output_sha256.value_or(std::string());
  e.output_bytes = f.output_bytes;
  e.usage.ru_utime = ns_timeval(f.utime_ns);
  e.usage.ru_stime = ns_timeval(f.stime_ns);
  e.usage.ru_maxrss = static_cast<long>(f.maxrss_kb);
  e.usage.ru_minflt = static_cast<long>(f.minflt);
  e.usage.ru_majflt = static_cast<long>(f.majflt);
  e.usage.ru_nvcsw = static_cast<long>(f.nvcsw);
  e.usage.ru_nivcsw = static_cast<long>(f.nivcsw);
  e.pre_exec_maxrss_kb = f.pre_exec_maxrss_kb;
  r.readings.reserve(f.n_readings);
  for (std::size_t i = 0; i < f.n_readings; ++i) {
    const RunFields::Reading& in = f.readings[i];
    Reading& out = r.readings.emplace_back();
    out.name = in.name;
    out.raw = in.raw;
    out.time_enabled = in.enabled;
    out.time_running = in.running;
    out.value = value_or_nan(in.value);
    out.multiplexed = in.multiplexed;
    out.scale = value_or_nan(in.scale);
    out.fault = in.fault;
  }
  return r;
}

RunRecord run_record_from_line(std::string_view line) {
  RunFields f;
  std::string type;
  std::optional<FieldError> error;
  if (!parse_run_line(line, f, type, error)) throw Error(ErrorKind::io, "a run line that is not valid JSON");
  if (type != "run") throw Error(ErrorKind::io, "not a run line (its \"type\" is not \"run\")");
  if (error) bad_field(error->field, error->why);
  if (auto e = check_run_fields(f, nullptr)) bad_field(e->field, e->why);
  RunRecord r = run_record_of(f);
  if (f.extra != "{}") {
    r.extra = nlohmann::json::parse(f.extra, nullptr, false);
    if (!r.extra.is_object()) bad_field("extra", "is not an object");
  }
  return r;
}

std::string run_line(const RunRecord& r) {
  // Keys in nlohmann's (sorted) order, so a line reads the same either way.
  std::string out;
  out.reserve(1024);
  auto o = std::back_inserter(out);
  fmt::format_to(o, "{{\"block\":{},\"config\":{},\"config_id\":", r.block, r.config);
  append_string(out, r.config_id);
  const ExitInfo& e = r.exit;
  fmt::format_to(o, ",\"env_bytes\":{},\"exit\":{{\"code\":{},\"output_bytes\":{},\"output_sha256\":", r.env_bytes,
                 e.exit_code, e.output_bytes);
  if (e.output_digest.empty()) out += "null";
  else append_string(out, e.output_digest);
  fmt::format_to(o, ",\"signal\":{},\"timed_out\":", e.signal);
  append_bool(out, e.timed_out);
  fmt::format_to(o, ",\"wall_ns\":{}}},\"extra\":", e.wall_ns);
  out += r.extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  fmt::format_to(o, ",\"index\":{},\"position\":{},\"readings\":[", r.index, r.position);
  for (std::size_t i = 0; i < r.readings.size(); ++i) {
    const Reading& rd = r.readings[i];
    fmt::format_to(o, "{}{{\"enabled\":{},", i ? "," : "", rd.time_enabled);
    if (!rd.fault.empty()) {
      out += "\"fault\":";
      append_string(out, rd.fault);
      out += ',';
    }
    out += "\"multiplexed\":";
    append_bool(out, rd.multiplexed);
    out += ",\"name\":";
    append_string(out, rd.name);
    fmt::format_to(o, ",\"raw\":{},\"running\":{},\"scale\":", rd.raw, rd.time_running);
    append_double(out, rd.scale);
    out += ",\"value\":";
    append_double(out, rd.value);
    out += '}';
  }
  const struct rusage& u = e.usage;
  fmt::format_to(o,
                 "],\"rusage\":{{\"majflt\":{},\"maxrss_kb\":{},\"minflt\":{},\"nivcsw\":{},\"nvcsw\":{},",
                 u.ru_majflt, u.ru_maxrss, u.ru_minflt, u.ru_nivcsw, u.ru_nvcsw);
  // Keys in the order the JSON tree sorts them: pre_exec_maxrss_kb between nvcsw and stime_ns.
  if (e.pre_exec_maxrss_kb) fmt::format_to(o, "\"pre_exec_maxrss_kb\":{},", *e.pre_exec_maxrss_kb);
  fmt::format_to(o, "\"stime_ns\":{},\"utime_ns\":{}}},\"type\":\"run\",\"warmup\":", timeval_ns(u.ru_stime),
                 timeval_ns(u.ru_utime));
  append_bool(out, r.warmup);
  out += '}';
  return out;
}

}  // namespace obscheck
