#include "cli/cli.h"

#include <fmt/core.h>

#include <exception>

#include "cli/commands.h"
#include "cli/options.h"
#include "events/event.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The files the command line names for writing (util/output_paths.h checks them).
std::vector<NamedPath> outputs_of(const Options& o) {
  std::vector<NamedPath> out;
  if (!o.output.empty()) out.push_back({"-o", o.output});
  if (!o.html.empty()) out.push_back({"--html", o.html});
  if (!o.export_json.empty()) out.push_back({"--export-json", o.export_json});
  if (!o.export_csv.empty()) out.push_back({"--export-csv", o.export_csv});
  return out;
}

// The files it names for reading or appending.
std::vector<NamedPath> inputs_of(const Options& o) {
  std::vector<NamedPath> in;
  if (!o.journal.empty()) in.push_back({"--journal", o.journal});
  if (!o.resume.empty()) in.push_back({"--resume", o.resume});
  if (!o.plan_file.empty()) in.push_back({"--plan", o.plan_file});
  for (const std::string& f : o.report_files) in.push_back({"the journal", f});
  return in;
}

int dispatch(const Parsed& parsed) {
  const Options& o = parsed.options;
  const bool resumes = o.command == Command::check || o.command == Command::measure ||
                       o.command == Command::bias || o.command == Command::compare;
  if (resumes && !o.resume.empty()) return cmd_resume(o);
  switch (o.command) {
    case Command::version:
      fmt::print("obscheck {}\n", OBSCHECK_VERSION);
      return 0;
    case Command::help:
      fmt::print("{}", parsed.help_text);
      return 0;
    case Command::measure: return cmd_measure(o);
    case Command::events: return cmd_events(o);
    case Command::doctor: return cmd_doctor(o);
    case Command::check: return cmd_check(o);
    case Command::report: return cmd_report(o);
    case Command::demo: return cmd_demo(o);
    case Command::bias: return cmd_bias(o);
    case Command::compare: return cmd_compare(o);
    case Command::completion:
      return fmt::print("{}", completion_script(o.shell, option_table())), 0;
    case Command::plan: return cmd_plan(o);
    case Command::run: return cmd_run(o);
    case Command::slurm: return cmd_slurm(o);
    case Command::fidelity: return cmd_fidelity(o);
    case Command::journals: return cmd_journals(o);
  }
  throw Error(ErrorKind::usage, "this command is not part of this build");
}

}  // namespace

// The one place that prints an error and chooses the exit code (docs/design.md: cli/).
int cli_main(int argc, char** argv) {
  try {
    const Parsed parsed = parse_command_line(argc, argv);
    warn_if_target_runs_as_root(parsed.options);
    // An output naming an input, or one that cannot be written: refused before anything runs.
    const Options& o = parsed.options;
    check_files_before_running(o.request.observer, o.resume, outputs_of(o), inputs_of(o));
    return dispatch(parsed);
  } catch (const EventSyntaxError& e) {
    // The list as written, with a caret under the column at fault.
    fmt::print(stderr, "obscheck: error: {}\n", format_event_error(e));
    if (!e.hint().empty()) fmt::print(stderr, "obscheck: hint: {}\n", e.hint());
    return static_cast<int>(exit_code_for(e.kind()));
  } catch (const Error& e) {
    // Words of others (a path, a symbol) are shown, their control bytes made visible.
    fmt::print(stderr, "obscheck: error: {}\n", terminal_safe(e.what(), false));
    if (!e.hint().empty())
      fmt::print(stderr, "obscheck: hint: {}\n", terminal_safe(e.hint(), false));
    return static_cast<int>(exit_code_for(e.kind()));
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "obscheck: error: out of memory\n");
    return static_cast<int>(ExitCode::host);
  } catch (const std::exception& e) {
    fmt::print(stderr, "obscheck: internal error: {}\n", e.what());
    return static_cast<int>(ExitCode::host);
  }
}

}  // namespace obscheck
