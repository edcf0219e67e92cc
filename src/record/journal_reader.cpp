#include "record/journal_reader.h"

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
#include "util/text.h"
#include "util/timeval.h"

namespace obscheck {
namespace {

using text::errno_text;

constexpr std::string_view kCheckKey = ",\"crc32c\":\"";
constexpr std::size_t kCheckHex = 8;
constexpr std::size_t kCheckSuffix = kCheckKey.size() + kCheckHex + 2;  // the key, the hex, "}
// Read size: large enough that the syscalls cost nothing next to the parsing, small
// enough to stay in L2 with the line being parsed.
constexpr std::size_t kReadChunk = std::size_t{1} << 20;

constexpr char kHex[] = "0123456789abcdef";

// ---- the scanner: one JSON object per line, the run fields taken as it goes --------

struct Scanner {
  const char* p;
  const char* end;
  std::optional<FieldError>& error;
  // The field being read, for FieldError: "<object>.<key>" or "readings[i].<key>",
  // put together only when a field fails (formatting it per field would cost more
  // than the parsing).
  std::string_view parent, key;
  std::size_t reading = 0;

  void at(std::string_view obj, std::string_view k) {
    parent = obj;
    key = k;
  }
  std::string path() const {
    if (parent.empty()) return std::string(key);
    if (parent == "readings")
      return key.empty() ? fmt::format("readings[{}]", reading) : fmt::format("readings[{}].{}", reading, key);
    return fmt::format("{}.{}", parent, key);
  }
  void fail(std::string why) {
    if (!error) error = FieldError{path(), std::move(why)};
  }

  // The writer's lines have no whitespace: one compare in the common case.
  [[gnu::always_inline]] void ws() {
    while (p < end && static_cast<unsigned char>(*p) <= ' ' && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) ++p;
  }
  bool lit(std::string_view s) {
    if (static_cast<std::size_t>(end - p) < s.size() || std::memcmp(p, s.data(), s.size()) != 0) return false;
    p += s.size();
    return true;
  }
  // A string's raw contents (escapes undecoded); `escaped` when it has a backslash.
  bool string(std::string_view& raw, bool& escaped) {
    if (p >= end || *p != '"') return false;
    const char* start = ++p;
    escaped = false;
    for (;;) {
      // To the next quote at once; then only the bytes before it are looked at.
      const char* q = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
      if (!q) return false;
      bool quote_escaped = false;
      while (p < q) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c < 0x20) return false;
        if (c != '\\') {
          ++p;
          continue;
        }
        escaped = true;
        if (++p >= end) return false;  // p: the escape's letter
        if (*p == 'u') {
          for (int k = 0; k < 4; ++k)
            if (++p >= end || !std::isxdigit(static_cast<unsigned char>(*p))) return false;
        } else if (*p == 0 || !std::strchr("\"\\/bfnrt", *p)) {
          return false;
        }
        quote_escaped = p == q;  // \" : the quote found is part of the string
        ++p;
        if (quote_escaped) break;
      }
      if (!quote_escaped) {
        raw = std::string_view(start, static_cast<std::size_t>(q - start));
        p = q + 1;
        return true;
      }
    }
  }

  // A number's token, checked against JSON's grammar.
  bool number(std::string_view& tok) {
    const char* s = p;
    if (p < end && *p == '-') ++p;
    if (p >= end || !std::isdigit(static_cast<unsigned char>(*p))) return false;
    if (*p == '0') ++p;
    else while (p < end && std::isdigit(static_cast<unsigned char>(*p))) ++p;
    if (p < end && *p == '.') {
      if (++p >= end || !std::isdigit(static_cast<unsigned char>(*p))) return false;
      while (p < end && std::isdigit(static_cast<unsigned char>(*p))) ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      if (p >= end || !std::isdigit(static_cast<unsigned char>(*p))) return false;
      while (p < end && std::isdigit(static_cast<unsigned char>(*p))) ++p;
    }
    tok = std::string_view(s, static_cast<std::size_t>(p - s));
    return true;
  }
  bool skip(std::size_t depth) {
    if (depth > kMaxJsonDepth) return false;
    ws();
    if (p >= end) return false;
    switch (*p) {
      case '{': {
        ++p;
        ws();
        if (p < end && *p == '}') return ++p, true;
        for (;;) {
          std::string_view k;
          bool esc;
          ws();
          if (!string(k, esc)) return false;
          ws();
          if (p >= end || *p++ != ':') return false;
          if (!skip(depth + 1)) return false;
          ws();
          if (p >= end) return false;
          if (*p == ',') { ++p; continue; }
          if (*p == '}') return ++p, true;
          return false;
        }
      }
      case '[': {
        ++p;
        ws();
        if (p < end && *p == ']') return ++p, true;
        for (;;) {
          if (!skip(depth + 1)) return false;
          ws();
          if (p >= end) return false;
          if (*p == ',') { ++p; continue; }
          if (*p == ']') return ++p, true;
          return false;
        }
      }
      case '"': {
        std::string_view s;
        bool esc;
        return string(s, esc);
      }
      case 't': return lit("true");
      case 'f': return lit("false");
      case 'n': return lit("null");
      default: {
        std::string_view tok;
        return number(tok);
      }
    }
  }

