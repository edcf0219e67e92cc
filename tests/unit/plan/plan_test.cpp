#include <catch2/catch.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "plan/counter_list.h"
#include "plan/plan.h"
#include "util/error.h"

using namespace obscheck;

namespace {

std::vector<std::string> ids(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& c : p.configs) out.push_back(c.id);
  return out;
}

Plan counter_plan(std::vector<std::string> counters, CountingMode mode, std::uint64_t seed = 7) {
  PlanSpec s;
  s.counters = std::move(counters);
  s.levels = counter_levels(s.counters);
  s.layouts = layouts_for(mode);
  s.seed = seed;
  return make_plan(s);
}

bool is_permutation_of_all(const std::vector<std::size_t>& order, std::size_t n) {
  if (order.size() != n) return false;
  std::vector<int> seen(n, 0);
  for (std::size_t i : order) {
    if (i >= n || seen[i]++) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("layout and mode names round-trip and unknown names are usage errors") {
  for (Layout l : {Layout::natural, Layout::held, Layout::sham})
    CHECK(layout_from_string(to_string(l)) == l);
  CHECK(to_string(Layout::sham) == "sham");
  CHECK_THROWS_AS(layout_from_string("padded"), Error);
  CHECK(counting_mode_from_string("inprocess") == CountingMode::inprocess);
  CHECK(counting_mode_from_string("external") == CountingMode::external);
  try {
    counting_mode_from_string("internal");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
  }
}

TEST_CASE("layouts per counting mode (external is held by construction)") {
  CHECK(layouts_for(CountingMode::external) == std::vector<Layout>{Layout::held});
  CHECK(layouts_for(CountingMode::inprocess) ==
        std::vector<Layout>{Layout::natural, Layout::held, Layout::sham});
}

TEST_CASE("counter levels for one counter: the counter alone") {
  const auto levels = counter_levels({"cycles"});
  REQUIRE(levels.size() == 1);
  CHECK(levels[0].label == "1[cycles]");
  CHECK(levels[0].dose == 1);
  CHECK(levels[0].programmed == std::vector<std::size_t>{0});
  CHECK(levels[0].announced == std::vector<std::size_t>{0});

  const Plan p = counter_plan({"cycles"}, CountingMode::external);
  CHECK(ids(p) == std::vector<std::string>{"counters=1[cycles]/held", "counters=1[cycles]/held#aa"});
  CHECK(p.baselines == std::vector<std::size_t>{0});
  CHECK(p.aa == 1);
  CHECK(p.configs[0].solo_of == std::optional<std::size_t>{0});
  CHECK_FALSE(p.configs[1].solo_of);
  CHECK(p.configs[1].aa_duplicate);
}

TEST_CASE("counter levels with a reference: level 0 counts nothing and is the baseline") {
  const auto levels = counter_levels({"task-clock"}, true);
  REQUIRE(levels.size() == 2);
  CHECK(levels[0].label == "0[none]");
  CHECK(levels[0].dose == 0);
  CHECK(levels[0].programmed.empty());
  CHECK(levels[0].announced.empty());
  CHECK(levels[1].label == "1[task-clock]");
  PlanSpec s;
  s.counters = {"task-clock"};
  s.levels = levels;
  s.layouts = layouts_for(CountingMode::external);
  s.seed = 1;
  const Plan p = make_plan(s);
  CHECK(ids(p) == std::vector<std::string>{"counters=0[none]/held", "counters=1[task-clock]/held",
                                           "counters=0[none]/held#aa"});
  CHECK(p.baselines == std::vector<std::size_t>{0});
  CHECK(p.aa == 2);
  // The driver's metrics compare the counter against nothing; the counter itself has no
  // reference (level 0 cannot count it).
  CHECK(comparison_baseline(p, Metric::driver(), 1) == std::optional<std::size_t>{0});
  CHECK_FALSE(comparison_baseline(p, Metric::of_counter(0), 1));
}

TEST_CASE("counter levels for two counters: prefixes then the second alone") {
  const auto levels = counter_levels({"cycles", "l1d"});
  REQUIRE(levels.size() == 3);
  CHECK(levels[0].label == "1[cycles]");
  CHECK(levels[1].label == "2[cycles,l1d]");
  CHECK(levels[1].dose == 2);
  CHECK(levels[1].programmed == std::vector<std::size_t>{0, 1});
  CHECK(levels[2].label == "1[l1d]");
  CHECK(levels[2].dose == 1);
  CHECK(levels[2].programmed == std::vector<std::size_t>{1});

  const Plan p = counter_plan({"cycles", "l1d"}, CountingMode::external);
  CHECK(ids(p) == std::vector<std::string>{"counters=1[cycles]/held", "counters=2[cycles,l1d]/held",
                                           "counters=1[l1d]/held", "counters=1[cycles]/held#aa"});
}

TEST_CASE("counter levels for four counters, in-process: 7 levels x 3 layouts + A/A") {
  const Plan p = counter_plan({"cycles", "instructions", "l1d", "llc"}, CountingMode::inprocess);
  const std::vector<std::string> labels{"1[cycles]",
                                        "2[cycles,instructions]",
                                        "3[cycles,instructions,l1d]",
                                        "4[cycles,instructions,l1d,llc]",
                                        "1[instructions]",
                                        "1[l1d]",
                                        "1[llc]"};
  std::vector<std::string> expected;
  for (const auto& l : labels)
    for (const char* layout : {"natural", "held", "sham"})
      expected.push_back("counters=" + l + "/" + layout);
  expected.push_back("counters=1[cycles]/natural#aa");
  CHECK(ids(p) == expected);
  CHECK(p.block_size() == 22);
  CHECK(p.baselines == std::vector<std::size_t>{0, 1, 2});
  CHECK(p.aa == 21);
  CHECK(p.configs[21].layout == Layout::natural);

  // Sham: the level's full list is announced, only its first counter programmed.
  const Configuration& sham4 = p.configs[3 * 3 + 2];
  CHECK(sham4.id == "counters=4[cycles,instructions,l1d,llc]/sham");
  CHECK(sham4.level.programmed == std::vector<std::size_t>{0});
  CHECK(sham4.level.announced == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(sham4.level.dose == 4);
  const Configuration& held4 = p.configs[3 * 3 + 1];
  CHECK(held4.level.programmed == std::vector<std::size_t>{0, 1, 2, 3});
  // Solo levels: counter i alone, under each layout.
  CHECK(p.configs[4 * 3 + 0].solo_of == std::optional<std::size_t>{1});
  CHECK(p.configs[6 * 3 + 2].solo_of == std::optional<std::size_t>{3});
  CHECK_FALSE(sham4.solo_of);
}

TEST_CASE("make_plan rejects malformed specs") {
  PlanSpec s;
  s.counters = {"cycles"};
  s.levels = counter_levels(s.counters);
  s.layouts = {Layout::held};
  CHECK_NOTHROW(make_plan(s));
  auto bad = s;
  bad.layouts = {Layout::held, Layout::held};
  CHECK_THROWS_AS(make_plan(bad), Error);
  bad = s;
  bad.layouts.clear();
  CHECK_THROWS_AS(make_plan(bad), Error);
  bad = s;
  bad.levels[0].programmed = {3};
  CHECK_THROWS_AS(make_plan(bad), Error);
  bad = s;
  bad.max_blocks = 0;
  CHECK_THROWS_AS(make_plan(bad), Error);
  bad = s;
  bad.fixed_blocks = 0;
  CHECK_THROWS_AS(make_plan(bad), Error);
  CHECK_THROWS_AS(counter_levels({}), Error);
}

TEST_CASE("splitmix64 matches the reference generator") {
  // SplitMix64 seeded with 0: first output 0xe220a8397b1dcdaf (Vigna's splitmix64.c).
  CHECK(splitmix64(0) == 0xe220a8397b1dcdafULL);
}

TEST_CASE("bounded_draw stays in range and hits every value") {
  std::mt19937_64 e(1);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 7000; ++i) {
    const auto x = bounded_draw(e, 7);
    REQUIRE(x < 7);
    ++hits[x];
  }
  for (int h : hits) CHECK(h > 0);
  CHECK(bounded_draw(e, 1) == 0);
}

TEST_CASE("each block is a permutation of every configuration plus the A/A copy") {
  const Plan p = counter_plan({"cycles", "instructions", "l1d", "llc"}, CountingMode::inprocess, 99);
  std::set<std::vector<std::size_t>> distinct;
  for (std::size_t b = 0; b < 50; ++b) {
    const auto order = block_order(p, b);
    REQUIRE(is_permutation_of_all(order, 22));
    CHECK(std::count(order.begin(), order.end(), p.aa) == 1);
    distinct.insert(order);
  }
  // 22! orders: two equal blocks among 50 would mean the block is not mixed in.
  CHECK(distinct.size() == 50);
}

TEST_CASE("block orders are a golden function of (seed, block)") {
  const Plan p = counter_plan({"cycles", "instructions", "l1d", "llc"}, CountingMode::inprocess,
                              20261120);
  // Computed once by this implementation and checked in: any change to the engine,
  // the seeding or the shuffle changes recorded journals' orders and must fail here.
  const std::vector<std::size_t> block0{8, 17, 11, 6,  21, 4,  15, 7,  14, 20, 0,
                                        5, 10, 3,  9,  19, 13, 2,  12, 16, 18, 1};
  const std::vector<std::size_t> block1{9,  10, 0, 4,  2,  7,  3,  15, 14, 19, 5,
                                        6,  18, 8, 1,  17, 12, 21, 11, 20, 16, 13};
  CHECK(block_order(p, 0) == block0);
  CHECK(block_order(p, 1) == block1);
  CHECK(is_permutation_of_all(block0, 22));
  CHECK(is_permutation_of_all(block1, 22));
  // Recomputing in any order gives the same result (no hidden state).
  CHECK(block_order(p, 1) == block1);
  CHECK(block_order(p, 0) == block0);
  const Plan other = counter_plan({"cycles", "instructions", "l1d", "llc"}, CountingMode::inprocess,
                                  20261121);
  CHECK(block_order(other, 0) != block0);
}

TEST_CASE("looks: 10, 12, 15, ... a quarter more each, capped, ending at max_blocks") {
  CHECK(looks(80) == std::vector<std::size_t>{10, 12, 15, 18, 22, 27, 33, 41, 51, 63, 78, 80});
  CHECK(looks(20) == std::vector<std::size_t>{10, 12, 15, 18, 20});
  CHECK(next_look(1) == 2);
  CHECK(next_look(100) == 125);
  CHECK(looks(10) == std::vector<std::size_t>{10});
  CHECK(looks(3) == std::vector<std::size_t>{3});
  CHECK(looks(0).empty());

  PlanSpec s;
  s.counters = {"cycles"};
  s.levels = counter_levels(s.counters);
  s.layouts = {Layout::held};
  s.max_blocks = 40;
  CHECK(plan_looks(make_plan(s)) == std::vector<std::size_t>{10, 12, 15, 18, 22, 27, 33, 40});
  s.fixed_blocks = 15;
  CHECK(plan_looks(make_plan(s)) == std::vector<std::size_t>{15});
  CHECK(end_block_for(make_plan(s), 15) == 16);
}

TEST_CASE("trials: global index, block, position, config from the block order, warm-up") {
  const Plan p = counter_plan({"cycles", "l1d"}, CountingMode::external, 3);
  const auto t = trials(p, 0, 3);
  REQUIRE(t.size() == 12);
  for (std::size_t i = 0; i < t.size(); ++i) {
    CHECK(t[i].index == i);
    CHECK(t[i].block == i / 4);
    CHECK(t[i].position == i % 4);
    CHECK(t[i].config == block_order(p, i / 4)[i % 4]);
    CHECK(t[i].warmup == (i < 4));
    CHECK(trial_at(p, i) == t[i]);
  }
  const auto tail = trials(p, 2, 3);
  REQUIRE(tail.size() == 4);
  CHECK(tail.front() == t[8]);
  CHECK(trials(p, 3, 3).empty());
}

TEST_CASE("comparison baselines: solo level per counter, dose-1 level per layout") {
  const Plan p = counter_plan({"cycles", "instructions", "l1d", "llc"}, CountingMode::inprocess);
  // Index of a level under a layout: level * 3 + {natural 0, held 1, sham 2}.
  auto cfg = [](std::size_t level, std::size_t layout) { return level * 3 + layout; };
  const auto counter = [](std::size_t i) { return Metric::of_counter(i); };

  // l1d (counter 2) in 4[...]/held compares with 1[l1d]/held (level 5).
  CHECK(comparison_baseline(p, counter(2), cfg(3, 1)) == cfg(5, 1));
  // cycles (counter 0) compares with 1[cycles] under the same layout.
  CHECK(comparison_baseline(p, counter(0), cfg(2, 0)) == cfg(0, 0));
  // Wall time compares with the dose-1 baseline of the same layout.
  CHECK(comparison_baseline(p, Metric::driver(), cfg(3, 2)) == cfg(0, 2));
  CHECK(comparison_baseline(p, Metric::driver(), cfg(5, 1)) == cfg(0, 1));
  // Not counted: llc in 2[cycles,instructions]; l1d under sham (only cycles programmed).
  CHECK_FALSE(comparison_baseline(p, counter(3), cfg(1, 1)));
  CHECK_FALSE(comparison_baseline(p, counter(2), cfg(3, 2)));
  CHECK(comparison_baseline(p, counter(0), cfg(3, 2)) == cfg(0, 2));
  // A configuration is never compared with itself.
  CHECK_FALSE(comparison_baseline(p, Metric::driver(), cfg(0, 1)));
  CHECK_FALSE(comparison_baseline(p, counter(2), cfg(5, 1)));
  // The A/A copy compares with its baseline (natural) on wall time and cycles only.
  CHECK(comparison_baseline(p, Metric::driver(), p.aa) == cfg(0, 0));
  CHECK(comparison_baseline(p, counter(0), p.aa) == cfg(0, 0));
  CHECK_FALSE(comparison_baseline(p, counter(1), p.aa));
  CHECK(baseline_for(p, Layout::sham) == cfg(0, 2));
}

TEST_CASE("generic levels: the least dose is the baseline") {
  PlanSpec s;
  s.observer = ObserverKind::sampling;
  s.levels = {Level{1000, "1000Hz", {}, {}, SampledAt{1000}},
              Level{0, "0Hz", {}, {}, SampledAt{0}},
              Level{100, "100Hz", {}, {}, SampledAt{100}}};
  s.layouts = {Layout::held};
  const Plan p = make_plan(s);
  CHECK(p.baselines == std::vector<std::size_t>{1});
  CHECK(p.configs[p.aa].id == "sampling=0Hz/held#aa");
  CHECK(p.configs[0].level.knob == LevelKnob{SampledAt{1000}});
  CHECK(comparison_baseline(p, Metric::driver(), 2) == std::optional<std::size_t>{1});
}

TEST_CASE("observer levels: every observer's doses, level 0 first where the observer has one") {
  const auto labels = [](const std::vector<Level>& levels) {
    std::vector<std::string> out;
    for (const Level& l : levels) out.push_back(l.label);
    return out;
  };
  const std::vector<std::size_t> all2 = {0, 1};
  const std::vector<Level> probes = probe_levels({"f", "g"}, 2);
  CHECK(labels(probes) == std::vector<std::string>{"0[none]", "1[f]", "2[f,g]"});
  CHECK(probes[2].dose == 2);
  CHECK(probes[2].knob == LevelKnob{ProbesAttached{2}});
  CHECK(probes[0].programmed == all2);
  CHECK(probes[0].announced == all2);

  const std::vector<Level> sampling = sampling_levels({1000, 0, 99}, 1);
  CHECK(labels(sampling) == std::vector<std::string>{"0Hz[none]", "99Hz", "1000Hz"});
  CHECK(sampling[2].dose == 1000);
  CHECK(sampling[2].knob == LevelKnob{SampledAt{1000}});

  // A word that is not a number doses its position; ties keep the given order.
  const std::vector<Level> command = command_levels({"999", "0", "hi", "99"}, 1);
  CHECK(labels(command) == std::vector<std::string>{"0[bare]", "hi", "99", "999"});
  CHECK(command[1].dose == 2);
  CHECK(command[0].knob == LevelKnob{WrappedAt{"0"}});
  CHECK(wrap_word(command[0]) == std::optional<std::string>("0"));
  CHECK_FALSE(wrap_word(sampling[0]));

  const std::vector<Level> build = build_levels({{0, 0, "aa"}, {2, 3, "bb"}, {1, 1, "cc"}}, 0);
  CHECK(labels(build) == std::vector<std::string>{"0[mask 0]", "1[mask 1]", "2[mask 3]"});
  CHECK(build[1].knob == LevelKnob{BuiltVariantRun{2, "cc"}});
  CHECK(build[1].programmed.empty());
}

TEST_CASE("shards: every measured block in exactly one shard, the warm-up in each, orders the plan's") {
  PlanSpec s;
  s.counters = {"task-clock", "page-faults"};
  s.levels = counter_levels(s.counters, true);
  s.layouts = {Layout::held};
  s.seed = 5;
  s.fixed_blocks = 10;
  const Plan whole = make_plan(s);
  std::multiset<std::size_t> measured;
  for (std::size_t i = 0; i < 3; ++i) {
    PlanSpec sh = s;
    sh.shard = Shard{i, 3};
    const Plan p = make_plan(sh);
    CHECK(plan_looks(p) == std::vector<std::size_t>{i == 0 ? 4u : 3u});  // blocks 1,4,7,10 | 2,5,8 | 3,6,9
    const std::size_t end = end_block_for(p, plan_looks(p).back());
    CHECK(end == (i == 0 ? 11u : i == 1 ? 9u : 10u));
    CHECK(runs_for(p, plan_looks(p).back()) == (1 + plan_looks(p).back()) * p.block_size());
    const auto t = trials(p, 0, end);
    CHECK(t.size() == runs_for(p, plan_looks(p).back()));
    for (const Trial& x : t) {
      CHECK(x == trial_at(whole, x.index));  // the whole plan's block, position and order
      if (x.warmup) CHECK(x.block == 0);
      else if (x.position == 0) measured.insert(x.block);
    }
    // The whole plan drops the shard (its JSON: record/plan_json_test.cpp).
    CHECK_FALSE(whole_plan(p).spec.shard);
  }
  CHECK(measured == std::multiset<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
}

TEST_CASE("shards: out of range, without fixed blocks, or more than the blocks are usage errors") {
  PlanSpec s;
  s.counters = {"task-clock"};
  s.levels = counter_levels(s.counters);
  s.layouts = {Layout::held};
  s.fixed_blocks = 4;
  s.shard = Shard{2, 2};
  CHECK_THROWS_AS(make_plan(s), obscheck::Error);
  s.shard = Shard{0, 5};
  CHECK_THROWS_AS(make_plan(s), obscheck::Error);
  s.shard = Shard{0, 2};
  s.fixed_blocks.reset();
  CHECK_THROWS_AS(make_plan(s), obscheck::Error);
  s.fixed_blocks = 4;
  CHECK_NOTHROW(make_plan(s));
}

TEST_CASE("groups: a group's configurations run back to back, groups and members both shuffled") {
  PlanSpec s;
  s.kind = PlanKind::compare;
  for (int c = 0; c < 6; ++c)
    for (const char* v : {"baseline", "contender", "aa"})
      s.levels.push_back(Level{1, fmt::format("c{}/{}", c, v), {}, {}, {}});
  s.layouts = {Layout::held};
  s.aa_control = false;
  s.group_size = 3;
  s.seed = 11;
  s.fixed_blocks = 4;
  const Plan p = make_plan(s);
  std::set<std::vector<std::size_t>> group_orders, first_members;
  for (std::size_t b = 0; b < 40; ++b) {
    const auto order = block_order(p, b);
    REQUIRE(is_permutation_of_all(order, 18));
    std::vector<std::size_t> groups;
    for (std::size_t i = 0; i < order.size(); i += 3) {
      // Positions i..i+2 are the three members of one group.
      CHECK(order[i] / 3 == order[i + 1] / 3);
      CHECK(order[i] / 3 == order[i + 2] / 3);
      groups.push_back(order[i] / 3);
    }
    group_orders.insert(groups);
    first_members.insert({order[0] % 3, order[3] % 3, order[6] % 3});
  }
  CHECK(group_orders.size() > 30);   // 720 orders of the groups
  CHECK(first_members.size() > 10);  // 27 patterns of who goes first
  // The grouping's JSON: record/plan_json_test.cpp.
  s.group_size = 1;

  PlanSpec bad = s;
  bad.group_size = 4;  // 18 configurations
  CHECK_THROWS_AS(make_plan(bad), Error);
  bad.group_size = 0;
  CHECK_THROWS_AS(make_plan(bad), Error);
  bad.group_size = 3;
  bad.aa_control = true;  // the A/A copy would be a group of one
  CHECK_THROWS_AS(make_plan(bad), Error);
}

TEST_CASE("counter list: an item's members, a {group}'s in order, split once") {
  CHECK(item_members("cycles") == std::vector<std::string>{"cycles"});
  CHECK(item_members("{l1d, l1i}") == std::vector<std::string>{"l1d", "l1i"});
  CHECK(item_members("{instructions,branch-misses,cycles}") ==
        std::vector<std::string>{"instructions", "branch-misses", "cycles"});
}
