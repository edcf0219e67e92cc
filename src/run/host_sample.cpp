#include "run/host_sample.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>

#include "util/fd.h"
#include "util/timeval.h"

namespace obscheck {
namespace {

// /proc/stat is about 1 KiB on a small host and grows with its CPUs and interrupts
// (the "intr" line); the lines read here come first, except procs_running, which
// follows "intr" and "ctxt". 256 KiB covers hosts with hundreds of CPUs.
constexpr std::size_t kProcStatBytes = 256 * 1024;

bool number(std::string_view& s, std::uint64_t& out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end == s.data()) return false;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return true;
}

std::string_view line_starting(std::string_view text, std::string_view key) {
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    if (line.starts_with(key)) return line.substr(key.size());
    pos = nl + 1;
  }
  return {};
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  std::string_view cpu = line_starting(text, "cpu ");
  // user nice system idle iowait irq softirq steal guest guest_nice; older kernels
  // stop after idle (2.4), iowait..softirq (2.6.0) or steal (2.6.11).
  std::array<std::uint64_t, 8> f{};
  std::size_t n = 0;
  while (n < f.size() && number(cpu, f[n])) ++n;
  if (n < 4) return std::nullopt;
  ProcStat s;
  s.busy_ticks = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];  // fields beyond n stay 0
  s.idle_ticks = f[3] + f[4];
  std::string_view running = line_starting(text, "procs_running ");
  if (running.empty() || !number(running, s.procs_running)) return std::nullopt;
  return s;
}

std::optional<ProcStat> read_proc_stat() {
  static thread_local std::array<char, kProcStatBytes> buf;
  UniqueFd fd(::open("/proc/stat", O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  std::size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = ::read(fd.get(), buf.data() + got, buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  return parse_proc_stat(std::string_view(buf.data(), got));
}

HostLoadRecord host_load(const ProcStat& before, const ProcStat& after, const struct rusage& target,
                         long ticks_per_second) {
  const std::uint64_t tick_ns = 1000000000ull / static_cast<std::uint64_t>(ticks_per_second);
  const auto delta = [](std::uint64_t a, std::uint64_t b) { return b > a ? b - a : 0; };
  const std::uint64_t target_ns = timeval_ns(target.ru_utime) + timeval_ns(target.ru_stime);
  const std::uint64_t target_ticks = (target_ns + tick_ns / 2) / tick_ns;  // to the nearest tick
  const std::uint64_t busy = delta(before.busy_ticks, after.busy_ticks);
  const std::uint64_t other_ticks = busy > target_ticks ? busy - target_ticks : 0;
  HostLoadRecord h;
  h.other_cpu_ns = static_cast<std::int64_t>(other_ticks * tick_ns);
  h.busy_cpu_ns = busy * tick_ns;
  h.idle_cpu_ns = delta(before.idle_ticks, after.idle_ticks) * tick_ns;
  h.tick_ns = tick_ns;
  h.procs_running = after.procs_running;
  return h;
}

long clock_ticks_per_second() {
  const long t = ::sysconf(_SC_CLK_TCK);
  return t > 0 ? t : 100;
}

}  // namespace obscheck
