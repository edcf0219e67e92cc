#include "calibration/replay.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "analysis/host_load.h"
#include "analysis/settled.h"
#include "calibration/adapter.h"
#include "record/request.h"
#include "record/run_table.h"
#include "util/error.h"

namespace obscheck::calibration {
namespace {

// The kernel's tick accounting of /proc/stat at USER_HZ = 100, as on Debian's kernels.
constexpr double kTickNs = 1e7;
// (sqrt(5) - 1) / 2: the step of the most even low-discrepancy sequence j * step mod 1.
constexpr double kGoldenFraction = 0.6180339887498949;

void shuffle(std::vector<std::size_t>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[bounded_draw(rng, i)]);
}

bool has_reading(const RunRecord& r, const std::string& name) {
  return std::any_of(r.readings.begin(), r.readings.end(), [&](const Reading& x) { return x.name == name; });
}

const Reading& reading_named(const RunRecord& r, const std::string& name) {
  for (const Reading& x : r.readings)
    if (x.name == name) return x;
  throw Error(ErrorKind::internal, fmt::format("run {} has no reading {}", r.index, name));
}

ReplayBlock relabel(const Fixture::Block& b, std::size_t source, std::mt19937_64& rng) {
  const std::size_t n = b.by_config.size();
  ReplayBlock out;
  out.source_block = source;
  out.run_of.resize(n);
  for (std::size_t c = 0; c < n; ++c) out.run_of[c] = c;
  shuffle(out.run_of, rng);
  std::set<std::string> names;
  for (const RunRecord& r : b.by_config)
    for (const Reading& x : r.readings) names.insert(x.name);
  for (const std::string& name : names) {
    std::vector<std::size_t> of(n, n);  // n: c does not count `name`
    std::vector<bool> taken(n, false);
    std::vector<std::size_t> open;      // configurations counting `name` whose source lacks it
    for (std::size_t c = 0; c < n; ++c) {
      if (!has_reading(b.by_config[c], name)) continue;
      const std::size_t s = out.run_of[c];
      if (has_reading(b.by_config[s], name)) {
        of[c] = s;
        taken[s] = true;
      } else {
        open.push_back(c);
      }
    }
    std::vector<std::size_t> left;      // runs with `name` that no configuration took
    for (std::size_t s = 0; s < n; ++s)
      if (has_reading(b.by_config[s], name) && !taken[s]) left.push_back(s);
    shuffle(left, rng);
    for (std::size_t i = 0; i < open.size(); ++i) of[open[i]] = left.at(i);
    out.reading_of[name] = std::move(of);
  }
  return out;
}

std::uint64_t scaled(std::uint64_t v, double f) { return static_cast<std::uint64_t>(std::llround(static_cast<double>(v) * f)); }

void scale_time(RunRecord& r, double f) {
  for (Reading& x : r.readings)
    if (x.name == "task-clock") {
      x.value *= f;
      x.raw = scaled(x.raw, f);
    }
  r.exit.wall_ns = scaled(r.exit.wall_ns, f);
  const double us = (static_cast<double>(r.exit.usage.ru_utime.tv_sec) * 1e6 + static_cast<double>(r.exit.usage.ru_utime.tv_usec)) * f;
  const auto whole = static_cast<long long>(std::llround(us));
  r.exit.usage.ru_utime.tv_sec = static_cast<time_t>(whole / 1000000);
  r.exit.usage.ru_utime.tv_usec = static_cast<suseconds_t>(whole % 1000000);
}

// Other processes' CPU time over a run as the runner records it (run/host_sample.h):
// the ticks that fell in the run, whole, for the target and the others alike, less
// the target's exact CPU time (taken as its wall time: the workloads are CPU-bound).
void add_host_load(RunRecord& r, double cpus, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto wall = static_cast<double>(r.exit.wall_ns);
  const double ticks = std::floor((1 + cpus) * wall / kTickNs + u(rng));
  const int queue = 1 + (u(rng) < cpus ? 1 : 0);  // the driver itself, and maybe another
  r.host = HostLoadRecord{static_cast<std::int64_t>(ticks * kTickNs - wall), {}, {}, {}, static_cast<std::uint64_t>(queue)};
}

}  // namespace

std::vector<std::size_t> default_looks(std::size_t window) { return looks(window); }

std::vector<std::size_t> default_looks(const Plan& plan, std::size_t window) {
  return looks(window, first_look_of(plan));
}

