// plan/: which configurations run, in which order, and when to look at the data.
//
// Pure: no I/O, no clocks, no global randomness. A Plan is rebuilt bit-for-bit from
// its PlanSpec (record/plan_json.h plan_to_json / plan_from_json), so a resumed or re-reported sweep sees
// the same configurations, the same per-block orders and the same looks.
//
// A configuration is one observer level crossed with one layout condition. A block
// runs every configuration once plus a duplicate of the first layout's baseline (the
// A/A control: two configurations that differ in nothing, so any "effect" between
// them is the noise floor). Each block's order is drawn afresh from (seed, block), so
// any block can be recomputed on resume without replaying the ones before it
// (randomised multiple interleaved trials: Abedi & Brecht; Kalibera & Jones).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "plan/levels.h"
#include "plan/observer.h"

namespace obscheck {

// The causal intervention crossed with every dose (docs/statistics.md,
// Mytkowicz et al. §5.1):
//   natural: the target sees what the observer really does to it (an environment
//            variable that grows with the event list);
//   held:    the same dose with the environment block padded to a constant size;
//   sham:    the observer's announcement without the observation (the level's full
//            list in the environment, only its first counter programmed).
enum class Layout { natural, held, sham };

std::string_view to_string(Layout layout);
// "natural" | "held" | "sham"; throws Error(usage) naming the accepted values.
Layout layout_from_string(std::string_view text);

// How counters reach the target (--mode).
enum class CountingMode { external, inprocess };
std::string_view to_string(CountingMode mode);
// "external" | "inprocess"; throws Error(usage) naming the accepted values.
CountingMode counting_mode_from_string(std::string_view text);

// The layout conditions a counting mode can express.
//   external: {held} only. The driver opens the counters on the child from outside,
//             so the counter list never reaches the target's memory: whatever the
//             dose, the target's environment and argv are the same, i.e. the layout
//             is held by construction, and natural or sham would be the same runs
//             under another name.
//   inprocess: {natural, held, sham}. The probe library reads its event list from
//             the environment (as PAPI's PAPI_EVENTS), so the list's bytes move the
//             target's stack unless the block is padded.
std::vector<Layout> layouts_for(CountingMode mode);

// Looks, in measured blocks (warm-up excluded): 10, 13, 17, 22, 28, ... (each a
// quarter more than the last), never past max_blocks and always ending with a look
// at max_blocks. Every look is valid on its own (analysis/check.h: confidence
// sequences), so looking often costs no error rate, only analysis time: a quarter more
// data per look keeps the analyses' total within a few times the last one's. Ten
// blocks is the first look: below eleven agreeing blocks nothing can be decided.
inline constexpr std::size_t kFirstLook = 10;
// The default cap; a check normally ends sooner, on its verdicts or its time budget.
inline constexpr std::size_t kDefaultMaxBlocks = 2000;
// The look after n blocks: n + max(1, n / 4).
std::size_t next_look(std::size_t n);
// The first block is always dropped: caches, page cache and CPU frequency settle
// during it (the chapter "Measurement Methodology", warm-up).
inline constexpr std::size_t kDefaultWarmupBlocks = 1;

// max_blocks == 0 gives an empty schedule. `first`: the first look (a check whose
// family of tests cannot reject anything before N blocks starts looking at N:
// analysis/check.h first_look).
std::vector<std::size_t> looks(std::size_t max_blocks, std::size_t first = kFirstLook);

// One host's share of a plan run on several (obscheck run --plan FILE --shard I/N):
// every warm-up block, then the measured blocks b with (b - warm-up) mod count ==
// index. Block numbers, orders and run indexes stay the plan's, so the shards' journals
// merge without renumbering and every measured run is in exactly one shard.
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool operator==(const Shard&) const = default;
};