  // Typed fields: on a JSON value of another type, the field error is recorded and the
  // value skipped (the line may turn out not to be a run, where it does not matter).
  bool u64(std::uint64_t& out) {
    ws();
    if (p < end && (*p == '-' || std::isdigit(static_cast<unsigned char>(*p)))) {
      std::string_view tok;
      if (!number(tok)) return false;
      if (tok[0] == '-') {
        fail(fmt::format("{} is negative", tok));
      } else if (tok.find_first_of(".eE") != std::string_view::npos) {
        fail(fmt::format("{} is not a whole number", tok));
      } else {
        const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), out);
        if (r.ec != std::errc()) fail(fmt::format("{} is too large", tok));
      }
      return true;
    }
    fail("is not a number");
    return skip(1);
  }
  bool i64(std::int64_t& out) {
    ws();
    if (p < end && (*p == '-' || std::isdigit(static_cast<unsigned char>(*p)))) {
      std::string_view tok;
      if (!number(tok)) return false;
      if (tok.find_first_of(".eE") != std::string_view::npos) {
        fail(fmt::format("{} is not a whole number", tok));
      } else {
        const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), out);
        if (r.ec != std::errc()) fail(fmt::format("{} is out of range", tok));
      }
      return true;
    }
    fail("is not a number");
    return skip(1);
  }
  // A number or null (null: not finite when written).
  bool real(std::optional<double>& out) {
    ws();
    if (lit("null")) {
      out.reset();
      return true;
    }
    if (p < end && (*p == '-' || std::isdigit(static_cast<unsigned char>(*p)))) {
      std::string_view tok;
      if (!number(tok)) return false;
      double v = 0;
      const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), v);
      if (r.ec != std::errc() || !std::isfinite(v)) fail(fmt::format("{} is beyond a double's range", tok));
      else out = v;
      return true;
    }
    fail("is neither a number nor null");
    return skip(1);
  }
  bool boolean(bool& out) {
    ws();
    if (lit("true")) out = true;
    else if (lit("false")) out = false;
    else {
      fail("is not true or false");
      return skip(1);
    }
    return true;
  }
  // A string, decoded; `nullable` allows null (then `is_null` is set).
  bool str(std::string& out, bool nullable = false, bool* is_null = nullptr) {
    ws();
    if (nullable && lit("null")) {
      *is_null = true;
      return true;
    }
    if (is_null) *is_null = false;
    if (p >= end || *p != '"') {
      fail(nullable ? "is neither a string nor null" : "is not a string");
      return skip(1);
    }
    const char* start = p;
    std::string_view raw;
    bool escaped = false;
    if (!string(raw, escaped)) return false;
    if (!escaped) {
      out.assign(raw);
    } else {
      // Rare (the writer escapes only quotes, backslashes and control characters):
      // nlohmann decodes the token, \u escapes and surrogate pairs included.
      const auto j = nlohmann::json::parse(std::string_view(start, static_cast<std::size_t>(p - start)), nullptr, false);
      if (!j.is_string()) {
        fail("is not a valid JSON string");
        return true;
      }
      out = j.get<std::string>();
    }
    return true;
  }

  // Runs `each(key)` for every member of an object; `each` reads the value (or skips it).
  template <class Each>
  bool object(std::size_t depth, Each&& each) {
    if (depth > kMaxJsonDepth) return false;
    ws();
    if (p >= end || *p != '{') {
      fail("is not an object");
      return skip(depth);
    }
    ++p;
    ws();
    if (p < end && *p == '}') return ++p, true;
    for (;;) {
      ws();
      std::string_view key;
      bool esc;
      if (!string(key, esc)) return false;
      ws();
      if (p >= end || *p++ != ':') return false;
      if (!each(key)) return false;
      ws();
      if (p >= end) return false;
      if (*p == ',') { ++p; continue; }
      if (*p == '}') return ++p, true;
      return false;
    }
  }
};

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

