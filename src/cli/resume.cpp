#include "cli/resume.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "cli/check_setup.h"
#include "cli/commands.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "record/journal_reader.h"
#include "run/backend.h"
#include "run/session.h"
#include "util/digest.h"
#include "util/error.h"
#include "util/fd.h"

namespace obscheck {
namespace {

// A manifest holds the host, the options, the environment's names and the plan: far
// below this; a longer first line is no manifest and is left to load_journal.
constexpr std::size_t kMaxManifestBytes = 16 * 1024 * 1024;

// Options that only say where and how the report is written.
// Options that shape only this invocation, not the runs: the report's form, and
// --time-budget (how long this invocation may run before it stops at a look).
const char* const kOutputOptions[] = {"json", "csv", "output", "html", "svg", "resume", "markdown", "time-budget", "decide-all",
                                      "max-runs"};

std::string shown(const nlohmann::json& v, const char* sep = ",") {
  if (v.is_string()) return v.get<std::string>().empty() ? "(none)" : v.get<std::string>();
  if (v.is_null()) return "(none)";
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v) parts.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    return fmt::format("{}", fmt::join(parts, sep));
  }
  return v.dump();
}

bool same_number(const nlohmann::json& recorded, double given) {
  return recorded.is_number() && recorded.get<double>() == given;
}

}  // namespace

nlohmann::json read_manifest_line(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return nullptr;
  std::string line;
  char buf[65536];
  while (line.size() < kMaxManifestBytes) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, static_cast<std::size_t>(n));
    if (line.find('\n') != std::string::npos) break;
  }
  const auto nl = line.find('\n');
  if (nl == std::string::npos) return nullptr;
  line.resize(nl);
  nlohmann::json m = nlohmann::json::parse(line, nullptr, false);
  if (!m.is_object() || !m.contains("options") || !m["options"].is_object()) return nullptr;
  return m;
}

void refuse_changed_binary(const nlohmann::json& manifest, const std::string& path, const std::string& what) {
  if (sha256_file(path) != manifest.at("target").at("sha256").get<std::string>())
    throw Error(ErrorKind::usage, path + " has changed since the journal was started (sha256 differs)",
                "a resumed " + what + " must run the same binary; start a new " + what + " instead");
}

void refuse_changed_environment(const nlohmann::json& manifest, const EnvBlock& env, const std::string& what) {
  if (const std::string why = env_difference(manifest.at("env"), env_summary(env.vars())); !why.empty())
    throw Error(ErrorKind::usage, "this environment differs from the journal's: " + why + "; the target's layout would move",
                "resume with the environment the " + what + " was started with, or start a new " + what +
                    " (without --resume)");
}

bool journal_complete(const std::vector<nlohmann::json>& notes) { return ends_finished(notes); }

