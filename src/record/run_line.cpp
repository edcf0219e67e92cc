// record/: one journal line. The integrity check every line carries (CRC-32C), the
// decoder of a run line into RunFields (with the scanner of record/json_scanner.h), and
// the checks every reader applies to its fields (record/run_fields.h).
#include "record/journal_reader.h"
#include "record/json_scanner.h"

#include <cctype>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "record/journal.h"
#include "util/crc32c.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/timeval.h"

namespace obscheck {
namespace {

using journal_line::Scanner;

constexpr std::string_view kCheckKey = ",\"crc32c\":\"";
constexpr std::size_t kCheckHex = 8;
constexpr std::size_t kCheckSuffix = kCheckKey.size() + kCheckHex + 2;  // the key, the hex, "}
constexpr char kHex[] = "0123456789abcdef";


// Bits of RunFields' required members, to name one that is missing.
enum Member : std::uint32_t {
  m_index = 1u << 0, m_block = 1u << 1, m_position = 1u << 2, m_config = 1u << 3, m_config_id = 1u << 4,
  m_warmup = 1u << 5, m_env_bytes = 1u << 6, m_exit = 1u << 7, m_rusage = 1u << 8, m_readings = 1u << 9,
  m_code = 1u << 10, m_signal = 1u << 11, m_timed_out = 1u << 12, m_wall_ns = 1u << 13, m_sha = 1u << 14,
  m_output_bytes = 1u << 15, m_utime = 1u << 16, m_stime = 1u << 17, m_maxrss = 1u << 18, m_minflt = 1u << 19,
  m_majflt = 1u << 20, m_nvcsw = 1u << 21, m_nivcsw = 1u << 22,
};
struct MemberName {
  std::uint32_t bit;
  const char* name;
};
constexpr MemberName kMembers[] = {
    {m_index, "index"}, {m_block, "block"}, {m_position, "position"}, {m_config, "config"},
    {m_config_id, "config_id"}, {m_warmup, "warmup"}, {m_env_bytes, "env_bytes"}, {m_exit, "exit"},
    {m_rusage, "rusage"}, {m_readings, "readings"}, {m_code, "exit.code"}, {m_signal, "exit.signal"},
    {m_timed_out, "exit.timed_out"}, {m_wall_ns, "exit.wall_ns"}, {m_sha, "exit.output_sha256"},
    {m_output_bytes, "exit.output_bytes"}, {m_utime, "rusage.utime_ns"}, {m_stime, "rusage.stime_ns"},
    {m_maxrss, "rusage.maxrss_kb"}, {m_minflt, "rusage.minflt"}, {m_majflt, "rusage.majflt"},
    {m_nvcsw, "rusage.nvcsw"}, {m_nivcsw, "rusage.nivcsw"},
};
constexpr std::uint32_t kAllMembers = (1u << 23) - 1;

enum ReadingMember : std::uint32_t { r_name = 1, r_raw = 2, r_enabled = 4, r_running = 8, r_value = 16, r_mux = 32, r_scale = 64 };
constexpr MemberName kReadingMembers[] = {{r_name, "name"}, {r_raw, "raw"}, {r_enabled, "enabled"}, {r_running, "running"},
                                          {r_value, "value"}, {r_mux, "multiplexed"}, {r_scale, "scale"}};

bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* e = p + s.size();
  while (p < e) {
    const unsigned char c = *p;
    std::size_t n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
    if (n == 9 || static_cast<std::size_t>(e - p) <= n) {
      if (n == 0) { ++p; continue; }
      return false;
    }
    for (std::size_t k = 1; k <= n; ++k)
      if ((p[k] & 0xC0) != 0x80) return false;
    p += n + 1;
  }
  return true;
}

// The host's load within the bounds of a run line's counts (other_cpu_ns either side of 0).
std::optional<FieldError> check_host_load(const std::optional<HostLoadRecord>& host) {
  if (!host) return std::nullopt;
  constexpr auto kMax = static_cast<std::int64_t>(kMaxJournalCount);
  if (host->other_cpu_ns && (*host->other_cpu_ns > kMax || *host->other_cpu_ns < -kMax))
    return FieldError{"extra.host.other_cpu_ns", fmt::format("{} is beyond +-2^53", *host->other_cpu_ns)};
  for (const auto& [v, name] : {std::pair{host->busy_cpu_ns, "extra.host.busy_cpu_ns"},
                                {host->idle_cpu_ns, "extra.host.idle_cpu_ns"},
                                {host->procs_running, "extra.host.procs_running"}, {host->tick_ns, "extra.host.tick_ns"}})
    if (v && *v > kMaxJournalCount) return FieldError{name, fmt::format("{} is beyond 2^53", *v)};
  return std::nullopt;
}

bool is_hex_digest(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

// ---- integrity check ---------------------------------------------------------------

void append_checked_line(std::string& out, std::string_view object_json) {
  // The check replaces the closing brace, then restores it.
  const std::string_view body = object_json.substr(0, object_json.empty() ? 0 : object_json.size() - 1);
  const std::uint32_t crc = crc32c(body);
  out.append(body);
  out.append(kCheckKey);
  for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(crc >> shift) & 0xF];
  out += "\"}";
  out += '\n';
}

std::string with_line_check(std::string_view object_json) {
  std::string out;
  out.reserve(object_json.size() + kCheckSuffix + 1);
  append_checked_line(out, object_json);
  out.pop_back();
  return out;
}

LineCheck line_check(std::string_view line) {
  if (line.size() < kCheckSuffix + 1 || line.substr(line.size() - 2) != "\"}" ||
      line.substr(line.size() - kCheckSuffix, kCheckKey.size()) != kCheckKey)
    return LineCheck::absent;
  std::uint32_t want = 0;
  for (char c : line.substr(line.size() - kCheckHex - 2, kCheckHex)) {
    const char* at = std::strchr(kHex, c);
    if (!at || c == 0) return LineCheck::bad;
    want = want << 4 | static_cast<std::uint32_t>(at - kHex);
  }
  return crc32c(line.substr(0, line.size() - kCheckSuffix)) == want ? LineCheck::ok : LineCheck::bad;
}

// ---- one line ----------------------------------------------------------------------

bool parse_run_line(std::string_view line, RunFields& f, std::string& type, std::optional<FieldError>& error) {
  type.clear();
  error.reset();
  f.n_readings = 0;
  f.extra = "{}";
  f.output_sha256.reset();
  f.pre_exec_maxrss_kb.reset();
  f.host.reset();
  Scanner s{line.data(), line.data() + line.size(), error, {}};
  std::uint32_t seen = 0;
  bool type_is_string = false;

  auto exit_member = [&](std::string_view k) -> bool {
    s.at("exit", k);
    if (k == "code") return seen |= m_code, s.i64(f.code);
    if (k == "signal") return seen |= m_signal, s.i64(f.signal);
    if (k == "timed_out") return seen |= m_timed_out, s.boolean(f.timed_out);
    if (k == "wall_ns") return seen |= m_wall_ns, s.u64(f.wall_ns);
    if (k == "output_bytes") return seen |= m_output_bytes, s.u64(f.output_bytes);
    if (k == "output_sha256") {
      seen |= m_sha;
      bool null = false;
      std::string digest;
      if (f.output_sha256) digest.swap(*f.output_sha256);  // keep its capacity
      if (!s.str(digest, true, &null)) return false;
      if (null) f.output_sha256.reset();
      else f.output_sha256 = std::move(digest);
      return true;
    }
    return s.skip(2);
  };
  auto rusage_member = [&](std::string_view k) -> bool {
    s.at("rusage", k);
    if (k == "utime_ns") return seen |= m_utime, s.u64(f.utime_ns);
    if (k == "stime_ns") return seen |= m_stime, s.u64(f.stime_ns);
    if (k == "maxrss_kb") return seen |= m_maxrss, s.u64(f.maxrss_kb);
    if (k == "minflt") return seen |= m_minflt, s.u64(f.minflt);
    if (k == "majflt") return seen |= m_majflt, s.u64(f.majflt);
    if (k == "nvcsw") return seen |= m_nvcsw, s.u64(f.nvcsw);
    if (k == "nivcsw") return seen |= m_nivcsw, s.u64(f.nivcsw);
    if (k == "pre_exec_maxrss_kb") {  // optional: older journals have none
      std::uint64_t v = 0;
      if (!s.u64(v)) return false;
      f.pre_exec_maxrss_kb = v;
      return true;
    }
    return s.skip(2);
  };
  // extra's members: "host" decoded (HostLoadRecord), the others' text kept in f.extra
  // for the decoders of the observers' parts (record/run_record.h read_run_extra).
  auto host_member = [&](std::string_view k) -> bool {
    s.at("extra.host", k);
    HostLoadRecord& h = *f.host;
    if (k == "other_cpu_ns") return s.i64(h.other_cpu_ns.emplace());
    if (k == "busy_cpu_ns") return s.u64(h.busy_cpu_ns.emplace());
    if (k == "idle_cpu_ns") return s.u64(h.idle_cpu_ns.emplace());
    if (k == "procs_running") return s.u64(h.procs_running.emplace());
    if (k == "tick_ns") return s.u64(h.tick_ns.emplace());
    return s.skip(3);
  };
  auto extra_member = [&](std::string_view k) -> bool {
    if (k != "host") return s.skip(2);
    s.at("extra", k);
    f.host.emplace();
    return s.object(2, host_member);
  };
  auto readings = [&]() -> bool {
    s.ws();
    if (s.p >= s.end || *s.p != '[') {
      s.at("", "readings");
      s.fail("is not an array");
      return s.skip(1);
    }
    ++s.p;
    s.ws();
    if (s.p < s.end && *s.p == ']') return ++s.p, true;
    for (;;) {
      const std::size_t i = f.n_readings++;
      if (i >= kMaxReadingsPerRun) {
        s.at("", "readings");
        s.fail(fmt::format("has more than {} readings", kMaxReadingsPerRun));
        if (!s.skip(2)) return false;
        --f.n_readings;
      } else {
        if (f.readings.size() <= i) f.readings.emplace_back();
        RunFields::Reading& r = f.readings[i];
        r.value = r.scale = std::nullopt;
        r.fault.clear();  // optional: reused from the last line
        std::uint32_t rseen = 0;
        s.at("readings", "");
        s.reading = i;
        const bool ok = s.object(2, [&](std::string_view k) -> bool {
          s.at("readings", k);
          s.reading = i;
          if (k == "name") return rseen |= r_name, s.str(r.name);
          if (k == "raw") return rseen |= r_raw, s.u64(r.raw);
          if (k == "enabled") return rseen |= r_enabled, s.u64(r.enabled);
          if (k == "running") return rseen |= r_running, s.u64(r.running);
          if (k == "value") return rseen |= r_value, s.real(r.value);
          if (k == "scale") return rseen |= r_scale, s.real(r.scale);
          if (k == "multiplexed") return rseen |= r_mux, s.boolean(r.multiplexed);
          if (k == "fault") return s.str(r.fault);
          return s.skip(3);
        });
        if (!ok) return false;
        for (const MemberName& m : kReadingMembers)
          if (!(rseen & m.bit) && !error) error = FieldError{fmt::format("readings[{}].{}", i, m.name), "is missing"};
      }
      s.ws();
      if (s.p >= s.end) return false;
      if (*s.p == ',') { ++s.p; continue; }
      if (*s.p == ']') return ++s.p, true;
      return false;
    }
  };

  const bool ok = s.object(0, [&](std::string_view k) -> bool {
    s.at("", k);
    if (k == "block") return seen |= m_block, s.u64(f.block);
    if (k == "config") return seen |= m_config, s.u64(f.config);
    if (k == "config_id") return seen |= m_config_id, s.str(f.config_id);
    if (k == "env_bytes") return seen |= m_env_bytes, s.u64(f.env_bytes);
    if (k == "exit") return seen |= m_exit, s.object(1, exit_member);
    if (k == "extra") {
      s.ws();
      const char* start = s.p;
      if (!s.object(1, extra_member)) return false;
      f.extra = std::string_view(start, static_cast<std::size_t>(s.p - start));
      return true;
    }
    if (k == "index") return seen |= m_index, s.u64(f.index);
    if (k == "position") return seen |= m_position, s.u64(f.position);
    if (k == "readings") return seen |= m_readings, readings();
    if (k == "rusage") return seen |= m_rusage, s.object(1, rusage_member);
    if (k == "warmup") return seen |= m_warmup, s.boolean(f.warmup);
    if (k == "type") {
      s.ws();
      type_is_string = s.p < s.end && *s.p == '"';
      if (type_is_string) return s.str(type);
      type.clear();
      return s.skip(1);
    }
    return s.skip(1);
  });
  if (!ok) return false;
  s.ws();
  if (s.p != s.end) return false;  // bytes after the object
  if (!type_is_string) type.clear();
  if (type == "run" && seen != kAllMembers)
    for (const MemberName& m : kMembers)
      if (!(seen & m.bit)) {
        // A member of a missing object is reported as the object.
        if ((m.bit >= m_code && m.bit <= m_output_bytes && !(seen & m_exit)) ||
            (m.bit >= m_utime && !(seen & m_rusage)))
          continue;
        if (!error) error = FieldError{m.name, "is missing"};
        break;
      }
  return true;
}

// ---- checks --------------------------------------------------------------------------

RunLimits run_limits(const Plan& plan) {
  RunLimits l;
  l.block_size = plan.block_size();
  l.warmup_blocks = plan.spec.warmup_blocks;
  l.blocks = plan.spec.warmup_blocks + (plan.spec.fixed_blocks ? *plan.spec.fixed_blocks : plan.spec.max_blocks);
  for (const Configuration& c : plan.configs) l.config_ids.push_back(c.id);
  return l;
}

std::optional<FieldError> check_run_fields(const RunFields& f, const RunLimits* limits) {
  auto at_most = [](std::uint64_t v, std::uint64_t max, const char* field, const char* what) -> std::optional<FieldError> {
    if (v > max) return FieldError{field, fmt::format("{} is beyond {} ({})", v, max, what)};
    return std::nullopt;
  };
  constexpr std::uint64_t kU32 = std::numeric_limits<std::uint32_t>::max();
  for (const auto& [v, name] : {std::pair{f.index, "index"}, {f.block, "block"}, {f.position, "position"}, {f.config, "config"}})
    if (auto e = at_most(v, kU32, name, "2^32 - 1")) return e;
  if (f.code < kMinExitCode || f.code > kMaxExitCode)
    return FieldError{"exit.code", fmt::format("{} is not an exit status ({}..{})", f.code, kMinExitCode, kMaxExitCode)};
  if (f.signal < 0 || f.signal > kMaxSignal)
    return FieldError{"exit.signal", fmt::format("{} is not a signal number (0..{})", f.signal, kMaxSignal)};
  for (const auto& [v, name] : {std::pair{f.wall_ns, "exit.wall_ns"}, {f.utime_ns, "rusage.utime_ns"}, {f.stime_ns, "rusage.stime_ns"}})
    if (auto e = at_most(v, kMaxRunNs, name, "2^53 ns, 104 days")) return e;
  for (const auto& [v, name] : {std::pair{f.env_bytes, "env_bytes"}, {f.output_bytes, "exit.output_bytes"},
                                {f.maxrss_kb, "rusage.maxrss_kb"}, {f.minflt, "rusage.minflt"}, {f.majflt, "rusage.majflt"},
                                {f.nvcsw, "rusage.nvcsw"}, {f.nivcsw, "rusage.nivcsw"},
                                {f.pre_exec_maxrss_kb.value_or(0), "rusage.pre_exec_maxrss_kb"}})
    if (auto e = at_most(v, kMaxJournalCount, name, "2^53")) return e;
  if (auto e = check_host_load(f.host)) return e;
  if (f.output_sha256 && !is_hex_digest(*f.output_sha256))
    return FieldError{"exit.output_sha256", "is not a SHA-256 digest (64 lowercase hex digits)"};
  for (std::size_t i = 0; i < f.n_readings; ++i) {
    const RunFields::Reading& r = f.readings[i];
    auto field = [&](const char* m) { return fmt::format("readings[{}].{}", i, m); };
    if (r.name.empty() || r.name.size() > kMaxReadingName || !valid_utf8(r.name))
      return FieldError{field("name"), fmt::format("is not an event name (1 to {} bytes of UTF-8)", kMaxReadingName)};
    for (std::size_t k = 0; k < i; ++k)
      if (f.readings[k].name == r.name) return FieldError{field("name"), fmt::format("\"{}\" is read twice in this run", r.name)};
    if (r.value && *r.value < 0) return FieldError{field("value"), fmt::format("{} is a negative count", *r.value)};
    if (r.scale && *r.scale < 0) return FieldError{field("scale"), fmt::format("{} is a negative scale", *r.scale)};
  }
  if (!limits) return std::nullopt;
  const RunLimits& l = *limits;
  if (f.config >= l.block_size)
    return FieldError{"config", fmt::format("{} is not a configuration of the plan (it has {})", f.config, l.block_size)};
  if (f.position >= l.block_size)
    return FieldError{"position", fmt::format("{} is beyond the plan's block of {} runs", f.position, l.block_size)};
  if (f.block >= l.blocks)
    return FieldError{"block", fmt::format("{} is beyond the plan's {} blocks", f.block, l.blocks)};
  if (f.index != f.block * l.block_size + f.position)
    return FieldError{"index", fmt::format("{} is not block {} position {} of the plan (index {})", f.index, f.block,
                                           f.position, f.block * l.block_size + f.position)};
  if (f.config_id != l.config_ids[f.config])
    return FieldError{"config_id", fmt::format("\"{}\" is not configuration {} of the plan (\"{}\")", f.config_id,
                                               f.config, l.config_ids[f.config])};
  if (f.warmup != (f.block < l.warmup_blocks))
    return FieldError{"warmup", fmt::format("{} disagrees with the plan (block {} is {}a warm-up block)", f.warmup,
                                            f.block, f.block < l.warmup_blocks ? "" : "not ")};
  return std::nullopt;
}


}  // namespace obscheck
