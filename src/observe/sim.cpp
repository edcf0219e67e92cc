#include "observe/sim.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "observe/observer_kinds.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/temp_dir.h"

namespace obscheck {
namespace {

namespace fs = std::filesystem;

// Below this a single instruction can straddle three lines, which cachegrind's
// simulator refuses (cg-arch.c: MIN_LINE_SIZE).
constexpr std::size_t kMinLineSize = 16;

// valgrind's messages quoted in an error: enough for its complaint, never a flood.
constexpr std::size_t kMaxQuotedBytes = 2000;

bool pow2(std::size_t v) { return v != 0 && std::has_single_bit(v); }

std::string describe(const SimCache& c) {
  return fmt::format("{} B {}-way {} B lines", c.size, c.assoc, c.line);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

// "48K", "2048K", "32M", "65536" → bytes; 0 when unreadable.
std::size_t parse_sysfs_size(std::string s) {
  s = trim(std::move(s));
  if (s.empty()) return 0;
  std::size_t mult = 1;
  if (s.back() == 'K') mult = 1024;
  if (s.back() == 'M') mult = 1024 * 1024;
  if (s.back() == 'G') mult = 1024ull * 1024 * 1024;
  if (mult != 1) s.pop_back();
  std::size_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return 0;
  return v * mult;
}

std::size_t parse_positive(std::string_view s, std::string_view what, std::string_view spec) {
  std::size_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v == 0)
    throw Error(ErrorKind::usage,
                fmt::format("--sim-cache '{}': {} '{}' is not a positive integer", spec, what, s),
                "write KEY=SIZE,ASSOC,LINE in bytes, e.g. D1=32768,8,64");
  return v;
}

std::string quote_tail(std::string s) {
  s = trim(std::move(s));
  if (s.size() > kMaxQuotedBytes) s = "..." + s.substr(s.size() - kMaxQuotedBytes);
  return s;
}

// valgrind's own complaints, without its routine LL-geometry warnings.
std::string valgrind_complaint(const std::string& log, const std::string& output) {
  std::string out;
  std::istringstream in(log + "\n" + output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("warning: L3 cache found") != std::string::npos) continue;
    if (line.find("LL cache: line_size") != std::string::npos) continue;
    if (trim(line).empty()) continue;
    out += line + "\n";
  }
  return quote_tail(out);
}

// What execve would accept: an ELF executable or shared object, or a "#!" script.
void require_executable_format(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return;  // unreadable but executable: let valgrind report it
  char head[2] = {};
  if (::pread(fd.get(), head, 2, 0) == 2 && head[0] == '#' && head[1] == '!') return;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd.get(), ELF_C_READ, nullptr);
  bool ok = false;
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF) {
    GElf_Ehdr eh;
    ok = gelf_getehdr(elf, &eh) != nullptr && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
  }
  if (elf != nullptr) elf_end(elf);
  if (!ok)
    throw Error(ErrorKind::target,
                fmt::format("{}: not an executable format (neither ELF nor a #! script)", path),
                "give a compiled program, or a script whose first line is #!<interpreter>");
}

}  // namespace

SimGeometry valgrind_default_geometry() {
  SimGeometry g;
  g.i1 = {65536, 2, 64};
  g.d1 = {65536, 2, 64};
  g.ll = {262144, 8, 64};
  g.source = "valgrind default";
  return g;
}

std::string sim_cache_problem(const SimCache& c) {
  if (c.line == 0 || c.assoc == 0 || c.size == 0) return "cache size, associativity and line size must be positive";
  if (!pow2(c.line)) return "cache line size is not a power of two";
  if (c.line < kMinLineSize) return fmt::format("cache line size is below {} bytes", kMinLineSize);
  if (c.size <= c.line) return "cache size is not above the line size";
  if (c.assoc > c.size / c.line) return "cache associativity exceeds size / line size";
  if (c.size % (c.line * c.assoc) != 0 || !pow2(c.size / (c.line * c.assoc)))
    return "cache set count (size / (line * assoc)) is not a power of two";
  return {};
}

