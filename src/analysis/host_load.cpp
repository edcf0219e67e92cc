#include "analysis/host_load.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace obscheck {
namespace {

struct Sums {
  double other = 0, wall = 0, queue = 0, idle = 0, idle_wall = 0;
  std::size_t runs = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
  const double hi = v[m];
  if (v.size() % 2) return hi;
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m)) + hi) / 2;
}

double robust_noise(const std::vector<double>& x) {
  std::vector<double> d;
  for (std::size_t i = 1; i < x.size(); ++i) d.push_back(std::abs(x[i] - x[i - 1]));
  return std::max(kLoadNoiseFloorCpus, 1.4826 * median(std::move(d)) / std::sqrt(2.0));
}

// Splits [a, b) of x recursively; `cuts` gets each accepted cut. The search is for an
// interval [i, j) whose mean differs from the rest's (an "epidemic" change: a busy
// phase that begins and ends inside the segment); i = a or j = b is a single change.
// A single-change search would miss a short phase in a long series: no one cut
// separates it, and the means either side of any cut differ by a fraction of it.
void segment(const std::vector<double>& x, std::size_t a, std::size_t b, double sigma, std::vector<std::size_t>& cuts) {
  const std::size_t n = b - a;
  if (n < 2 * kMinLoadSegment) return;
  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + x[a + i];
  const auto piece_ok = [](std::size_t len) { return len == 0 || len >= kMinLoadSegment; };
  double best_z = 0;
  std::size_t best_i = 0, best_j = 0;
  for (std::size_t i = 0; i + kMinLoadSegment <= n; ++i) {
    if (!piece_ok(i)) continue;
    for (std::size_t j = i + kMinLoadSegment; j <= n; ++j) {
      if (!piece_ok(n - j) || (i == 0 && j == n)) continue;
      const double in = static_cast<double>(j - i), out = static_cast<double>(n) - in;
      const double diff = std::abs((prefix[j] - prefix[i]) / in - (prefix[n] - prefix[j] + prefix[i]) / out);
      if (diff < kLoadStepCpus) continue;
      const double z = diff * std::sqrt(in * out / static_cast<double>(n)) / sigma;
      if (z > best_z) {
        best_z = z;
        best_i = i;
        best_j = j;
      }
    }
  }
  if (best_z < kLoadChangeZ) return;
  // The means locate the change; the bulk of the blocks must confirm it, so that a few
  // outlying blocks (a burst shorter than a phase) cannot make one: three quarters of
  // the interval's blocks lie beyond the rest's median by kLoadStepCpus, on the side
  // the means moved to.
  std::vector<double> inside(x.begin() + static_cast<std::ptrdiff_t>(a + best_i),
                             x.begin() + static_cast<std::ptrdiff_t>(a + best_j));
  std::vector<double> outside(x.begin() + static_cast<std::ptrdiff_t>(a), x.begin() + static_cast<std::ptrdiff_t>(a + best_i));
  outside.insert(outside.end(), x.begin() + static_cast<std::ptrdiff_t>(a + best_j), x.begin() + static_cast<std::ptrdiff_t>(b));
  const double rest = median(std::move(outside));
  const bool up = (prefix[best_j] - prefix[best_i]) / static_cast<double>(best_j - best_i) > rest;
  const std::size_t beyond = static_cast<std::size_t>(std::count_if(inside.begin(), inside.end(), [&](double v) {
    return up ? v >= rest + kLoadStepCpus : v <= rest - kLoadStepCpus;
  }));
  if (4 * beyond < 3 * inside.size()) return;
  if (best_i > 0) {
    segment(x, a, a + best_i, sigma, cuts);
    cuts.push_back(a + best_i);
  }
  segment(x, a + best_i, a + best_j, sigma, cuts);
  if (best_j < n) {
    cuts.push_back(a + best_j);
    segment(x, a + best_j, b, sigma, cuts);
  }
}

// Run i's CPU time in other processes: the host's busy ticks less the target's exact
// CPU time, unclamped, where the busy ticks are recorded (a run's share of tick noise,
// either sign, averages out over a block; the recorded per-run other_cpu_ns is floored
// at 0 and would bias a quiet block upwards); else the recorded figure.
double other_cpu_ns(const RunTable& t, std::size_t i) {
  if (i < t.host_busy_cpu_ns.size() && std::isfinite(t.host_busy_cpu_ns[i]))
    return t.host_busy_cpu_ns[i] - t.utime_ns[i] - t.stime_ns[i];
  return t.host_other_cpu_ns[i];
}

