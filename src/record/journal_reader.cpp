// record/: a journal file read in one streaming pass: the manifest's shape, each line
// checked (record/run_line.cpp) and handed to a sink, the torn tail; and the columnar
// table of its runs.
#include "record/journal_reader.h"

#include <cctype>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "host/host_info.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "record/observer_lists.h"
#include "record/plan_json.h"
#include "record/plan_notes.h"
#include "record/request.h"
#include "util/crc32c.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/text.h"
#include "util/timeval.h"

namespace obscheck {
namespace {

using text::errno_text;

// Read size: large enough that the syscalls cost nothing next to the parsing, small
// enough to stay in L2 with the line being parsed.
constexpr std::size_t kReadChunk = std::size_t{1} << 20;

[[noreturn]] void bad_line(const std::string& path, std::size_t line, const std::string& why, std::string hint = {}) {
  throw Error(ErrorKind::io, fmt::format("journal {} line {}: {}", path, line, why), std::move(hint));
}

}  // namespace

// ---- the file ------------------------------------------------------------------------

// The manifest's typed parts are decoded here, beside the check of its shape that
// calls them (the journal fuzzer links this file, not journal.cpp).
ManifestTarget manifest_target(const nlohmann::json& manifest) {
  ManifestTarget out;
  if (!manifest.is_object()) return out;
  const auto t = manifest.find("target");
  if (t == manifest.end()) return out;
  if (!t->is_object()) throw Error(ErrorKind::io, "field target is not an object");
  if (const auto argv = t->find("argv"); argv != t->end()) {
    if (!argv->is_array()) throw Error(ErrorKind::io, "field target.argv is not a list of strings");
    for (const nlohmann::json& a : *argv) {
      if (!a.is_string()) throw Error(ErrorKind::io, "field target.argv is not a list of strings");
      out.argv.push_back(a.get<std::string>());
    }
  }
  if (const auto sha = t->find("sha256"); sha != t->end()) {
    if (!sha->is_string()) throw Error(ErrorKind::io, "field target.sha256 is not a string");
    out.sha256 = sha->get<std::string>();
  }
  return out;
}


namespace {

// obj[key], a list of strings, or none when absent; `field` names it in the error.
std::vector<std::string> strings_field(const nlohmann::json& obj, const char* key, const std::string& field) {
  std::vector<std::string> out;
  const auto it = obj.find(key);
  if (it == obj.end()) return out;
  const auto bad = [&] { return Error(ErrorKind::io, fmt::format("field {} is not a list of strings", field)); };
  if (!it->is_array()) throw bad();
  for (const nlohmann::json& e : *it) {
    if (!e.is_string()) throw bad();
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace

void put_measure_part(nlohmann::json& manifest, const MeasurePart& part) {
  manifest["measure"] = {
      {"backend_notes", part.backend_notes}, {"event_notes", part.event_notes}, {"sim_events", part.sim_events}};
}

MeasurePart measure_part_of(const nlohmann::json& manifest) {
  MeasurePart out;
  if (!manifest.is_object()) return out;
  const auto m = manifest.find("measure");
  if (m == manifest.end()) return out;
  if (!m->is_object()) throw Error(ErrorKind::io, "field measure is not an object");
  out.backend_notes = strings_field(*m, "backend_notes", "measure.backend_notes");
  out.event_notes = strings_field(*m, "event_notes", "measure.event_notes");
  out.sim_events = strings_field(*m, "sim_events", "measure.sim_events");
  return out;
}

namespace {

// The manifest's members that readers take with a type (report, resume): each must
// have that type when present, so a malformed manifest is named here rather than
// failing later as a JSON type error. Returns what is wrong, or "".
std::string manifest_shape_problem(const nlohmann::json& m) {
  const auto is_string = [](const nlohmann::json& j) { return j.is_string(); };
  const auto is_number = [](const nlohmann::json& j) { return j.is_number(); };
  const auto is_object = [](const nlohmann::json& j) { return j.is_object(); };
  const auto is_strings = [](const nlohmann::json& j) {
    return j.is_array() && std::all_of(j.begin(), j.end(), [](const nlohmann::json& e) { return e.is_string(); });
  };
  std::string problem;
  auto optional = [&](const nlohmann::json& obj, const char* key, auto is, const char* what) {
    if (problem.empty() && obj.contains(key) && !is(obj.at(key))) problem = fmt::format("field {} has the wrong type", what);
  };
  if (!m.contains("options") || !m.contains("target") || !m.at("target").is_object() || !m.at("target").contains("argv"))
    return "the manifest has no options or no target.argv";
  optional(m, "format", is_string, "format");
  optional(m, "host", is_object, "host");
  optional(m, "options", is_object, "options");
  if (!problem.empty()) return problem;
  const nlohmann::json& o = m.at("options");
  optional(o, "mode", is_string, "options.mode");
  optional(o, "backend", is_string, "options.backend");
  optional(o, "margin", is_number, "options.margin");
  optional(o, "dropped_counters", is_strings, "options.dropped_counters");
  if (problem.empty()) problem = observer_problem(o);
  const nlohmann::json& t = m.at("target");
  optional(t, "argv", is_strings, "target.argv");
  optional(t, "path", is_string, "target.path");
  optional(t, "sha256", is_string, "target.sha256");
  if (!problem.empty()) return problem;
  try {  // the typed parts' own decoders, so that a reader later meets no wrong type
    manifest_target(m);
    measure_part_of(m);
  } catch (const Error& e) {
    return e.what();
  }
  if (m.contains("env")) {
    const nlohmann::json& env = m.at("env");
    if (!env.is_array()) return "field env is not an array";
    for (const nlohmann::json& e : env)
      if (!e.is_object() || (e.contains("bytes") && !e.at("bytes").is_number_unsigned()) ||
          (e.contains("name") && !e.at("name").is_string()))
        return "an entry of field env is not {\"name\": string, \"bytes\": count}";
  }
  return "";
}

class LineReader {
 public:
  LineReader(std::string path, JournalSink& sink) : path_(std::move(path)), sink_(sink) {}

  // One complete line (no '\n'), numbered from 1, starting at byte `offset`.
  void line(std::string_view text, std::uint64_t offset) {
    const std::size_t number = ++line_no_;
    if (pending_not_json_) bad_line(path_, number - 1, "not valid JSON");  // not the last line after all
    if (text.size() > kMaxJournalLineBytes) too_long(number);
    std::string type;
    std::optional<FieldError> error;
    if (!parse_run_line(text, fields_, type, error)) {
      if (number == 1) {
        // An unfinished manifest is the sweep stopping while creating the journal.
        pending_not_json_ = true;
        pending_offset_ = offset;
        return;
      }
      pending_not_json_ = true;
      pending_offset_ = offset;
      return;
    }
    scan_.lines = number;
    scan_.valid_bytes = offset + text.size() + 1;
    const LineCheck check = line_check(text);
    if (check == LineCheck::bad)
      bad_line(path_, number, "its integrity check (crc32c) does not match: the line was changed after it was written",
               "the journal was damaged or edited; restore it from a copy, or cut the line off to report the rest");
    if (check == LineCheck::absent) {
      if (checked_) bad_line(path_, number, "no integrity check (crc32c), although the journal's manifest has one",
                             "the line was added or edited by hand");
      ++scan_.unchecked_lines;
    }
    if (number == 1) return manifest(text, type, check == LineCheck::ok);
    if (type == "manifest") bad_line(path_, number, "a second manifest (two journals concatenated?)");
    if (type.empty()) bad_line(path_, number, "not a journal record (no \"type\")");
    if (type == "run") {
      if (error) bad_line(path_, number, fmt::format("field {} {}", error->field, error->why));
      if (auto e = check_run_fields(fields_, &limits_)) bad_line(path_, number, fmt::format("field {} {}", e->field, e->why));
      seen_.push_back({static_cast<std::uint32_t>(fields_.index), static_cast<std::uint32_t>(number)});
      ++scan_.runs;
      sink_.run(fields_, number);
    } else if (type == "note") {
      nlohmann::json n = tree(text);
      if (n.contains("kind") && !n.at("kind").is_string()) bad_line(path_, number, "field kind of a note is not a string");
      try {
        check_note(n);  // every known kind's fields, typed and in range (record/journal_notes.h)
      } catch (const Error& e) {
        bad_line(path_, number, fmt::format("note \"{}\": {}", n.at("kind").get<std::string>(), e.what()), e.hint());
      }
      if (note_kind_of(n) == NoteKind::extend) extend(n, number);
      sink_.note(std::move(n));
    }
    // Any other type is from a later version: skipped by design.
  }

  // The bytes after the last '\n'.
  JournalScan finish(std::string_view tail, std::uint64_t offset) {
    if (line_no_ == 0 && tail.empty() && !pending_not_json_)
      throw Error(ErrorKind::io, fmt::format("journal {} is empty", path_),
                  "it was created but its manifest never written; start a new sweep");
    if (pending_not_json_ || !tail.empty()) {
      if (line_no_ + (pending_not_json_ ? 0 : 1) <= 1)
        throw Error(ErrorKind::io, fmt::format("journal {} line 1: the manifest is incomplete", path_),
                    "the sweep stopped while creating the journal; start a new one");
      scan_.torn_tail = true;
      scan_.valid_bytes = pending_not_json_ ? pending_offset_ : offset;
    }
    check_repeats();
    return scan_;
  }

  [[noreturn]] void too_long(std::size_t number) const {
    bad_line(path_, number, fmt::format("longer than {} MiB: not a journal line", kMaxJournalLineBytes >> 20),
             "is this an obscheck journal?");
  }
  std::size_t next_line() const { return line_no_ + 1; }

 private:
  nlohmann::json tree(std::string_view text) {
    // The scanner has checked the syntax and depth; nlohmann also checks UTF-8.
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) bad_line(path_, line_no_, "not valid JSON (a string that is not UTF-8?)");
    j.erase("crc32c");
    return j;
  }

  void manifest(std::string_view text, const std::string& type, bool checked) {
    if (type != "manifest") bad_line(path_, 1, "not a manifest (is this an obscheck journal?)");
    nlohmann::json m = tree(text);
    if (const auto f = m.find("format"); f == m.end() || *f != kJournalFormat) bad_line(path_, 1, fmt::format("format is not \"{}\"", kJournalFormat));
    if (!m.contains("version") || !m.at("version").is_number_integer()) bad_line(path_, 1, "the manifest has no version");
    const auto version = m.at("version").get<long long>();
    if (version < 1 || version > kJournalVersion)
      throw Error(ErrorKind::io,
                  fmt::format("journal {} line 1: version {} is not one this obscheck reads (1..{})", path_, version,
                              kJournalVersion),
                  "read it with the obscheck that wrote it (the manifest's \"obscheck\" field)");
    if (!m.contains("plan")) bad_line(path_, 1, "the manifest has no plan");
    if (const std::string problem = manifest_shape_problem(m); !problem.empty()) bad_line(path_, 1, problem);
    // The host as report and doctor read it (host/host_info.h from_json), every field's type.
    if (m.contains("host"))
      if (const std::string problem = host_json_problem(m.at("host")); !problem.empty()) bad_line(path_, 1, problem);
    Plan plan;
    try {
      plan = plan_from_json(m.at("plan"));
    } catch (const Error& e) {
      throw Error(ErrorKind::io, fmt::format("journal {} line 1: {}", path_, e.what()), e.hint());
    } catch (const std::exception& e) {
      bad_line(path_, 1, fmt::format("the manifest's plan is malformed: {}", e.what()));
    }
    // Run indexes are 32-bit in a RunTable, and the look schedule walks the blocks: a
    // cap no command line can ask for is a forgery that would make every reader walk it.
    const std::size_t measured = plan.spec.fixed_blocks ? *plan.spec.fixed_blocks : plan.spec.max_blocks;
    if (measured > kMaxMeasuredBlocks || plan.spec.warmup_blocks > kMaxMeasuredBlocks)
      bad_line(path_, 1, fmt::format("the plan's {} measured and {} warm-up blocks are beyond {} each", measured,
                                     plan.spec.warmup_blocks, kMaxMeasuredBlocks));
    constexpr std::size_t kMaxRuns = std::numeric_limits<std::uint32_t>::max();
    if (measured > kMaxRuns / plan.block_size() || plan.spec.warmup_blocks + measured > kMaxRuns / plan.block_size())
      bad_line(path_, 1, fmt::format("the plan's {} blocks of {} runs are beyond 2^32 runs", measured,
                                     plan.block_size()));
    limits_ = run_limits(plan);
    plan_ = plan;
    checked_ = checked;
    sink_.manifest(std::move(m), plan);
  }

  // Runs past the manifest's cap are the plan's once a resume raised it: the note comes
  // before them.
  void extend(const nlohmann::json& note, std::size_t number) {
    try {
      apply_extend_note(plan_, extend_note_from(note));
    } catch (const Error& e) {
      bad_line(path_, number, e.what());
    }
    limits_ = run_limits(plan_);
  }

  // A run index twice: found by sorting (index, line) once at the end, not with a set
  // per line (a million runs).
  void check_repeats() {
    std::sort(seen_.begin(), seen_.end());
    const std::pair<std::uint32_t, std::uint32_t>* worst = nullptr;
    std::uint32_t worst_line = 0;
    for (std::size_t i = 1; i < seen_.size(); ++i)
      if (seen_[i].first == seen_[i - 1].first && (!worst || seen_[i].second < worst_line)) {
        worst = &seen_[i - 1];
        worst_line = seen_[i].second;
      }
    if (worst)
      bad_line(path_, worst_line, fmt::format("run index {} is already recorded on line {}", worst->first, worst->second));
  }

  std::string path_;
  JournalSink& sink_;
  RunFields fields_;
  RunLimits limits_;
  Plan plan_;  // the manifest's, with the "extend" notes met so far
  JournalScan scan_;
  std::size_t line_no_ = 0;
  bool checked_ = false;
  bool pending_not_json_ = false;
  std::uint64_t pending_offset_ = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> seen_;  // (run index, line)
};

}  // namespace

JournalScan scan_journal_text(std::string_view text, const std::string& path, JournalSink& sink) {
  LineReader reader(path, sink);
  std::size_t pos = 0;
  for (;;) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;
    reader.line(text.substr(pos, nl - pos), pos);
    pos = nl + 1;
  }
  if (text.size() - pos > kMaxJournalLineBytes) reader.too_long(reader.next_line());
  return reader.finish(text.substr(pos), pos);
}

JournalScan scan_journal(const std::string& path, JournalSink& sink) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd)
    throw Error(ErrorKind::io, fmt::format("cannot read journal {}: {}", path, errno_text(errno)),
                "check the path given to --resume or obscheck report");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw Error(ErrorKind::io, fmt::format("cannot read journal {}: {}", path, errno_text(errno)));
  if (S_ISDIR(st.st_mode))
    throw Error(ErrorKind::io, fmt::format("journal {} is a directory, not a journal", path),
                "give the journal file (obscheck-*.jsonl) inside it");
  if (!S_ISREG(st.st_mode))
    throw Error(ErrorKind::io, fmt::format("journal {} is not a regular file (a device, pipe or socket)", path),
                "a journal is a file obscheck wrote; copy it to a file first");

