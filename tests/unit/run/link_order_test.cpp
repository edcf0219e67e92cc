// run/link_order and run/contexts: the pure parts — word splitting of the link
// template, its expansion, seeded permutations, the visiting order of a sweep and the
// launch spec of a context.
#include <catch2/catch.hpp>
#include <fmt/core.h>
#include <set>

#include "run/contexts.h"
#include "observe/wrap.h"
#include "run/link_order.h"
#include "util/error.h"

using namespace obscheck;

TEST_CASE("link_order: templates split as sh splits plain words, without expansion") {
  CHECK(split_command_words("cc  -O2\t{objects} -o {out}") ==
        std::vector<std::string>{"cc", "-O2", "{objects}", "-o", "{out}"});
  CHECK(split_command_words(R"(cc -DNAME='a b' "-DQ=\"x\"" a\ b $HOME)") ==
        std::vector<std::string>{"cc", "-DNAME=a b", "-DQ=\"x\"", "a b", "$HOME"});
  CHECK(split_command_words("  ").empty());
  CHECK_THROWS_AS(split_command_words("cc 'open"), Error);
  CHECK_THROWS_AS(split_command_words("cc \"open"), Error);
  CHECK_THROWS_AS(split_command_words("cc \\"), Error);
}

TEST_CASE("link_order: {objects} becomes one word per object and {out} is replaced inside words") {
  const auto words = split_command_words("cc {objects} -o {out} -Wl,-Map={out}.map");
  CHECK(expand_link_command(words, {"b.o", "a.o"}, "/t/order-1") ==
        std::vector<std::string>{"cc", "b.o", "a.o", "-o", "/t/order-1", "-Wl,-Map=/t/order-1.map"});
  CHECK_THROWS_AS(expand_link_command(split_command_words("cc -o {out}"), {"a.o"}, "x"), Error);
  CHECK_THROWS_AS(expand_link_command(split_command_words("cc {objects}"), {"a.o"}, "x"), Error);
}

TEST_CASE("link_order: permutations are distinct, seeded, and start with the given order") {
  const auto p = link_permutations(4, 24, 7);  // all 4! orders
  REQUIRE(p.size() == 24);
  CHECK(p[0] == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(std::set<std::vector<std::size_t>>(p.begin(), p.end()).size() == 24);
  CHECK(link_permutations(4, 5, 7) == std::vector<std::vector<std::size_t>>(p.begin(), p.begin() + 5));
  CHECK(link_permutations(6, 5, 8) != link_permutations(6, 5, 9));
  CHECK_THROWS_AS(link_permutations(3, 7, 1), Error);  // only 3! = 6 exist
  CHECK_THROWS_AS(link_permutations(3, 0, 1), Error);
  CHECK(tail_lines("a\nb\nc\nd\n", 2) == "c\nd");
  CHECK(tail_lines("only", 3) == "only");
}

TEST_CASE("contexts: every round visits every (context, variant) once, in a seeded order") {
  SweepSpec spec;
  for (const char* name : {"baseline", "contender"}) spec.variants.push_back(VariantSpec{name, {}, {}});
  for (std::size_t c = 0; c < 6; ++c) spec.contexts.push_back(ContextSpec{c, fmt::format("env+{}", c * 10)});
  spec.contexts[3].failure = "the link command exited with code 1";  // not prepared: not planned
  spec.runs = 3;
  spec.seed = 42;
  const Plan plan = sweep_plan(spec, PlanKind::compare);
  REQUIRE(plan.block_size() == 10);
  CHECK(plan.configs[0].id == "compare=env+0/baseline/held");
  CHECK(plan.configs[7].id == "compare=env+40/contender/held");
  const auto all = trials(plan, 0, 3);
  REQUIRE(all.size() == 30);
  std::set<std::pair<std::size_t, std::size_t>> round0;
  for (std::size_t i = 0; i < 10; ++i) {
    const SweepCell cell = sweep_cell(plan.configs[all[i].config]);
    CHECK(cell.context != 3);
    round0.insert({cell.context, cell.variant});
  }
  CHECK(round0.size() == 10);
  // A context's variants run back to back (the pair shares the moment).
  for (std::size_t i = 0; i < all.size(); i += 2)
    CHECK(sweep_cell(plan.configs[all[i].config]).context == sweep_cell(plan.configs[all[i + 1].config]).context);
  CHECK(block_order(plan, 0) == block_order(sweep_plan(spec, PlanKind::compare), 0));
  CHECK(block_order(plan, 0) != block_order(plan, 1));
}

TEST_CASE("contexts: the environment pad's value has exactly the context's size") {
  VariantSpec v;
  v.launch.path = "/bin/true";
  v.launch.argv = {"true", "x"};
  v.launch.env = EnvBlock({"A=1", "OBSCHECK_PAD=old"});  // an inherited pad is replaced
  ContextSpec c;
  c.env_pad = 2;
  c.argv0_pad = 3;
  const LaunchSpec l = context_launch(v, c);
  CHECK(l.env.vars() == std::vector<std::string>{"A=1", "OBSCHECK_PAD=xx"});
  CHECK(l.env.size_bytes() == 4 + 16);  // "A=1\0" + "OBSCHECK_PAD=xx\0"
  CHECK(l.argv == std::vector<std::string>{"////bin/true", "x"});
  CHECK(parse_stack_address("stack=0x7fffffffe63c environ=0x1") == 0x7fffffffe63cull);
  CHECK_FALSE(parse_stack_address("42").has_value());
}
