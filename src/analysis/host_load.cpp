#include "analysis/host_load.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace obscheck {
namespace {

struct Sums {
  double other = 0, wall = 0, queue = 0;
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

// Splits [a, b) of x recursively; `cuts` gets each accepted split point.
void segment(const std::vector<double>& x, std::size_t a, std::size_t b, double sigma, std::vector<std::size_t>& cuts) {
  const std::size_t n = b - a;
  if (n < 2 * kMinLoadSegment) return;
  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + x[a + i];
  double best_z = 0;
  std::size_t best = 0;
  for (std::size_t k = kMinLoadSegment; k + kMinLoadSegment <= n; ++k) {
    const double nl = static_cast<double>(k), nr = static_cast<double>(n - k);
    const double diff = std::abs(prefix[k] / nl - (prefix[n] - prefix[k]) / nr);
    if (diff < kLoadStepCpus) continue;
    const double z = diff * std::sqrt(nl * nr / static_cast<double>(n)) / sigma;
    if (z > best_z) {
      best_z = z;
      best = k;
    }
  }
  if (best_z < kLoadChangeZ) return;
  segment(x, a, a + best, sigma, cuts);
  cuts.push_back(a + best);
  segment(x, a + best, b, sigma, cuts);
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
    const double other = t.host_other_cpu_ns[i], wall = t.wall_ns[i];
    if (!std::isfinite(other) || !std::isfinite(wall) || wall <= 0) continue;
    Sums& s = per_block[t.block[i]];
    s.other += other;
    s.wall += wall;
    s.queue += std::isfinite(t.host_procs_running[i]) ? t.host_procs_running[i] : 0;
    ++s.runs;
  }
  HostLoad h;
  h.recorded = !per_block.empty();
  if (!h.recorded) return h;
  std::vector<double> queue;
  for (const auto& [block, s] : per_block) {
    h.blocks.push_back(block);
    h.cpus.push_back(s.other / s.wall);
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
    h.segments.push_back(s);
  }
  h.quiet_cpus = std::min_element(h.segments.begin(), h.segments.end(),
                                  [](const LoadSegment& a, const LoadSegment& b) { return a.cpus < b.cpus; })
                     ->cpus;
  for (std::size_t k = 0; k < h.segments.size(); ++k) {
    LoadSegment& s = h.segments[k];
    s.busy = s.cpus >= h.quiet_cpus + kLoadStepCpus;
    if (!s.busy) continue;
    for (std::size_t i = cuts[k]; i < cuts[k + 1]; ++i) h.busy_blocks.push_back(h.blocks[i]);
  }
  return h;
}

std::string describe_host_load(const HostLoad& h) {
  if (!h.recorded) return "the host's load was not recorded";
  std::string busy;
  for (const LoadSegment& s : h.segments) {
    if (!s.busy) continue;
    busy += fmt::format("{}{}: {:.2f} CPUs in other processes", busy.empty() ? "" : "; ", block_range(s), s.cpus);
  }
  if (busy.empty()) return fmt::format("the host's load stayed near {:.2f} CPUs in other processes", h.quiet_cpus);
  return fmt::format("the host was busy during {}, against {:.2f} in the quietest blocks", busy, h.quiet_cpus);
}

}  // namespace obscheck
