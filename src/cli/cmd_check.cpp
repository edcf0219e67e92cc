// The main job: obscheck [options] PROG ARGS — and its journal's re-entry points,
// obscheck --resume FILE and obscheck report FILE.
#include <sys/stat.h>

#include <fstream>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <filesystem>
#include <random>
#include <thread>

#include "analysis/check.h"
#include "analysis/deterministic.h"
#include "analysis/summary.h"
#include "cli/commands.h"
#include "cli/html_out.h"
#include "cli/install_paths.h"
#include "cli/resume.h"
#include "cli/sim_backend.h"
#include "cli/sweep_common.h"
#include "events/event.h"
#include "observe/probes.h"
#include "observe/variants.h"
#include "observe/wrap.h"
#include "host/doctor.h"
#include "host/host_info.h"
#include "record/journal.h"
#include "record/journal_reader.h"
#include "report/check_report.h"
#include "run/check.h"
#include "util/digest.h"
#include "util/error.h"

namespace obscheck {
namespace {

// What the check counts when --counters is not given: the software events every
// Linux host has, plus the TSC; hosts with a PMU add the paper's cycles/l1d/l1i.
constexpr const char* kDefaultCheckCounters = "task-clock,page-faults,ctx-switches,tsc";
constexpr const char* kDefaultPmuCounters = "cycles,instructions,l1d,l1i";
// The metrics of a check of any other observer, when --counters is not given.
constexpr const char* kDefaultObserverMetrics = "task-clock,page-faults";
// Under --backend sim: the paper's counters, simulated (cycles estimated).
constexpr const char* kDefaultSimCounters = "cycles,instructions,l1d,l1i";
constexpr const char* kDefaultSimObserverMetrics = "instructions,cycles,l1d";
// Under --backend sim a configuration's counts are exact: one measured block decides
// and a second confirms that they repeat (analysis/deterministic.h). No warm-up: the
// simulated caches start cold in every run, so there is nothing to settle.
constexpr std::size_t kSimBlocks = 2;

// The counter list as plan items (top-level entries; a {group} is one item) with the
// events of each, after dropping what this host cannot count (--allow-missing) or
// refusing the whole list with every reason (the counter set is the independent
// variable: never silently smaller).
struct Counters {
  std::vector<std::string> items;
  EventSet events;
  std::vector<std::vector<std::size_t>> item_events;
  std::vector<std::string> dropped;  // "cycles: no hardware PMU ..."
  std::vector<std::string> notes;    // from events/, each once (e.g. counted at user level only)
};

Counters resolve_counters(const std::string& spec, bool allow_missing) {
  // Every item is parsed first and all are probed together on one child: one fork
  // and one look at the host's perf facts for the whole list, not one per item.
  std::vector<std::string> items = split_event_list(spec);
  std::vector<EventSet> parsed;
  EventSet all;
  std::vector<std::size_t> first_event;  // each item's first index in `all`
  Counters c;
  for (const std::string& item : items) {
    parsed.push_back(parse_events(item));
    for (const auto& n : parsed.back().notes) if (std::find(c.notes.begin(), c.notes.end(), n) == c.notes.end()) c.notes.push_back(n);
    first_event.push_back(all.events.size());
    all = concat_events(all, parsed.back());
  }
  const std::vector<Availability> avail = probe_event_set(all);

  std::string why, hint;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const EventSet& one = parsed[k];
    std::string item_why;
    for (std::size_t i = 0; i < one.events.size(); ++i) {
      const Availability& a = avail[first_event[k] + i];
      if (a.available) continue;
      item_why += fmt::format("{}{}: {}", item_why.empty() ? "" : "; ", one.events[i].spec, a.reason);
      if (!a.hint.empty() && hint.find(a.hint) == std::string::npos) hint += (hint.empty() ? "" : "; ") + a.hint;
    }
    if (!item_why.empty()) {
      if (allow_missing) {
        c.dropped.push_back(item_why);
        continue;
      }
      why += (why.empty() ? "" : "; ") + item_why;
      continue;
    }
    std::vector<std::size_t> idx;
    for (auto& group : one.groups) {
      std::vector<std::size_t> g;
      for (std::size_t e : group) {
        g.push_back(c.events.events.size());
        idx.push_back(c.events.events.size());
        c.events.events.push_back(one.events[e]);
      }
      c.events.groups.push_back(std::move(g));
    }
    c.items.push_back(items[k]);
    c.item_events.push_back(std::move(idx));
  }
  if (!why.empty())
    throw Error(ErrorKind::event, "cannot count " + why,
                hint + (hint.empty() ? "" : "; ") + "or drop them with --allow-missing");
  if (c.items.empty())
    throw Error(ErrorKind::event, "none of the counters can be counted here: " + fmt::format("{}", fmt::join(c.dropped, "; ")),
                "see obscheck events");
  return c;
}

// The simulated counterpart of resolve_counters: every simulated event exists on any
// host, so nothing is dropped; each name is its own plan item.
Counters resolve_sim_counters(const std::string& spec, std::vector<SimEvent>& events) {
  events = resolve_sim_events(spec);
  Counters c;
  for (std::size_t i = 0; i < events.size(); ++i) {
    c.items.push_back(events[i].name);
    c.item_events.push_back({i});
  }
  return c;
}

std::string default_counters() {
  // Only when the user named none: take the PMU set if this host can count it.
  EventSet pmu = parse_events(kDefaultPmuCounters);
  for (const auto& a : probe_event_set(pmu))
    if (!a.available) return kDefaultCheckCounters;
  return std::string(kDefaultPmuCounters) + "," + kDefaultCheckCounters;
}

}  // namespace