Plan replay_plan(const Fixture& fx, std::size_t window) {
  PlanSpec spec = fx.plan.spec;
  spec.fixed_blocks.reset();
  spec.max_blocks = window;
  Plan plan = make_plan(spec);
  const bool same = plan.configs.size() == fx.plan.configs.size() &&
                    std::equal(plan.configs.begin(), plan.configs.end(), fx.plan.configs.begin(),
                               [](const Configuration& a, const Configuration& b) { return a.id == b.id; });
  if (!same) throw Error(ErrorKind::internal, fmt::format("{}: the replay's plan has other configurations", fx.name));
  return plan;
}

std::size_t injected_config(const Plan& plan, const Injection& in) {
  if (in.config) {
    if (*in.config >= plan.configs.size())
      throw Error(ErrorKind::usage, fmt::format("configuration {} is not in the plan", *in.config));
    return *in.config;
  }
  const Layout first = plan.spec.layouts.at(0);
  std::optional<std::size_t> top;
  // The most observed level: the highest dose among the first layout's configurations
  // that are not the A/A copy, the last in plan order among equals.
  for (const Configuration& c : plan.configs) {
    if (c.aa_duplicate || c.layout != first) continue;
    if (!top || c.level.dose >= plan.configs[*top].level.dose) top = c.index;
  }
  if (!top) throw Error(ErrorKind::usage, "the plan has no configuration to inject an effect into");
  return *top;
}

namespace {

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  return h;
}

}  // namespace

std::mt19937_64 replay_stream(std::uint64_t seed, const std::string& fixture, const std::string& case_name,
                              std::uint64_t number, bool tiling) {
  std::vector<std::uint32_t> words;
  for (const std::uint64_t v : {seed, fnv1a(fixture), fnv1a(case_name), number, std::uint64_t{tiling ? 1u : 0u}}) {
    words.push_back(static_cast<std::uint32_t>(v));
    words.push_back(static_cast<std::uint32_t>(v >> 32));
  }
  std::seed_seq seq(words.begin(), words.end());
  return std::mt19937_64(seq);
}

ReplayWindow open_window(const Fixture& fx, std::size_t window, std::uint64_t seed, const std::string& case_name,
                         std::size_t number, bool rotate) {
  if (window == 0) throw Error(ErrorKind::usage, "a replay window needs at least one block");
  if (window > fx.blocks.size())
    throw Error(ErrorKind::usage,
                fmt::format("{} has {} complete blocks, fewer than a window of {}", fx.name, fx.blocks.size(), window));
  ReplayWindow w;
  w.window = window;
  w.slots = fx.blocks.size() / window;
  w.slot = number % w.slots;
  // The series' tiling: one offset for all its replays, so their windows never overlap.
  std::mt19937_64 tiling = replay_stream(seed, fx.name, case_name, 0, true);
  const std::size_t offset = bounded_draw(tiling, fx.blocks.size() - w.slots * window + 1);
  w.slot_first = offset + w.slot * window;
  // The j-th replay of a slot starts frac(j * golden ratio) of the way into it: any
  // number of replays so spread their first blocks nearly evenly over the slot.
  const std::size_t j = number / w.slots;
  const double spread = rotate ? std::fmod(static_cast<double>(j) * kGoldenFraction, 1.0) : 0.0;
  w.rotation = std::min(window - 1, static_cast<std::size_t>(spread * static_cast<double>(window)));
  w.first_block = w.slot_first + w.rotation;
  w.stream = replay_stream(seed, fx.name, case_name, number, false);
  w.seed = w.stream();
  return w;
}

void relabel_through(const Fixture& fx, ReplayWindow& w, std::size_t blocks) {
  for (std::size_t k = w.blocks.size(); k < std::min(blocks, w.window); ++k) {
    const std::size_t source = w.slot_first + (w.rotation + k) % w.window;
    w.blocks.push_back(relabel(fx.blocks[source], source, w.stream));
  }
}

ReplayWindow draw_window(const Fixture& fx, std::size_t window, std::uint64_t seed, const std::string& case_name,
                         std::size_t number, bool rotate) {
  ReplayWindow w = open_window(fx, window, seed, case_name, number, rotate);
  relabel_through(fx, w, window);
  return w;
}

double live_budget_seconds() { return CheckRequest{}.time_budget; }

