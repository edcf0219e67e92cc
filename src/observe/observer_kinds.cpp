#include "observe/observer_kinds.h"

#include <array>
#include <cstdlib>

#include "observe/probes.h"
#include "observe/sampling.h"
#include "observe/variants.h"
#include "observe/wrap.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Where --build writes its variants, relative to the working directory.
constexpr const char* kVariantsDir = ".obscheck-variants";

std::string default_sample_event() {
  return probe_event_set(parse_events("cycles")).front().available ? "cycles" : "cpu-clock";
}

// The doses of each observer are resolved on this host here (probes opened, sampling
// rates allowed, profilers found, variants built), before a journal is written; their
// levels are plan/'s (plan/levels.h).

// Every dose is compared with no counter at all (level 0) on the driver's metrics (wall
// time, rusage): they answer "does counting these events change my program?" for a
// list of any length, one counter included. A counter is still compared with itself
// counted alone: level 0 cannot count it. In process, level 0 is the library loaded
// with an empty list: the program as every other level runs it, less the counting. Not
// when the driver's metrics time a simulator instead of the program.
Doses counter_doses(const DoseInputs& in) {
  Doses d;
  d.spec.kind = ObserverKind::counters;
  d.levels = counter_levels(in.counters, in.times_the_program);
  return d;
}

Doses probe_doses(const DoseInputs& in) {
  const ObserverRequest& req = in.request;
  const bool uprobes = req.kind == ObserverKind::probes;
  const std::vector<std::string> syms =
      req.auto_symbols > 0 ? auto_probe_symbols(in.base.path, req.auto_symbols) : req.symbols;
  Doses d;
  d.spec.kind = req.kind;
  d.spec.probes = probe_events(in.base.path, syms, uprobes ? ProbeKind::uprobe : ProbeKind::breakpoint);
  require_openable_together(d.spec.probes);
  d.levels = probe_levels(syms, in.counters.size());
  return d;
}

Doses sampling_doses(const DoseInputs& in) {
  const ObserverRequest& req = in.request;
  Doses d;
  d.spec.kind = ObserverKind::sampling;
  d.spec.sample_event =
      parse_events(req.sample_event.empty() ? default_sample_event() : req.sample_event).events.at(0);
  d.levels = sampling_levels(sample_frequencies(req.frequencies, d.spec.sample_event), in.counters.size());
  return d;
}

Doses command_doses(const DoseInputs& in) {
  const ObserverRequest& req = in.request;
  require_target_marker(req.command);
  Doses d;
  d.spec.kind = ObserverKind::command;
  d.spec.command = req.command;
  d.spec.exec_shim = in.exec_shim;
  d.notes.push_back("under the profiler command the counters and wall time describe the target alone, from its exec "
                    "to its exit, and its own output is compared; the rusage metrics hold the target's and the "
                    "profiler's usage together (marked 'target + profiler'): they are the profiler's cost, reported "
                    "per dose without a verdict; the profiler's own time is under 'observer:'");
  for (const std::string& w : req.levels) {
    if (w == kUnwrappedLevel) continue;  // level 0: the target not wrapped
    wrap_launch(in.base, req.command, w);  // a profiler not on PATH: exit 3 before the journal
    for (const auto& a : describe_wrapper_changes(wrap_command(req.command, w, in.base.argv), in.base.argv).aspects)
      if (!a.held) d.notes.push_back("level " + w + ": " + a.note);
  }
  d.levels = command_levels(req.levels, in.counters.size());
  return d;
}

Doses build_doses(const DoseInputs& in) {
  Doses d;
  d.spec.kind = ObserverKind::build;
  std::vector<VariantDose> doses;
  for (const BuildVariant& v : build_variants(in.request.build, in.request.probe_sites, kVariantsDir)) {
    d.spec.variants.push_back(v.path);
    doses.push_back({v.dose, v.mask, v.digest});
  }
  d.levels = build_levels(doses, in.counters.size());
  return d;
}

// With --build the program is the variant: "{out}" (or nothing) stands for it.
std::string first_variant(const ObserverRequest& req) {
  return build_variants(req.build, req.probe_sites, kVariantsDir).front().path;
}

// Each kind's option value as the request holds it (ObserverKindInfo::given).
std::string uprobe_symbols(const ObserverRequest& r) {
  return r.kind == ObserverKind::probes ? symbols_text(r) : "";
}
std::string breakpoint_symbols(const ObserverRequest& r) {
  return r.kind == ObserverKind::breakpoints ? symbols_text(r) : "";
}
std::string frequencies(const ObserverRequest& r) { return frequencies_text(r.frequencies); }
std::string profiler_command(const ObserverRequest& r) { return r.command; }
std::string build_template(const ObserverRequest& r) { return r.build; }

constexpr std::string_view kSimProbeWhy = "valgrind executes a translation of the program, so a probe on its code "
                                          "never fires";

// One row per kind, in the enum's order (observer_info indexes it).
const std::array<ObserverKindInfo, 6> kKinds = {{
    {ObserverKind::counters, "", "", nullptr, DefaultCounters::dosed, true, true, "", "", Attach::counters_only,
     counter_doses, nullptr},
    {ObserverKind::probes, "--probes", "probes", uprobe_symbols, DefaultCounters::metrics, false, false, "uprobes do", kSimProbeWhy,
     Attach::counts_beside, probe_doses, nullptr},
    {ObserverKind::breakpoints, "--breakpoints", "breakpoints", breakpoint_symbols, DefaultCounters::metrics, false, false,
     "breakpoints do", kSimProbeWhy, Attach::counts_beside, probe_doses, nullptr},
    {ObserverKind::sampling, "--sample-freq", "sample_freq", frequencies, DefaultCounters::metrics, false, false, "sampling does",
     "sampling needs a PMU or a timer interrupting the real process, and would sample valgrind",
     Attach::watches_child, sampling_doses, nullptr},
    {ObserverKind::command, "--observer-cmd", "observer_cmd", profiler_command, DefaultCounters::target_metrics, false, false,
     "a profiler command does", "it would profile valgrind, not the simulated program", Attach::wraps_launch,
     command_doses, nullptr},
    {ObserverKind::build, "--build", "build", build_template, DefaultCounters::metrics, false, false, "", "", Attach::runs_a_variant,
     build_doses, first_variant},
}};

}  // namespace

std::span<const ObserverKindInfo> observer_kinds() { return kKinds; }

const ObserverKindInfo& observer_info(ObserverKind kind) {
  for (const ObserverKindInfo& k : kKinds)
    if (k.kind == kind) return k;
  throw Error(ErrorKind::internal, "observer kind without a row in observe/observer_kinds.cpp");
}

const std::vector<std::uint64_t>& sample_frequencies(const std::vector<std::uint64_t>& hz, const EventDesc& event) {
  for (const std::uint64_t f : hz)
    if (f > 0) require_sample_rate_allowed(event, f);  // exit 4 now, not after the journal
  return hz;
}

}  // namespace obscheck