namespace {

std::uint64_t parse_frequency(const std::string& w) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(w.c_str(), &end, 10);
  if (w.empty() || *end != '\0') throw Error(ErrorKind::usage, "--sample-freq: '" + w + "' is not a frequency in Hz");
  return v;
}

std::string default_sample_event() {
  EventSet cycles = parse_events("cycles");
  return probe_event_set(cycles).front().available ? "cycles" : "cpu-clock";
}

// The doses of the chosen observer as plan levels: every level programs all the
// counters (they are the metrics) and names its dose in `extra`; also fills the
// runner's ObserverSpec. The counter observer's levels are plan/'s counter_levels.
std::vector<Level> observer_levels(const Options& o, const std::vector<std::string>& items, const LaunchSpec& base,
                                   ObserverSpec& obs, std::vector<std::string>& notes) {
  if (o.probes.empty() && o.breakpoints.empty() && o.sample_freq.empty() && o.observer_cmd.empty() &&
      o.build.empty()) {
    obs.kind = ObserverKind::counters;
    // One counter has no other dose to compare with: it is compared with no counter at
    // all (level 0), which the driver's metrics can measure. External and native only:
    // in process, level 0 would be the program without the library, another mechanism;
    // under simulation the driver's metrics are the simulator's.
    const bool reference = items.size() == 1 && o.mode == "external" && !sim_backend(o);
    return counter_levels(items, reference);
  }
  std::vector<std::size_t> all(items.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  auto level = [&](int dose, std::string label, nlohmann::json extra) {
    Level l;
    l.dose = dose;
    l.label = std::move(label);
    l.programmed = all;
    l.announced = all;
    l.extra = std::move(extra);
    return l;
  };
  std::vector<Level> levels;
  if (!o.probes.empty() || !o.breakpoints.empty()) {
    const bool uprobes = !o.probes.empty();
    const std::string spec = uprobes ? o.probes : o.breakpoints;
    std::vector<std::string> syms = spec.rfind("auto:", 0) == 0
                                        ? auto_probe_symbols(base.path, std::stoul(spec.substr(5)))
                                        : split_commas(spec);
    obs.kind = uprobes ? ObserverKind::probes : ObserverKind::breakpoints;
    obs.probes = probe_events(base.path, syms, uprobes ? ProbeKind::uprobe : ProbeKind::breakpoint);
    require_openable_together(obs.probes);
    std::string names;
    for (std::size_t k = 0; k <= syms.size(); ++k) {
      if (k > 0) names += (k > 1 ? "," : "") + syms[k - 1];
      levels.push_back(level(static_cast<int>(k), std::to_string(k) + "[" + (k ? names : "none") + "]",
                             {{"probes", k}}));
    }
  } else if (!o.sample_freq.empty()) {
    obs.kind = ObserverKind::sampling;
    obs.sample_event = parse_events(o.sample_event.empty() ? default_sample_event() : o.sample_event).events.at(0);
    for (const std::string& w : split_commas(o.sample_freq)) {
      const std::uint64_t f = parse_frequency(w);
      levels.push_back(level(static_cast<int>(f), f == 0 ? "0Hz[none]" : std::to_string(f) + "Hz", {{"freq", f}}));
    }
  } else if (!o.observer_cmd.empty()) {
    obs.kind = ObserverKind::command;
    obs.command = o.observer_cmd;
    int i = 0;
    for (const std::string& w : split_commas(o.levels)) {
      char* end = nullptr;
      const long v = std::strtol(w.c_str(), &end, 10);
      const int dose = (*end == '\0') ? static_cast<int>(v) : i;
      levels.push_back(level(dose, w == "0" ? "0[bare]" : w, {{"wrap", w}}));
      if (w != "0") {
        const WrapperChanges ch = describe_wrapper_changes(wrap_command(o.observer_cmd, w, base.argv), base.argv);
        for (const auto& a : ch.aspects)
          if (!a.held) notes.push_back("level " + w + ": " + a.note);
      }
      ++i;
    }
  } else {
    obs.kind = ObserverKind::build;
    const std::string dir = ".obscheck-variants";
    for (const BuildVariant& v : build_variants(o.build, o.probe_sites, dir)) {
      obs.variants.push_back(v.path);
      levels.push_back(level(v.dose, std::to_string(v.dose) + "[mask " + std::to_string(v.mask) + "]",
                             {{"variant", obs.variants.size() - 1}, {"sha256", v.digest}}));
    }
  }
  std::stable_sort(levels.begin(), levels.end(), [](const Level& a, const Level& b) { return a.dose < b.dose; });
  return levels;
}

}  // namespace