BudgetWindow budget_window(const Fixture& fx, double budget_s) {
  BudgetWindow out;
  if (fx.sweep && fx.sweep->seconds_per_block > 0) {
    out.seconds_per_block = fx.sweep->seconds_per_block;
    out.from_note = true;
  } else {
    double ns = 0;
    for (const Fixture::Block& b : fx.blocks)
      for (const RunRecord& r : b.by_config) ns += static_cast<double>(r.exit.wall_ns);
    out.seconds_per_block = ns * 1e-9 / static_cast<double>(fx.blocks.size());
  }
  const double total = std::floor(budget_s / out.seconds_per_block);
  const auto warmup = static_cast<double>(fx.plan.spec.warmup_blocks);
  const double cap = static_cast<double>(kMaxMeasuredBlocks);
  out.within_budget = total - warmup >= cap ? kMaxMeasuredBlocks
                                            : static_cast<std::size_t>(std::max(1.0, total - warmup));
  out.blocks = std::min(out.within_budget, fx.blocks.size());
  return out;
}

ReplayRuns::ReplayRuns(const Fixture& fx, const Injection& in, std::uint64_t seed)
    : fx_(fx), in_(in), target_(injected_config(fx.plan, in)), host_rng_(splitmix64(seed)) {}

std::vector<RunRecord> ReplayRuns::next(const ReplayWindow& w, std::size_t k) {
  if (k != next_ || k >= w.blocks.size())
    throw Error(ErrorKind::internal, fmt::format("replayed block {} asked for, block {} of {} relabelled next", k,
                                                 next_, w.blocks.size()));
  ++next_;
  const Plan& plan = fx_.plan;
  const std::size_t size = plan.block_size();
  const ReplayBlock& rb = w.blocks[k];
  const Fixture::Block& b = fx_.blocks[rb.source_block];
  const std::size_t block = plan.spec.warmup_blocks + k;
  const Injection& in = in_;
  std::vector<RunRecord> out;
  out.reserve(size);
  for (std::size_t c = 0; c < size; ++c) {
    RunRecord r = b.by_config[rb.run_of[c]];
    r.config = c;
    r.config_id = plan.configs[c].id;
    r.block = block;
    r.index = block * size + r.position;
    r.env_bytes = b.by_config[c].env_bytes;
    r.readings.clear();
    for (const Reading& own : b.by_config[c].readings)
      r.readings.push_back(reading_named(b.by_config[rb.reading_of.at(own.name)[c]], own.name));
    double f = 1;
    if (c == target_ && (in.shape == Shape::constant || k >= w.window / 2)) f *= 1 + in.effect;
    if (in.load && k >= in.load->first && k < in.load->last &&
        (in.load->slowed.empty() ? c == target_
                                 : std::find(in.load->slowed.begin(), in.load->slowed.end(), c) != in.load->slowed.end()))
      f *= 1 + in.load->slowdown;
    if (f != 1) scale_time(r, f);
    out.push_back(std::move(r));
  }
  // Run order within the block is the recorded time order.
  std::sort(out.begin(), out.end(), [](const RunRecord& a, const RunRecord& b2) { return a.position < b2.position; });
  if (in.load) {
    const bool busy = k >= in.load->first && k < in.load->last;
    for (RunRecord& r : out) add_host_load(r, busy ? in.load->busy_cpus : in.load->quiet_cpus, host_rng_);
  }
  return out;
}

std::vector<RunRecord> replay_runs(const Fixture& fx, const ReplayWindow& w, const Injection& in, std::size_t blocks) {
  ReplayRuns source(fx, in, w.seed);
  std::vector<RunRecord> out;
  out.reserve(std::min(blocks, w.window) * fx.plan.block_size());
  for (std::size_t k = 0; k < std::min(blocks, w.window); ++k)
    for (RunRecord& r : source.next(w, k)) out.push_back(std::move(r));
  return out;
}

namespace {

// The live check's retirements after a look (analysis/settled.h): configurations no
// unsettled comparison needs stop running from the next block on.
void retire_settled(Plan& plan, const Findings& f, std::size_t from_block) {
  for (std::size_t c : settled_configs(plan, f, false))
    if (std::none_of(plan.retired.begin(), plan.retired.end(), [&](const Retirement& r) { return r.config == c; }))
      plan.retired.push_back({c, from_block});
}

}  // namespace

