#include "observe/inprocess.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "observe/counters.h"
#include "util/error.h"

namespace obscheck {
namespace {

constexpr std::string_view kHeader = "obsprobe ";

bool is_probe(const EventDesc& e) {
  return e.source == "uprobe" || e.source == "breakpoint" || e.pmu == "uprobe" ||
         e.pmu == "breakpoint" || e.attr.type == PERF_TYPE_BREAKPOINT || !e.probe_path.empty();
}

std::vector<std::string_view> split(std::string_view s, char sep, std::size_t max_fields) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < max_fields) {
    const auto at = s.find(sep);
    if (at == std::string_view::npos) break;
    out.push_back(s.substr(0, at));
    s.remove_prefix(at + 1);
  }
  out.push_back(s);
  return out;
}

template <typename Int>
bool parse_int(std::string_view s, Int& v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

[[noreturn]] void malformed(std::string_view line) {
  throw Error(ErrorKind::internal,
              fmt::format("malformed result from the in-process library at \"{}\"", line),
              "the driver and libobsprobe.so come from different builds? reinstall both");
}

std::string error_hint(std::string_view name, long code) {
  if (code < 0) return "a PAPI error: `papi_avail` and `papi_component_avail` show what PAPI can count here";
  switch (code) {
    case ENOENT:
    case EOPNOTSUPP:
      return "this host cannot count it (no hardware PMU?); software events still count, "
             "`obscheck events` lists them";
    case EACCES:
    case EPERM:
      return "run as root or `sysctl kernel.perf_event_paranoid=-1`";
    case EINVAL:
      return name == "-" ? "the in-process variables were malformed: the driver and "
                           "libobsprobe.so come from different builds?"
                         : "the kernel rejected the encoding";
    default:
      return {};
  }
}

[[noreturn]] void library_error(std::string_view line) {
  const auto f = split(line, '\t', 4);
  long code = 0;
  if (f.size() != 4 || !parse_int(f[2], code)) malformed(line);
  const std::string what =
      f[1] == "-" ? fmt::format("the in-process library failed: {} ({} {})", f[3],
                                code < 0 ? "PAPI code" : "errno", code)
                  : fmt::format("{}: the in-process library could not count it: {} ({} {})", f[1],
                                f[3], code < 0 ? "PAPI code" : "errno", code);
  throw Error(ErrorKind::event, what, error_hint(f[1], code));
}

}  // namespace

std::string encode_event_list(const EventSet& set, const std::vector<std::size_t>& announced) {
  std::string out;
  for (const std::size_t i : announced) {
    if (i >= set.events.size())
      throw Error(ErrorKind::internal,
                  fmt::format("in-process event index {} outside a set of {}", i, set.events.size()));
    const EventDesc& e = set.events[i];
    if (is_probe(e))
      throw Error(ErrorKind::usage,
                  fmt::format("{}: in-process mode programs counters only, not probes", e.spec),
                  "count uprobes and breakpoints with --mode external");
    if (e.duration_time)
      throw Error(ErrorKind::usage,
                  fmt::format("{}: in-process mode programs counters only; duration_time is the driver's clock",
                              e.spec),
                  "count duration_time with --mode external");
    if (e.spec.empty() || e.spec.find_first_of(";\t\n") != std::string::npos)
      throw Error(ErrorKind::usage,
                  fmt::format("\"{}\": an in-process event name may not be empty or hold ';', a tab "
                              "or a newline", e.spec));
    if (!out.empty()) out += ';';
    out += fmt::format("{}:{:#x}:{:#x}:{:#x}:{}", e.attr.type, e.attr.config, e.attr.config1,
                       e.attr.config2, e.spec);
  }
  return out;
}

void set_inprocess_env(EnvBlock& env, const EventSet& set, const std::vector<std::size_t>& announced,
                       std::size_t programmed, int result_fd, InprocessBackend backend) {
  if (programmed > announced.size() || programmed > kInprocessMaxEvents)
    throw Error(ErrorKind::usage,
                fmt::format("in-process mode: cannot program {} of {} announced events (at most {})",
                            programmed, announced.size(), kInprocessMaxEvents));
  if (result_fd < 0 || result_fd > 999)
    throw Error(ErrorKind::internal, fmt::format("in-process result fd {} not in 0..999", result_fd));
  env.set(kInprocessEventsVar, encode_event_list(set, announced));
  env.set(kInprocessProgramVar, fmt::format("{:03}", programmed));
  env.set(kInprocessResultFdVar, fmt::format("{:03}", result_fd));
  env.set(kInprocessBackendVar, backend == InprocessBackend::perf ? "perf" : "papi");
}

