#include "job/sweep/sweep_setup.h"

#include <fmt/core.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>

#include "job/common/job_backend.h"
#include "job/sweep/sweep_verdicts.h"
#include "run/backend.h"
#include "run/measure.h"
#include "stats/rng.h"
#include "util/digest.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The most contexts a sweep's grid may hold: each runs the program --runs times per
// variant, so 10000 contexts at the default 5 runs are 50000 runs, beyond any sweep
// worth running (the paper's environment grid has 22); the grid is sized before any
// of it is allocated.
constexpr std::size_t kMaxContexts = 10000;
// The largest --env-sizes value: the padding variable "OBSCHECK_PAD=value" and its NUL
// must fit one execve string.
constexpr std::size_t kMaxEnvPadValue = kMaxArgStringBytes - sizeof("OBSCHECK_PAD=");
// The largest --argv0-pads value: argv[0] is the pad plus the program's absolute path
// (up to PATH_MAX, 4096 bytes) in one execve string.
constexpr std::size_t kMaxArgv0Pad = kMaxArgStringBytes - 4096;

// The link-order directory under --run-as: searchable by the target's user, not
// readable (listable) or writable by anyone but the owner.
constexpr mode_t kRunAsLinkDirMode = 0711;

std::size_t parse_size(const std::string& word, const std::string& option) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(word, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != word.size() || word.empty() || word[0] == '-')
    throw Error(ErrorKind::usage, fmt::format("{}: '{}' is not a byte count", option, word),
                fmt::format("e.g. {} 2:8192:390 or {} 0,16,32", option, option));
  return static_cast<std::size_t>(v);
}

std::string join_label(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : " ") + p;
  return s;
}

}  // namespace

// A value beyond `max`, or a list of more than kMaxContexts values, is refused
// before anything is allocated.
void check_size(std::size_t v, std::size_t max, const std::string& option) {
  if (v > max)
    throw Error(ErrorKind::usage, fmt::format("{}: {} bytes is above {}", option, v, max),
                fmt::format("Linux runs no program with an argument or variable over {} bytes (MAX_ARG_STRLEN)",
                            kMaxArgStringBytes));
}

namespace {

// "FROM:TO:STEP" or "a,b,c" of --env-sizes or --argv0-pads, none above `max`.
std::vector<std::size_t> parse_size_list(const std::string& spec, const std::string& option, std::size_t max) {
  std::vector<std::size_t> out;
  if (spec.find(':') != std::string::npos) {
    const auto a = spec.find(':'), b = spec.find(':', a + 1);
    if (b == std::string::npos || spec.find(':', b + 1) != std::string::npos)
      throw Error(ErrorKind::usage, fmt::format("{}: '{}' is not FROM:TO:STEP", option, spec),
                  fmt::format("e.g. {} 2:8192:390", option));
    const std::size_t from = parse_size(spec.substr(0, a), option), to = parse_size(spec.substr(a + 1, b - a - 1), option),
                      step = parse_size(spec.substr(b + 1), option);
    if (step == 0 || from > to)
      throw Error(ErrorKind::usage, fmt::format("{}: '{}' needs FROM <= TO and a STEP of at least 1", option, spec));
    check_size(to, max, option);
    if ((to - from) / step + 1 > kMaxContexts)
      throw Error(ErrorKind::usage, fmt::format("{}: '{}' is {} contexts; a sweep takes at most {}", option, spec,
                                                (to - from) / step + 1, kMaxContexts),
                  "a larger STEP, or --contexts N after a coarser grid");
    for (std::size_t v = from; v <= to; v += step) out.push_back(v);
    return out;
  }
  const std::vector<std::string> words = split_commas(spec);
  if (words.size() > kMaxContexts)
    throw Error(ErrorKind::usage, fmt::format("{}: {} values; a sweep takes at most {}", option, words.size(), kMaxContexts));
  for (const auto& w : words) {
    out.push_back(parse_size(w, option));
    check_size(out.back(), max, option);
  }
  if (out.empty()) throw Error(ErrorKind::usage, option + " is empty");
  return out;
}

}  // namespace

std::vector<std::size_t> parse_env_sizes(const std::string& text) {
  return parse_size_list(text, "--env-sizes", kMaxEnvPadValue);
}

std::vector<std::size_t> parse_argv0_pads(const std::string& text) {
  return parse_size_list(text, "--argv0-pads", kMaxArgv0Pad);
}

void check_context_sizes(const SweepRequest& r) {
  for (const auto& [option, sizes, max] : {std::tuple{"--env-sizes", &r.env_sizes, kMaxEnvPadValue},
                                           std::tuple{"--argv0-pads", &r.argv0_pads, kMaxArgv0Pad}}) {
    if (sizes->size() > kMaxContexts)
      throw Error(ErrorKind::usage,
                  fmt::format("{}: {} values; a sweep takes at most {}", option, sizes->size(), kMaxContexts));
    for (std::size_t v : *sizes) check_size(v, max, option);
  }
}

