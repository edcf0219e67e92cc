#include "plan/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>

#include "util/error.h"
#include "util/splitmix64.h"

namespace obscheck {

namespace {

// A spec with more warm-up blocks than this is a typo, not a methodology.
constexpr std::size_t kMaxWarmupBlocks = 1000;

std::string config_id(std::string_view observer, const Level& level, Layout layout, bool aa) {
  return fmt::format("{}={}/{}{}", observer, level.label, to_string(layout), aa ? "#aa" : "");
}

// The level as the runner applies it under `layout` (see Configuration::level).
Level applied_level(const Level& level, Layout layout) {
  Level applied = level;
  if (layout == Layout::sham && applied.programmed.size() > 1)
    applied.programmed = std::vector<std::size_t>{level.programmed.front()};
  return applied;
}

std::size_t baseline_level(const std::vector<Level>& levels) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < levels.size(); ++i)
    if (levels[i].dose < levels[best].dose) best = i;
  return best;
}

void validate(const PlanSpec& spec) {
  if (spec.levels.empty()) throw Error(ErrorKind::usage, "the plan has no levels to compare");
  if (spec.layouts.empty()) throw Error(ErrorKind::usage, "the plan has no layout conditions");
  std::set<Layout> layouts;
  for (Layout l : spec.layouts)
    if (!layouts.insert(l).second)
      throw Error(ErrorKind::usage, fmt::format("layout '{}' is listed twice", to_string(l)));
  std::set<std::string> labels;
  for (const Level& level : spec.levels) {
    if (!labels.insert(level.label).second)
      throw Error(ErrorKind::usage, fmt::format("level '{}' is listed twice", level.label));
    if (spec.counters.empty()) continue;
    for (const auto* list : {&level.programmed, &level.announced})
      for (std::size_t c : *list)
        if (c >= spec.counters.size())
          throw Error(ErrorKind::usage,
                      fmt::format("level '{}' refers to counter {} but only {} are listed",
                                  level.label, c + 1, spec.counters.size()));
  }
  if (spec.max_blocks == 0)
    throw Error(ErrorKind::usage, "--max-runs must be at least 1 block",
                fmt::format("the first look is at {} blocks", kFirstLook));
  if (spec.fixed_blocks && *spec.fixed_blocks == 0)
    throw Error(ErrorKind::usage, "--runs must be at least 1 block");
  if (spec.shard) {
    const Shard& sh = *spec.shard;
    if (!spec.fixed_blocks)
      throw Error(ErrorKind::usage, "a shard needs a plan with a fixed number of blocks", "give the plan --runs N");
    if (sh.count == 0 || sh.index >= sh.count)
      throw Error(ErrorKind::usage, fmt::format("shard {}/{} is out of range", sh.index, sh.count),
                  "shards are numbered 0..N-1, as Slurm's array task ids");
    if (sh.count > *spec.fixed_blocks)
      throw Error(ErrorKind::usage,
                  fmt::format("{} shards of a plan of {} blocks would leave some without a block", sh.count,
                              *spec.fixed_blocks),
                  "use at most as many shards as the plan has blocks");
  }
  if (spec.warmup_blocks > kMaxWarmupBlocks)
    throw Error(ErrorKind::usage,
                fmt::format("{} warm-up blocks is more than {}", spec.warmup_blocks, kMaxWarmupBlocks));
  const std::size_t configs = spec.levels.size() * spec.layouts.size();
  if (spec.group_size == 0 || configs % spec.group_size != 0 || (spec.group_size > 1 && spec.aa_control))
    throw Error(ErrorKind::usage, fmt::format("groups of {} do not divide {} configurations{}", spec.group_size, configs,
                                              spec.aa_control ? " and the A/A copy" : ""));
}

}  // namespace

std::string_view to_string(Layout layout) {
  switch (layout) {
    case Layout::natural: return "natural";
    case Layout::held: return "held";
    case Layout::sham: return "sham";
  }
  return "held";
}

Layout layout_from_string(std::string_view text) {
  for (Layout l : {Layout::natural, Layout::held, Layout::sham})
    if (text == to_string(l)) return l;
  throw Error(ErrorKind::usage, fmt::format("unknown layout '{}'", text),
              "use one of: natural, held, sham");
}

std::string_view to_string(CountingMode mode) {
  return mode == CountingMode::external ? "external" : "inprocess";
}