// What the observer itself recorded, per level, for the report: probe hit counts
// (exact counts: the same in every run, or their range) and samples taken and lost.
std::vector<std::string> observations(const Plan& plan, const std::vector<RunRecord>& runs) {
  struct Range {
    double lo = 1e300, hi = -1e300, sum = 0;
    std::size_t n = 0;
    void add(double v) { lo = std::min(lo, v); hi = std::max(hi, v); sum += v; ++n; }
    std::string text() const {
      return lo == hi ? fmt::format("{:.0f}", lo) : fmt::format("{:.0f}..{:.0f} (mean {:.0f})", lo, hi, sum / n);
    }
  };
  std::map<std::size_t, std::map<std::string, Range>> per_level;
  for (const RunRecord& r : runs) {
    if (r.warmup) continue;
    const std::size_t level = plan.configs.at(r.config).level_index;
    if (r.extra.contains("probe_hits"))
      for (const auto& [name, hits] : r.extra.at("probe_hits").items()) per_level[level][name + " hits"].add(hits.get<double>());
    if (r.extra.contains("sampling")) {
      per_level[level]["samples taken"].add(r.extra.at("sampling").value("samples", 0.0));
      per_level[level]["samples lost"].add(r.extra.at("sampling").value("lost", 0.0));
    }
  }
  std::vector<std::string> out;
  for (const auto& [level, items] : per_level)
    for (const auto& [what, range] : items)
      out.push_back(fmt::format("{}: {} per run = {}", plan.spec.levels.at(level).label, what, range.text()));
  return out;
}

nlohmann::json options_json(const Options& o, const std::vector<std::string>& items,
                            const std::vector<std::string>& dropped, const std::optional<SimGeometry>& sim) {
  nlohmann::json j;
  j["backend"] = sim ? "sim" : "native";
  j["sim_geometry"] = sim ? sim_geometry_json(*sim) : nlohmann::json(nullptr);
  j["counters"] = items;
  j["dropped_counters"] = dropped;
  j["mode"] = o.mode;
  j["margin"] = o.margin;
  j["runs"] = o.runs;
  j["max_runs"] = o.max_runs;
  j["time_budget"] = o.time_budget;
  j["warmup"] = o.warmup;
  j["aslr"] = o.aslr;
  j["cpu"] = o.cpu;
  j["env_pad"] = o.env_pad ? nlohmann::json(*o.env_pad) : nlohmann::json(nullptr);
  j["timeout"] = o.timeout_s;
  j["ignore_failure"] = o.ignore_failure;
  j["leftovers"] = o.leftovers;
  j["show_output"] = o.show_output;
  j["run_as"] = run_as_json(o.run_as);
  j["keep_output_head"] = o.keep_output_head;
  j["observer"] = {{"probes", o.probes},           {"breakpoints", o.breakpoints}, {"sample_freq", o.sample_freq},
                   {"sample_event", o.sample_event}, {"observer_cmd", o.observer_cmd}, {"levels", o.levels},
                   {"build", o.build},             {"probe_sites", o.probe_sites}};
  return j;
}

// The exit code of a check (or its report) that ran to the end: --fail-on over the
// verdicts it reached, per metric and level.
int check_exit_code(const Options& o, const Plan& plan, const Findings& f) {
  return findings_exit_code(o, summarize_check(plan, f).outcomes, kCheckFailOn);
}

// The looks loop shared by a new check and a resumed one.
struct Sweep {
  Plan plan;
  CheckSpec spec;
  std::vector<RunRecord> runs;
  RunTable table;  // `runs` as the analysis reads them, appended to at each look
  std::string journal_path;
  std::vector<std::string> warnings;
  nlohmann::json host;
};

