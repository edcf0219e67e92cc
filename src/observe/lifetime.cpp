#include "observe/lifetime.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <ctime>
#include <vector>

#include "util/fd.h"

namespace obscheck {
namespace {

// 64 KiB of records: a FORK record (40 bytes) per child or thread the process starts
// fills it only past some 1,600 of them; the exit is then lost, and said to be.
constexpr std::size_t kDataPages = 16;

perf_event_attr lifetime_attr() {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_DUMMY;
  a.sample_period = 1;
  a.sample_type = PERF_SAMPLE_TIME;  // with sample_id_all: every record ends in its time
  a.sample_id_all = 1;
  a.comm = 1;
  a.comm_exec = 1;
  a.task = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  a.exclude_kernel = 1;  // nothing is counted: asks for no more than perf_event_paranoid 2 allows
  a.exclude_hv = 1;
  return a;
}

}  // namespace

struct LifetimeWatch::State {
  UniqueFd fd;
  void* map = MAP_FAILED;
  std::size_t page = 0, len = 0;
  ~State() {
    if (map != MAP_FAILED) ::munmap(map, len);
  }
};

LifetimeWatch::LifetimeWatch() = default;
LifetimeWatch::LifetimeWatch(LifetimeWatch&&) noexcept = default;
LifetimeWatch& LifetimeWatch::operator=(LifetimeWatch&&) noexcept = default;
LifetimeWatch::~LifetimeWatch() = default;

LifetimeWatch LifetimeWatch::open(pid_t pid) {
  LifetimeWatch w;
  perf_event_attr attr = lifetime_attr();
  auto s = std::make_unique<State>();
  s->fd = UniqueFd(static_cast<int>(::syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC)));
  if (s->fd.get() < 0) return w;
  s->page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  s->len = (1 + kDataPages) * s->page;
  s->map = ::mmap(nullptr, s->len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd.get(), 0);
  if (s->map == MAP_FAILED) return w;
  w.state_ = std::move(s);
  return w;
}

std::optional<std::uint64_t> LifetimeWatch::exec_to_exit() const {
  if (!state_) return std::nullopt;
  const auto* meta = static_cast<const perf_event_mmap_page*>(state_->map);
  const std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  const char* data = static_cast<const char*>(state_->map) + state_->page;
  const std::uint64_t size = kDataPages * state_->page;
  std::optional<std::uint64_t> exec_at, exit_at;
  std::vector<char> rec;
  for (std::uint64_t off = meta->data_tail; off < head && !exit_at;) {
    perf_event_header h;
    for (std::size_t k = 0; k < sizeof h; ++k) reinterpret_cast<char*>(&h)[k] = data[(off + k) % size];
    if (h.size < sizeof h + sizeof(std::uint64_t)) break;  // not a record this event writes
    rec.resize(h.size);
    for (std::size_t k = 0; k < h.size; ++k) rec[k] = data[(off + k) % size];
    std::uint64_t time = 0;  // sample_id's time, the record's last field
    std::memcpy(&time, rec.data() + h.size - sizeof time, sizeof time);
    if (h.type == PERF_RECORD_COMM && (h.misc & PERF_RECORD_MISC_COMM_EXEC) && !exec_at) exec_at = time;
    if (h.type == PERF_RECORD_EXIT && exec_at) exit_at = time;
    off += h.size;
  }
  if (!exec_at || !exit_at || *exit_at < *exec_at) return std::nullopt;
  return *exit_at - *exec_at;
}

}  // namespace obscheck