  LineReader reader(path, sink);
  std::string buf(kReadChunk, '\0');
  std::size_t have = 0;        // bytes in buf
  std::uint64_t base = 0;      // file offset of buf[0]
  for (;;) {
    if (have == buf.size()) {
      // A line longer than the buffer: grow it, up to the line limit.
      if (buf.size() > kMaxJournalLineBytes) reader.too_long(reader.next_line());
      buf.resize(std::min(buf.size() * 2, kMaxJournalLineBytes + 1));  // a longest line and its newline
    }
    const ssize_t n = ::read(fd.get(), buf.data() + have, buf.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorKind::io, fmt::format("cannot read journal {}: {}", path, errno_text(errno)));
    }
    if (n == 0) break;  // the end of what is written so far
    const std::size_t scanned_from = have;
    have += static_cast<std::size_t>(n);
    std::size_t pos = 0;
    const char* data = buf.data();
    for (std::size_t from = scanned_from;;) {
      const void* nl = std::memchr(data + from, '\n', have - from);
      if (!nl) break;
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - data);
      reader.line(std::string_view(data + pos, at - pos), base + pos);
      pos = from = at + 1;
    }
    if (pos > 0) {
      std::memmove(buf.data(), buf.data() + pos, have - pos);
      have -= pos;
      base += pos;
    }
    if (have > kMaxJournalLineBytes) reader.too_long(reader.next_line());
  }
  return reader.finish(std::string_view(buf.data(), have), base);
}