struct PlanSpec {
  PlanKind kind = PlanKind::check;                  // what the levels vary (plan/observer.h)
  ObserverKind observer = ObserverKind::counters;  // the observer a check's levels dose (kind == check)
  std::vector<std::string> counters;   // the user's list that Level indexes refer to
  std::vector<Level> levels;           // least observation first (see Plan::baselines)
  std::vector<Layout> layouts;         // see layouts_for
  std::uint64_t seed = 0;              // recorded in the journal
  std::optional<std::size_t> fixed_blocks;  // --runs N: N measured blocks, one look
  std::size_t max_blocks = kDefaultMaxBlocks;  // --max-runs: measured blocks at most
  std::size_t warmup_blocks = kDefaultWarmupBlocks;
  std::optional<Shard> shard;               // unset: every block (needs fixed_blocks when set)
  // The A/A copy of the baseline in every block. Off only for a plan that compares
  // nothing (obscheck measure: one configuration repeated).
  bool aa_control = true;
  // Configurations that run next to one another in every block: the block's order
  // shuffles groups of this many consecutive configurations, then each group within
  // itself (obscheck bias and compare: a context's variants run back to back, so
  // drift between them is as small as it can be). 1: the whole block shuffled as one.
  std::size_t group_size = 1;
  bool operator==(const PlanSpec&) const = default;
  // The counter observer's plan: its doses are counter lists, each level programs some
  // of the counters.
  bool doses_are_counters() const { return kind == PlanKind::check && observer == ObserverKind::counters; }
  // The profiler-command observer's plan (--observer-cmd): each dose wraps the target.
  bool doses_wrap_a_command() const { return kind == PlanKind::check && observer == ObserverKind::command; }
  // The plan's name: a check's observer ("counters", "sampling", ...), else its kind
  // ("measure", "bias", "compare"). The first part of every configuration id, and the
  // journal's "observer".
  std::string_view name() const;
  // What one dose counts, for a sentence ("4 counters", "3 uprobes"): singular, the
  // plural adds "s". Empty where a dose is named by its level's label instead (a
  // sampling frequency, a profiler command's level, measure's and the sweeps' plans).
  std::string dose_noun() const;
};

struct Configuration {
  std::size_t index = 0;     // position in Plan::configs
  std::string id;            // stable and readable: "counters=2[cycles,l1d]/held"; "#aa" suffix for the A/A copy
  std::size_t level_index = 0;  // into PlanSpec::levels (the dose axis of a curve)
  // What the runner does: the level as given, except under sham, where only the
  // first programmed counter is kept (announced stays the level's full list).
  Level level;
  Layout layout = Layout::held;
  bool aa_duplicate = false;  // the A/A copy of the baseline
  // The level, as given, counts exactly one counter: which (the solo baseline of
  // that counter under this layout). Unset for the A/A copy.
  std::optional<std::size_t> solo_of;
};

// A configuration that stops running from block `from_block` on, decided by the check
// at a look (run/session.h "spend runs where they can change an answer"): every
// comparison it takes part in is settled, and no unsettled one needs it as a
// reference. Not part of the spec: the journal records each as a "retire" note and a
// resumed or re-read check replays them (record/plan_notes.h), so the same trials run once.
struct Retirement {
  std::size_t config = 0;
  std::size_t from_block = 0;
  bool operator==(const Retirement&) const = default;
};

struct Plan {
  PlanSpec spec;
  // Level-major, layouts in spec order within a level; the A/A copy last. A block
  // runs each of these exactly once.
  std::vector<Configuration> configs;
  // baselines[i]: the configuration of the baseline level under spec.layouts[i]. The
  // baseline level is the least observed: the smallest dose, the first in list order
  // among equals (for counters: prefix 1, the first counter alone).
  std::vector<std::size_t> baselines;
  std::size_t aa = 0;  // the A/A duplicate of baselines[0]; configs.size() without one (aa_control off)
  // Configurations retired so far, at most one entry per configuration (make_plan: none).
  std::vector<Retirement> retired;
  std::uint64_t seed() const { return spec.seed; }
  std::size_t block_size() const { return configs.size(); }
};

// Validates and expands a spec. Throws Error(usage) on: no levels, no layouts, a layout
// twice, duplicate level labels, a counter index outside spec.counters (when the list
// is not empty), max_blocks == 0, fixed_blocks == 0, warmup_blocks > 1000, a
// group_size of 0, one that does not divide the configurations, or one above 1 with
// the A/A control.
Plan make_plan(const PlanSpec& spec);

// The configuration index of the baseline under `layout`; throws Error(internal)
// when the plan has no such layout.
std::size_t baseline_for(const Plan& plan, Layout layout);

