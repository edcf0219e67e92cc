#include "record/run_record.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

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

const nlohmann::json& member(const nlohmann::json& j, const char* key, const std::string& field) {
  if (!j.is_object()) bad_field(field, "is in something that is not an object");
  const auto it = j.find(key);
  if (it == j.end()) bad_field(field, "is missing");
  return *it;
}

// nlohmann's get<> casts a float to an integer type unchecked (undefined behaviour out
// of range): only JSON integers are taken as integers.
std::uint64_t u64_at(const nlohmann::json& j, const char* key, const std::string& field) {
  const nlohmann::json& v = member(j, key, field);
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) bad_field(field, fmt::format("{} is negative", v.dump()));
  if (v.is_number_float()) bad_field(field, fmt::format("{} is not a whole number", v.dump()));
  bad_field(field, "is not a number");
}

std::int64_t i64_at(const nlohmann::json& j, const char* key, const std::string& field) {
  const nlohmann::json& v = member(j, key, field);
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<std::int64_t>();
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      bad_field(field, fmt::format("{} is out of range", v.dump()));
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  }
  if (v.is_number_float()) bad_field(field, fmt::format("{} is not a whole number", v.dump()));
  bad_field(field, "is not a number");
}

bool bool_at(const nlohmann::json& j, const char* key, const std::string& field) {
  const nlohmann::json& v = member(j, key, field);
  if (!v.is_boolean()) bad_field(field, "is not true or false");
  return v.get<bool>();
}

std::string string_at(const nlohmann::json& j, const char* key, const std::string& field) {
  const nlohmann::json& v = member(j, key, field);
  if (!v.is_string()) bad_field(field, "is not a string");
  return v.get<std::string>();
}

std::optional<double> real_at(const nlohmann::json& j, const char* key, const std::string& field) {
  const nlohmann::json& v = member(j, key, field);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number()) bad_field(field, "is neither a number nor null");
  const double x = v.get<double>();
  if (!std::isfinite(x)) bad_field(field, "is beyond a double's range");
  return x;
}

void check(const RunFields& f) {
  if (auto e = check_run_fields(f, nullptr)) bad_field(e->field, e->why);
}

double value_or_nan(const std::optional<double>& x) {
  return x ? *x : std::numeric_limits<double>::quiet_NaN();
}

void exit_fields(const nlohmann::json& e, RunFields& f) {
  f.code = i64_at(e, "code", "exit.code");
  f.signal = i64_at(e, "signal", "exit.signal");
  f.timed_out = bool_at(e, "timed_out", "exit.timed_out");
  f.wall_ns = u64_at(e, "wall_ns", "exit.wall_ns");
  const nlohmann::json& digest = member(e, "output_sha256", "exit.output_sha256");
  if (!digest.is_null()) f.output_sha256 = string_at(e, "output_sha256", "exit.output_sha256");
  f.output_bytes = u64_at(e, "output_bytes", "exit.output_bytes");
}

void rusage_fields(const nlohmann::json& u, RunFields& f) {
  f.utime_ns = u64_at(u, "utime_ns", "rusage.utime_ns");
  f.stime_ns = u64_at(u, "stime_ns", "rusage.stime_ns");
  f.maxrss_kb = u64_at(u, "maxrss_kb", "rusage.maxrss_kb");
  f.minflt = u64_at(u, "minflt", "rusage.minflt");
  f.majflt = u64_at(u, "majflt", "rusage.majflt");
  f.nvcsw = u64_at(u, "nvcsw", "rusage.nvcsw");
  f.nivcsw = u64_at(u, "nivcsw", "rusage.nivcsw");
}

RunFields::Reading reading_fields(const nlohmann::json& j, const std::string& at) {
  RunFields::Reading r;
  r.name = string_at(j, "name", at + "name");
  r.raw = u64_at(j, "raw", at + "raw");
  r.enabled = u64_at(j, "enabled", at + "enabled");
  r.running = u64_at(j, "running", at + "running");
  r.value = real_at(j, "value", at + "value");
  r.multiplexed = bool_at(j, "multiplexed", at + "multiplexed");
  r.scale = real_at(j, "scale", at + "scale");
  if (j.contains("fault")) r.fault = string_at(j, "fault", at + "fault");  // written only when there is one
  return r;
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

void from_json(const nlohmann::json& j, ExitInfo& e) {
  RunFields f;
  exit_fields(j, f);
  check(f);
  e = run_record_of(f).exit;
  e.usage = rusage{};
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

struct rusage rusage_from_json(const nlohmann::json& j) {
  RunFields f;
  rusage_fields(j, f);
  check(f);
  return run_record_of(f).exit.usage;
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

void from_json(const nlohmann::json& j, Reading& r) {
  RunFields f;
  f.readings.push_back(reading_fields(j, ""));
  f.n_readings = 1;
  check(f);
  r = run_record_of(f).readings.at(0);
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
}

RunFields run_fields_of(const nlohmann::json& j) {
  RunFields f;
  f.index = u64_at(j, "index", "index");
  f.block = u64_at(j, "block", "block");
  f.position = u64_at(j, "position", "position");
  f.config = u64_at(j, "config", "config");
  f.config_id = string_at(j, "config_id", "config_id");
  f.warmup = bool_at(j, "warmup", "warmup");
  f.env_bytes = u64_at(j, "env_bytes", "env_bytes");
  exit_fields(member(j, "exit", "exit"), f);
  rusage_fields(member(j, "rusage", "rusage"), f);
  const nlohmann::json& readings = member(j, "readings", "readings");
  if (!readings.is_array()) bad_field("readings", "is not an array");
  if (readings.size() > kMaxReadingsPerRun) bad_field("readings", fmt::format("has more than {} readings", kMaxReadingsPerRun));
  for (std::size_t i = 0; i < readings.size(); ++i)
    f.readings.push_back(reading_fields(readings[i], fmt::format("readings[{}].", i)));
  f.n_readings = f.readings.size();
  return f;
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

void from_json(const nlohmann::json& j, RunRecord& r) {
  const RunFields f = run_fields_of(j);
  check(f);
  r = run_record_of(f);
  if (!j.is_object() || !j.contains("extra")) return;
  if (!j.at("extra").is_object()) bad_field("extra", "is not an object");
  r.extra = j.at("extra");
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
                 "],\"rusage\":{{\"majflt\":{},\"maxrss_kb\":{},\"minflt\":{},\"nivcsw\":{},\"nvcsw\":{},"
                 "\"stime_ns\":{},\"utime_ns\":{}}},\"type\":\"run\",\"warmup\":",
                 u.ru_majflt, u.ru_maxrss, u.ru_minflt, u.ru_nivcsw, u.ru_nvcsw, timeval_ns(u.ru_stime),
                 timeval_ns(u.ru_utime));
  append_bool(out, r.warmup);
  out += '}';
  return out;
}

}  // namespace obscheck