bool is_hex_digest(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

[[noreturn]] void bad_line(const std::string& path, std::size_t line, const std::string& why, std::string hint = {}) {
  throw Error(ErrorKind::io, fmt::format("journal {} line {}: {}", path, line, why), std::move(hint));
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
    return s.skip(2);
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
      if (!s.skip(1)) return false;
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
                                {f.nvcsw, "rusage.nvcsw"}, {f.nivcsw, "rusage.nivcsw"}})
    if (auto e = at_most(v, kMaxJournalCount, name, "2^53")) return e;
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

// ---- the file ------------------------------------------------------------------------

namespace {

// The manifest's members that readers take with a type (report, resume): each must
// have that type when present, so a malformed manifest is named here rather than
// failing later as a JSON type error. Returns what is wrong, or "".
std::string manifest_shape_problem(const nlohmann::json& m) {
  const auto is_string = [](const nlohmann::json& j) { return j.is_string(); };
  const auto is_number = [](const nlohmann::json& j) { return j.is_number(); };
  const auto is_object = [](const nlohmann::json& j) { return j.is_object(); };
  const auto is_strings = [](const nlohmann::json& j) {
    return j.is_array() && std::all_of(j.begin(), j.end(), [](const nlohmann::json& e) { return e.is_string(); });
  };
  std::string problem;
  auto optional = [&](const nlohmann::json& obj, const char* key, auto is, const char* what) {
    if (problem.empty() && obj.contains(key) && !is(obj.at(key))) problem = fmt::format("field {} has the wrong type", what);
  };
  if (!m.contains("options") || !m.contains("target") || !m.at("target").is_object() || !m.at("target").contains("argv"))
    return "the manifest has no options or no target.argv";
  optional(m, "format", is_string, "format");
  optional(m, "host", is_object, "host");
  optional(m, "options", is_object, "options");
  if (!problem.empty()) return problem;
  const nlohmann::json& o = m.at("options");
  optional(o, "mode", is_string, "options.mode");
  optional(o, "backend", is_string, "options.backend");
  optional(o, "margin", is_number, "options.margin");
  optional(o, "dropped_counters", is_strings, "options.dropped_counters");
  const nlohmann::json& t = m.at("target");
  optional(t, "argv", is_strings, "target.argv");
  optional(t, "path", is_string, "target.path");
  optional(t, "sha256", is_string, "target.sha256");
  if (!problem.empty()) return problem;
  if (m.contains("env")) {
    const nlohmann::json& env = m.at("env");
    if (!env.is_array()) return "field env is not an array";
    for (const nlohmann::json& e : env)
      if (!e.is_object() || (e.contains("bytes") && !e.at("bytes").is_number_unsigned()) ||
          (e.contains("name") && !e.at("name").is_string()))
        return "an entry of field env is not {\"name\": string, \"bytes\": count}";
  }
  return "";
}

class LineReader {
 public:
  LineReader(std::string path, JournalSink& sink) : path_(std::move(path)), sink_(sink) {}

  // One complete line (no '\n'), numbered from 1, starting at byte `offset`.
  void line(std::string_view text, std::uint64_t offset) {
    const std::size_t number = ++line_no_;
    if (pending_not_json_) bad_line(path_, number - 1, "not valid JSON");  // not the last line after all
    if (text.size() > kMaxJournalLineBytes) too_long(number);
    std::string type;
    std::optional<FieldError> error;
    if (!parse_run_line(text, fields_, type, error)) {
      if (number == 1) {
        // An unfinished manifest is the sweep stopping while creating the journal.
        pending_not_json_ = true;
        pending_offset_ = offset;
        return;
      }
      pending_not_json_ = true;
      pending_offset_ = offset;
      return;
    }
    scan_.lines = number;
    scan_.valid_bytes = offset + text.size() + 1;
    const LineCheck check = line_check(text);
    if (check == LineCheck::bad)
      bad_line(path_, number, "its integrity check (crc32c) does not match: the line was changed after it was written",
               "the journal was damaged or edited; restore it from a copy, or cut the line off to report the rest");
    if (check == LineCheck::absent) {
      if (checked_) bad_line(path_, number, "no integrity check (crc32c), although the journal's manifest has one",
                             "the line was added or edited by hand");
      ++scan_.unchecked_lines;
    }
    if (number == 1) return manifest(text, type, check == LineCheck::ok);
    if (type == "manifest") bad_line(path_, number, "a second manifest (two journals concatenated?)");
    if (type.empty()) bad_line(path_, number, "not a journal record (no \"type\")");
    if (type == "run") {
      if (error) bad_line(path_, number, fmt::format("field {} {}", error->field, error->why));
      if (auto e = check_run_fields(fields_, &limits_)) bad_line(path_, number, fmt::format("field {} {}", e->field, e->why));
      seen_.push_back({static_cast<std::uint32_t>(fields_.index), static_cast<std::uint32_t>(number)});
      ++scan_.runs;
      sink_.run(fields_, number);
    } else if (type == "note") {
      nlohmann::json n = tree(text);
      if (n.contains("kind") && !n.at("kind").is_string()) bad_line(path_, number, "field kind of a note is not a string");
      if (n.contains("kind") && n.at("kind") == "extend") extend(n, number);
      sink_.note(std::move(n));
    }
    // Any other type is from a later version: skipped by design.
  }

