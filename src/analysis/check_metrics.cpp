// analysis/check: the metrics a check compares (the counters' readings, the driver's
// metrics), each run's value of one, the runs indexed by block and paired, and the size
// of the Holm families a plan foresees (first_look).
#include "analysis/check.h"
#include "analysis/check_internal.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "plan/counter_list.h"
#include "stats/magnitude.h"
#include "util/error.h"

namespace obscheck {
namespace check_detail {
namespace {

// The driver metric that belongs to the primary family: the time the user waits.
constexpr std::string_view kWallTimeMetric = "wall-time";
// The driver metric that is a peak, not a sum: the target's own only when above obscheck's.
constexpr std::string_view kMaxRssMetric = "max-rss";

// The plan counter item named `name`, or a {group} item with `name` as a member.
std::optional<std::size_t> counter_by_name(const Plan& plan, const std::string& name) {
  for (std::size_t i = 0; i < plan.spec.counters.size(); ++i) {
    const std::vector<std::string> members = item_members(plan.spec.counters[i]);
    if (std::find(members.begin(), members.end(), name) != members.end()) return i;
  }
  return std::nullopt;
}

std::vector<MetricInfo> order_metrics(const Plan& plan, const std::vector<std::string>& names,
                                      std::map<std::string, std::optional<std::size_t>>& item) {
  std::vector<MetricInfo> out;
  for (const std::string& name : names) {
    std::optional<std::size_t> counter = item[name];
    if (!counter) counter = counter_by_name(plan, name);
    out.push_back({name, counter_unit(name), false, counter, counter.has_value()});
  }
  // By counter item (unmatched last); first appearance within an item.
  std::stable_sort(out.begin(), out.end(), [](const MetricInfo& a, const MetricInfo& b) {
    const auto key = [](const MetricInfo& m) { return m.counter.value_or(std::numeric_limits<std::size_t>::max()); };
    return key(a) < key(b);
  });
  // Under a profiler command the run's wall time is the target's own (run/measurer.h),
  // while the reaped process's rusage is the profiler's and the target's together: the
  // profiler's cost, reported per dose and never judged as the target's (the counters,
  // opened on the target alone, stand for its own usage).
  const bool command = plan.spec.doses_wrap_a_command();
  for (const DriverMetric& d : check_driver_metrics()) {
    const bool with_profiler = command && d.name != kWallTimeMetric;
    out.push_back({d.name, d.unit, true, std::nullopt, d.name == kWallTimeMetric,
                   with_profiler ? kTargetAndProfiler : "", !with_profiler});
  }
  return out;
}

}  // namespace

// The check's driver metrics: those of record/run_table.h with a RunTable column.
const std::vector<DriverMetric>& check_driver_metrics() {
  static const std::vector<DriverMetric> metrics = [] {
    std::vector<DriverMetric> out;
    for (const DriverMetric& d : driver_metrics())
      if (d.column != nullptr) out.push_back(d);
    return out;
  }();
  return metrics;
}

// The column of a metric in the table (a driver metric's, or a reading's values).
const NumberColumn* column_of(const MetricInfo& m, const RunTable& t) {
  if (m.driver) {
    for (const DriverMetric& d : check_driver_metrics())
      if (m.name == d.name) return &(t.*d.column);
    return nullptr;
  }
  const RunTable::Readings* r = t.find(m.name);
  return r ? &r->value : nullptr;
}

void hide_censored_peaks(const RunTable& t, const BlockRows& b, Findings& f) {
  for (MetricInfo& m : f.metrics) {
    if (!m.driver || m.name != kMaxRssMetric || !m.judged) continue;
    std::size_t censored = 0, unknown = 0;
    double ceiling = 0;  // the largest value a hidden peak is known to stay under
    for (std::uint32_t r : b.cells) {
      if (r == BlockRows::kNoRow) continue;
      const double floor = r < t.pre_exec_maxrss_kb.size() ? t.pre_exec_maxrss_kb[r] : kNaN;
      if (std::isnan(floor)) {
        ++unknown;
      } else if (!(t.maxrss_kb[r] > floor)) {
        ++censored;
        ceiling = std::max(ceiling, t.maxrss_kb[r]);
      }
    }
    if (censored > 0)
      m.hidden = fmt::format("hidden by obscheck's own peak before exec (≤ {:.0f} KiB): in {} run{} the peak "
                             "did not exceed it, so the target's own is not known",
                             ceiling, censored, censored == 1 ? "" : "s");
    else if (unknown > 0)
      m.hidden = "not known to be the target's: the journal does not record obscheck's own peak before exec "
                 "(written before it did), and the kernel keeps the larger of the two";
    if (!m.hidden.empty()) m.judged = false;
  }
}

void require_config_in_plan(const Plan& plan, std::size_t config, std::size_t index) {
  if (config >= plan.configs.size())
    throw Error(ErrorKind::io,
                fmt::format("run {} names configuration {}, but the plan has {}", index, config, plan.configs.size()),
                "the journal was written for another plan");
}

BlockRows index_runs(const Plan& plan, const RunTable& t, Findings& f) {
  if (t.size() >= BlockRows::kNoRow)
    throw Error(ErrorKind::io, fmt::format("{} runs are more than one check's analysis can hold", t.size()));
  // The measured rows as {block, row}, sorted: by block, and within a block in file
  // order, so that the first run of a repeated trial is the one analysed.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> measured;
  for (std::size_t row = 0; row < t.size(); ++row) {
    require_config_in_plan(plan, t.config[row], t.index[row]);
    if (t.warmup[row]) {
      ++f.warmup_runs_dropped;
      continue;
    }
    ++f.runs;
    measured.emplace_back(t.block[row], static_cast<std::uint32_t>(row));
  }
  std::sort(measured.begin(), measured.end());
  BlockRows out;
  out.configs = plan.configs.size();
  std::size_t duplicates = 0;
  for (std::size_t i = 0; i < measured.size();) {
    const std::uint32_t block = measured[i].first;
    const std::size_t first = out.cells.size();
    out.blocks.push_back(block);
    out.cells.resize(first + out.configs, BlockRows::kNoRow);
    std::size_t ran = 0;
    for (; i < measured.size() && measured[i].first == block; ++i) {
      std::uint32_t& cell = out.cells[first + t.config[measured[i].second]];
      if (cell != BlockRows::kNoRow) {
        ++duplicates;  // the first run of a trial is the one analysed
        continue;
      }
      cell = measured[i].second;
      ++ran;
    }
    // A block is complete when every configuration it ran ran (plan/ Retirement: a
    // settled configuration stops running).
    if (ran >= configs_in_block(plan, block)) {
      ++f.measured_blocks;
    } else {
      f.notes.push_back(fmt::format("block {} is incomplete ({} of {} configurations ran): its pairs are used "
                                    "where both sides ran",
                                    block, ran, out.configs));
    }
  }
  if (f.warmup_runs_dropped > 0)
    f.notes.push_back(fmt::format("{} warm-up runs (the first {} block{}) not analysed", f.warmup_runs_dropped,
                                  plan.spec.warmup_blocks, plan.spec.warmup_blocks == 1 ? "" : "s"));
  if (duplicates > 0)
    f.notes.push_back(fmt::format("{} runs repeat a trial already recorded; the first of each was used", duplicates));
  return out;
}

Series pair_series(const NumberColumn* column, const BlockRows& b, std::size_t config, std::size_t base) {
  Series s;
  // At most one pair a block: reserved, the kept vectors carry no growth slack (and
  // are fitted below where a configuration ran in fewer blocks).
  s.joint.reserve(b.blocks.size());
  if (column) {
    s.blocks.reserve(b.blocks.size());
    s.x.reserve(b.blocks.size());
    s.y.reserve(b.blocks.size());
  }
  for (std::size_t k = 0; k < b.blocks.size(); ++k) {
    const std::size_t rx = b.row(k, config), ry = b.row(k, base);
    if (rx == kNone || ry == kNone) continue;
    s.joint.push_back(static_cast<std::uint32_t>(k));
    if (!column) continue;
    const double vx = (*column)[rx], vy = (*column)[ry];
    if (!std::isfinite(vx) || !std::isfinite(vy)) continue;
    s.blocks.push_back(static_cast<std::uint32_t>(b.blocks[k]));
    s.x.push_back(vx);
    s.y.push_back(vy);
  }
  s.joint.shrink_to_fit();
  s.blocks.shrink_to_fit();
  return s;
}

Series series_of(const RunTable& t, const BlockRows& b, const Findings& f, const Comparison& c) {
  Series s = pair_series(column_of(f.metrics[c.metric], t), b, c.config, c.baseline);
  differences(s, c.scale);
  fill_tails(c, s);  // the whole distribution's test (infer) reads them; x and y go after
  std::vector<double>().swap(s.x);
  std::vector<double>().swap(s.y);
  return s;
}

namespace {
std::size_t count_family(const Plan& plan, bool primary_only) {
  std::size_t n = 0;
  const auto count = [&](Metric metric, std::size_t members) {
    for (const Configuration& c : plan.configs)
      if (!c.aa_duplicate && comparison_baseline(plan, metric, c.index)) n += members;
  };
  for (std::size_t i = 0; i < plan.spec.counters.size(); ++i) {
    const std::string& item = plan.spec.counters[i];
    count(Metric::of_counter(i), static_cast<std::size_t>(std::count(item.begin(), item.end(), ',')) + 1);
  }
  count(Metric::driver(), primary_only ? 1 : check_driver_metrics().size());  // wall time alone is primary
  return n;
}
}  // namespace
}  // namespace check_detail

void require_run_in_plan(const Plan& plan, const RunRecord& run) {
  check_detail::require_config_in_plan(plan, run.config, run.index);
}

std::optional<double> metric_value(const MetricInfo& metric, const RunRecord& run) {
  if (!metric.driver) {
    for (const Reading& r : run.readings)
      if (r.name == metric.name) return std::isfinite(r.value) ? std::optional<double>(r.value) : std::nullopt;
    return std::nullopt;
  }
  for (const DriverMetric& d : check_detail::check_driver_metrics())
    if (metric.name == d.name) return d.of(run.exit);
  return std::nullopt;
}

std::vector<MetricInfo> check_metrics(const Plan& plan, const std::vector<RunRecord>& runs) {
  std::vector<std::string> names;
  std::map<std::string, std::optional<std::size_t>> item;
  for (const RunRecord& r : runs) {
    const Configuration* c = r.config < plan.configs.size() ? &plan.configs[r.config] : nullptr;
    for (const Reading& reading : r.readings) {
      auto [it, added] = item.try_emplace(reading.name);
      if (added) names.push_back(reading.name);
      if (!it->second && c && c->solo_of) it->second = c->solo_of;
    }
  }
  return check_detail::order_metrics(plan, names, item);
}

std::vector<MetricInfo> check_metrics(const Plan& plan, const RunTable& t) {
  // The reading columns are in order of first appearance, as the RunRecord form
  // collects them; a reading's counter item is the solo_of of its first row that has it.
  std::vector<std::string> names;
  std::map<std::string, std::optional<std::size_t>> item;
  for (const RunTable::Readings& col : t.readings) {
    names.push_back(col.name);
    auto& slot = item[col.name];
    for (std::size_t row = 0; row < t.size() && !slot; ++row) {
      if (std::isnan(col.scale[row])) continue;  // no such reading in this run
      const std::size_t cfg = t.config[row];
      if (cfg < plan.configs.size() && plan.configs[cfg].solo_of) slot = plan.configs[cfg].solo_of;
    }
  }
  return check_detail::order_metrics(plan, names, item);
}

std::size_t planned_family(const Plan& plan) { return check_detail::count_family(plan, false); }

std::size_t planned_primary_family(const Plan& plan) { return check_detail::count_family(plan, true); }

std::size_t magnitude_first_blocks(std::size_t block_size, double alpha) {
  const double k = static_cast<double>(std::max<std::size_t>(block_size, 2));
  std::size_t n = 1;
  while (std::pow(k, 1.0 - static_cast<double>(n)) > kMagnitudeShare * alpha) ++n;
  return n;
}

std::size_t first_look(const Plan& plan, double alpha) {
  const std::size_t family = std::max<std::size_t>(planned_primary_family(plan), 1);
  return std::max({kMinPairedBlocks, magnitude_first_blocks(plan.block_size(), alpha),
                   stats::magnitude_blocks_to_decide(kMagnitudeShare * alpha / static_cast<double>(family))});
}

}  // namespace obscheck