int finish_sweep(const Options& o, Sweep& s, JournalWriter& journal) {
  const auto looks = plan_looks(s.plan, s.spec.sim ? kFirstLook : first_look(s.plan));
  const std::size_t total_planned = end_block_for(s.plan, looks.back()) * s.plan.block_size();
  AnalysisOptions aopt{o.margin, 0.05, 1, s.plan.seed()};
  const auto analyse = [&] {
    if (s.spec.sim) return analyse_deterministic(s.plan, s.runs, o.margin);
    while (s.table.size() < s.runs.size()) s.table.add(s.runs[s.table.size()]);
    return analyse_check(s.plan, s.table, aopt);
  };
  Findings findings;
  bool interrupted = false, ended = false;
  std::string failure;
  // Written once, when the sweep stops: interrupted, or finished (a failure has none).
  // The note also records what the report says of this invocation (the looks it took,
  // its pace), so that `report` prints from the file exactly what the check printed.
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  double pace = 0;  // seconds per measured block in this invocation
  double analysis_seconds = 0;  // spent analysing at the looks (the looks' cost, for the benchmark)
  const auto end_note = [&](JournalWriter::Durable when) {
    const nlohmann::json how{{"looks", aopt.looks_planned},
                             {"seconds_per_block", pace},
                             {"analysis_seconds", std::round(analysis_seconds * 1e6) / 1e6},
                             {"seconds", std::round(elapsed_s() * 1e6) / 1e6}};
    if (interrupted) journal.append_note({{"kind", "interrupted"}, {"runs", s.runs.size()}, {"sweep", how}}, when);
    else if (failure.empty()) journal.append_note({{"kind", "finished"}, {"runs", s.runs.size()}, {"sweep", how}}, when);
  };
  // --time-budget: the sweep stops at the first look after the budget is spent, and a
  // look is shortened so as not to run far past it (at the pace of this invocation's
  // blocks so far). --runs N asked for exactly N blocks: no budget applies.
  const double budget = s.plan.spec.fixed_blocks ? 0.0 : o.time_budget;
  const std::size_t runs_at_start = s.runs.size();
  std::size_t done_before = s.runs.size();
  bool budget_spent = false;
  std::size_t cap = 0;  // the budget's cap on the next look, in measured blocks (0: none)
  std::size_t looks_taken = 0;
  for (std::size_t look : looks) {
    if (cap > 0 && look > cap) look = cap;
    aopt.looks_planned = ++looks_taken;
    const auto pending = remaining_trials(s.plan, s.runs, s.journal_path, end_block_for(s.plan, look));
    SweepProgressFn progress;
    if (o.progress && !o.json && !o.csv) {
      progress = [&](const SweepProgress& p) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const std::size_t done = s.runs.size() + p.done - done_before;
        const double rate = p.done > 0 ? elapsed / static_cast<double>(p.done) : 0;
        // The look's own end, and the budget's, are what the user can wait for: the
        // cap (--max-runs) is rarely reached.
        std::string limit = budget > 0 ? fmt::format(", budget {:.0f}/{:g} s", elapsed, budget) : "";
        fmt::print(stderr, "\r\x1b[K  run {} (look at {} blocks, this look ends in ~{:.0f} s{})  {}", done, look,
                   rate * static_cast<double>(pending.size() - p.done), limit, p.config ? p.config->id : "");
      };
    }
    SweepResult r = run_sweep(s.plan, s.spec, pending, journal, progress);
    if (progress) fmt::print(stderr, "\r\x1b[K");
    done_before += r.appended.size();
    for (auto& rec : r.appended) s.runs.push_back(std::move(rec));
    interrupted = r.interrupted;
    failure = r.failure;
    std::size_t budget_blocks = 0;  // the measured blocks the rest of the budget allows
    if (budget > 0) {
      const double spent = elapsed_s();
      const double blocks_run =
          static_cast<double>(s.runs.size() - runs_at_start) / static_cast<double>(s.plan.block_size());
      budget_spent = spent >= budget;
      if (!budget_spent && blocks_run > 0) {
        budget_blocks = std::max<std::size_t>(1, static_cast<std::size_t>((budget - spent) / (spent / blocks_run)));
        cap = look + budget_blocks;
      }
    }
    ended = interrupted || !failure.empty() || look == looks.back() || budget_spent;
    {
      const double blocks_run =
          static_cast<double>(s.runs.size() - runs_at_start) / static_cast<double>(s.plan.block_size());
      // Rounded to the microsecond: the value is printed from the note later, and must
      // print the same.
      if (blocks_run >= 1) pace = std::round(elapsed_s() / blocks_run * 1e6) / 1e6;
    }
    // The end note is written after the last analysis (it records the analyses' time);
    // the runs before it go to the disk while they are analysed.
    {
      // When the sweep has ended, its journal goes to the disk while the runs are
      // analysed: an fdatasync mostly waits for the device, and neither needs the other.
      std::exception_ptr sync_failure;
      std::jthread syncer;
      if (ended) syncer = std::jthread([&] {
        try {
          journal.sync();
        } catch (...) {
          sync_failure = std::current_exception();
        }
      });
      const auto analysis_started = std::chrono::steady_clock::now();
      findings = analyse();
      analysis_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - analysis_started).count();
      if (syncer.joinable()) syncer.join();
      if (sync_failure) std::rethrow_exception(sync_failure);
    }
    if (ended) end_note(JournalWriter::Durable::on_return);
    if (ended) break;
    // Stop as soon as more runs cannot change an answer: every verdict decided, or the
    // undecided ones need more blocks than the rest of the time budget allows.
    if (findings.decisive || (budget_blocks > 0 && !more_blocks_could_decide(findings, look + budget_blocks))) {
      end_note(JournalWriter::Durable::on_return);
      break;
    }
  }

  CheckContext ctx;
  ctx.argv = s.spec.base.argv;
  ctx.mode = std::string(to_string(s.spec.mode));
  ctx.seed = s.plan.seed();
  ctx.journal_path = s.journal_path;
  ctx.host = s.host;
  HostInfo host;
  from_json(s.host, host);
  for (const Finding& f : doctor_checks(host)) ctx.doctor.push_back(f);
  ctx.env_bytes = s.spec.base.env.size_bytes();
  ctx.runs_done = s.runs.size();
  ctx.runs_planned = total_planned;
  ctx.complete = !interrupted && failure.empty();
  ctx.warnings = s.warnings;
  if (auto w = left_behind_warning(s.runs); !w.empty()) ctx.warnings.push_back(w);
  ctx.observations = observations(s.plan, s.runs);
  if (s.spec.sim) ctx.backend = sim_backend_lines(*s.spec.sim, s.spec.sim_events);
  if (interrupted) ctx.warnings.push_back("interrupted: continue with obscheck --resume " + s.journal_path);
  if (budget_spent && !findings.decisive)
    ctx.warnings.push_back(fmt::format("stopped by the time budget ({:g} s) before every verdict was decided; "
                                       "continue with obscheck --resume {} --time-budget SECONDS",
                                       budget, s.journal_path));
  ctx.seconds_per_block = pace;
  if (!failure.empty()) ctx.warnings.push_back(failure);
  const int findings_code = check_exit_code(o, s.plan, findings);
  ctx.exit_code = interrupted ? interrupted_exit_code() : !failure.empty() ? static_cast<int>(ExitCode::target_failed)
                                                                           : findings_code;
  ctx.verbose = o.verbose;

  std::string out = o.json ? check_json(s.plan, findings, ctx)
                    : o.csv ? check_csv(s.plan, findings)
                            : check_text(s.plan, findings, ctx, o.color);
  emit(o, out);
  write_report_files(o, s.plan, findings, ctx, s.runs);
  if (interrupted) return interrupted_exit_code();
  if (!failure.empty()) {
    journal.sync();  // here, where a failure to sync can still be reported
    throw Error(ErrorKind::target_failed, failure + " (journal: " + s.journal_path + ")",
                "use -i/--ignore-failure to record failing runs and go on");
  }
  return findings_code;
}

