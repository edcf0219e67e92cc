#include "cmdline/vocabulary.h"

namespace obscheck {

const std::map<std::string, Command>& command_names() {
  static const std::map<std::string, Command> names = {
      {"check", Command::check},       {"measure", Command::measure},
      {"events", Command::events},     {"doctor", Command::doctor},
      {"report", Command::report},     {"demo", Command::demo},
      {"bias", Command::bias},         {"compare", Command::compare},
      {"completion", Command::completion}, {"plan", Command::plan},
      {"run", Command::run},           {"slurm", Command::slurm},
      {"fidelity", Command::fidelity}, {"journals", Command::journals},
  };
  return names;
}

const char* command_name(Command c) {
  for (const auto& [name, cmd] : command_names())
    if (cmd == c) return name.c_str();
  return "check";
}

std::string twin_of(const std::string& name) {
  for (const auto& [alias, twin] : kBlockAliases)
    if (name == alias) return twin;
  return name;
}

// Each line: the command's synopsis, then what it answers (docs/obscheck.1's SYNOPSIS).
const char* const kUsage =
    "usage: obscheck [options] [--] PROG [ARGS...]       "
        "does measuring PROG change what is measured?\n"
    "       obscheck measure [options] [--] PROG [ARGS...] "
        "count PROG's events over repeated runs\n"
    "       obscheck events [--all] [--json]             "
        "which events this host can count, and why not\n"
    "       obscheck events --encode LIST [--json]       "
        "what each event of LIST programs (perf_event_attr)\n"
    "       obscheck doctor [--json]                      "
        "host noise sources and how to fix them\n"
    "       obscheck report FILE [--json|--csv]           "
        "re-analyse a saved journal\n"
    "       obscheck report FILE --certificate [--json]  "
        "a profiler command's check as a certificate (--html F)\n"
    "       obscheck demo                                 "
        "the check on a bundled workload, then the layout effect\n"
    "       obscheck bias [options] -- PROG [ARGS...]     "
        "how far PROG's metric swings across measurement contexts\n"
    "       obscheck compare [options] -- BASE [ARGS...] ::: CONTENDER [ARGS...]   "
        "compare two variants over sampled contexts\n"
    "       obscheck plan [options] [--] PROG [ARGS...]  "
        "write a check's plan for several hosts (-o FILE)\n"
    "       obscheck run --plan FILE --shard I/N          "
        "run shard I of N of a plan on this host\n"
    "       obscheck slurm [slurm options] -- [options] PROG [ARGS...]   "
        "the plan and sbatch scripts for a Slurm job array\n"
    "       obscheck report SHARD.jsonl...               "
        "merge the shards of a plan, the host as a factor\n"
    "       obscheck fidelity [options] -- PROG [ARGS...] "
        "is perf record's profile of PROG right at each rate?\n"
    "       obscheck journals [--clean]                   "
        "the checks' journals in your state directory (--clean: remove them)\n"
    "       obscheck completion bash|zsh                  "
        "the shell completion script\n"
    "       obscheck --version                            "
        "the version (also -V)\n";

const char* const kTargetNote =
    "\nEverything after PROG (or after --) is passed to PROG untouched. PROG is never run\n"
    "through a shell.\n";

const char* const kExitCodesNote =
    "\nExit codes: 0 ok, 1 findings (what --fail-on names), 2 usage, 3 target, 4 event,\n"
    "5 target failed, 6 io, 7 host, 8 busy, 129 hangup, 130 interrupted, 143 terminated\n"
    "(man obscheck, EXIT STATUS).\n";

}  // namespace obscheck