ReplayedCheck replay_check(const Fixture& fx, const ReplaySpec& spec, std::uint64_t seed, std::size_t number) {
  // A check analysed once over its whole window (drift, load) is not rotated: the wrap
  // would join the window's last block to its first, a step the host never took.
  ReplayWindow w = open_window(fx, spec.window, seed, spec.name, number, spec.stop_when_decisive);
  Plan plan = replay_plan(fx, spec.window);
  std::vector<std::size_t> looks = spec.looks.empty() ? default_looks(plan, spec.window) : spec.looks;
  looks.erase(std::remove_if(looks.begin(), looks.end(), [&](std::size_t n) { return n == 0 || n > spec.window; }),
              looks.end());
  if (looks.empty()) throw Error(ErrorKind::usage, "the look schedule has no look within the window");
  if (!std::is_sorted(looks.begin(), looks.end()))
    throw Error(ErrorKind::usage, "the look schedule's blocks must not decrease");
  ReplayedCheck out;
  out.first_block = w.first_block;
  // The runs and their table grow by the blocks between two looks, as a live check's
  // do: each look analyses what its predecessor did and the blocks since, less the
  // runs of configurations retired before those blocks (a retirement from a block on
  // leaves every earlier block's runs in). The same runs as replaying the window's
  // first blocks anew at each look and dropping the retired ones' later runs, without
  // paying for that at every look.
  ReplayRuns source(fx, spec.injection, w.seed);
  std::vector<RunRecord> live;
  RunTable table;
  std::size_t replayed = 0;
  for (std::size_t i = 0; i < looks.size(); ++i) {
    relabel_through(fx, w, looks[i]);
    for (; replayed < looks[i]; ++replayed)
      for (RunRecord& r : source.next(w, replayed)) {
        if (!runs_in(plan, r.config, r.block)) continue;
        table.add(r);
        live.push_back(std::move(r));
      }
    LookInput in;
    in.look = i;
    in.looks_planned = looks.size();
    in.seed = w.seed;
    in.margin = spec.margin;
    in.alpha = spec.alpha;
    in.threads = spec.threads;
    out.at_look.push_back(analyse_look(plan, table, in));
    out.looks_taken = i + 1;
    out.blocks = looks[i];
    out.decisive = decisive(out.at_look.back());
    out.look_blocks.push_back(looks[i]);
    if (spec.stop_when_decisive && out.decisive) break;
    // A live check retires what is settled; a replay of the whole window at one look
    // (the drift and load cases) has nothing to retire.
    if (spec.stop_when_decisive) retire_settled(plan, out.at_look.back(), plan.spec.warmup_blocks + looks[i]);
  }
  out.first = out.at_look.front();
  out.last = out.at_look.back();
  out.runs = std::move(live);
  return out;
}

namespace {

std::optional<std::size_t> metric_index(const Findings& f, const std::string& name) {
  for (std::size_t i = 0; i < f.metrics.size(); ++i)
    if (metric_name(f, i) == name) return i;
  return std::nullopt;
}

const LevelVerdict* verdict_at(const Findings& f, std::optional<std::size_t> metric, std::size_t level) {
  if (!metric) return nullptr;
  for (const LevelVerdict& v : f.verdicts)
    if (v.metric == *metric && v.level_index == level) return &v;
  return nullptr;
}

bool is_time_metric(const Findings& f, std::size_t metric) {
  const std::string& n = metric_name(f, metric);
  return n == "task-clock" || n == "wall-time";
}

bool detected(const Findings& f, const LevelVerdict* v, double effect) {
  if (!v || v->verdict != Verdict::perturbed) return false;
  const std::optional<double> e = verdict_effect(f, *v);
  return e && (effect > 0 ? *e > 0 : *e < 0);
}

}  // namespace

bool busy_phase_found(const HostLoad& h, std::size_t first, std::size_t last, std::size_t tolerance) {
  if (h.busy_blocks.empty()) return false;
  const std::size_t lo = h.busy_blocks.front(), hi = h.busy_blocks.back();
  const auto near = [&](std::size_t a, std::size_t b) { return (a > b ? a - b : b - a) <= tolerance; };
  return hi - lo + 1 == h.busy_blocks.size() && near(lo, first) && near(hi, last);
}

