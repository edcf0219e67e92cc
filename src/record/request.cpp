#include "record/request.h"

#include <fmt/core.h>

#include <string>

#include "launch/launcher.h"
#include "observe/observer_kinds.h"
#include "record/observer_lists.h"
#include "util/error.h"

namespace obscheck {
namespace {

nlohmann::json cache_json(const SimCache& c) { return {{"size", c.size}, {"assoc", c.assoc}, {"line", c.line}}; }

SimCache cache_from_json(const nlohmann::json& j) {
  return {j.at("size").get<std::size_t>(), j.at("assoc").get<std::size_t>(), j.at("line").get<std::size_t>()};
}

// The user the target ran as, with the ids it resolved to when the check started (a
// reader of the journal sees who ran it, even if the account changes later).
nlohmann::json run_as_json(const std::string& user) {
  if (user.empty()) return nullptr;
  const Credentials c = credentials_of(user);
  return {{"user", c.user}, {"uid", c.uid}, {"gid", c.gid}, {"groups", c.groups}};
}

nlohmann::json observer_json(const ObserverRequest& o) {
  // The keys are the command-line options' names: one string per kind of dose, under
  // its row's resume key (observe/observer_kinds.h), and the knobs beside them; each
  // list is written as the option spells it (plan/observer.h symbols_text, ...).
  nlohmann::json j = {
      {"sample_event", o.sample_event}, {"levels", levels_text(o.levels)}, {"probe_sites", o.probe_sites}};
  for (const ObserverKindInfo& k : observer_kinds())
    if (k.given) j[std::string(k.resume_key)] = k.given(o);
  return j;
}

ObserverRequest observer_from_json(const nlohmann::json& j) {
  ObserverRequest o = observer_lists_from_json(j);
  // The kind is the first whose resume key holds a value (observe/observer_kinds.h);
  // the counters when none does.
  for (const ObserverKindInfo& k : observer_kinds())
    if (!k.resume_key.empty() && !j.value(std::string(k.resume_key), std::string()).empty()) {
      o.kind = k.kind;
      break;
    }
  return o;
}

}  // namespace

std::string_view to_string(BackendKind b) { return b == BackendKind::sim ? "sim" : "native"; }

BackendKind backend_from_string(std::string_view text) {
  if (text == "native") return BackendKind::native;
  if (text == "sim") return BackendKind::sim;
  throw Error(ErrorKind::usage, "--backend must be native or sim, not '" + std::string(text) + "'",
              "sim runs the target under valgrind's cachegrind: a simulated PMU for hosts without one");
}

std::string_view to_string(Leftovers l) { return l == Leftovers::fail ? "fail" : "kill"; }

Leftovers leftovers_from_string(std::string_view text) {
  if (text == "kill") return Leftovers::kill;
  if (text == "fail") return Leftovers::fail;
  throw Error(ErrorKind::usage, "--leftovers must be kill or fail, not '" + std::string(text) + "'");
}

nlohmann::json request_to_json(const CheckRequest& r) {
  nlohmann::json j;
  j["backend"] = to_string(r.backend);
  j["sim_geometry"] = r.sim ? sim_geometry_json(*r.sim) : nlohmann::json(nullptr);
  j["counters"] = r.counters.items();
  j["dropped_counters"] = r.dropped;
  j["mode"] = to_string(r.mode);
  j["margin"] = r.margin;
  j["allow_multiplex"] = r.allow_multiplex;
  j["runs"] = r.runs;
  j["max_runs"] = r.max_runs;
  j["time_budget"] = r.time_budget;
  j["warmup"] = r.warmup;
  j["aslr"] = r.launch.aslr;
  j["cpu"] = r.launch.cpu;
  j["env_pad"] = r.launch.env_pad ? nlohmann::json(*r.launch.env_pad) : nlohmann::json(nullptr);
  j["timeout"] = r.launch.timeout_s;
  j["ignore_failure"] = r.ignore_failure;
  j["leftovers"] = to_string(r.leftovers);
  j["show_output"] = r.launch.show_output;
  j["run_as"] = run_as_json(r.launch.run_as);
  j["keep_output_head"] = r.launch.keep_output_head;
  j["observer"] = observer_json(r.observer);
  return j;
}

CheckRequest request_from_manifest(const nlohmann::json& m) {
  try {
    const nlohmann::json& opt = m.at("options");
    CheckRequest r;
    r.backend = backend_from_string(opt.value("backend", "native"));
    if (r.backend == BackendKind::sim) r.sim = sim_geometry_from_json(opt.at("sim_geometry"));
    r.counters = CounterList(opt.at("counters").get<std::vector<std::string>>());
    r.dropped = opt.value("dropped_counters", std::vector<std::string>{});
    r.mode = counting_mode_from_string(opt.value("mode", "external"));
    r.margin = opt.value("margin", 0.01);
    r.allow_multiplex = opt.value("allow_multiplex", false);
    r.runs = opt.value("runs", 0);
    r.max_runs = opt.value("max_runs", 0);
    r.time_budget = opt.value("time_budget", 60.0);
    r.warmup = opt.value("warmup", 1);
    r.warmup_given = true;  // what the check ran with, given or not
    r.ignore_failure = opt.value("ignore_failure", false);
    r.leftovers = leftovers_from_string(opt.value("leftovers", "kill"));
    r.observer = observer_from_json(opt.value("observer", nlohmann::json::object()));
    r.seed = m.at("seed").get<std::uint64_t>();
    r.seed_given = true;
    LaunchRequest& l = r.launch;
    l.argv = m.at("target").at("argv").get<std::vector<std::string>>();
    l.aslr = opt.value("aslr", false);
    l.cpu = opt.value("cpu", -1);
    if (opt.contains("env_pad") && !opt.at("env_pad").is_null()) l.env_pad = opt.at("env_pad").get<std::size_t>();
    l.timeout_s = opt.value("timeout", 0.0);
    l.show_output = opt.value("show_output", false);
    const nlohmann::json run_as = opt.value("run_as", nlohmann::json());
    l.run_as = run_as.is_object() ? run_as.value("user", std::string()) : std::string();
    l.keep_output_head = opt.value("keep_output_head", false);
    // A journal records the list it counted and the program it ran, never nothing.
    if (r.counters.empty()) throw Error(ErrorKind::io, "the journal's manifest records an empty counter list");
    if (l.argv.empty()) throw Error(ErrorKind::io, "the journal's manifest records no program (target argv is empty)");
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::io, std::string("the journal's manifest does not record a check request: ") + e.what());
  } catch (const Error& e) {
    // A value an option's parser refuses (a backend or mode this version does not
    // know) is the file's fault here, not the command line's.
    if (e.kind() != ErrorKind::usage) throw;
    throw Error(ErrorKind::io, std::string("the journal's manifest records a request this obscheck cannot run: ") +
                                   e.what());
  }
}

nlohmann::json sim_geometry_json(const SimGeometry& g) {
  return {{"I1", cache_json(g.i1)}, {"D1", cache_json(g.d1)}, {"LL", cache_json(g.ll)},
          {"source", g.source},     {"notes", g.notes}};
}

SimGeometry sim_geometry_from_json(const nlohmann::json& j) {
  try {
    SimGeometry g;
    g.i1 = cache_from_json(j.at("I1"));
    g.d1 = cache_from_json(j.at("D1"));
    g.ll = cache_from_json(j.at("LL"));
    g.source = j.at("source").get<std::string>();
    g.notes = j.value("notes", std::vector<std::string>{});
    return g;
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::io, std::string("the journal's simulated cache geometry is malformed: ") + e.what());
  }
}

}  // namespace obscheck