namespace {

// The counters (or simulated events) and the metric the verdict is on: every counter
// must be countable here (Backend::resolve_all), the metric one of them or wall-time.
void choose_events(const SweepRequest& o, SweepSetup& s) {
  s.backend = job_backend(o.check.backend, o.check.sim_cache);
  const Backend& backend = *s.backend;
  const CounterList list = o.check.counters.empty() ? backend.default_counters(CounterUse::sweep) : o.check.counters;
  const ResolvedCounters c = backend.resolve_all(list);
  const std::vector<std::string> names = c.names();
  backend.require_here();
  const BlockPolicy policy = backend.block_policy();
  if (policy.blocks && o.check.runs <= 0) s.runs = static_cast<int>(*policy.blocks);
  if (!policy.warmup && !o.check.warmup_given) s.warmup = 0;
  s.backend_notes = backend.notes(names);
  if (!backend.times_the_program())
    s.backend_notes.push_back("wall-time and user-time are the simulator's under --backend sim, not the program's");
  for (const std::string& n : c.notes) s.backend_notes.push_back(n);  // e.g. counted at user level only
  s.events = c.events;
  s.sim_events = c.simulated;
  s.measurer = backend.run_measurer(c);
  s.metric = o.metric.empty() ? names.at(0) : o.metric;
  bool known = s.metric == "wall-time";
  for (const auto& n : names) known = known || n == s.metric;
  if (!known)
    throw Error(ErrorKind::usage, fmt::format("--metric {} is neither a counter in the list nor wall-time", s.metric),
                "add it to --counters");
}

// The link-order dimension: every order linked into a private directory (owned by the
// setup), or one "no order" when --link is not given.
std::vector<std::optional<std::size_t>> link_orders(const SweepRequest& o, SweepSetup& s) {
  if (o.link_command.empty() && o.link_objects.empty() && o.link_orders <= 0) return {std::nullopt};
  if (o.link_command.empty() || o.link_objects.empty())
    throw Error(ErrorKind::usage, "link-order contexts need both --link 'CMD {objects} -o {out}' and --objects");
  s.link_dir = TempDir::create("obscheck-link");
  // A --run-as target must reach its linked binary: others may pass through the
  // directory (and run a binary by its name), never list or write it.
  const std::string& run_as = o.check.launch.run_as;
  if (!run_as.empty() && ::chmod(s.link_dir->path().c_str(), kRunAsLinkDirMode) != 0)
    throw Error(ErrorKind::io, fmt::format("cannot open {} to --run-as {}: {}", s.link_dir->path(), run_as,
                                           std::strerror(errno)));
  LinkSpec ls;
  ls.command = o.link_command;
  ls.objects = o.link_objects;
  ls.orders = static_cast<std::size_t>(o.link_orders > 0 ? o.link_orders : 1);
  ls.seed = s.seed;
  ls.dir = s.link_dir->path();
  s.links = build_link_variants(ls);
  std::vector<std::optional<std::size_t>> orders;
  for (std::size_t k = 0; k < s.links.size(); ++k) orders.emplace_back(k);
  return orders;
}

// Every context of the grid: environment sizes x argv[0] pads x link orders (the
// paper's environment sizes when no dimension is given), in grid order.
std::vector<ContextSpec> context_grid(const SweepRequest& o, SweepSetup& s) {
  const bool any = !o.env_sizes.empty() || !o.argv0_pads.empty() || !o.link_command.empty();
  std::vector<std::optional<std::size_t>> envs = {std::nullopt};
  if (!o.env_sizes.empty() || !any) {
    envs.clear();
    if (o.env_sizes.empty())  // the paper's grid
      for (std::size_t v = kPaperEnvFrom; v <= kPaperEnvTo; v += kPaperEnvStep) envs.emplace_back(v);
    for (std::size_t v : o.env_sizes) envs.emplace_back(v);
  }
  const std::vector<std::size_t> argv0 = o.argv0_pads.empty() ? std::vector<std::size_t>{0} : o.argv0_pads;
  const std::size_t orders_wanted = o.link_orders > 0 ? static_cast<std::size_t>(o.link_orders) : 1;
  if (envs.size() * argv0.size() * orders_wanted > kMaxContexts)
    throw Error(ErrorKind::usage,
                fmt::format("{} environment sizes x {} argv[0] pads x {} link orders is {} contexts; a sweep takes at "
                            "most {}", envs.size(), argv0.size(), orders_wanted,
                            envs.size() * argv0.size() * orders_wanted, kMaxContexts),
                "a coarser grid (a larger STEP)");
  const std::vector<std::optional<std::size_t>> orders = link_orders(o, s);
  std::vector<ContextSpec> grid;
  for (const auto& env : envs)
    for (std::size_t a : argv0)
      for (const auto& order : orders) {
        ContextSpec c;
        std::vector<std::string> label;
        c.env_pad = env;
        if (env) label.push_back(fmt::format("env+{}", *env));
        c.argv0_pad = a;
        if (!o.argv0_pads.empty()) label.push_back(fmt::format("argv0+{}", a));
        if (order) {
          const LinkVariant& lv = s.links[*order];
          c.link_order = order;
          c.objects = lv.objects;
          c.binary = lv.binary;
          c.binary_sha256 = lv.sha256;
          c.failure = lv.failure;
          label.push_back(fmt::format("order {}", *order));
        }
        c.label = join_label(label);
        grid.push_back(std::move(c));
      }
  return grid;
}

// --contexts N: a seeded sample without replacement (partial Fisher-Yates), kept in
// grid order; all of them when N is 0 or at least the grid's size.
std::vector<ContextSpec> sample_contexts(std::vector<ContextSpec> grid, int wanted, std::uint64_t seed) {
  if (wanted < 0) throw Error(ErrorKind::usage, "--contexts cannot be negative");
  if (wanted == 0 || static_cast<std::size_t>(wanted) >= grid.size()) return grid;
  stats::Rng rng(seed ^ 0x636f6e7465787473ull);
  std::vector<std::size_t> idx(grid.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  for (std::size_t i = 0; i < static_cast<std::size_t>(wanted); ++i) std::swap(idx[i], idx[i + rng.index(idx.size() - i)]);
  idx.resize(static_cast<std::size_t>(wanted));
  std::sort(idx.begin(), idx.end());
  std::vector<ContextSpec> picked;
  for (std::size_t i : idx) picked.push_back(std::move(grid[i]));
  return picked;
}

}  // namespace

SweepSetup prepare_sweep(const SweepRequest& o) {
  SweepSetup s;
  if (o.confidence <= 0.5 || o.confidence >= 1)
    throw Error(ErrorKind::usage, "--confidence is a level between 0.5 and 1 (0.95 = 95%)");
  if (o.check.launch.env_pad) throw Error(ErrorKind::usage, "--env-pad holds the environment constant; bias and compare vary it",
                             "use --env-sizes to choose the environment contexts");
  s.runs = o.check.runs > 0 ? o.check.runs : kDefaultContextRuns;
  s.warmup = o.check.warmup;
  s.seed = o.check.seed_given ? o.check.seed : std::random_device{}() * 0x100000001ull + std::random_device{}();
  choose_events(o, s);
  s.contexts = sample_contexts(context_grid(o, s), o.contexts, s.seed);
  for (std::size_t i = 0; i < s.contexts.size(); ++i) s.contexts[i].id = i;
  return s;
}

VariantSpec make_variant(const SweepRequest& o, const std::vector<std::string>& words, const std::string& name) {
  if (words.empty()) throw Error(ErrorKind::usage, "obscheck " + name + ": no program to run");
  VariantSpec v;
  v.name = name;
  const bool linked = words[0] == "{out}";
  if (!o.link_command.empty() && !linked)
    throw Error(ErrorKind::usage, "with --link, write {out} where the linked program goes",
                "e.g. obscheck bias --link 'cc {objects} -o {out}' --objects a.o,b.o -- {out} ARGS");
  if (linked && o.link_command.empty())
    throw Error(ErrorKind::usage, "{out} names a linked binary, but there is no --link");
  v.launch.path = linked ? std::string() : resolve_target(words[0]);
  v.launch.argv = words;
  v.launch.env = EnvBlock::from_current();
  const LaunchRequest& l = o.check.launch;
  v.launch.aslr = l.aslr;
  v.launch.cpu = l.cpu;
  v.launch.timeout_s = l.timeout_s;
  v.launch.out = l.show_output ? Stdio::inherit : Stdio::capture;
  if (!l.run_as.empty()) v.launch.run_as = credentials_of(l.run_as);
  if (!linked) v.sha256 = sha256_file(v.launch.path);
  return v;
}

std::vector<VariantSpec> compare_variants(
    const SweepRequest& r, const std::pair<std::vector<std::string>, std::vector<std::string>>& words, bool aa) {
  std::vector<VariantSpec> variants = {make_variant(r, words.first, "baseline"),
                                       make_variant(r, words.second, "contender")};
  if (aa) {
    VariantSpec copy = variants[0];
    copy.name = "baseline (A/A)";
    variants.push_back(std::move(copy));
  }
  return variants;
}

SweepJob sweep_job_for(const SweepRequest& r, JobKind kind) {
  const std::vector<std::string>& words = r.check.launch.argv;
  // compare's words are split first (BASELINE ARGS ::: CONTENDER ARGS), as it reads them.
  std::optional<std::pair<std::vector<std::string>, std::vector<std::string>>> split;
  if (kind == JobKind::compare) split = split_variants(words);
  SweepSetup setup = prepare_sweep(r);
  std::vector<VariantSpec> variants = split ? compare_variants(r, *split, r.aa)
                                            : std::vector<VariantSpec>{make_variant(r, words, "program")};
  SweepJob job = make_sweep_job(std::move(setup), std::move(variants), kind, r);
  // Outputs that differ in every context after the first round make the comparison
  // incomparable whatever the other rounds show: it says so then, not after its budget.
  job.spec.stop_when_outputs_differ = kind == JobKind::compare && !r.allow_output_diff;
  return job;
}

}  // namespace obscheck