CaseRates run_case(const Fixture& fx, const ReplaySpec& spec, std::size_t replays, std::uint64_t seed) {
  CaseRates r;
  r.replays = replays;
  if (replays == 0) return r;
  const std::size_t level = fx.plan.configs.at(injected_config(fx.plan, spec.injection)).level_index;
  const double effect = spec.injection.effect;
  for (std::size_t k = 0; k < replays; ++k) {
    const ReplayedCheck c = replay_check(fx, spec, seed, k);
    const Findings& f = c.last;
    const auto tc = metric_index(f, "task-clock"), wall = metric_index(f, "wall-time");
    bool any = false, any_primary = false, all_null = true, drift_any = false;
    // A false "perturbed" at any look counts: a live check may stop or retire there.
    for (const Findings& g : c.at_look)
      for (const LevelVerdict& v : g.verdicts) {
        any |= v.verdict == Verdict::perturbed;
        any_primary |= v.verdict == Verdict::perturbed && g.metrics.at(v.metric).primary;
      }
    for (const LevelVerdict& v : f.verdicts) {
      if (!is_time_metric(f, v.metric)) continue;
      all_null &= v.verdict == Verdict::not_perturbed;
      drift_any |= drift_flagged(f, v);
    }
    r.any_perturbed += any;
    r.primary_perturbed += any_primary;
    r.time_not_perturbed += all_null;
    r.drift_any += drift_any;
    const LevelVerdict* vtc = verdict_at(f, tc, level);
    const LevelVerdict* vwall = verdict_at(f, wall, level);
    r.drift_injected_level += (vtc && drift_flagged(f, *vtc)) || (vwall && drift_flagged(f, *vwall));
    if (effect != 0) {
      r.detected_task_clock += detected(f, vtc, effect);
      r.detected_wall += detected(f, vwall, effect);
      const auto tc1 = metric_index(c.first, "task-clock"), wall1 = metric_index(c.first, "wall-time");
      r.first_look_decided +=
          detected(c.first, verdict_at(c.first, tc1, level), effect) && detected(c.first, verdict_at(c.first, wall1, level), effect);
      for (std::size_t i = 0; i < c.at_look.size(); ++i) {
        const Findings& g = c.at_look[i];
        if (detected(g, verdict_at(g, metric_index(g, "task-clock"), level), effect) &&
            detected(g, verdict_at(g, metric_index(g, "wall-time"), level), effect)) {
          r.decided_some_look += 1;
          r.mean_decided_blocks += static_cast<double>(c.look_blocks[i]);
          r.decided_by_4 += c.look_blocks[i] <= 4;
          r.decided_by_6 += c.look_blocks[i] <= 6;
          break;
        }
      }
    }
    if (spec.injection.load) {
      const HostLoad h = analyse_host_load(run_table_of(c.runs));
      r.load_found += busy_phase_found(h, fx.plan.spec.warmup_blocks + spec.injection.load->first,
                                       fx.plan.spec.warmup_blocks + std::min(spec.injection.load->last, c.blocks) - 1);
    }
    r.mean_looks += static_cast<double>(c.looks_taken);
    r.mean_blocks += static_cast<double>(c.blocks);
  }
  r.mean_decided_blocks = r.decided_some_look > 0 ? r.mean_decided_blocks / r.decided_some_look
                                                  : std::numeric_limits<double>::quiet_NaN();
  const double n = static_cast<double>(replays);
  for (double* x : {&r.any_perturbed, &r.time_not_perturbed, &r.detected_task_clock, &r.detected_wall,
                    &r.first_look_decided, &r.drift_injected_level, &r.drift_any, &r.load_found, &r.mean_looks,
                    &r.mean_blocks, &r.decided_some_look, &r.decided_by_4, &r.decided_by_6, &r.primary_perturbed})
    *x /= n;
  return r;
}

std::vector<NamedCase> standard_cases(std::size_t window) {
  std::vector<NamedCase> out;
  const auto constant = [&](std::string name, double effect) {
    NamedCase c{name, {}};
    c.spec.name = std::move(name);
    c.spec.window = window;
    c.spec.injection.effect = effect;
    out.push_back(std::move(c));
  };
  constant("null", 0);
  constant("+0.5%", 0.005);
  constant("-0.5%", -0.005);
  constant("+2%", 0.02);
  constant("-2%", -0.02);
  constant("+10%", 0.10);
  constant("-10%", -0.10);
  constant("x2", 1.0);
  constant("x100", 99);
  const auto whole = [&](std::string name) -> ReplaySpec& {
    NamedCase c{name, {}};
    c.spec.name = std::move(name);
    c.spec.window = window;
    c.spec.looks = {window};
    c.spec.stop_when_decisive = false;
    out.push_back(std::move(c));
    return out.back().spec;
  };
  whole("null-full");
  ReplaySpec& step = whole("step+10%");
  step.injection.effect = 0.10;
  step.injection.shape = Shape::step;
  // The load step keeps a 200-block window whatever the others' budget: the busy phase
  // is blocks 50-99, a quarter of the check, as its tests and their figures assume.
  ReplaySpec& load = whole("load-step");
  load.window = kLoadStepWindow;
  load.looks = {kLoadStepWindow};
  load.injection.load = LoadStep{kLoadStepWindow / 4, kLoadStepWindow / 2, 0.10, {}, 0.9, 0.02};
  return out;
}

}  // namespace obscheck::calibration