CountingMode counting_mode_from_string(std::string_view text) {
  if (text == "external") return CountingMode::external;
  if (text == "inprocess") return CountingMode::inprocess;
  throw Error(ErrorKind::usage, fmt::format("--mode must be external or inprocess, not '{}'", text),
              "use --mode external (the driver counts) or --mode inprocess (a preloaded library counts)");
}

std::string PlanSpec::dose_noun() const {
  if (kind != PlanKind::check) return {};
  return std::string(obscheck::dose_noun(observer));
}

std::string_view PlanSpec::name() const { return kind == PlanKind::check ? to_string(observer) : to_string(kind); }

std::vector<Layout> layouts_for(CountingMode mode) {
  if (mode == CountingMode::external) return {Layout::held};
  return {Layout::natural, Layout::held, Layout::sham};
}

std::size_t next_look(std::size_t n) { return n + std::max<std::size_t>(1, n / 4); }

std::vector<std::size_t> looks(std::size_t max_blocks, std::size_t first) {
  std::vector<std::size_t> out;
  // n stops short of overflowing (a huge --max-runs, or a plan read from a file).
  for (std::size_t n = std::max<std::size_t>(first, 1); n < max_blocks && n <= SIZE_MAX / 2; n = next_look(n))
    out.push_back(n);
  if (max_blocks > 0) out.push_back(max_blocks);
  return out;
}

Plan make_plan(const PlanSpec& spec) {
  validate(spec);
  Plan plan;
  plan.spec = spec;
  for (std::size_t li = 0; li < spec.levels.size(); ++li) {
    const Level& level = spec.levels[li];
    for (Layout layout : spec.layouts) {
      Configuration c;
      c.index = plan.configs.size();
      c.id = config_id(spec.name(), level, layout, false);
      c.level_index = li;
      c.level = applied_level(level, layout);
      c.layout = layout;
      if (level.programmed.size() == 1) c.solo_of = level.programmed.front();
      plan.configs.push_back(std::move(c));
    }
  }
  const std::size_t base = baseline_level(spec.levels);
  for (std::size_t k = 0; k < spec.layouts.size(); ++k)
    plan.baselines.push_back(base * spec.layouts.size() + k);

  if (!spec.aa_control) {
    plan.aa = plan.configs.size();
    return plan;
  }
  Configuration aa = plan.configs[plan.baselines.front()];
  aa.index = plan.configs.size();
  aa.id = config_id(spec.name(), spec.levels[base], aa.layout, true);
  aa.aa_duplicate = true;
  aa.solo_of.reset();
  plan.aa = aa.index;
  plan.configs.push_back(std::move(aa));
  return plan;
}

std::size_t baseline_for(const Plan& plan, Layout layout) {
  for (std::size_t k = 0; k < plan.spec.layouts.size(); ++k)
    if (plan.spec.layouts[k] == layout) return plan.baselines[k];
  throw Error(ErrorKind::internal,
              fmt::format("the plan has no '{}' layout", to_string(layout)));
}

std::vector<std::size_t> plan_looks(const Plan& plan, std::size_t first) {
  if (plan.spec.fixed_blocks && plan.spec.shard) return {shard_blocks(*plan.spec.fixed_blocks, *plan.spec.shard)};
  if (plan.spec.fixed_blocks) return {*plan.spec.fixed_blocks};
  return looks(plan.spec.max_blocks, first);
}

std::uint64_t splitmix64(std::uint64_t x) { return splitmix64_next(x); }

std::uint64_t bounded_draw(std::mt19937_64& engine, std::uint64_t bound) {
  // Values below 2^64 mod bound would make the low residues more likely; redraw them
  // (as OpenBSD's arc4random_uniform). At most half the range is ever rejected.
  const std::uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t x = engine();
    if (x >= threshold) return x % bound;
  }
}

namespace {

// Fisher-Yates over `v` with bounded_draw.
void shuffle_with(std::vector<std::size_t>& v, std::mt19937_64& engine) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(bounded_draw(engine, i));
    std::swap(v[i - 1], v[j]);
  }
}