  // The bytes after the last '\n'.
  JournalScan finish(std::string_view tail, std::uint64_t offset) {
    if (line_no_ == 0 && tail.empty() && !pending_not_json_)
      throw Error(ErrorKind::io, fmt::format("journal {} is empty", path_),
                  "it was created but its manifest never written; start a new sweep");
    if (pending_not_json_ || !tail.empty()) {
      if (line_no_ + (pending_not_json_ ? 0 : 1) <= 1)
        throw Error(ErrorKind::io, fmt::format("journal {} line 1: the manifest is incomplete", path_),
                    "the sweep stopped while creating the journal; start a new one");
      scan_.torn_tail = true;
      scan_.valid_bytes = pending_not_json_ ? pending_offset_ : offset;
    }
    check_repeats();
    return scan_;
  }

  [[noreturn]] void too_long(std::size_t number) const {
    bad_line(path_, number, fmt::format("longer than {} MiB: not a journal line", kMaxJournalLineBytes >> 20),
             "is this an obscheck journal?");
  }
  std::size_t next_line() const { return line_no_ + 1; }

 private:
  nlohmann::json tree(std::string_view text) {
    // The scanner has checked the syntax and depth; nlohmann also checks UTF-8.
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) bad_line(path_, line_no_, "not valid JSON (a string that is not UTF-8?)");
    j.erase("crc32c");
    return j;
  }

  void manifest(std::string_view text, const std::string& type, bool checked) {
    if (type != "manifest") bad_line(path_, 1, "not a manifest (is this an obscheck journal?)");
    nlohmann::json m = tree(text);
    if (const auto f = m.find("format"); f == m.end() || *f != kJournalFormat) bad_line(path_, 1, fmt::format("format is not \"{}\"", kJournalFormat));
    if (!m.contains("version") || !m.at("version").is_number_integer()) bad_line(path_, 1, "the manifest has no version");
    const auto version = m.at("version").get<long long>();
    if (version < 1 || version > kJournalVersion)
      throw Error(ErrorKind::io,
                  fmt::format("journal {} line 1: version {} is not one this obscheck reads (1..{})", path_, version,
                              kJournalVersion),
                  "read it with the obscheck that wrote it (the manifest's \"obscheck\" field)");
    if (!m.contains("plan")) bad_line(path_, 1, "the manifest has no plan");
    if (const std::string problem = manifest_shape_problem(m); !problem.empty()) bad_line(path_, 1, problem);
    Plan plan;
    try {
      plan = plan_from_json(m.at("plan"));
    } catch (const Error& e) {
      throw Error(ErrorKind::io, fmt::format("journal {} line 1: {}", path_, e.what()), e.hint());
    } catch (const std::exception& e) {
      bad_line(path_, 1, fmt::format("the manifest's plan is malformed: {}", e.what()));
    }
    // Run indexes are 32-bit in a RunTable, and the look schedule walks the blocks.
    const std::size_t measured = plan.spec.fixed_blocks ? *plan.spec.fixed_blocks : plan.spec.max_blocks;
    constexpr std::size_t kMaxRuns = std::numeric_limits<std::uint32_t>::max();
    if (measured > kMaxRuns / plan.block_size() || plan.spec.warmup_blocks + measured > kMaxRuns / plan.block_size())
      bad_line(path_, 1, fmt::format("the plan's {} blocks of {} runs are beyond 2^32 runs", measured,
                                     plan.block_size()));
    limits_ = run_limits(plan);
    plan_ = plan;
    checked_ = checked;
    sink_.manifest(std::move(m), plan);
  }

