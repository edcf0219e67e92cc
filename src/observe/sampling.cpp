#include "observe/sampling.h"

#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/fd.h"
#include "util/perf_syscalls.h"

namespace obscheck {

constexpr const char* kMaxSampleRate = "/proc/sys/kernel/perf_event_max_sample_rate";

std::uint64_t read_max_sample_rate() {
  std::ifstream in(kMaxSampleRate);
  std::uint64_t v = 0;
  return (in >> v) ? v : 0;
}

namespace {

constexpr const char* kOnlineCpus = "/sys/devices/system/cpu/online";
// value, time_enabled, time_running, lost (perf_event_open(2), read_format).
constexpr std::uint64_t kSamplerReadFormat =
    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST;

// "0-3,5,7-8" -> {0,1,2,3,5,7,8}
std::vector<int> parse_cpu_list(const std::string& s) {
  std::vector<int> cpus;
  std::size_t at = 0;
  while (at < s.size()) {
    const auto comma = s.find(',', at);
    const std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!item.empty()) {
      const auto dash = item.find('-');
      const int lo = std::stoi(item.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(item.substr(dash + 1));
      for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return cpus;
}

std::vector<int> online_cpus() {
  std::ifstream in(kOnlineCpus);
  std::string line;
  if (!std::getline(in, line) || line.empty())
    throw Error(ErrorKind::host, fmt::format("cannot read the online CPUs from {}", kOnlineCpus));
  return parse_cpu_list(line);
}


// One CPU's sampling event and its ring: the metadata page, then 2^k data pages.
class Ring {
 public:
  Ring(UniqueFd fd, std::size_t data_pages) : fd_(std::move(fd)) {
    page_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    data_size_ = data_pages * page_;
    len_ = page_ + data_size_;
    // PROT_WRITE: we own data_tail, so the kernel never overwrites unread records
    // (it counts them as lost instead).
    base_ = perf_syscalls().mmap(fd_.get(), len_);
    if (base_ == MAP_FAILED) {
      const int err = errno;
      throw Error(ErrorKind::host,
                  fmt::format("cannot map a {}-byte sampling ring: {}", len_, std::strerror(err)),
                  err == EPERM ? "over kernel.perf_event_mlock_kb for this user: raise it or use fewer ring pages"
                               : std::string());
    }
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring() {
    if (base_ != MAP_FAILED) perf_syscalls().munmap(base_, len_);
  }
  int fd() const { return fd_.get(); }

  // Walks the records between data_tail and data_head (perf_event_open(2), "MMAP
  // layout": read data_head with acquire, give space back by a release store of
  // data_tail).
  void drain(SamplingStats& st) {
    auto* meta = static_cast<perf_event_mmap_page*>(base_);
    const auto* data = static_cast<const unsigned char*>(base_) + page_;
    const std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    std::uint64_t tail = meta->data_tail;
    while (tail < head) {
      perf_event_header h;
      copy_out(data, tail, &h, sizeof h);
      if (h.size < sizeof h || tail + h.size > head) break;  // never happens; do not spin on it
      switch (h.type) {
        case PERF_RECORD_SAMPLE: ++st.samples; break;
        case PERF_RECORD_LOST: {
          std::uint64_t body[2] = {0, 0};  // id, lost
          copy_out(data, tail + sizeof h, body, sizeof body);
          ++st.lost_records;
          lost_in_records_ += body[1];
          break;
        }
        case PERF_RECORD_THROTTLE: ++st.throttles; break;
        case PERF_RECORD_UNTHROTTLE: ++st.unthrottles; break;
        default: break;
      }
      tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
  }

  std::uint64_t lost_in_records() const { return lost_in_records_; }

  // {value, enabled, running, lost}; zeros if the read fails (the event is gone).
  void read_counts(std::uint64_t& value, std::uint64_t& running, std::uint64_t& lost) const {
    std::uint64_t words[4] = {0, 0, 0, 0};
    if (perf_syscalls().read(fd_.get(), words, sizeof words) == static_cast<ssize_t>(sizeof words)) {
      value = words[0];
      running = words[2];
      lost = words[3];
    }
  }

 private:
  // Copies n bytes at ring offset `pos`, wrapping at the end of the data area.
  void copy_out(const unsigned char* data, std::uint64_t pos, void* dst, std::size_t n) const {
    const std::size_t off = static_cast<std::size_t>(pos % data_size_);
    const std::size_t first = std::min(n, data_size_ - off);
    std::memcpy(dst, data + off, first);
    if (first < n) std::memcpy(static_cast<unsigned char*>(dst) + first, data, n - first);
  }

  UniqueFd fd_;
  void* base_ = MAP_FAILED;
  std::size_t page_ = 0, data_size_ = 0, len_ = 0;
  std::uint64_t lost_in_records_ = 0;
};

int open_sampling_event(perf_event_attr* attr, pid_t pid, int cpu) {
  return perf_syscalls().open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

Error above_max_rate(const EventDesc& ev, std::uint64_t freq, std::uint64_t max_rate) {
  return Error(ErrorKind::event,
               fmt::format("{} sampled at {} Hz: above kernel.perf_event_max_sample_rate ({} Hz)", ev.name, freq,
                           max_rate),
               fmt::format("sysctl kernel.perf_event_max_sample_rate={} (the kernel lowers it again when "
                           "sampling takes too long), or sample at {} Hz or less",
                           freq, max_rate));
}

[[noreturn]] void throw_open_failure(const EventDesc& ev, std::uint64_t freq, int cpu, int err) {
  const std::uint64_t max_rate = read_max_sample_rate();
  if (err == EINVAL && max_rate > 0 && freq > max_rate) throw above_max_rate(ev, freq, max_rate);
  const Availability a = diagnose_open_error(ev, err, read_host_perf_facts(), false);
  throw Error(ErrorKind::event,
              fmt::format("{}: cannot sample at {} Hz on CPU {}: {}", ev.name, freq, cpu,
                          a.reason.empty() ? std::strerror(err) : a.reason),
              a.hint);
}

}  // namespace

void require_sample_rate_allowed(const EventDesc& ev, std::uint64_t freq_hz) {
  const std::uint64_t max_rate = read_max_sample_rate();
  if (max_rate > 0 && freq_hz > max_rate) throw above_max_rate(ev, freq_hz, max_rate);
}

struct Sampler::State {
  std::uint64_t frequency = 0;
  std::vector<std::unique_ptr<Ring>> rings;
  UniqueFd epoll;
  mutable std::mutex mu;
  SamplingStats drained;  // samples, lost_records, throttles: guarded by mu
};

Sampler::Sampler() = default;
Sampler::Sampler(Sampler&&) noexcept = default;
Sampler& Sampler::operator=(Sampler&&) noexcept = default;
Sampler::~Sampler() = default;

Sampler Sampler::open(pid_t child, const EventDesc& ev, std::uint64_t freq_hz, std::size_t ring_pages) {
  Sampler s;
  if (freq_hz == 0) return s;
  if (ring_pages == 0 || (ring_pages & (ring_pages - 1)) != 0)
    throw Error(ErrorKind::usage, fmt::format("{} ring pages: the kernel needs a power of two", ring_pages));
  auto st = std::make_unique<State>();
  st->frequency = freq_hz;
  st->epoll = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  if (!st->epoll) throw Error(ErrorKind::host, fmt::format("epoll_create1: {}", std::strerror(errno)));

  perf_event_attr attr = ev.attr;
  attr.size = sizeof attr;
  attr.freq = 1;
  attr.sample_freq = freq_hz;
  attr.sample_type = kSampleType;
  attr.read_format = kSamplerReadFormat;
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  attr.inherit = 1;
  // Wake a poller when a ring is half full, not on every sample.
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<std::uint32_t>(ring_pages * ::sysconf(_SC_PAGESIZE) / 2);
  if (ev.source == "uprobe") attr.config1 = reinterpret_cast<std::uint64_t>(ev.probe_path.c_str());

  for (int cpu : online_cpus()) {
    UniqueFd fd(open_sampling_event(&attr, child, cpu));
    if (!fd) throw_open_failure(ev, freq_hz, cpu, errno);
    auto ring = std::make_unique<Ring>(std::move(fd), ring_pages);
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.fd = ring->fd();
    if (::epoll_ctl(st->epoll.get(), EPOLL_CTL_ADD, ring->fd(), &e) != 0)
      throw Error(ErrorKind::host, fmt::format("epoll_ctl: {}", std::strerror(errno)));
    st->rings.push_back(std::move(ring));
  }
  s.state_ = std::move(st);
  return s;
}

void Sampler::drain() {
  if (!state_) return;
  std::lock_guard lock(state_->mu);
  for (auto& r : state_->rings) r->drain(state_->drained);
}

SamplingStats Sampler::stats() const {
  if (!state_) return {};
  std::lock_guard lock(state_->mu);
  SamplingStats out = state_->drained;
  out.frequency = state_->frequency;
  out.rings = state_->rings.size();
  std::uint64_t lost_records = 0, lost_kernel = 0;
  for (const auto& r : state_->rings) {
    std::uint64_t value = 0, running = 0, lost = 0;
    r->read_counts(value, running, lost);
    out.event_count += value;
    out.run_ns += running;
    lost_kernel += lost;
    lost_records += r->lost_in_records();
  }
  out.lost = std::max(lost_records, lost_kernel);
  return out;
}

int Sampler::pollable_fd() const { return state_ ? state_->epoll.get() : -1; }

SamplerThread::SamplerThread(Sampler& s) : sampler_(s) {
  if (!s.active()) return;
  thread_ = std::jthread([this](std::stop_token stop) {
    epoll_event events[8];
    while (!stop.stop_requested()) {
      ::epoll_wait(sampler_.pollable_fd(), events, 8, kDrainIntervalMs);
      sampler_.drain();
    }
  });
}

SamplerThread::~SamplerThread() { stop(); }

void SamplerThread::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
  sampler_.drain();
}

}  // namespace obscheck