int cmd_check(const Options& given) {
  if (!given.resume.empty()) return cmd_resume(given);
  Options o = given;
  // With --build the program is the variant: "{out}" (or nothing) stands for it.
  if (!o.build.empty() && (o.target.empty() || o.target.front() == "{out}")) {
    const auto variants = build_variants(o.build, o.probe_sites, ".obscheck-variants");
    if (o.target.empty()) o.target.push_back(variants.front().path);
    o.target.front() = variants.front().path;
  }
  Sweep s;
  s.spec.base = launch_spec_from(o);
  s.spec.keep_output_head = o.keep_output_head;
  const bool other_observer = !o.probes.empty() || !o.breakpoints.empty() || !o.sample_freq.empty() ||
                              !o.observer_cmd.empty() || !o.build.empty();
  if (other_observer && o.mode == "inprocess")
    throw Error(ErrorKind::usage, "--mode inprocess goes with the counter observer only",
                "probes, breakpoints, sampling, profiler commands and builds are checked with --mode external");
  const bool sim = sim_backend(o);
  if (sim) require_sim_observer_of(o);
  // With another observer the counters are the metrics: the time a run takes and its
  // page faults by default.
  const std::string wanted = !o.counters.empty() ? o.counters
                             : sim               ? (other_observer ? kDefaultSimObserverMetrics : kDefaultSimCounters)
                             : other_observer    ? kDefaultObserverMetrics
                                                 : default_counters();
  const Counters counters = sim ? resolve_sim_counters(wanted, s.spec.sim_events) : resolve_counters(wanted, o.allow_missing);
  if (sim) s.spec.sim = sim_geometry_from(o);
  for (const auto& d : counters.dropped) s.warnings.push_back("dropped (--allow-missing): " + d);
  for (const auto& n : counters.notes) s.warnings.push_back(n);
  s.spec.events = counters.events;
  s.spec.item_events = counters.item_events;
  s.spec.mode = counting_mode_from_string(o.mode);
  s.spec.ignore_failure = o.ignore_failure;
  s.spec.fail_on_leftovers = o.leftovers == "fail";
  if (s.spec.mode == CountingMode::inprocess && !sim) s.spec.probe_library = probe_library_path();

  PlanSpec ps;
  ps.counters = counters.items;
  ps.levels = observer_levels(o, counters.items, s.spec.base, s.spec.observer, s.warnings);
  ps.observer = std::string(to_string(s.spec.observer.kind));
  // Only the counter observer's list reaches the target's environment in process;
  // every other observer leaves the environment alone, so its layout is held.
  ps.layouts = s.spec.observer.kind == ObserverKind::counters ? layouts_for(s.spec.mode)
                                                              : std::vector<Layout>{Layout::held};
  // A seed the user did not give is drawn once and recorded, so the run can be replayed.
  ps.seed = o.seed_given ? o.seed : (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  if (o.runs > 0) ps.fixed_blocks = static_cast<std::size_t>(o.runs);
  if (o.max_runs > 0) ps.max_blocks = static_cast<std::size_t>(o.max_runs);
  ps.warmup_blocks = static_cast<std::size_t>(o.warmup);
  if (sim) {
    ps.fixed_blocks = o.runs > 0 ? static_cast<std::size_t>(o.runs) : kSimBlocks;
    ps.warmup_blocks = o.warmup_given ? static_cast<std::size_t>(o.warmup) : 0;
  }
  s.plan = make_plan(ps);

  s.host = read_host();
  ManifestInput mi;
  mi.obscheck_version = OBSCHECK_VERSION;
  mi.created = std::chrono::system_clock::now();
  mi.host = s.host;
  mi.options = options_json(o, counters.items, counters.dropped, s.spec.sim);
  mi.target = TargetInfo{s.spec.base.path, s.spec.base.argv, sha256_file(s.spec.base.path)};
  mi.env = s.spec.base.env.vars();
  const nlohmann::json manifest = make_manifest(mi, s.plan);
  JournalWriter journal = o.journal.empty() ? JournalWriter::create_default("", mi.created, manifest)
                                            : JournalWriter::create(o.journal, manifest);
  s.journal_path = journal.path();
  return finish_sweep(o, s, journal);
}

}  // namespace obscheck