namespace {

// How option `name`, given again with --resume, differs from what the journal
// recorded: "--runs 3 (the journal's: 20)"; "" when it says the same.
std::string changed_option(const std::string& name, const Options& o, const nlohmann::json& m) {
  const nlohmann::json& opt = m.at("options");
  const nlohmann::json observer = opt.value("observer", nlohmann::json::object());
  const auto rec = [&](const char* key) { return opt.contains(key) ? opt.at(key) : nlohmann::json(nullptr); };
  const auto obs = [&](const char* key) { return observer.contains(key) ? observer.at(key) : nlohmann::json(nullptr); };
  const auto differs = [&](const std::string& given, const nlohmann::json& recorded) {
    return fmt::format("--{} {} (the journal's: {})", name, given.empty() ? "(none)" : given, shown(recorded));
  };
  const auto number = [&](const nlohmann::json& recorded, double given, const std::string& text) {
    return same_number(recorded, given) ? std::string() : differs(text, recorded);
  };
  std::string key = name;
  std::replace(key.begin(), key.end(), '-', '_');
  if (name == "counters" || name == "events") {
    std::string given;
    for (char c : o.counters)
      if (c != ' ') given += c;
    return given != shown(rec("counters")) ? differs(o.counters, rec("counters")) : "";
  }
  if (name == "mode") return rec("mode") != o.mode ? differs(o.mode, rec("mode")) : "";
  if (name == "backend" || name == "leftovers") {
    const std::string recorded = opt.value(name, name == "backend" ? "native" : "kill");
    const std::string& given = name == "backend" ? o.backend : o.leftovers;
    return recorded != given ? differs(given, recorded) : "";
  }
  if (name == "margin") return number(rec("margin"), o.margin, fmt::format("{}", o.margin));
  if (name == "runs") return number(rec("runs"), o.runs, std::to_string(o.runs));
  if (name == "max-runs") return number(rec("max_runs"), o.max_runs, std::to_string(o.max_runs));
  if (name == "warmup") return number(rec("warmup"), o.warmup, std::to_string(o.warmup));
  if (name == "cpu") return number(rec("cpu"), o.cpu, std::to_string(o.cpu));
  if (name == "timeout") return number(rec("timeout"), o.timeout_s, fmt::format("{}", o.timeout_s));
  if (name == "env-pad")
    return !o.env_pad || !same_number(rec("env_pad"), static_cast<double>(*o.env_pad))
               ? differs(o.env_pad ? std::to_string(*o.env_pad) : "", rec("env_pad"))
               : "";
  if (name == "seed")
    return !m.contains("seed") || m.at("seed") != o.seed ? differs(std::to_string(o.seed), m.value("seed", nlohmann::json()))
                                                         : "";
  if (name == "aslr" || name == "ignore-failure" || name == "show-output") {
    const bool given = name == "aslr" ? o.aslr : name == "ignore-failure" ? o.ignore_failure : o.show_output;
    return rec(key.c_str()) != given ? differs(given ? "on" : "off", rec(key.c_str())) : "";
  }
  if (name == "probes" || name == "breakpoints" || name == "sample-freq" || name == "sample-event" ||
      name == "observer-cmd" || name == "levels" || name == "build") {
    const std::string given = name == "probes"         ? o.probes
                              : name == "breakpoints"  ? o.breakpoints
                              : name == "sample-freq"  ? o.sample_freq
                              : name == "sample-event" ? o.sample_event
                              : name == "observer-cmd" ? o.observer_cmd
                              : name == "levels"       ? o.levels
                                                       : o.build;
    return obs(key.c_str()) != given ? differs(given, obs(key.c_str())) : "";
  }
  if (name == "probe-sites") return number(obs("probe_sites"), o.probe_sites, std::to_string(o.probe_sites));
  // Not recorded in the journal (--journal, --allow-missing, --sim-cache, ...):
  // it cannot be checked against it, so it cannot be taken.
  return fmt::format("--{} (a resumed check takes it from the journal)", name);
}

}  // namespace

void refuse_changed_options(const Options& o, const nlohmann::json& m) {
  std::vector<std::string> changed;
  for (const std::string& name : o.given) {
    if (std::find(std::begin(kOutputOptions), std::end(kOutputOptions), name) != std::end(kOutputOptions)) continue;
    if (std::string why = changed_option(name, o, m); !why.empty()) changed.push_back(std::move(why));
  }
  if (!o.target.empty()) {
    const nlohmann::json argv = m.contains("target") ? m.at("target").value("argv", nlohmann::json::array())
                                                     : nlohmann::json::array();
    if (argv != nlohmann::json(o.target))
      changed.push_back(fmt::format("the program '{}' (the journal's: '{}')", fmt::join(o.target, " "), shown(argv, " ")));
  }
  if (!changed.empty())
    throw Error(ErrorKind::usage,
                fmt::format("--resume continues the check as the journal recorded it; this command line differs: {}",
                            fmt::join(changed, "; ")),
                "leave those out (only --json, --csv, -o, --html, --svg, --time-budget, --max-runs and --decide-all may be given with "
                "--resume), or start a "
                "new check with a new --journal");
}

}  // namespace obscheck

namespace obscheck {

int report_complete_journal(const Options& o, const JournalData& d) {
  fmt::print(stderr, "obscheck: journal {} is complete ({} runs): nothing to run, nothing written; its report follows\n",
             d.path, d.runs.size());
  Options report = o;
  report.report_file = d.path;
  return cmd_report(report);
}

}  // namespace obscheck