// ---- the table -----------------------------------------------------------------------

void add_run(RunTable& t, const RunFields& f) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  RunTable::Row row;
  row.index = f.index;
  row.block = f.block;
  row.config = f.config;
  row.warmup = f.warmup;
  row.timed_out = f.timed_out;
  row.signal = static_cast<int>(f.signal);
  row.exit_code = static_cast<int>(f.code);
  if (f.output_sha256) row.digest = *f.output_sha256;
  row.wall_ns = static_cast<double>(f.wall_ns);
  row.utime_ns = rusage_ns(f.utime_ns);
  row.stime_ns = rusage_ns(f.stime_ns);
  row.maxrss_kb = static_cast<double>(f.maxrss_kb);
  row.minflt = static_cast<double>(f.minflt);
  row.nvcsw = static_cast<double>(f.nvcsw);
  row.nivcsw = static_cast<double>(f.nivcsw);
  if (f.pre_exec_maxrss_kb) row.pre_exec_maxrss_kb = static_cast<double>(*f.pre_exec_maxrss_kb);
  set_host_load(row, f.host);
  const std::size_t n = t.append(row);
  for (std::size_t i = 0; i < f.n_readings; ++i) {
    const RunFields::Reading& r = f.readings[i];
    if (!t.find(r.name) && t.readings.size() >= kMaxReadingColumns)
      throw Error(ErrorKind::io, fmt::format("run {}: more than {} distinct reading names in one journal", f.index,
                                             kMaxReadingColumns));
    t.set_reading(n, r.name, r.value ? *r.value : kNaN, r.multiplexed, r.scale ? *r.scale : kNaN);
  }
}

