#include "job/journal/resume_options.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "observe/observer_kinds.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Options that shape only how the report is written (is_output_option).
const char* const kOutputOptions[] = {"json",        "csv",        "output", "html",    "svg",   "markdown",
                                      "export-json", "export-csv", "color",  "verbose", "resume"};
// Options that shape only this invocation of a check, not its runs: how long it may
// run before it stops at a look, what it waits for, and a raised cap.
const char* const kInvocationOptions[] = {"time-budget", "decide-all", "max-runs"};

std::string shown_value(const nlohmann::json& v, const char* sep = ",") {
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

// The value of an observer's option `name` as the request holds it; none for any
// other option.
std::optional<std::string> observer_option(const std::string& name, const ObserverRequest& o) {
  for (const ObserverKindInfo& k : observer_kinds())  // the option that chooses a kind
    if (k.given && k.option == "--" + name) return k.given(o);
  if (name == "sample-event") return o.sample_event;
  if (name == "levels") return levels_text(o.levels);
  return std::nullopt;
}

// How option `name`, given again with --resume, differs from what the journal
// recorded: "--runs 3 (the journal's: 20)"; "" when it says the same.
std::string changed_option(const std::string& name, const CheckRequest& r, const nlohmann::json& m) {
  const nlohmann::json& opt = m.at("options");
  const nlohmann::json observer = opt.value("observer", nlohmann::json::object());
  const auto rec = [&](const char* key) { return opt.contains(key) ? opt.at(key) : nlohmann::json(nullptr); };
  const auto obs = [&](const char* key) { return observer.contains(key) ? observer.at(key) : nlohmann::json(nullptr); };
  const auto differs = [&](const std::string& given, const nlohmann::json& recorded) {
    return fmt::format("--{} {} (the journal's: {})", name, given.empty() ? "(none)" : given, shown_value(recorded));
  };
  const auto number = [&](const nlohmann::json& recorded, double given, const std::string& text) {
    return same_number(recorded, given) ? std::string() : differs(text, recorded);
  };
  std::string key = name;
  std::replace(key.begin(), key.end(), '-', '_');
  if (name == "counters" || name == "events") {
    const std::string given = r.counters.text();
    return given != shown_value(rec("counters")) ? differs(given, rec("counters")) : "";
  }
  if (name == "mode")
    return rec("mode") != nlohmann::json(to_string(r.mode)) ? differs(std::string(to_string(r.mode)), rec("mode")) : "";
  if (name == "backend" || name == "leftovers") {
    const std::string recorded = opt.value(name, name == "backend" ? "native" : "kill");
    const std::string given(name == "backend" ? to_string(r.backend) : to_string(r.leftovers));
    return recorded != given ? differs(given, recorded) : "";
  }
  if (name == "margin") return number(rec("margin"), r.margin, fmt::format("{}", r.margin));
  if (name == "runs") return number(rec("runs"), r.runs, std::to_string(r.runs));
  if (name == "max-runs") return number(rec("max_runs"), r.max_runs, std::to_string(r.max_runs));
  if (name == "warmup") return number(rec("warmup"), r.warmup, std::to_string(r.warmup));
  if (name == "cpu") return number(rec("cpu"), r.launch.cpu, std::to_string(r.launch.cpu));
  if (name == "timeout") return number(rec("timeout"), r.launch.timeout_s, fmt::format("{}", r.launch.timeout_s));
  if (name == "env-pad") {
    const std::optional<std::size_t>& pad = r.launch.env_pad;
    return !pad || !same_number(rec("env_pad"), static_cast<double>(*pad))
               ? differs(pad ? std::to_string(*pad) : "", rec("env_pad"))
               : "";
  }
  if (name == "seed")
    return !m.contains("seed") || m.at("seed") != r.seed ? differs(std::to_string(r.seed), m.value("seed", nlohmann::json()))
                                                         : "";
  if (name == "allow-multiplex") return rec("allow_multiplex") != r.allow_multiplex ? differs("on", rec("allow_multiplex")) : "";
  if (name == "aslr" || name == "ignore-failure" || name == "show-output") {
    const bool given = name == "aslr" ? r.launch.aslr : name == "ignore-failure" ? r.ignore_failure : r.launch.show_output;
    return rec(key.c_str()) != given ? differs(given ? "on" : "off", rec(key.c_str())) : "";
  }
  if (const std::optional<std::string> given = observer_option(name, r.observer))
    return obs(key.c_str()) != *given ? differs(*given, obs(key.c_str())) : "";
  if (name == "probe-sites")
    return number(obs("probe_sites"), r.observer.probe_sites, std::to_string(r.observer.probe_sites));
  // Not recorded in the journal (--journal, --allow-missing, --sim-cache, ...):
  // it cannot be checked against it, so it cannot be taken.
  return fmt::format("--{} (a resumed check takes it from the journal)", name);
}

}  // namespace

void refuse_changed_options(const std::vector<std::string>& given, const CheckRequest& r, const nlohmann::json& m) {
  std::vector<std::string> changed;
  for (const std::string& name : given) {
    if (is_output_option(name) ||
        std::find(std::begin(kInvocationOptions), std::end(kInvocationOptions), name) != std::end(kInvocationOptions))
      continue;
    if (std::string why = changed_option(name, r, m); !why.empty()) changed.push_back(std::move(why));
  }
  if (!r.launch.argv.empty()) {
    const nlohmann::json argv = m.contains("target") ? m.at("target").value("argv", nlohmann::json::array())
                                                     : nlohmann::json::array();
    if (argv != nlohmann::json(r.launch.argv))
      changed.push_back(
          fmt::format("the program '{}' (the journal's: '{}')", fmt::join(r.launch.argv, " "), shown_value(argv, " ")));
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

void refuse_sweep_options(const std::vector<std::string>& given, bool program_given, const std::string& command) {
  std::vector<std::string> refused;
  for (const std::string& name : given)
    if (!is_output_option(name)) refused.push_back("--" + name);
  if (program_given) refused.push_back("the program");
  if (refused.empty()) return;
  std::string list;
  for (const std::string& r : refused) list += (list.empty() ? "" : ", ") + r;
  throw Error(ErrorKind::usage,
              fmt::format("--resume continues the {} as the journal recorded it; this command line also gives {}", command,
                          list),
              fmt::format("leave those out (only {} may be given with --resume), or start a new sweep with a new --journal",
                          kOutputOptionsText));
}

}  // namespace obscheck