// The looks the sweep makes, in measured blocks: {fixed_blocks} when --runs fixed the
// count (a shard's: its share of them), else looks(max_blocks).
std::vector<std::size_t> plan_looks(const Plan& plan, std::size_t first = kFirstLook);

// A permutation of 0..block_size()-1 (every configuration once, the A/A copy
// included; with group_size g > 1, first the groups then each group's g members, by
// the same shuffle from the same engine), drawn from a std::mt19937_64 seeded with splitmix64(splitmix64(seed) +
// block) by a Fisher-Yates shuffle with a rejection-sampled bounded draw. Both the
// engine and the draw are fully specified, so the same (seed, block) gives the same
// order with any standard library (std::shuffle and std::uniform_int_distribution
// are not specified by the standard, so they are not used).
std::vector<std::size_t> block_order(const Plan& plan, std::size_t block);

// SplitMix64's output function (Steele, Lea & Flood 2014), exposed for tests.
std::uint64_t splitmix64(std::uint64_t x);
// Uniform in [0, bound) from a 64-bit engine, rejection-sampled (no modulo bias).
// bound must be >= 1.
std::uint64_t bounded_draw(std::mt19937_64& engine, std::uint64_t bound);

// One run of one configuration.
struct Trial {
  std::size_t index = 0;     // block * block_size + position: unique, the journal's key
  std::size_t block = 0;
  std::size_t position = 0;  // in the block's order
  std::size_t config = 0;
  bool warmup = false;       // block < warmup_blocks: run, journalled, not analysed
  bool operator==(const Trial&) const = default;
};

// Whether configuration `config` runs in block `block`: false from its retirement on.
bool runs_in(const Plan& plan, std::size_t config, std::size_t block);
// The configurations block `block` runs (block_size() less those retired by then).
std::size_t configs_in_block(const Plan& plan, std::size_t block);

// The journal's "retire" and "extend" notes are made and applied to a plan by
// record/plan_notes.h, typed (record/journal_notes.h RetireNote, ExtendNote).
// The trials of blocks [0, end_block) that retirements left out: the runs saved.
std::size_t runs_retired(const Plan& plan, std::size_t end_block);

// The trials of blocks [first_block, end_block) in run order (deterministic); of a
// shard's plan, only the shard's blocks; a retired configuration's trials from its
// retirement on are left out (their indexes stay unused: positions keep the order's).
std::vector<Trial> trials(const Plan& plan, std::size_t first_block, std::size_t end_block);
// Whether block `block` is run under this plan (always, unless the plan is a shard).
bool runs_block(const Plan& plan, std::size_t block);
// The trial with this global index.
Trial trial_at(const Plan& plan, std::size_t index);
// The end (exclusive) of the blocks to run, warm-up included, to reach
// `measured_blocks` of this plan's (a shard's own) measured blocks.
std::size_t end_block_for(const Plan& plan, std::size_t measured_blocks);
// The runs up to `measured_blocks` measured blocks, warm-up included, retired
// configurations' left out.
std::size_t runs_for(const Plan& plan, std::size_t measured_blocks);
// The measured blocks the shard `s` of a plan of `total` measured blocks runs.
std::size_t shard_blocks(std::size_t total, const Shard& s);
// The same plan without its shard (what every shard of it shares).
Plan whole_plan(const Plan& plan);

// What a comparison measures: one of the user's counters, or a driver metric (wall
// time, rusage) that the driver takes the same way at every level.
struct Metric {
  std::optional<std::size_t> counter;  // unset: a driver metric
  static Metric of_counter(std::size_t i) { return Metric{i}; }
  static Metric driver() { return Metric{}; }
};

// The configuration `config` is compared against for `metric`:
//   counter i:     the level that counts i alone, under the same layout (the counter
//                  observer); for every other observer, which programs the same
//                  counters at each dose, the baseline (least-observed) level;
//   driver metric: the baseline level (the least observed: the smallest dose, so
//                  level 0 where the plan has one) under the same layout.
// The A/A copy thus compares against its baseline for the driver metrics and for the
// first counter. Unset when the metric is not counted in `config`, when `config` is
// its own reference, or when no level counts counter i alone.
std::optional<std::size_t> comparison_baseline(const Plan& plan, Metric metric,
                                               std::size_t config);


}  // namespace obscheck
