// tools/bench: one obscheck check run as a user runs it, for the benchmarks that time
// checks (time_to_answer, verdicts_live): its JSON report, its wall time and exit
// code, and from its journal the "look" notes (when each metric was decided) and the
// last "sweep" object (the blocks run, why it stopped).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace obscheck::bench {

// `s` quoted for sh(1).
inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct CheckOutcome {
  nlohmann::json report = nlohmann::json::object();  // the --json report ({} when none)
  double seconds = 0;
  int code = -1;
  std::vector<nlohmann::json> looks;          // the journal's "look" notes
  nlohmann::json end = nlohmann::json::object();  // the last end note's "sweep"
};

// Runs `obscheck --json --journal TMP ARGS...` (stderr dropped), reads the journal's
// notes and removes it. `tag` names the temporary journal. An outcome with
// code -1 when no temporary directory could be made.
inline CheckOutcome run_check(const std::vector<std::string>& args, const std::string& tag) {
  using nlohmann::json;
  // A new private directory (mkdtemp): a name no other user can guess and plant first.
  std::string dir = "/tmp/obscheck-bench-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) return {};
  const std::string journal = dir + "/" + tag + ".jsonl";
  std::string cmd = quote(OBSCHECK_BIN) + " --json --journal " + quote(journal);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " 2>/dev/null";
  CheckOutcome o;
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  while (p && !feof(p)) out.append(buf, fread(buf, 1, sizeof buf, p));
  const int st = p ? pclose(p) : -1;
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.code = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (FILE* j = std::fopen(journal.c_str(), "r")) {
    std::string line;
    for (int c; (c = std::fgetc(j)) != EOF;) {
      if (c != '\n') {
        line += static_cast<char>(c);
        continue;
      }
      const json l = json::parse(line, nullptr, false);
      const bool note = l.is_object() && l.value("type", "") == "note";
      if (note && l.value("kind", "") == "look") o.looks.push_back(l);
      if (note && l.contains("sweep") && l["sweep"].is_object()) o.end = l["sweep"];
      line.clear();
    }
    std::fclose(j);
  }
  unlink(journal.c_str());
  rmdir(dir.c_str());
  const json report = json::parse(out, nullptr, false);
  if (report.is_object()) o.report = report;
  return o;
}

// A metric's verdict in a check's JSON report: "none" when it has no verdict, "absent"
// when the report does not name it.
inline std::string metric_verdict(const nlohmann::json& r, const std::string& name) {
  for (const auto& m : r.value("metrics", nlohmann::json::array()))
    if (m.value("name", "") == name) return m["verdict"].is_string() ? m["verdict"].get<std::string>() : "none";
  return "absent";
}

}  // namespace obscheck::bench