namespace obscheck {
namespace {

CheckContext context_from_manifest(const JournalData& d, const Plan& plan, const Findings&) {
  const nlohmann::json& m = d.manifest;
  CheckContext ctx;
  ctx.argv = m.at("target").at("argv").get<std::vector<std::string>>();
  ctx.mode = m.at("options").value("mode", "external");
  ctx.seed = plan.seed();
  ctx.journal_path = d.path;
  ctx.host = m.value("host", nlohmann::json::object());
  HostInfo host;
  from_json(ctx.host, host);
  for (const Finding& f : doctor_checks(host)) ctx.doctor.push_back(f);
  std::size_t env_bytes = 0;
  for (const auto& e : m.value("env", nlohmann::json::array())) env_bytes += e.value("bytes", std::size_t{0});
  ctx.env_bytes = env_bytes;
  const auto looks = plan_looks(plan);
  ctx.runs_planned = end_block_for(plan, looks.back()) * plan.block_size();
  ctx.runs_done = d.runs.size();
  // The last word of the sweep decides: a resumed sweep that finished is complete.
  const std::string last = d.notes.empty() ? "" : d.notes.back().value("kind", "");
  if (!d.notes.empty() && d.notes.back().contains("sweep") && d.notes.back().at("sweep").is_object())
    ctx.seconds_per_block = d.notes.back().at("sweep").value("seconds_per_block", 0.0);
  const bool interrupted = last == "interrupted";
  ctx.complete = last == "finished";
  for (const auto& w : m.at("options").value("dropped_counters", std::vector<std::string>{}))
    ctx.warnings.push_back("dropped (--allow-missing): " + w);
  if (m.at("options").value("backend", "native") == "sim")
    ctx.backend = sim_backend_lines(sim_geometry_from_json(m.at("options").at("sim_geometry")),
                                    resolve_sim_events(fmt::format("{}", fmt::join(plan.spec.counters, ","))));
  if (interrupted) ctx.warnings.push_back("interrupted: continue with obscheck --resume " + d.path);
  return ctx;
}

}  // namespace

CheckContext check_context_from_journal(const JournalData& d, const Plan& plan) {
  CheckContext ctx = context_from_manifest(d, plan, Findings{});
  if (d.torn_tail) ctx.warnings.push_back("the journal's last line is incomplete (a run cut off mid-write); it was ignored");
  return ctx;
}

// Whether a journal records a --backend sim check, from its first line alone.
bool journal_is_simulated(const std::string& path) {
  // Not a regular file (a directory, /dev/zero), or a first line beyond the reader's
  // limit: the reader refuses it and names why.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path);
  std::string first;
  for (char c; first.size() < kMaxJournalLineBytes && in.get(c) && c != '\n';) first += c;
  const nlohmann::json m = nlohmann::json::parse(first, nullptr, false);
  return m.is_object() && m.contains("options") && m.at("options").is_object() &&
         m.at("options").value("backend", "native") == "sim";
}

// The looks the last invocation of the sweep took, from its end note (1 when none says).
std::size_t looks_of(const JournalData& d) {
  if (d.notes.empty() || !d.notes.back().contains("sweep") || !d.notes.back().at("sweep").is_object()) return 1;
  const auto n = d.notes.back().at("sweep").value("looks", std::size_t{1});
  return n > 0 ? n : 1;
}

namespace {

// `report` of a native check without figures: one streaming pass into columns (record/
// journal_reader.h), never a RunRecord per run, so a journal of a million runs is read
// in bounded memory. Only runs whose observer left something for the report (probe
// hits, samples, processes left behind) are kept, and only their extras.
int report_from_table(const Options& o) {
  std::vector<RunRecord> with_extras;
  const JournalTable t = read_journal_table(o.report_file, [&](const RunFields& f) {
    if (f.extra == "{}") return;
    if (f.extra.find("\"probe_hits\"") == std::string_view::npos &&
        f.extra.find("\"sampling\"") == std::string_view::npos &&
        f.extra.find("\"left_behind\"") == std::string_view::npos)
      return;
    RunRecord& r = with_extras.emplace_back();
    r.index = f.index;
    r.config = f.config;
    r.block = f.block;
    r.warmup = f.warmup;
    r.extra = nlohmann::json::parse(f.extra, nullptr, false);
    if (!r.extra.is_object()) r.extra = nlohmann::json::object();
  });
  JournalData shell;  // what the report's context reads of a journal: all but the runs
  shell.path = t.path;
  shell.manifest = t.manifest;
  shell.notes = t.notes;
  shell.torn_tail = t.scan.torn_tail;
  const double margin = o.margin_given ? o.margin : t.manifest.at("options").value("margin", 0.01);
  const Findings findings = analyse_check(t.plan, t.runs, {margin, 0.05, looks_of(shell), t.plan.seed()});
  CheckContext ctx = context_from_manifest(shell, t.plan, findings);
  ctx.runs_done = t.runs.size();
  ctx.observations = observations(t.plan, with_extras);
  if (auto w = left_behind_warning(with_extras); !w.empty()) ctx.warnings.push_back(w);
  if (t.scan.torn_tail)
    ctx.warnings.push_back("the journal's last line is incomplete (a run cut off mid-write); it was ignored");
  if (auto w = integrity_warning(t.scan); !w.empty()) ctx.warnings.push_back(w);
  ctx.exit_code = check_exit_code(o, t.plan, findings);
  ctx.verbose = o.verbose;
  emit(o, o.json ? check_json(t.plan, findings, ctx)
          : o.csv ? check_csv(t.plan, findings)
          : o.markdown ? check_markdown(t.plan, findings, ctx)
                  : check_text(t.plan, findings, ctx, o.color));
  return ctx.exit_code;
}

}  // namespace

int cmd_report(const Options& o) {
  {
    // The manifest alone says which path applies: the simulated backend's analysis and
    // the figures (--html, --svg) read RunRecords.
    if (o.html.empty() && o.svg_dir.empty() && !journal_is_simulated(o.report_file)) return report_from_table(o);
  }
  const JournalData d = load_journal(o.report_file);
  const Plan plan = plan_from_journal(d);
  const double margin = o.margin_given ? o.margin : d.manifest.at("options").value("margin", 0.01);
  const bool simulated = d.manifest.at("options").value("backend", "native") == "sim";
  const Findings findings = simulated ? analyse_deterministic(plan, d.runs, margin)
                                      : analyse_check(plan, d.runs, {margin, 0.05, looks_of(d), plan.seed()});
  CheckContext ctx = context_from_manifest(d, plan, findings);
  ctx.observations = observations(plan, d.runs);
  if (auto w = left_behind_warning(d.runs); !w.empty()) ctx.warnings.push_back(w);
  if (d.torn_tail) ctx.warnings.push_back("the journal's last line is incomplete (a run cut off mid-write); it was ignored");
  if (d.unchecked_lines > 0)
    ctx.warnings.push_back(fmt::format("{} of the journal's {} lines carry no integrity check (written by an older "
                                       "obscheck): they were validated field by field, but a plausible changed value "
                                       "cannot be detected",
                                       d.unchecked_lines, d.lines));
  ctx.exit_code = check_exit_code(o, plan, findings);
  ctx.verbose = o.verbose;
  emit(o, o.json ? check_json(plan, findings, ctx)
          : o.csv ? check_csv(plan, findings)
          : o.markdown ? check_markdown(plan, findings, ctx)
                  : check_text(plan, findings, ctx, o.color));
  write_report_files(o, plan, findings, ctx, d.runs);
  return ctx.exit_code;
}

int cmd_resume(const Options& o) {
  if (const nlohmann::json m = read_manifest_line(o.resume); !m.is_null()) refuse_changed_options(o, m);
  ResumedJournal r = JournalWriter::open_for_resume(o.resume);
  if (journal_complete(r.data.notes)) return report_complete_journal(o, r.data);
  const nlohmann::json& m = r.data.manifest;
  const nlohmann::json& opt = m.at("options");
  // The continuation runs exactly as the interrupted sweep did: its options come from
  // the journal, not from this command line (only output options are taken from it).
  Options eff = o;
  eff.mode = opt.at("mode").get<std::string>();
  eff.margin = opt.at("margin").get<double>();
  eff.runs = opt.at("runs").get<int>();
  eff.max_runs = opt.at("max_runs").get<int>();
  eff.warmup = opt.at("warmup").get<int>();
  eff.aslr = opt.at("aslr").get<bool>();
  eff.cpu = opt.at("cpu").get<int>();
  eff.env_pad.reset();
  if (!opt.at("env_pad").is_null()) eff.env_pad = opt.at("env_pad").get<std::size_t>();
  eff.timeout_s = opt.at("timeout").get<double>();
  eff.ignore_failure = opt.at("ignore_failure").get<bool>();
  eff.show_output = opt.at("show_output").get<bool>();
  eff.run_as = run_as_user(opt.value("run_as", nlohmann::json()));
  eff.keep_output_head = opt.value("keep_output_head", false);
  eff.target = m.at("target").at("argv").get<std::vector<std::string>>();
  eff.backend = opt.value("backend", "native");
  if (opt.contains("observer")) {
    const nlohmann::json& ob = opt.at("observer");
    eff.probes = ob.value("probes", "");
    eff.breakpoints = ob.value("breakpoints", "");
    eff.sample_freq = ob.value("sample_freq", "");
    eff.sample_event = ob.value("sample_event", "");
    eff.observer_cmd = ob.value("observer_cmd", "");
    eff.levels = ob.value("levels", "");
    eff.build = ob.value("build", "");
    eff.probe_sites = ob.value("probe_sites", 8);
  }

  Sweep s;
  s.plan = plan_from_journal(r.data);
  s.runs = r.data.runs;
  s.journal_path = r.writer.path();
  s.host = m.value("host", nlohmann::json::object());
  s.spec.base = launch_spec_from(eff);
  const std::string recorded = m.at("target").at("sha256").get<std::string>();
  if (sha256_file(s.spec.base.path) != recorded)
    throw Error(ErrorKind::usage, s.spec.base.path + " has changed since the journal was started (sha256 differs)",
                "a resumed check must run the same binary; start a new check instead");
  if (const std::string why = env_difference(m.at("env"), env_summary(s.spec.base.env.vars())); !why.empty())
    throw Error(ErrorKind::usage, "this environment differs from the journal's: " + why + "; the target's layout would move",
                "resume with the environment the check was started with, or start a new check (without --resume)");
  const std::string counter_list = fmt::format("{}", fmt::join(s.plan.spec.counters, ","));
  const bool sim = sim_backend(eff);
  const Counters counters = sim ? resolve_sim_counters(counter_list, s.spec.sim_events) : resolve_counters(counter_list, false);
  if (sim) {
    find_valgrind();
    s.spec.sim = sim_geometry_from_json(opt.at("sim_geometry"));
  }
  s.spec.events = counters.events;
  s.spec.item_events = counters.item_events;
  s.spec.mode = counting_mode_from_string(eff.mode);
  s.spec.ignore_failure = eff.ignore_failure;
  s.spec.keep_output_head = eff.keep_output_head;
  s.spec.fail_on_leftovers = opt.value("leftovers", "kill") == "fail";
  if (s.spec.mode == CountingMode::inprocess && !sim) s.spec.probe_library = probe_library_path();
  std::vector<std::string> observer_notes;
  const std::vector<Level> levels = observer_levels(eff, s.plan.spec.counters, s.spec.base, s.spec.observer, observer_notes);
  if (levels != s.plan.spec.levels)
    throw Error(ErrorKind::usage, "the observer's doses differ from the journal's (a rebuilt variant, a changed symbol?)",
                "start a new check");
  if (r.data.torn_tail)
    s.warnings.push_back("the journal's last line was incomplete (cut off mid-write) and was removed; that run is run again");
  return finish_sweep(eff, s, r.writer);
}

}  // namespace obscheck
