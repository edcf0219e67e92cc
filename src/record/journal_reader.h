// record/: reading a journal in one streaming pass, without a JSON tree or a RunRecord
// per run line, and the per-line integrity check the writer adds.
//
// Every line of a journal written by this obscheck ends in an integrity check:
//   {...the record...,"crc32c":"1a2b3c4d"}
// the CRC-32C (util/crc32c.h) of the line's bytes before ,"crc32c": (from its '{'),
// as 8 lowercase hex digits. A reader recomputes it, so a changed byte anywhere in a
// line (a flipped digit, a value multiplied by 100 by hand) is named with its line,
// even when the changed value is still plausible. Journals written before the check
// existed still load: their lines are validated field by field only, and the reader
// says so (JournalScan::unchecked_lines). When the manifest carries a check, every line
// must.
//
// What is validated on every run line (run_fields.h): each field's JSON type, its
// range (no negative or non-finite counts, no times or counts beyond 2^53, exit status
// and signal as wait4 gives them), and its place in the plan (configuration, position,
// block, warm-up flag, index). A line that fails names the file, the line and the
// field: Error(io), exit 6.
//
// Memory is bounded on any input: a line longer than kMaxJournalLineBytes is refused,
// nesting deeper than kMaxJsonDepth is refused before anything builds a tree, only
// regular files are read (a directory, a device such as /dev/zero, a FIFO are refused
// at once), and a reading name may take only kMaxReadingColumns columns.
//
// A journal being written can be read while it grows: the reader stops at the end of
// what is there, and a last line without its '\n' (a line being written, or torn by a
// crash) is ignored and reported (torn_tail), as is a last line that is not JSON.
#pragma once

#include <functional>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "record/run_fields.h"
#include "record/run_table.h"

namespace obscheck {

// A manifest is a few kB and a run line under one; 8 MiB leaves room for a plan of
// thousands of levels while a reader never holds more than this of any line.
inline constexpr std::size_t kMaxJournalLineBytes = std::size_t{8} << 20;
// The journal's own lines nest 4 deep; a host description or plan a few more.
inline constexpr std::size_t kMaxJsonDepth = 64;
// Distinct reading names in one journal: each is a column as long as the journal.
inline constexpr std::size_t kMaxReadingColumns = 256;

// The line (a JSON object's text, no '\n') with its integrity check added.
std::string with_line_check(std::string_view object_json);
// Appends `object_json` with its check and a '\n' to `out`.
void append_checked_line(std::string& out, std::string_view object_json);

enum class LineCheck { absent, ok, bad };
LineCheck line_check(std::string_view line);

// Parses one line (no '\n'). Returns false when it is not a single JSON object (bad
// syntax, nesting beyond kMaxJsonDepth, trailing bytes). Else sets `type` (empty when
// the line has none or it is not a string) and, for the run fields, `f` and the first
// field that has the wrong JSON type, is missing (when type is "run") or does not fit
// its type (`error`). Ranges are check_run_fields's job.
bool parse_run_line(std::string_view line, RunFields& f, std::string& type, std::optional<FieldError>& error);

// Receives a journal's records as scan_journal reads them.
class JournalSink {
 public:
  virtual ~JournalSink() = default;
  virtual void manifest(nlohmann::json&& /*manifest*/, const Plan& /*plan*/) {}
  // Called only for a run line that passed every check; `f` is valid during the call.
  virtual void run(const RunFields& f, std::size_t line) = 0;
  virtual void note(nlohmann::json&& /*note*/) {}
};

struct JournalScan {
  std::size_t lines = 0;            // lines read, the torn tail excluded
  std::size_t runs = 0;
  std::size_t unchecked_lines = 0;  // lines without an integrity check (an older writer)
  bool torn_tail = false;           // the last line was incomplete (or not JSON) and was ignored
  std::uint64_t valid_bytes = 0;    // length of the file without the torn tail
};

// Reads `path` once, front to back, in fixed-size chunks. Throws Error(io) naming the
// file, and the line and field when one fails (see above). The manifest's plan is read
// with plan_from_json; a repeated run index is reported (naming both lines) after the
// last line, so sink.run may have seen both.
JournalScan scan_journal(const std::string& path, JournalSink& sink);
// The same over bytes in memory; `path` names them in errors.
JournalScan scan_journal_text(std::string_view text, const std::string& path, JournalSink& sink);

// What `obscheck report` needs of a journal, with the runs as columns.
struct JournalTable {
  std::string path;
  nlohmann::json manifest;            // line 1, its integrity check removed
  Plan plan;                          // the manifest's plan
  RunTable runs;                      // every run line, in file order
  std::vector<nlohmann::json> notes;  // the "note" lines, in file order, checks removed
  JournalScan scan;
};

// One pass over the file; no RunRecord or JSON tree per run line. Throws as scan_journal.
// `each_run`, when given, also sees every run line that passed its checks (its fields
// valid during the call only): for what a caller needs of the observer's extras. An
// Error(io) it throws (a typed part of the extra that does not decode) names the file
// and the line.
JournalTable read_journal_table(const std::string& path,
                                const std::function<void(const RunFields&)>& each_run = {});

// A sentence for the report when lines carried no integrity check, else "".
std::string integrity_warning(const JournalScan& scan);

// Adds one validated run line to a table (RunTable::add for a RunRecord gives the same
// row). Throws Error(io) when the journal has more than kMaxReadingColumns reading names.
void add_run(RunTable& table, const RunFields& f);

}  // namespace obscheck
