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
// recorded (`rec`, its request as the resume runs it: request_from_manifest):
// "--runs 3 (the journal's: 20)"; "" when it says the same.
std::string changed_option(const std::string& name, const CheckRequest& r, const CheckRequest& rec) {
  const auto same = [&](const std::string& given, const std::string& recorded) {
    return given == recorded ? std::string()
                             : fmt::format("--{} {} (the journal's: {})", name, given.empty() ? "(none)" : given,
                                           recorded.empty() ? "(none)" : recorded);
  };
  const auto text = [](const auto& v) { return fmt::format("{}", v); };
  const auto on = [](bool b) { return std::string(b ? "on" : "off"); };
  if (name == "counters" || name == "events") return same(r.counters.text(), rec.counters.text());
  if (name == "mode") return same(std::string(to_string(r.mode)), std::string(to_string(rec.mode)));
  if (name == "backend") return same(std::string(to_string(r.backend)), std::string(to_string(rec.backend)));
  if (name == "leftovers") return same(std::string(to_string(r.leftovers)), std::string(to_string(rec.leftovers)));
  if (name == "margin") return same(text(r.margin), text(rec.margin));
  if (name == "runs") return same(text(r.runs), text(rec.runs));
  if (name == "max-runs") return same(text(r.max_runs), text(rec.max_runs));
  if (name == "warmup") return same(text(r.warmup), text(rec.warmup));
  if (name == "cpu") return same(text(r.launch.cpu), text(rec.launch.cpu));
  if (name == "timeout") return same(text(r.launch.timeout_s), text(rec.launch.timeout_s));
  if (name == "env-pad") {
    const auto pad = [&](const std::optional<std::size_t>& p) { return p ? text(*p) : std::string(); };
    return same(pad(r.launch.env_pad), pad(rec.launch.env_pad));
  }
  if (name == "seed") return same(text(r.seed), text(rec.seed));
  if (name == "allow-multiplex") return same(on(r.allow_multiplex), on(rec.allow_multiplex));
  if (name == "aslr") return same(on(r.launch.aslr), on(rec.launch.aslr));
  if (name == "ignore-failure") return same(on(r.ignore_failure), on(rec.ignore_failure));
  if (name == "show-output") return same(on(r.launch.show_output), on(rec.launch.show_output));
  if (const std::optional<std::string> given = observer_option(name, r.observer))
    return same(*given, observer_option(name, rec.observer).value_or(""));
  if (name == "probe-sites") return same(text(r.observer.probe_sites), text(rec.observer.probe_sites));
  // Not recorded in the journal (--journal, --allow-missing, --sim-cache, ...):
  // it cannot be checked against it, so it cannot be taken.
  return fmt::format("--{} (a resumed check takes it from the journal)", name);
}

}  // namespace

void refuse_changed_options(const std::vector<std::string>& given, const CheckRequest& r, const nlohmann::json& m) {
  const CheckRequest rec = request_from_manifest(m);  // typed by record/, a wrong type the journal's fault
  std::vector<std::string> changed;
  for (const std::string& name : given) {
    if (is_output_option(name) ||
        std::find(std::begin(kInvocationOptions), std::end(kInvocationOptions), name) != std::end(kInvocationOptions))
      continue;
    if (std::string why = changed_option(name, r, rec); !why.empty()) changed.push_back(std::move(why));
  }
  if (!r.launch.argv.empty() && r.launch.argv != rec.launch.argv)
    changed.push_back(fmt::format("the program '{}' (the journal's: '{}')", fmt::join(r.launch.argv, " "),
                                  fmt::join(rec.launch.argv, " ")));
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
