// observe/: the sampling observer. perf_event sampling of a corked child at a chosen
// frequency into mmap ring buffers that the driver drains while the target runs;
// the dose is the frequency. The samples themselves are only counted: the point is
// what taking them does to the target, and whether the profiler set-up loses any.
//
// Why one ring per CPU: the kernel refuses mmap on an inherited per-task event opened
// with cpu = -1 (perf_mmap: "Don't allow mmap() of inherited per-task counters",
// EINVAL, checked on this machine), and without inherit the target's threads and
// children would not be sampled. So, as `perf record` does, the sampler opens the
// event once per online CPU (pid = child, cpu = c, inherit): samples of every thread
// and child land in the ring of the CPU they ran on. An epoll fd over all rings is
// the one pollable fd.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "events/event.h"

namespace obscheck {

// Data pages per ring (a power of two; one metadata page is mapped in front). 16
// pages = 64 KiB per CPU: at 10 kHz and 32-byte samples a CPU writes 320 KB/s, so a
// drain every kDrainInterval (5 ms) finds ~1.6 KB, 2.5 % of the ring.
inline constexpr std::size_t kDefaultRingPages = 16;

// What each sample records: kept small so that the sampling costs what a profiler's
// sampling costs, not more (ip, pid/tid, time: 8 + 8 + 8 bytes after the header).
inline constexpr std::uint64_t kSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;

struct SamplingStats {
  std::uint64_t frequency = 0;     // requested, Hz (0: no sampler)
  std::uint64_t samples = 0;       // PERF_RECORD_SAMPLE records drained
  std::uint64_t lost = 0;          // samples the kernel dropped because a ring was full
  std::uint64_t lost_records = 0;  // PERF_RECORD_LOST records drained (each reports a batch)
  std::uint64_t throttles = 0;     // PERF_RECORD_THROTTLE: the kernel lowered the rate
  std::uint64_t unthrottles = 0;   // PERF_RECORD_UNTHROTTLE
  std::uint64_t event_count = 0;   // the sampled event's own count, all CPUs (cpu-clock: ns)
  // The target's time on the CPUs sampled: every ring's time running, summed (ns).
  std::uint64_t run_ns = 0;
  std::size_t rings = 0;           // one per online CPU
};

// The rate the sampler achieved: samples per second of the target's run time
// (run_ns); 0 when it never ran. Below `frequency` when the kernel throttled the
// event (throttles > 0) or lost samples (lost > 0).
inline double achieved_hz(const SamplingStats& s) {
  return s.run_ns == 0 ? 0.0 : static_cast<double>(s.samples) * 1e9 / static_cast<double>(s.run_ns);
}

// Move-only: the events, their ring mappings and the epoll fd. Destroying it closes
// them (the target, if still running, simply stops being sampled).
//
// Thread safety: drain() and stats() may be called from different threads (one
// mutex); everything else from one thread.
// Before any run: throws the Error(event) Sampler::open would for a frequency above
// kernel.perf_event_max_sample_rate (read now; the kernel may lower it later, which
// open still reports). Does nothing when the limit cannot be read.
void require_sample_rate_allowed(const EventDesc& ev, std::uint64_t freq_hz);

// kernel.perf_event_max_sample_rate now, or 0 when it cannot be read. The kernel
// lowers it when sampling interrupts take too long ("perf: interrupt took too long"),
// so reading it after each run shows when a sampling profiler was throttled.
std::uint64_t read_max_sample_rate();

class Sampler {
 public:
  Sampler();  // inactive: what open() returns for frequency 0
  Sampler(Sampler&&) noexcept;
  Sampler& operator=(Sampler&&) noexcept;
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  ~Sampler();

  // Opens `ev` as a sampling event on the corked child (disabled, enable_on_exec,
  // inherit, freq = 1, sample_freq = freq_hz) on every online CPU and maps
  // 1 + ring_pages pages for each. freq_hz == 0 means "no sampler": returns an
  // inactive Sampler whose drain() does nothing and whose stats() are zero, so a
  // runner can treat level 0 like every other level.
  // Throws Error(usage) for ring_pages not a power of two; Error(event) when the
  // kernel refuses the event (the reason and hint of diagnose_open_error, or, for a
  // frequency above kernel.perf_event_max_sample_rate, that limit and the sysctl
  // that raises it); Error(host) when a ring cannot be mapped.
  static Sampler open(pid_t child, const EventDesc& ev, std::uint64_t freq_hz,
                      std::size_t ring_pages = kDefaultRingPages);

  bool active() const { return state_ != nullptr; }
  // Consumes every complete record now in the rings, counting samples, lost samples
  // and throttling, and hands the space back to the kernel. Cheap when empty.
  void drain();
  // Counts so far; `lost` is the larger of what the LOST records said and the
  // kernel's own count of dropped samples (PERF_FORMAT_LOST), so losses show even
  // when the ring stayed full until the end and no LOST record could be written.
  SamplingStats stats() const;
  // Readable when some ring is past its wakeup watermark (half full); -1 when inactive.
  int pollable_fd() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// How often SamplerThread drains at the latest (it also wakes when a ring is half
// full): short enough that the default ring never fills at the frequencies the issue
// names (10 kHz, see kDefaultRingPages), long enough to cost the driver little.
inline constexpr int kDrainIntervalMs = 5;

// Drains a Sampler on its own thread from construction until stop() (or
// destruction), then once more, so the runner can simply block in
// CorkedChild::wait(). The Sampler must outlive it. An inactive Sampler starts no
// thread.
//
//   Sampler s = Sampler::open(child.pid(), ev, 10000);
//   { SamplerThread t(s); child.release(); exit = child.wait(); }   // t stops, drains
//   SamplingStats st = s.stats();
class SamplerThread {
 public:
  explicit SamplerThread(Sampler& s);
  SamplerThread(const SamplerThread&) = delete;
  SamplerThread& operator=(const SamplerThread&) = delete;
  ~SamplerThread();
  void stop();  // joins the thread and drains the last records; a second call does nothing

 private:
  Sampler& sampler_;
  std::jthread thread_;
};

}  // namespace obscheck