  // Runs past the manifest's cap are the plan's once a resume raised it: the note comes
  // before them.
  void extend(const nlohmann::json& note, std::size_t number) {
    try {
      apply_extend_note(plan_, note);
    } catch (const Error& e) {
      bad_line(path_, number, e.what());
    }
    limits_ = run_limits(plan_);
  }

  // A run index twice: found by sorting (index, line) once at the end, not with a set
  // per line (a million runs).
  void check_repeats() {
    std::sort(seen_.begin(), seen_.end());
    const std::pair<std::uint32_t, std::uint32_t>* worst = nullptr;
    std::uint32_t worst_line = 0;
    for (std::size_t i = 1; i < seen_.size(); ++i)
      if (seen_[i].first == seen_[i - 1].first && (!worst || seen_[i].second < worst_line)) {
        worst = &seen_[i - 1];
        worst_line = seen_[i].second;
      }
    if (worst)
      bad_line(path_, worst_line, fmt::format("run index {} is already recorded on line {}", worst->first, worst->second));
  }

  std::string path_;
  JournalSink& sink_;
  RunFields fields_;
  RunLimits limits_;
  Plan plan_;  // the manifest's, with the "extend" notes met so far
  JournalScan scan_;
  std::size_t line_no_ = 0;
  bool checked_ = false;
  bool pending_not_json_ = false;
  std::uint64_t pending_offset_ = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> seen_;  // (run index, line)
};

}  // namespace

JournalScan scan_journal_text(std::string_view text, const std::string& path, JournalSink& sink) {
  LineReader reader(path, sink);
  std::size_t pos = 0;
  for (;;) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;
    reader.line(text.substr(pos, nl - pos), pos);
    pos = nl + 1;
  }
  if (text.size() - pos > kMaxJournalLineBytes) reader.too_long(reader.next_line());
  return reader.finish(text.substr(pos), pos);
}

JournalScan scan_journal(const std::string& path, JournalSink& sink) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd)
    throw Error(ErrorKind::io, fmt::format("cannot read journal {}: {}", path, errno_text(errno)),
                "check the path given to --resume or obscheck report");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw Error(ErrorKind::io, fmt::format("cannot read journal {}: {}", path, errno_text(errno)));
  if (S_ISDIR(st.st_mode))
    throw Error(ErrorKind::io, fmt::format("journal {} is a directory, not a journal", path),
                "give the journal file (obscheck-*.jsonl) inside it");
  if (!S_ISREG(st.st_mode))
    throw Error(ErrorKind::io, fmt::format("journal {} is not a regular file (a device, pipe or socket)", path),
                "a journal is a file obscheck wrote; copy it to a file first");

  LineReader reader(path, sink);
  std::string buf(kReadChunk, '\0');
  std::size_t have = 0;        // bytes in buf
  std::uint64_t base = 0;      // file offset of buf[0]
  for (;;) {
    if (have == buf.size()) {
      // A line longer than the buffer: grow it, up to the line limit.
      if (buf.size() > kMaxJournalLineBytes) reader.too_long(reader.next_line());
      buf.resize(std::min(buf.size() * 2, kMaxJournalLineBytes + 1));  // a longest line and its newline
    }
    const ssize_t n = ::read(fd.get(), buf.data() + have, buf.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorKind::io, fmt::format("cannot read journal {}: {}", path, errno_text(errno)));
    }
    if (n == 0) break;  // the end of what is written so far
    const std::size_t scanned_from = have;
    have += static_cast<std::size_t>(n);
    std::size_t pos = 0;
    const char* data = buf.data();
    for (std::size_t from = scanned_from;;) {
      const void* nl = std::memchr(data + from, '\n', have - from);
      if (!nl) break;
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - data);
      reader.line(std::string_view(data + pos, at - pos), base + pos);
      pos = from = at + 1;
    }
    if (pos > 0) {
      std::memmove(buf.data(), buf.data() + pos, have - pos);
      have -= pos;
      base += pos;
    }
    if (have > kMaxJournalLineBytes) reader.too_long(reader.next_line());
  }
  return reader.finish(std::string_view(buf.data(), have), base);
}

// ---- the table -----------------------------------------------------------------------