SimCache fit_sim_cache(const SimCache& c) {
  if (sim_cache_problem(c).empty()) return c;
  if (c.line == 0 || c.assoc == 0 || !pow2(c.line) || c.line < kMinLineSize)
    throw Error(ErrorKind::usage, fmt::format("cannot simulate a cache of {}: {}", describe(c), sim_cache_problem(c)));
  const std::size_t sets = c.size / (c.line * c.assoc);
  if (sets == 0)
    throw Error(ErrorKind::usage, fmt::format("cannot simulate a cache of {}: fewer than one set", describe(c)));
  SimCache out = c;
  if (pow2(sets)) {
    out.size = c.line * c.assoc * sets;  // the size did not divide into whole sets
  } else {
    const std::size_t new_sets = std::bit_floor(sets);
    const double factor = static_cast<double>(sets) / static_cast<double>(new_sets);
    out.assoc = static_cast<std::size_t>(0.5 + factor * static_cast<double>(c.assoc));
    out.size = c.line * out.assoc * new_sets;
  }
  if (!sim_cache_problem(out).empty())
    throw Error(ErrorKind::usage, fmt::format("cannot simulate a cache of {}: {}", describe(c), sim_cache_problem(c)));
  return out;
}

SimGeometry host_sim_geometry(const std::string& sysfs_root) {
  SimGeometry g = valgrind_default_geometry();
  const fs::path dir = fs::path(sysfs_root) / "devices/system/cpu/cpu0/cache";
  bool found_i1 = false, found_d1 = false;
  int ll_level = 0;
  SimCache ll{};
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().starts_with("index")) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  for (const auto& p : entries) {
    const std::string level_s = trim(read_file(p / "level"));
    const std::string type = trim(read_file(p / "type"));
    SimCache c{parse_sysfs_size(read_file(p / "size")), parse_sysfs_size(read_file(p / "ways_of_associativity")),
               parse_sysfs_size(read_file(p / "coherency_line_size"))};
    if (level_s.empty() || c.size == 0 || c.assoc == 0 || c.line == 0) continue;
    const int level = std::atoi(level_s.c_str());
    if (level == 1 && type == "Instruction") {
      g.i1 = c;
      found_i1 = true;
    } else if (level == 1 && type == "Data") {
      g.d1 = c;
      found_d1 = true;
    } else if (level >= 2 && type == "Unified" && level > ll_level) {
      ll = c;
      ll_level = level;
    }
  }
  if (ll_level > 0) g.ll = ll;
  if (!found_i1 && !found_d1 && ll_level == 0) {
    g.notes.push_back(fmt::format("no cache description under {}; using valgrind's defaults", dir.string()));
    return g;
  }
  g.source = "host sysfs";
  if (!found_i1) g.notes.push_back("I1: not described by the host; valgrind's default used");
  if (!found_d1) g.notes.push_back("D1: not described by the host; valgrind's default used");
  if (ll_level == 0) g.notes.push_back("LL: not described by the host; valgrind's default used");
  auto fit = [&](SimCache& c, const char* name) {
    const SimCache fitted = fit_sim_cache(c);
    if (fitted == c) return;
    g.notes.push_back(fmt::format(
        "{}: host {} has {} sets, not a power of two; simulated {}-way with {} B, as cachegrind does", name,
        describe(c), c.size / (c.line * c.assoc), fitted.assoc, fitted.size));
    c = fitted;
  };
  fit(g.i1, "I1");
  fit(g.d1, "D1");
  fit(g.ll, "LL");
  return g;
}

