#include "test_pmu.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "util/splitmix64.h"

namespace obscheck::test {
namespace {

int fail(int err) {
  errno = err;
  return -1;
}

}  // namespace

TestPmu::~TestPmu() = default;

int TestPmu::refuse_errno(const perf_event_attr& a, int group_fd) const {
  if (const auto it = config_.refuse.find({a.type, a.config}); it != config_.refuse.end()) return it->second;
  if (config_.refuse_group_with_inherit && a.inherit && (a.read_format & PERF_FORMAT_GROUP)) return EINVAL;
  if (group_fd >= 0 && !counters_.count(group_fd)) return EBADF;
  if (!hardware(a)) return 0;
  // x86's validate_group: a group that could never be on the PMU at once is refused.
  unsigned hw = 1;
  if (group_fd >= 0)
    for (int fd : group_of(group_fd)) hw += hardware(counters_.at(fd).attr) ? 1 : 0;
  return hw > config_.slots ? EINVAL : 0;
}

int TestPmu::open(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
  opened_.push_back({*attr, pid, group_fd});
  if (const int err = refuse_errno(*attr, group_fd); err != 0) return fail(err);
  // A real descriptor the caller may close(2) and wait on with epoll: the model is
  // keyed by its number.
  const int fd = ::eventfd(0, (flags & PERF_FLAG_FD_CLOEXEC) ? EFD_CLOEXEC : 0);
  if (fd < 0) return -1;
  for (auto& [p, leaders] : runs_) std::erase(leaders, fd);  // a number the caller closed and reused
  Counter c;
  c.attr = *attr;
  c.pid = pid;
  c.cpu = cpu;
  c.leader = group_fd >= 0 ? counters_.at(group_fd).leader : fd;
  c.id = next_id_++;
  if (!runs_.count(pid)) runs_[pid] = {};
  c.run = static_cast<std::size_t>(std::distance(runs_.begin(), runs_.find(pid)));
  if (config_.noise > 0) {
    std::uint64_t state = config_.seed ^ (c.id * 0x9E3779B97F4A7C15ull);
    const double u = static_cast<double>(splitmix64_next(state) >> 11) * 0x1.0p-53;  // [0, 1)
    c.noise_factor = 1 + config_.noise * (2 * u - 1);
  }
  if (c.leader == fd) runs_[pid].push_back(fd);
  counters_[fd] = c;
  return fd;
}

std::vector<int> TestPmu::group_of(int leader) const {
  std::vector<int> out;
  for (const auto& [fd, c] : counters_)
    if (c.leader == leader) out.push_back(fd);
  // The leader first, then members in open order (ids grow with each open).
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    if ((a == leader) != (b == leader)) return a == leader;
    return counters_.at(a).id < counters_.at(b).id;
  });
  return out;
}

std::uint64_t TestPmu::enabled_ns(const Counter& c) const {
  const perf_event_attr& lead = counters_.at(c.leader).attr;
  // Open disabled without enable_on_exec and never enabled by ioctl: it never counts.
  return (lead.disabled && !lead.enable_on_exec) ? 0 : config_.run_ns;
}

// Ticks the group led by `leader` was on the PMU, by the rotation described in the header.
std::uint64_t TestPmu::running_ns(int leader) const {
  const Counter& lc = counters_.at(leader);
  const std::vector<int>& leaders = runs_.at(lc.pid);
  const std::size_t n = leaders.size();
  const std::uint64_t ticks = config_.run_ns / config_.tick_ns;
  std::uint64_t on = 0;
  for (std::uint64_t t = 0; t < ticks; ++t) {
    unsigned free = config_.slots;
    bool can_add_hw = true;
    for (std::size_t k = 0; k < n; ++k) {
      const int l = leaders[(t + k) % n];
      unsigned need = 0;
      for (int fd : group_of(l)) need += hardware(counters_.at(fd).attr) ? 1 : 0;
      bool goes_on = need == 0;
      if (need > 0 && can_add_hw && need <= free) {
        free -= need;
        goes_on = true;
      } else if (need > 0) {
        can_add_hw = false;
      }
      if (l == leader && goes_on) ++on;
    }
  }
  return on * config_.tick_ns;
}

std::uint64_t TestPmu::count(const Counter& c, std::uint64_t running) const {
  TestEventModel m;
  if (const auto it = config_.events.find({c.attr.type, c.attr.config}); it != config_.events.end()) m = it->second;
  if (m.stops_at_ns) running = std::min(running, *m.stops_at_ns);  // counts nothing after it stopped
  const double v = std::round(m.rate_per_ns * static_cast<double>(running) * c.noise_factor);
  return static_cast<std::uint64_t>(v) + static_cast<std::uint64_t>(m.offset);
}