// The mean of x[a, b) over its finite entries; NaN when there is none.
double mean_known(const std::vector<double>& x, std::size_t a, std::size_t b) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = a; i < b; ++i)
    if (std::isfinite(x[i])) {
      sum += x[i];
      ++n;
    }
  return n > 0 ? sum / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
}

// Busy against the host itself: others took a measurable share and left it nearly no
// idle CPU.
bool saturated(const LoadSegment& s) {
  return std::isfinite(s.idle_cpus) && s.idle_cpus < kIdleShareCpus && s.cpus >= kLoadStepCpus;
}

std::string block_range(const LoadSegment& s) {
  return s.first_block == s.last_block ? fmt::format("block {}", s.first_block)
                                       : fmt::format("blocks {}-{}", s.first_block, s.last_block);
}

}  // namespace

HostLoad analyse_host_load(const RunTable& t) {
  std::map<std::size_t, Sums> per_block;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.warmup[i] || i >= t.host_other_cpu_ns.size()) continue;
    const double other = other_cpu_ns(t, i), wall = t.wall_ns[i];
    if (!std::isfinite(other) || !std::isfinite(wall) || wall <= 0) continue;
    Sums& s = per_block[t.block[i]];
    s.other += other;
    s.wall += wall;
    s.queue += std::isfinite(t.host_procs_running[i]) ? t.host_procs_running[i] : 0;
    if (i < t.host_idle_cpu_ns.size() && std::isfinite(t.host_idle_cpu_ns[i])) {
      s.idle += t.host_idle_cpu_ns[i];
      s.idle_wall += wall;
    }
    ++s.runs;
  }
  HostLoad h;
  h.recorded = !per_block.empty();
  if (!h.recorded) return h;
  std::vector<double> queue;
  for (const auto& [block, s] : per_block) {
    h.blocks.push_back(block);
    h.cpus.push_back(s.other / s.wall);
    h.idle.push_back(s.idle_wall > 0 ? s.idle / s.idle_wall : std::numeric_limits<double>::quiet_NaN());
    queue.push_back(s.queue / static_cast<double>(s.runs));
  }
  h.noise = robust_noise(h.cpus);
  std::vector<std::size_t> cuts{0};
  segment(h.cpus, 0, h.cpus.size(), h.noise, cuts);
  cuts.push_back(h.cpus.size());
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    LoadSegment s;
    s.first_block = h.blocks[cuts[k]];
    s.last_block = h.blocks[cuts[k + 1] - 1];
    s.blocks = cuts[k + 1] - cuts[k];
    for (std::size_t i = cuts[k]; i < cuts[k + 1]; ++i) {
      s.cpus += h.cpus[i];
      s.procs_running += queue[i];
    }
    s.cpus /= static_cast<double>(s.blocks);
    s.procs_running /= static_cast<double>(s.blocks);
    s.idle_cpus = mean_known(h.idle, cuts[k], cuts[k + 1]);
    h.segments.push_back(s);
  }
  h.quiet_cpus = std::min_element(h.segments.begin(), h.segments.end(),
                                  [](const LoadSegment& a, const LoadSegment& b) { return a.cpus < b.cpus; })
                     ->cpus;
  for (std::size_t k = 0; k < h.segments.size(); ++k) {
    LoadSegment& s = h.segments[k];
    s.busy = s.cpus >= h.quiet_cpus + kLoadStepCpus || saturated(s);
    if (!s.busy) continue;
    for (std::size_t i = cuts[k]; i < cuts[k + 1]; ++i) h.busy_blocks.push_back(h.blocks[i]);
  }
  return h;
}

std::string describe_host_load(const HostLoad& h) {
  if (!h.recorded) return "the host's load was not recorded";
  std::string busy;
  bool all_busy = true;
  for (const LoadSegment& s : h.segments) {
    all_busy = all_busy && s.busy;
    if (!s.busy) continue;
    busy += fmt::format("{}{}: {:.2f} CPUs in other processes", busy.empty() ? "" : "; ", block_range(s), s.cpus);
    if (saturated(s)) busy += fmt::format(", {:.2f} left idle", s.idle_cpus);
  }
  if (busy.empty()) return fmt::format("the host's load stayed near {:.2f} CPUs in other processes", h.quiet_cpus);
  if (all_busy)
    return fmt::format("the host was busy during {}: less than {:.1f} CPU idle throughout", busy, kIdleShareCpus);
  return fmt::format("the host was busy during {}, against {:.2f} in the quietest blocks", busy, h.quiet_cpus);
}

}  // namespace obscheck