SimGeometry parse_sim_cache(std::string_view spec, const SimGeometry& defaults) {
  constexpr const char* kHint = "write KEY=SIZE,ASSOC,LINE groups for I1, D1, LL, e.g. D1=32768,8,64,LL=8388608,16,64";
  // Split at commas; a field holding '=' starts a new cache, the next two are its rest.
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    fields.push_back(spec.substr(start, end - start));
    start = end + 1;
  }
  if (fields.size() % 3 != 0)
    throw Error(ErrorKind::usage, fmt::format("--sim-cache '{}': each cache takes SIZE,ASSOC,LINE", spec), kHint);
  SimGeometry g = defaults;
  g.source = "--sim-cache";
  bool given[3] = {false, false, false};
  for (std::size_t i = 0; i < fields.size(); i += 3) {
    const std::string_view head = fields[i];
    const std::size_t eq = head.find('=');
    if (eq == std::string_view::npos)
      throw Error(ErrorKind::usage, fmt::format("--sim-cache '{}': expected KEY=SIZE at '{}'", spec, head), kHint);
    std::string key(head.substr(0, eq));
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char ch) { return std::toupper(ch); });
    int idx = key == "I1" ? 0 : key == "D1" ? 1 : key == "LL" ? 2 : -1;
    if (idx < 0)
      throw Error(ErrorKind::usage, fmt::format("--sim-cache '{}': unknown cache '{}'", spec, head.substr(0, eq)),
                  "the caches are I1, D1 and LL");
    if (given[idx])
      throw Error(ErrorKind::usage, fmt::format("--sim-cache '{}': {} given twice", spec, key), kHint);
    given[idx] = true;
    const SimCache c{parse_positive(head.substr(eq + 1), "size", spec), parse_positive(fields[i + 1], "associativity", spec),
                     parse_positive(fields[i + 2], "line size", spec)};
    if (const std::string problem = sim_cache_problem(c); !problem.empty()) {
      std::string hint = "cachegrind needs a power-of-two line >= 16 B and a power-of-two number of sets";
      try {
        const SimCache near = fit_sim_cache(c);
        hint = fmt::format("{}; e.g. {}={},{},{}", hint, key, near.size, near.assoc, near.line);
      } catch (const Error&) {
      }
      throw Error(ErrorKind::usage, fmt::format("--sim-cache {}={},{},{}: {}", key, c.size, c.assoc, c.line, problem),
                  hint);
    }
    (idx == 0 ? g.i1 : idx == 1 ? g.d1 : g.ll) = c;
  }
  // Notes about caches now given explicitly no longer apply.
  std::erase_if(g.notes, [&](const std::string& n) {
    return (given[0] && n.starts_with("I1:")) || (given[1] && n.starts_with("D1:")) || (given[2] && n.starts_with("LL:"));
  });
  return g;
}

std::string format_sim_geometry(const SimGeometry& g) {
  auto one = [](const char* k, const SimCache& c) { return fmt::format("{}={},{},{}", k, c.size, c.assoc, c.line); };
  return fmt::format("{} {} {}", one("I1", g.i1), one("D1", g.d1), one("LL", g.ll));
}

std::string find_valgrind() {
  std::string path;
  try {
    path = resolve_target("valgrind");
  } catch (const Error&) {
    throw Error(ErrorKind::host, "valgrind is not installed: apt-get install valgrind (tools/bootstrap installs it)",
                "--backend sim runs the target under valgrind's cachegrind");
  }
  const std::string bin = path + ".bin";
  if (::access(bin.c_str(), X_OK) == 0) return bin;
  return path;
}

LaunchSpec sim_launch_spec(const LaunchSpec& target, const SimGeometry& geometry, const std::string& out_file,
                           const std::string& log_file) {
  if (target.argv.empty()) throw Error(ErrorKind::internal, "simulated launch without an argv");
  require_executable_format(target.path);
  LaunchSpec spec = target;
  spec.path = find_valgrind();
  auto cache = [](const char* opt, const SimCache& c) { return fmt::format("--{}={},{},{}", opt, c.size, c.assoc, c.line); };
  spec.argv = {spec.path,
               "--tool=cachegrind",
               "--cache-sim=yes",
               "--branch-sim=yes",
               cache("I1", geometry.i1),
               cache("D1", geometry.d1),
               cache("LL", geometry.ll),
               "--cachegrind-out-file=" + out_file,
               "--log-file=" + log_file,
               "-q",
               "--",
               target.path};
  spec.argv.insert(spec.argv.end(), target.argv.begin() + 1, target.argv.end());
  return spec;
}

std::uint64_t SimCounts::get(std::string_view event) const {
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i] == event) return totals[i];
  throw Error(ErrorKind::internal, fmt::format("cachegrind's output has no '{}' count", event),
              "the run needs --cache-sim=yes --branch-sim=yes");
}

