#include "cli/resume.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "job/check_resume.h"
#include "job/journal_job.h"
#include "record/journal.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Options that shape only how the report is written (is_output_option).
const char* const kOutputOptions[] = {"json",        "csv",        "output", "html", "svg",   "markdown",
                                      "export-json", "export-csv", "color",  "resume"};
// Options that shape only this invocation of a check, not its runs: how long it may
// run before it stops at a look, what it waits for, and a raised cap.
const char* const kInvocationOptions[] = {"time-budget", "decide-all", "max-runs"};

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
  if (name == "mode")
    return rec("mode") != nlohmann::json(to_string(o.mode)) ? differs(std::string(to_string(o.mode)), rec("mode")) : "";
  if (name == "backend" || name == "leftovers") {
    const std::string recorded = opt.value(name, name == "backend" ? "native" : "kill");
    const std::string given = name == "backend" ? std::string(to_string(o.backend)) : o.leftovers;
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
  if (name == "allow-multiplex") return rec("allow_multiplex") != o.allow_multiplex ? differs("on", rec("allow_multiplex")) : "";
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
    if (is_output_option(name) ||
        std::find(std::begin(kInvocationOptions), std::end(kInvocationOptions), name) != std::end(kInvocationOptions))
      continue;
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
                fmt::format("leave those out (only {}, --time-budget, --max-runs and --decide-all may be given with "
                            "--resume), or start a new check with a new --journal",
                            kOutputOptionsText));
}

}  // namespace obscheck

namespace obscheck {

bool is_output_option(const std::string& name) {
  return std::find(std::begin(kOutputOptions), std::end(kOutputOptions), name) != std::end(kOutputOptions);
}

int report_complete_journal(const Options& o, const JournalData& d) {
  fmt::print(stderr, "obscheck: journal {} is complete ({} runs): nothing to run, nothing written; its report follows\n",
             d.path, d.runs.size());
  Options report = o;
  report.report_file = d.path;
  return cmd_report(report);
}

}  // namespace obscheck

namespace obscheck {

int cmd_resume(const Options& o) {
  if (const nlohmann::json m = manifest_to_resume(o.resume, JobKind::check); !m.is_null()) refuse_changed_options(o, m);
  CheckResumeAsk ask;
  const auto given = [&o](const char* name) { return std::find(o.given.begin(), o.given.end(), name) != o.given.end(); };
  if (given("time-budget") && !o.time_budget_auto) ask.time_budget = o.time_budget;
  if (given("max-runs")) ask.max_runs = o.max_runs;
  ResumedCheck c = resume_check(o.resume, ask);
  if (c.complete) return report_complete_journal(o, c.journal.data);
  if (!c.notice.empty()) fmt::print(stderr, "obscheck: {}\n", c.notice);
  return run_check(o, c.prepared, c.session, c.journal.writer, c.host);
}

}  // namespace obscheck