namespace {

class TableSink : public JournalSink {
 public:
  TableSink(JournalTable& t, const std::function<void(const RunFields&)>& each_run) : t_(t), each_run_(each_run) {}
  void manifest(nlohmann::json&& m, const Plan& plan) override {
    t_.manifest = std::move(m);
    t_.plan = plan;
  }
  void run(const RunFields& f, std::size_t line) override {
    try {
      add_run(t_.runs, f);
    } catch (const Error& e) {
      bad_line(t_.path, line, e.what());
    }
    try {
      if (each_run_) each_run_(f);
    } catch (const Error& e) {
      bad_line(t_.path, line, e.what());
    }
  }
  void note(nlohmann::json&& n) override { t_.notes.push_back(std::move(n)); }

 private:
  JournalTable& t_;
  const std::function<void(const RunFields&)>& each_run_;
};

}  // namespace

JournalTable read_journal_table(const std::string& path, const std::function<void(const RunFields&)>& each_run) {
  JournalTable t;
  t.path = path;
  TableSink sink(t, each_run);
  t.scan = scan_journal(path, sink);
  // The trials the check's "retire" notes left out (plan/ Retirement), the blocks its
  // "extend" notes added.
  apply_plan_notes(t.plan, t.notes, path);
  return t;
}

std::string integrity_warning(const JournalScan& scan) {
  if (scan.unchecked_lines == 0) return "";
  return fmt::format("{} of the journal's {} lines carry no integrity check (written by an older obscheck): they were "
                     "validated field by field, but a plausible changed value cannot be detected",
                     scan.unchecked_lines, scan.lines);
}

}  // namespace obscheck