SimCounts parse_cachegrind_out(std::string_view text) {
  SimCounts c;
  bool have_events = false, have_summary = false;
  std::vector<std::string> summary;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    auto words = [](std::string_view rest) {
      std::vector<std::string> w;
      std::istringstream in{std::string(rest)};
      for (std::string s; in >> s;) w.push_back(s);
      return w;
    };
    if (line.starts_with("desc:")) {
      c.desc.push_back(trim(std::string(line.substr(5))));
    } else if (line.starts_with("cmd:")) {
      c.cmd = trim(std::string(line.substr(4)));
    } else if (line.starts_with("events:")) {
      c.events = words(line.substr(7));
      have_events = true;
    } else if (line.starts_with("summary:") || line.starts_with("totals:")) {
      summary = words(line.substr(line.find(':') + 1));
      have_summary = true;
    }
  }
  if (!have_events || c.events.empty())
    throw Error(ErrorKind::internal, "cachegrind's output has no events: line");
  if (!have_summary) throw Error(ErrorKind::internal, "cachegrind's output has no summary: line (the run did not finish)");
  if (summary.size() != c.events.size())
    throw Error(ErrorKind::internal, fmt::format("cachegrind's summary has {} counts for {} events", summary.size(),
                                                 c.events.size()));
  for (const auto& s : summary) {
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
      throw Error(ErrorKind::internal, fmt::format("cachegrind's summary holds '{}', not a count", s));
    c.totals.push_back(v);
  }
  return c;
}

std::vector<Reading> sim_readings(const SimCounts& counts, const std::vector<SimEvent>& wanted) {
  std::vector<Reading> out;
  out.reserve(wanted.size());
  for (const auto& e : wanted) {
    Reading r;
    r.name = e.name;
    for (const auto& t : e.terms) r.raw += t.weight * counts.get(t.counter);
    r.time_enabled = 1;
    r.time_running = 1;
    r.value = static_cast<double>(r.raw);
    r.multiplexed = false;
    r.scale = 1.0;
    out.push_back(std::move(r));
  }
  return out;
}

SimRun run_sim(const LaunchSpec& target, const SimGeometry& geometry, const std::vector<SimEvent>& wanted,
               const std::function<void(pid_t)>& started) {
  const TempDir dir = TempDir::create("obscheck-sim");
  const std::string out_file = dir.file("cachegrind.out");
  const std::string log_file = dir.file("valgrind.log");
  LaunchSpec spec = sim_launch_spec(target, geometry, out_file, log_file);
  if (spec.out == Stdio::discard) spec.out = Stdio::capture;
  // valgrind runs as the target's user (--run-as) and writes its files here.
  if (spec.run_as && ::chown(dir.path().c_str(), spec.run_as->uid, spec.run_as->gid) != 0)
    throw Error(ErrorKind::host, fmt::format("cannot hand {} to --run-as {}: {}", dir.path(),
                                             spec.run_as->user, std::strerror(errno)));

  CorkedChild child = CorkedChild::spawn(spec);
  if (started) started(child.pid());
  child.release();
  SimRun run;
  run.exit = child.wait();
  if (run.exit.timed_out)
    throw Error(ErrorKind::target_failed,
                fmt::format("{} timed out after {} s under simulation", target.path, target.timeout_s),
                "cachegrind runs a program 20-100 times slower than natively: allow for it in the timeout");
  const std::string text = read_file(out_file);
  if (text.empty()) {
    const std::string said = valgrind_complaint(read_file(log_file), run.exit.output);
    const std::string status = run.exit.signal != 0 ? fmt::format("killed by signal {}", run.exit.signal)
                                                    : fmt::format("exit code {}", run.exit.exit_code);
    throw Error(ErrorKind::target,
                fmt::format("valgrind could not run {} ({}){}{}", target.path, status, said.empty() ? "" : ": ", said),
                "check that the program runs natively; valgrind runs ELF programs of this machine's architecture");
  }
  run.counts = parse_cachegrind_out(text);
  run.readings = sim_readings(run.counts, wanted);
  return run;
}

void require_sim_observer(ObserverKind observer) {
  const ObserverKindInfo& info = observer_info(observer);
  if (info.sim_why.empty()) return;
  throw Error(ErrorKind::usage, fmt::format("{} not apply under simulation: {}", info.sim_subject, info.sim_why),
              "under --backend sim use the counter sweep or compile-time probes; drop --backend sim for this observer");
}

}  // namespace obscheck
