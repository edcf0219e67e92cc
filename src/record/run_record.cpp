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

// extra[key] taken out as a whole number >= 0 (a float that is one, as an older writer
// may have left it, too); nullopt when absent.
std::optional<std::uint64_t> take_count(nlohmann::json& extra, const char* key) {
  const auto it = extra.find(key);
  if (it == extra.end()) return std::nullopt;
  std::optional<std::uint64_t> v;
  if (it->is_number_unsigned()) v = it->get<std::uint64_t>();
  else if (it->is_number_float() && it->get<double>() >= 0 && it->get<double>() < 0x1p64 &&
           std::floor(it->get<double>()) == it->get<double>())
    v = static_cast<std::uint64_t>(it->get<double>());
  if (!v) bad_field(fmt::format("extra.{}", key), "is not a whole number >= 0");
  extra.erase(it);
  return v;
}

// extra[key] taken out as a finite number >= 0; nullopt when absent.
std::optional<double> take_amount(nlohmann::json& extra, const char* key) {
  const auto it = extra.find(key);
  if (it == extra.end()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    bad_field(fmt::format("extra.{}", key), "is not a finite number >= 0");
  const double v = it->get<double>();
  extra.erase(it);
  return v;
}

// extra[key] taken out as a string; nullopt when absent.
std::optional<std::string> take_word(nlohmann::json& extra, const char* key) {
  const auto it = extra.find(key);
  if (it == extra.end()) return std::nullopt;
  if (!it->is_string()) bad_field(fmt::format("extra.{}", key), "is not a string");
  std::string v = it->get<std::string>();
  extra.erase(it);
  return v;
}

constexpr const char* kWallOfCommand = "command";

void put_typed_parts(nlohmann::json& extra, const RunRecord& r);

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
  put_typed_parts(j["extra"], r);
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
  r.host = f.host;
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
  read_run_extra(r, f.extra);
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
  if (r.profiler || r.sampling || !r.probe_hits.empty() || r.output_head || r.left_behind > 0 || r.host ||
      r.stack_address || !r.failure.empty()) {
    nlohmann::json extra = r.extra;  // the keys in one sorted object, as to_json writes them
    put_typed_parts(extra, r);
    out += extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    out += r.extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
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

void put_profiler_cost(nlohmann::json& extra, const ProfilerCost& c) {
  if (c.wall_of_command) extra["wall_of"] = kWallOfCommand;
  if (c.target_wall_from) extra["target_wall_from"] = *c.target_wall_from;
  if (c.command_wall_ns) extra["command_wall_ns"] = *c.command_wall_ns;
  if (c.profiler_ns) extra["profiler_ns"] = *c.profiler_ns;
  if (c.profiler_cpu_ns) extra["profiler_cpu_ns"] = *c.profiler_cpu_ns;
  if (c.profiler_samples) extra["profiler_samples"] = *c.profiler_samples;
  if (c.profiler_rate_hz) extra["profiler_rate_hz"] = *c.profiler_rate_hz;
  if (c.max_sample_rate) extra["max_sample_rate"] = *c.max_sample_rate;
}

std::optional<ProfilerCost> take_profiler_cost(nlohmann::json& extra) {
  if (!extra.is_object()) return std::nullopt;
  ProfilerCost c;
  const std::optional<std::string> wall_of = take_word(extra, "wall_of");
  c.wall_of_command = wall_of == kWallOfCommand;
  if (wall_of && !c.wall_of_command) extra["wall_of"] = *wall_of;  // a later version's word, kept
  c.target_wall_from = take_word(extra, "target_wall_from");
  c.command_wall_ns = take_count(extra, "command_wall_ns");
  c.profiler_ns = take_count(extra, "profiler_ns");
  c.profiler_cpu_ns = take_amount(extra, "profiler_cpu_ns");
  c.profiler_samples = take_count(extra, "profiler_samples");
  c.profiler_rate_hz = take_amount(extra, "profiler_rate_hz");
  c.max_sample_rate = take_count(extra, "max_sample_rate");
  if (c == ProfilerCost{}) return std::nullopt;
  return c;
}

void read_run_extra(RunRecord& r, std::string_view text) {
  if (text == "{}") return;
  r.extra = nlohmann::json::parse(text, nullptr, false);
  if (!r.extra.is_object()) bad_field("extra", "is not an object");
  r.profiler = take_profiler_cost(r.extra);
  r.sampling = take_sampling(r.extra);
  r.probe_hits = take_probe_hits(r.extra);
  r.output_head = take_word(r.extra, "output_head");
  r.left_behind = take_count(r.extra, "left_behind").value_or(0);
  r.stack_address = take_count(r.extra, "stack_address");
  r.failure = take_word(r.extra, "failure").value_or("");
  r.extra.erase("host");  // typed already: RunFields::host
}

void put_host_load(nlohmann::json& extra, const HostLoadRecord& h) {
  nlohmann::json j = nlohmann::json::object();
  if (h.other_cpu_ns) j["other_cpu_ns"] = *h.other_cpu_ns;
  if (h.busy_cpu_ns) j["busy_cpu_ns"] = *h.busy_cpu_ns;
  if (h.idle_cpu_ns) j["idle_cpu_ns"] = *h.idle_cpu_ns;
  if (h.tick_ns) j["tick_ns"] = *h.tick_ns;
  if (h.procs_running) j["procs_running"] = *h.procs_running;
  extra["host"] = std::move(j);
}

void put_sampling(nlohmann::json& extra, const SamplingRecord& s) {
  nlohmann::json j = {{"freq", s.freq}, {"samples", s.samples}, {"lost", s.lost}};
  if (s.throttles) j["throttles"] = *s.throttles;
  if (s.unthrottles) j["unthrottles"] = *s.unthrottles;
  if (s.run_ns) j["run_ns"] = *s.run_ns;
  if (s.achieved_hz) j["achieved_hz"] = *s.achieved_hz;
  extra["sampling"] = std::move(j);
}

std::optional<SamplingRecord> take_sampling(nlohmann::json& extra) {
  if (!extra.is_object()) return std::nullopt;
  const auto it = extra.find("sampling");
  if (it == extra.end()) return std::nullopt;
  if (!it->is_object()) bad_field("extra.sampling", "is not an object");
  nlohmann::json part = *it;
  extra.erase(it);
  const auto named = [](std::optional<std::uint64_t> (*take)(nlohmann::json&, const char*), nlohmann::json& j,
                        const char* key) {
    try {
      return take(j, key);
    } catch (const Error& e) {  // "field extra.KEY ..." names the part's key
      throw Error(ErrorKind::io, std::string(e.what()).insert(std::string("field extra.").size(), "sampling."));
    }
  };
  SamplingRecord s;
  s.freq = named(take_count, part, "freq").value_or(0);
  s.samples = named(take_count, part, "samples").value_or(0);
  s.lost = named(take_count, part, "lost").value_or(0);
  s.throttles = named(take_count, part, "throttles");
  s.unthrottles = named(take_count, part, "unthrottles");
  s.run_ns = named(take_count, part, "run_ns");
  try {
    s.achieved_hz = take_amount(part, "achieved_hz");
  } catch (const Error&) {
    bad_field("extra.sampling.achieved_hz", "is not a finite number >= 0");
  }
  return s;
}

void put_probe_hits(nlohmann::json& extra, const std::map<std::string, std::uint64_t>& hits) {
  if (hits.empty()) return;
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, n] : hits) j[name] = n;
  extra["probe_hits"] = std::move(j);
}