InprocessResult parse_inprocess_report(std::string_view text, std::string_view target) {
  if (text.empty())
    throw Error(ErrorKind::internal,
                fmt::format("no result from the in-process library: did {} start? is it dynamically "
                            "linked? (a static binary ignores LD_PRELOAD)", target),
                "in-process mode needs a dynamically linked glibc program that returns from main or "
                "calls exit(); --mode external counts any program");
  if (text.back() != '\n') malformed(text);
  text.remove_suffix(1);
  const auto lines = split(text, '\n', std::string_view::npos);
  if (lines.front().substr(0, kHeader.size()) != kHeader) malformed(lines.front());
  if (lines.front() != fmt::format("{}{}", kHeader, kInprocessProtocol))
    throw Error(ErrorKind::internal,
                fmt::format("the in-process library speaks \"{}\", this driver protocol {}",
                            lines.front(), kInprocessProtocol),
                "the driver and libobsprobe.so come from different builds: reinstall both");
  if (lines.size() < 2 || lines.back() != "end") malformed(lines.back());

  InprocessResult out;
  for (std::size_t k = 1; k + 1 < lines.size(); ++k) {
    const std::string_view line = lines[k];
    const auto kind = line.substr(0, line.find('\t'));
    if (kind == "error") library_error(line);
    if (kind == "user-only") {
      const auto f = split(line, '\t', 2);
      if (f.size() != 2 || f[1].empty()) malformed(line);
      out.user_only.emplace_back(f[1]);
      continue;
    }
    if (kind != "event") malformed(line);
    const auto f = split(line, '\t', 6);
    RawCount c;
    if (f.size() != 5 || f[1].empty() || !parse_int(f[2], c.value) || !parse_int(f[3], c.time_enabled) ||
        !parse_int(f[4], c.time_running))
      malformed(line);
    out.readings.push_back(scale_reading(std::string(f[1]), c));
  }
  return out;
}

std::vector<Reading> parse_inprocess_result(std::string_view text, std::string_view target) {
  return parse_inprocess_report(text, target).readings;
}

std::vector<Reading> match_inprocess_readings(std::vector<Reading> readings, const EventSet& set,
                                              const std::vector<std::size_t>& programmed) {
  if (readings.size() != programmed.size())
    throw Error(ErrorKind::internal, fmt::format("the in-process library counted {} events, {} were asked for",
                                                 readings.size(), programmed.size()));
  for (std::size_t k = 0; k < programmed.size(); ++k) {
    if (programmed[k] >= set.events.size())
      throw Error(ErrorKind::internal, fmt::format("in-process event index {} outside a set of {}",
                                                   programmed[k], set.events.size()));
    const EventDesc& e = set.events[programmed[k]];
    if (readings[k].name != e.spec)
      throw Error(ErrorKind::internal, fmt::format("the in-process library's event {} is \"{}\", expected \"{}\"",
                                                   k + 1, readings[k].name, e.spec));
    readings[k].name = e.name;
  }
  return readings;
}

ResultPipe make_result_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Error(ErrorKind::host, fmt::format("cannot create the in-process result pipe: {}",
                                             std::strerror(errno)));
  ResultPipe p{UniqueFd(fds[0]), UniqueFd(fds[1])};
  const int flags = ::fcntl(p.read_end.get(), F_GETFL);
  if (flags < 0 || ::fcntl(p.read_end.get(), F_SETFL, flags | O_NONBLOCK) != 0)
    throw Error(ErrorKind::host, fmt::format("cannot make the in-process result pipe non-blocking: {}",
                                             std::strerror(errno)));
  return p;
}

std::string drain_result(int read_fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(read_fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno == EAGAIN) {
      return out;
    } else if (errno != EINTR) {
      throw Error(ErrorKind::host, fmt::format("reading the in-process result failed: {}",
                                               std::strerror(errno)));
    }
  }
}

}  // namespace obscheck