namespace {

// extra.host.KEY when it is a plain number, else NaN, as RunTable::add reads it from a
// RunRecord; found by scanning the extra's text, since building its JSON for every run
// would cost more than the rest of the line. The runner writes
// "host":{"other_cpu_ns":N,"procs_running":N}: the key is looked for after "host":{ and
// before the object closes.
double host_number(std::string_view extra, std::string_view key) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const std::size_t host = extra.find("\"host\":{");
  if (host == std::string_view::npos) return kNaN;
  const std::size_t end = extra.find('}', host);
  const std::string needle = "\"" + std::string(key) + "\":";
  const std::size_t at = extra.find(needle, host);
  if (at == std::string_view::npos || at > end) return kNaN;
  const std::size_t from = at + needle.size();
  std::size_t to = from;
  while (to < end && (std::isdigit(static_cast<unsigned char>(extra[to])) || extra[to] == '.' || extra[to] == '-' ||
                      extra[to] == 'e' || extra[to] == 'E' || extra[to] == '+'))
    ++to;
  if (to == from) return kNaN;
  double v = kNaN;
  const auto [ptr, ec] = std::from_chars(extra.data() + from, extra.data() + to, v);
  return ec == std::errc() && ptr == extra.data() + to && std::isfinite(v) ? v : kNaN;
}

}  // namespace

void add_run(RunTable& t, const RunFields& f) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  RunTable::Row row;
  row.index = f.index;
  row.block = f.block;
  row.config = f.config;
  row.warmup = f.warmup;
  row.timed_out = f.timed_out;
  row.signal = static_cast<int>(f.signal);
  row.exit_code = static_cast<int>(f.code);
  if (f.output_sha256) row.digest = *f.output_sha256;
  row.wall_ns = static_cast<double>(f.wall_ns);
  row.utime_ns = rusage_ns(f.utime_ns);
  row.stime_ns = rusage_ns(f.stime_ns);
  row.maxrss_kb = static_cast<double>(f.maxrss_kb);
  row.minflt = static_cast<double>(f.minflt);
  row.nvcsw = static_cast<double>(f.nvcsw);
  row.nivcsw = static_cast<double>(f.nivcsw);
  row.host_other_cpu_ns = host_number(f.extra, "other_cpu_ns");
  row.host_procs_running = host_number(f.extra, "procs_running");
  row.host_idle_cpu_ns = host_number(f.extra, "idle_cpu_ns");
  row.host_busy_cpu_ns = host_number(f.extra, "busy_cpu_ns");
  const std::size_t n = t.append(row);
  for (std::size_t i = 0; i < f.n_readings; ++i) {
    const RunFields::Reading& r = f.readings[i];
    if (!t.find(r.name) && t.readings.size() >= kMaxReadingColumns)
      throw Error(ErrorKind::io, fmt::format("run {}: more than {} distinct reading names in one journal", f.index,
                                             kMaxReadingColumns));
    t.set_reading(n, r.name, r.value ? *r.value : kNaN, r.multiplexed, r.scale ? *r.scale : kNaN);
  }
}

namespace {

class TableSink : public JournalSink {
 public:
  TableSink(JournalTable& t, const std::function<void(const RunFields&)>& each_run) : t_(t), each_run_(each_run) {}
  void manifest(nlohmann::json&& m, const Plan& plan) override {
    t_.manifest = std::move(m);
    t_.plan = plan;
  }
  void run(const RunFields& f, std::size_t line) override {
    try {
      add_run(t_.runs, f);
    } catch (const Error& e) {
      bad_line(t_.path, line, e.what());
    }
    if (each_run_) each_run_(f);
  }
  void note(nlohmann::json&& n) override { t_.notes.push_back(std::move(n)); }

 private:
  JournalTable& t_;
  const std::function<void(const RunFields&)>& each_run_;
};

}  // namespace

JournalTable read_journal_table(const std::string& path, const std::function<void(const RunFields&)>& each_run) {
  JournalTable t;
  t.path = path;
  TableSink sink(t, each_run);
  t.scan = scan_journal(path, sink);
  // The trials the check's "retire" notes left out (plan/ Retirement), the blocks its
  // "extend" notes added.
  apply_plan_notes(t.plan, t.notes, path);
  return t;
}

std::string integrity_warning(const JournalScan& scan) {
  if (scan.unchecked_lines == 0) return "";
  return fmt::format("{} of the journal's {} lines carry no integrity check (written by an older obscheck): they were "
                     "validated field by field, but a plausible changed value cannot be detected",
                     scan.unchecked_lines, scan.lines);
}

}  // namespace obscheck