std::map<std::string, std::uint64_t> take_probe_hits(nlohmann::json& extra) {
  std::map<std::string, std::uint64_t> hits;
  if (!extra.is_object()) return hits;
  const auto it = extra.find("probe_hits");
  if (it == extra.end()) return hits;
  if (!it->is_object()) bad_field("extra.probe_hits", "is not an object of hit counts");
  for (const auto& [name, n] : it->items()) {
    if (!n.is_number_unsigned()) bad_field("extra.probe_hits", "holds a count that is not a whole number >= 0");
    hits[name] = n.get<std::uint64_t>();
  }
  extra.erase(it);
  return hits;
}

namespace {

void put_typed_parts(nlohmann::json& extra, const RunRecord& r) {
  if (r.profiler) put_profiler_cost(extra, *r.profiler);
  if (r.sampling) put_sampling(extra, *r.sampling);
  put_probe_hits(extra, r.probe_hits);
  if (r.output_head) extra["output_head"] = *r.output_head;
  if (r.left_behind > 0) extra["left_behind"] = r.left_behind;
  if (r.host) put_host_load(extra, *r.host);
  if (r.stack_address) extra["stack_address"] = *r.stack_address;
  if (!r.failure.empty()) extra["failure"] = r.failure;
}

}  // namespace

}  // namespace obscheck