namespace obscheck {

namespace {

// The last end note's "sweep" object, or null.
nlohmann::json last_sweep(const std::vector<nlohmann::json>& notes) {
  for (auto it = notes.rbegin(); it != notes.rend(); ++it)
    if (it->is_object() && it->contains("sweep") && it->at("sweep").is_object()) return it->at("sweep");
  return nullptr;
}

// Why the journal's last invocation stopped (nullopt when its end note does not say).
std::optional<StopReason> last_stop(const std::vector<nlohmann::json>& notes) {
  const nlohmann::json sw = last_sweep(notes);
  if (!sw.is_object() || !sw.contains("stopped") || !sw.at("stopped").is_string()) return std::nullopt;
  return stop_reason_from(sw.at("stopped").get_ref<const std::string&>());
}

// The budget a resume keeps: the one given, else the one the journal's last stretch
// kept (--time-budget auto's choice too), else the one the check was started with.
double resumed_budget(const Options& o, const std::vector<nlohmann::json>& notes, double recorded) {
  if (std::find(o.given.begin(), o.given.end(), "time-budget") != o.given.end() && !o.time_budget_auto)
    return o.time_budget;
  const nlohmann::json sw = last_sweep(notes);
  if (sw.is_object() && sw.contains("time_budget") && sw.at("time_budget").is_number() &&
      sw.at("time_budget").get<double>() >= 0)
    return sw.at("time_budget").get<double>();
  return recorded;
}

// The cap (measured blocks) a resume runs to: the --max-runs given with it, which may
// only raise the journal's; else, for a check stopped at its cap, as many blocks again;
// else the journal's. Throws Error(usage) for a --max-runs below the journal's cap.
std::size_t resumed_cap(const Options& o, const Plan& plan, std::optional<StopReason> stopped) {
  const std::size_t cap = plan.spec.max_blocks;
  if (std::find(o.given.begin(), o.given.end(), "max-runs") != o.given.end()) {
    const auto asked = static_cast<std::size_t>(o.max_runs);
    if (plan.spec.fixed_blocks)
      throw Error(ErrorKind::usage, fmt::format("--max-runs with --resume: the journal's check runs a fixed {} blocks (--runs)",
                                                *plan.spec.fixed_blocks),
                  "leave --max-runs out");
    if (asked < cap)
      throw Error(ErrorKind::usage, fmt::format("--max-runs {} is below the journal's cap of {} blocks: a resume can only raise it", asked, cap),
                  fmt::format("give --max-runs above {}, or leave it out", cap));
    return asked;
  }
  if (stopped == StopReason::cap && !plan.spec.fixed_blocks) return cap + cap;
  return cap;
}

}  // namespace

int cmd_resume(const Options& o) {
  if (const nlohmann::json m = read_manifest_line(o.resume); !m.is_null()) refuse_changed_options(o, m);
  ResumedJournal r = JournalWriter::open_for_resume(o.resume);
  // A check stopped by its budget goes on with more blocks, as does one stopped at its
  // cap (--max-runs), which the resume raises; one that decided or ran its fixed blocks
  // is complete.
  const std::optional<StopReason> stopped = last_stop(r.data.notes);
  const Plan recorded = plan_from_journal(r.data);
  const std::size_t cap = resumed_cap(o, recorded, stopped);
  const bool raised = cap > recorded.spec.max_blocks;
  const bool continued = journal_complete(r.data.notes) &&
                         ((stopped && continuable_stop(*stopped)) || (stopped == StopReason::cap && raised));
  if (journal_complete(r.data.notes) && !continued) return report_complete_journal(o, r.data);
  const nlohmann::json& m = r.data.manifest;
  // The continuation runs exactly as the journal's sweep did: its request comes from
  // the journal; this command line gives only the output and this invocation's budget.
  CheckRequest request = request_from_manifest(m);
  request.time_budget = resumed_budget(o, r.data.notes, request.time_budget);
  choose_backend(request)->require_here();
  PreparedCheck p = prepare_check(request);
  Session s;
  s.plan = recorded;
  s.spec = p.spec;
  s.runs = r.data.runs;
  s.journal_path = r.writer.path();
  s.journal_notes = r.data.notes;
  refuse_changed_binary(m, s.spec.base.path, "check");
  refuse_changed_environment(m, s.spec.base.env, "check");
  if (p.plan.levels != s.plan.spec.levels)
    throw Error(ErrorKind::usage, "the observer's doses differ from the journal's (a rebuilt variant, a changed symbol?)",
                "start a new check");
  if (raised) {
    // Recorded before any run past the old cap, so every reader knows those runs.
    const nlohmann::json note = extend_note(cap);
    r.writer.append_note(note);
    apply_extend_note(s.plan, note);
    s.journal_notes.push_back(note);
  }
  if (continued)
    fmt::print(stderr, "obscheck: continuing {} after {} measured blocks ({}), up to {} blocks, with a time budget of {:g} s\n",
               s.journal_path, measured_blocks_run(s.runs),
               stopped == StopReason::cap ? fmt::format("stopped at its cap of {} blocks", recorded.spec.max_blocks)
                                : std::string("stopped by its time budget"),
               cap, request.time_budget);
  // Dropped counters and notes were reported when the check began.
  p.warnings.clear();
  if (r.data.torn_tail)
    p.warnings.push_back("the journal's last line was incomplete (cut off mid-write) and was removed; that run is run again");
  return run_check(o, p, s, r.writer, m.value("host", nlohmann::json::object()));
}

}  // namespace obscheck
