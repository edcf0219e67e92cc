#include "record/run_record.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <limits>

namespace obscheck {

namespace {

constexpr std::uint64_t kNsPerSecond = 1'000'000'000;
constexpr std::uint64_t kNsPerMicrosecond = 1'000;

nlohmann::json finite_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

double number_or_nan(const nlohmann::json& j) {
  return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>();
}

std::uint64_t timeval_ns(const timeval& tv) {
  return static_cast<std::uint64_t>(tv.tv_sec) * kNsPerSecond +
         static_cast<std::uint64_t>(tv.tv_usec) * kNsPerMicrosecond;
}

timeval ns_timeval(std::uint64_t ns) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ns / kNsPerSecond);
  tv.tv_usec = static_cast<suseconds_t>((ns % kNsPerSecond) / kNsPerMicrosecond);
  return tv;
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
  e = ExitInfo{};
  e.exit_code = j.at("code").get<int>();
  e.signal = j.at("signal").get<int>();
  e.timed_out = j.at("timed_out").get<bool>();
  e.wall_ns = j.at("wall_ns").get<std::uint64_t>();
  const auto& digest = j.at("output_sha256");
  e.output_digest = digest.is_null() ? std::string() : digest.get<std::string>();
  e.output_bytes = j.at("output_bytes").get<std::uint64_t>();
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
  struct rusage r {};
  r.ru_utime = ns_timeval(j.at("utime_ns").get<std::uint64_t>());
  r.ru_stime = ns_timeval(j.at("stime_ns").get<std::uint64_t>());
  r.ru_maxrss = j.at("maxrss_kb").get<long>();
  r.ru_minflt = j.at("minflt").get<long>();
  r.ru_majflt = j.at("majflt").get<long>();
  r.ru_nvcsw = j.at("nvcsw").get<long>();
  r.ru_nivcsw = j.at("nivcsw").get<long>();
  return r;
}

void to_json(nlohmann::json& j, const Reading& r) {
  j = {{"name", r.name},
       {"raw", r.raw},
       {"enabled", r.time_enabled},
       {"running", r.time_running},
       {"value", finite_or_null(r.value)},
       {"multiplexed", r.multiplexed},
       {"scale", finite_or_null(r.scale)}};
}

void from_json(const nlohmann::json& j, Reading& r) {
  r.name = j.at("name").get<std::string>();
  r.raw = j.at("raw").get<std::uint64_t>();
  r.time_enabled = j.at("enabled").get<std::uint64_t>();
  r.time_running = j.at("running").get<std::uint64_t>();
  r.value = number_or_nan(j.at("value"));
  r.multiplexed = j.at("multiplexed").get<bool>();
  r.scale = number_or_nan(j.at("scale"));
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

void from_json(const nlohmann::json& j, RunRecord& r) {
  r.index = j.at("index").get<std::size_t>();
  r.block = j.at("block").get<std::size_t>();
  r.position = j.at("position").get<std::size_t>();
  r.config = j.at("config").get<std::size_t>();
  r.config_id = j.at("config_id").get<std::string>();
  r.warmup = j.at("warmup").get<bool>();
  r.env_bytes = j.at("env_bytes").get<std::uint64_t>();
  r.exit = j.at("exit").get<ExitInfo>();
  r.exit.usage = rusage_from_json(j.at("rusage"));
  r.readings = j.at("readings").get<std::vector<Reading>>();
  r.extra = j.contains("extra") ? j.at("extra") : nlohmann::json::object();
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
    fmt::format_to(o, "{}{{\"enabled\":{},\"multiplexed\":", i ? "," : "", rd.time_enabled);
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