ssize_t TestPmu::read(int fd, void* buf, std::size_t len) {
  const auto it = counters_.find(fd);
  if (it == counters_.end()) return fail(EBADF);
  const Counter& self = it->second;
  const std::uint64_t f = self.attr.read_format;
  const bool group = (f & PERF_FORMAT_GROUP) != 0;
  const std::vector<int> members = group ? group_of(self.leader) : std::vector<int>{fd};
  const std::uint64_t enabled = enabled_ns(self);
  // A sampling event on a CPU the target never runs on never runs.
  const std::uint64_t on = runs_here(self) ? std::min(enabled, running_ns(self.leader)) : 0;
  std::vector<std::uint64_t> w;
  if (group) w.push_back(members.size());
  else w.push_back(0);  // the value, filled below
  if (f & PERF_FORMAT_TOTAL_TIME_ENABLED) w.push_back(enabled);
  if (f & PERF_FORMAT_TOTAL_TIME_RUNNING) {
    // A lone counter that stops counting stops its running time too (in a group the
    // leader's time is the group's, and only the stopped member's count falls short).
    std::uint64_t r = on;
    const auto m = config_.events.find({self.attr.type, self.attr.config});
    if (!group && m != config_.events.end() && m->second.stops_at_ns)
      r = std::min(r, *m->second.stops_at_ns);
    w.push_back(r);
  }
  for (std::size_t k = 0; k < members.size(); ++k) {
    const Counter& c = counters_.at(members[k]);
    const std::uint64_t v = count(c, on);
    if (group) w.push_back(v);
    else w[0] = v;
    if (f & PERF_FORMAT_ID) w.push_back(c.id);
    if (f & PERF_FORMAT_LOST) w.push_back(c.lost);
  }
  const std::size_t bytes = w.size() * sizeof(std::uint64_t);
  if (len < bytes) return fail(ENOSPC);
  std::memcpy(buf, w.data(), bytes);
  return static_cast<ssize_t>(bytes);
}

int TestPmu::ioctl(int fd, unsigned long request, unsigned long) {
  const auto it = counters_.find(fd);
  if (it == counters_.end()) return fail(EBADF);
  if (request == PERF_EVENT_IOC_ENABLE) it->second.attr.enable_on_exec = 1;  // counts from now on
  else if (request == PERF_EVENT_IOC_DISABLE || request == PERF_EVENT_IOC_RESET) return 0;
  else return fail(ENOTTY);
  return 0;
}

namespace {

// perf_event_open(2) "MMAP layout": the records the sampler reads.
struct SampleRecord {
  perf_event_header header;
  std::uint64_t ip;
  std::uint32_t pid, tid;
  std::uint64_t time;
};
struct ThrottleRecord {
  perf_event_header header;
  std::uint64_t time, id, stream_id;
};
struct LostRecord {
  perf_event_header header;
  std::uint64_t id, lost;
};

// Appends records to a ring's data area from offset 0, keeping room for the one
// PERF_RECORD_LOST that reports what did not fit.
struct RingWriter {
  unsigned char* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint64_t lost = 0;
  template <typename Record>
  bool put(const Record& r) {
    if (lost > 0 || at + sizeof r + sizeof(LostRecord) > size) return false;
    std::memcpy(data + at, &r, sizeof r);
    at += sizeof r;
    return true;
  }
  void sample(const SampleRecord& r) {
    if (!put(r)) ++lost;
  }
  void finish(std::uint64_t id) {
    if (lost == 0) return;
    const LostRecord l{{PERF_RECORD_LOST, 0, sizeof(LostRecord)}, id, lost};
    std::memcpy(data + at, &l, sizeof l);
    at += sizeof l;
  }
};

}  // namespace

void TestPmu::write_ring(Counter& c, unsigned char* base, std::size_t len) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto* meta = reinterpret_cast<perf_event_mmap_page*>(base);
  RingWriter w{base + page, len - page};
  if (runs_here(c)) {
    const std::uint64_t rate = c.attr.sample_freq;
    const bool throttled = rate > config_.sampling.throttle_hz;
    const double per_tick_d = static_cast<double>(throttled ? config_.sampling.throttle_hz : rate) *
                              static_cast<double>(config_.tick_ns) / 1e9;
    const auto per_tick = static_cast<std::uint64_t>(std::llround(per_tick_d));
    const std::uint64_t ticks = config_.run_ns / config_.tick_ns;
    const auto pid = static_cast<std::uint32_t>(c.pid);
    for (std::uint64_t t = 0; t < ticks; ++t) {
      const std::uint64_t start = t * config_.tick_ns;
      for (std::uint64_t k = 0; k < per_tick; ++k)
        w.sample({{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(SampleRecord)}, 0x401000, pid, pid,
                  start + k * config_.tick_ns / std::max<std::uint64_t>(per_tick, 1)});
      if (!throttled) continue;
      w.put(ThrottleRecord{{PERF_RECORD_THROTTLE, 0, sizeof(ThrottleRecord)}, start + config_.tick_ns - 1, c.id, c.id});
      w.put(ThrottleRecord{{PERF_RECORD_UNTHROTTLE, 0, sizeof(ThrottleRecord)}, start + config_.tick_ns, c.id, c.id});
    }
  }
  w.finish(c.id);
  c.lost = w.lost;
  meta->data_offset = page;
  meta->data_size = len - page;
  __atomic_store_n(&meta->data_head, static_cast<std::uint64_t>(w.at), __ATOMIC_RELEASE);
}

void* TestPmu::mmap(int fd, std::size_t len) {
  const auto it = counters_.find(fd);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (it == counters_.end() || !sampling(it->second) || len <= page) {
    errno = it == counters_.end() ? EBADF : EINVAL;
    return MAP_FAILED;
  }
  void* base = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base != MAP_FAILED) write_ring(it->second, static_cast<unsigned char*>(base), len);
  return base;
}

int TestPmu::munmap(void* addr, std::size_t len) { return ::munmap(addr, len); }

}  // namespace obscheck::test
