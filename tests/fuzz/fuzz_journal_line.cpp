// The journal's readers on arbitrary bytes: the line scanner and its checks, the
// whole-journal reader (manifest, runs, notes, torn tail) and run_record_from_line. Any outcome but a result or an Error is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "record/journal_reader.h"
#include "record/run_record.h"
#include "util/error.h"

namespace {

// A small valid manifest, so inputs that are only run lines reach the run checks.
const std::string kManifest = obscheck::with_line_check(
    R"({"format":"obscheck-journal","plan":{"aa":3,"baselines":[0],"configs":[)"
    R"({"aa":false,"announced":[0],"id":"counters=1[task-clock]/held","index":0,"layout":"held","level":0,"programmed":[0],"solo_of":0},)"
    R"({"aa":false,"announced":[0,1],"id":"counters=2[task-clock,page-faults]/held","index":1,"layout":"held","level":1,"programmed":[0,1],"solo_of":null},)"
    R"({"aa":false,"announced":[1],"id":"counters=1[page-faults]/held","index":2,"layout":"held","level":2,"programmed":[1],"solo_of":1},)"
    R"({"aa":true,"announced":[0],"id":"counters=1[task-clock]/held#aa","index":3,"layout":"held","level":0,"programmed":[0],"solo_of":null}],)"
    R"("counters":["task-clock","page-faults"],"fixed_blocks":2,"layouts":["held"],"levels":[)"
    R"({"announced":[0],"dose":1,"extra":{},"label":"1[task-clock]","programmed":[0]},)"
    R"({"announced":[0,1],"dose":2,"extra":{},"label":"2[task-clock,page-faults]","programmed":[0,1]},)"
    R"({"announced":[1],"dose":1,"extra":{},"label":"1[page-faults]","programmed":[1]}],)"
    R"("max_blocks":80,"observer":"counters","seed":1,"warmup_blocks":1},"type":"manifest","version":1})") + "\n";

class Sink : public obscheck::JournalSink {
 public:
  void run(const obscheck::RunFields& f, std::size_t) override {
    obscheck::add_run(table, f);
    (void)obscheck::run_record_of(f);
  }
  obscheck::RunTable table;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // One line through the scanner and the checks.
  obscheck::RunFields f;
  std::string type;
  std::optional<obscheck::FieldError> error;
  if (obscheck::parse_run_line(text, f, type, error) && type == "run" && !error)
    (void)obscheck::check_run_fields(f, nullptr);
  (void)obscheck::line_check(text);
  // The input as a whole journal, and as run lines after a valid manifest.
  for (const std::string& journal : {std::string(text), kManifest + std::string(text)}) {
    try {
      Sink sink;
      obscheck::scan_journal_text(journal, "fuzz", sink);
    } catch (const obscheck::Error&) {
    }
  }
  // One run line read back on its own (as a live sweep reads what it journalled).
  try {
    (void)obscheck::run_record_from_line(text);
  } catch (const obscheck::Error&) {
  }
  return 0;
}