std::vector<std::size_t> iota(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

std::vector<std::size_t> block_order(const Plan& plan, std::size_t block) {
  std::mt19937_64 engine(splitmix64(splitmix64(plan.spec.seed) + block));
  const std::size_t g = plan.spec.group_size;
  if (g <= 1) {
    std::vector<std::size_t> order = iota(plan.block_size());
    shuffle_with(order, engine);
    return order;
  }
  std::vector<std::size_t> groups = iota(plan.block_size() / g), order;
  shuffle_with(groups, engine);
  for (std::size_t group : groups) {
    std::vector<std::size_t> members = iota(g);
    shuffle_with(members, engine);
    for (std::size_t m : members) order.push_back(group * g + m);
  }
  return order;
}

bool runs_block(const Plan& plan, std::size_t block) {
  const std::size_t w = plan.spec.warmup_blocks;
  if (!plan.spec.shard || block < w) return true;
  return (block - w) % plan.spec.shard->count == plan.spec.shard->index;
}

std::size_t shard_blocks(std::size_t total, const Shard& s) {
  return s.index < total ? (total - s.index + s.count - 1) / s.count : 0;
}

Plan whole_plan(const Plan& plan) {
  Plan out = plan;
  out.spec.shard.reset();
  return out;
}

bool runs_in(const Plan& plan, std::size_t config, std::size_t block) {
  for (const Retirement& r : plan.retired)
    if (r.config == config && block >= r.from_block) return false;
  return true;
}

std::size_t configs_in_block(const Plan& plan, std::size_t block) {
  std::size_t n = 0;
  for (std::size_t c = 0; c < plan.block_size(); ++c) n += runs_in(plan, c, block) ? 1 : 0;
  return n;
}

std::size_t runs_retired(const Plan& plan, std::size_t end_block) {
  std::size_t saved = 0;
  for (const Retirement& r : plan.retired)
    for (std::size_t b = r.from_block; b < end_block; ++b) saved += runs_block(plan, b) ? 1 : 0;
  return saved;
}

std::vector<Trial> trials(const Plan& plan, std::size_t first_block, std::size_t end_block) {
  std::vector<Trial> out;
  const std::size_t n = plan.block_size();
  for (std::size_t b = first_block; b < end_block; ++b) {
    if (!runs_block(plan, b)) continue;
    const auto order = block_order(plan, b);
    for (std::size_t p = 0; p < n; ++p)
      if (runs_in(plan, order[p], b)) out.push_back(Trial{b * n + p, b, p, order[p], b < plan.spec.warmup_blocks});
  }
  return out;
}

Trial trial_at(const Plan& plan, std::size_t index) {
  const std::size_t n = plan.block_size();
  const std::size_t b = index / n, p = index % n;
  return Trial{index, b, p, block_order(plan, b)[p], b < plan.spec.warmup_blocks};
}

std::size_t end_block_for(const Plan& plan, std::size_t measured_blocks) {
  if (!plan.spec.shard || measured_blocks == 0) return plan.spec.warmup_blocks + measured_blocks;
  // The shard's m-th measured block is the plan's block w + (m - 1) * count + index.
  return plan.spec.warmup_blocks + (measured_blocks - 1) * plan.spec.shard->count + plan.spec.shard->index + 1;
}

std::size_t runs_for(const Plan& plan, std::size_t measured_blocks) {
  if (plan.retired.empty()) return (plan.spec.warmup_blocks + measured_blocks) * plan.block_size();
  std::size_t runs = 0;
  const std::size_t end = plan.spec.warmup_blocks + measured_blocks;
  for (std::size_t b = 0; b < end; ++b) runs += configs_in_block(plan, b);
  return runs;
}

std::optional<std::size_t> comparison_baseline(const Plan& plan, Metric metric, std::size_t config) {
  const Configuration& c = plan.configs.at(config);
  std::optional<std::size_t> ref;
  // Only the counter observer varies which counters are programmed; every other
  // observer (probes, sampling, a profiler command, build variants) programs the same
  // counters at every dose, so each is compared with the least-observed level.
  if (!metric.counter || !plan.spec.doses_are_counters()) {
    if (metric.counter && std::find(c.level.programmed.begin(), c.level.programmed.end(), *metric.counter) ==
                              c.level.programmed.end())
      return {};
    ref = baseline_for(plan, c.layout);
  } else {
    const auto& counted = c.level.programmed;
    if (std::find(counted.begin(), counted.end(), *metric.counter) == counted.end()) return {};
    for (const Configuration& o : plan.configs)
      if (!o.aa_duplicate && o.layout == c.layout && o.solo_of == metric.counter) {
        ref = o.index;
        break;
      }
  }
  if (ref == config) return {};
  return ref;
}

}  // namespace obscheck
