#include "record/journal.h"

#include <functional>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "record/journal_reader.h"
#include "record/plan_json.h"
#include "record/plan_notes.h"
#include "util/error.h"
#include "util/text.h"

namespace obscheck {

namespace {

using text::errno_text;

// Suffixes tried by create_default when names are taken by a concurrent creator.
constexpr int kMaxDefaultNameAttempts = 100;

// Never throw on a non-UTF-8 byte (an argv or event name can hold one): replace it.
// Every line ends in its integrity check (journal_reader.h).
std::string dump_line(const nlohmann::json& j) {
  std::string line;
  append_checked_line(line, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return line;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

void sync_fd(int fd, const std::string& path) {
  while (::fdatasync(fd) != 0) {
    if (errno == EINTR) continue;
    throw Error(ErrorKind::io, fmt::format("cannot sync journal {}: {}", path, errno_text(errno)));
  }
}

// Makes a new directory entry durable too (the file's data is synced separately).
void sync_parent_dir(const std::string& path) noexcept {
  std::string dir;
  try {
    dir = std::filesystem::path(path).parent_path().string();
  } catch (...) {
    return;  // best effort, as below
  }
  if (dir.empty()) dir = ".";
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd) ::fsync(fd.get());  // best effort: some filesystems refuse fsync on a directory
}

[[noreturn]] void bad_record_line(const std::string& path, std::size_t line, const std::string& why) {
  throw Error(ErrorKind::io, fmt::format("journal {} line {}: {}", path, line, why));
}

UniqueFd open_exclusive(const std::string& path, int& err) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644));
  err = fd ? 0 : errno;
  return fd;
}

// The writer's lock: an open-file-description write lock on the whole journal, held
// as long as the writer's descriptor is open (released by the kernel on any exit,
// kill -9 included). A write lock needs a descriptor open for writing, so a reader
// of the file can never hold it and block a check.
bool try_lock_writer(int fd, bool wait) {
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 0;  // the whole file, however long it grows
  while (::fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl) != 0) {
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EACCES) return false;
    // A filesystem without locks (some network mounts): there is no lock to take.
    if (errno == ENOLCK || errno == EINVAL) return true;
    return false;
  }
  return true;
}

Error busy_error(const std::string& path) {
  return Error(ErrorKind::busy,
               fmt::format("journal {} is being written by another obscheck (a check or --resume still running); "
                           "nothing was done",
                           path),
               "wait for it to finish, or stop it (Ctrl-C) and then run obscheck --resume " + path);
}

// What is at an existing journal path says what to do: only a regular file (or a
// link, never followed) can be a journal to resume.
Error exists_error(const std::string& path) {
  struct stat st {};
  const bool known = ::lstat(path.c_str(), &st) == 0;
  if (known && S_ISDIR(st.st_mode))
    return Error(ErrorKind::io, fmt::format("journal {} is a directory", path),
                 fmt::format("name a new file, e.g. --journal {}/check.jsonl", path));
  if (known && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
    return Error(ErrorKind::io, fmt::format("journal {} is not a regular file (a device, a pipe or a socket)", path),
                 "name a new file: a journal is a file obscheck creates, appends to and reads back");
  return Error(ErrorKind::io, fmt::format("journal {} exists", path),
               fmt::format("use --resume {} to continue it or choose another --journal", path));
}

}  // namespace

nlohmann::json env_summary(const std::vector<std::string>& env) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& entry : env) {
    const auto eq = entry.find('=');
    out.push_back({{"name", eq == std::string::npos ? entry : entry.substr(0, eq)},
                   {"bytes", entry.size() + 1}});
  }
  return out;
}

std::string env_difference(const nlohmann::json& recorded, const nlohmann::json& now) {
  const auto find = [](const nlohmann::json& env, const std::string& name) -> const nlohmann::json* {
    for (const auto& e : env)
      if (e.value("name", std::string()) == name) return &e;
    return nullptr;
  };
  for (const auto& e : now) {
    const std::string name = e.value("name", std::string());
    const nlohmann::json* r = find(recorded, name);
    if (r == nullptr) return fmt::format("{} is set here, not in the journal", name);
    const auto here = e.value("bytes", std::size_t{0}), then = r->value("bytes", std::size_t{0});
    if (here != then) return fmt::format("{} is {} bytes here, {} in the journal", name, here, then);
  }
  for (const auto& r : recorded) {
    const std::string name = r.value("name", std::string());
    if (find(now, name) == nullptr) return fmt::format("{} is set in the journal, not here", name);
  }
  return recorded == now ? "" : "the variables are in another order";
}

std::string utc_iso8601(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json make_manifest(const ManifestInput& in, const Plan& plan) {
  nlohmann::json m = {{"type", "manifest"},
                      {"format", kJournalFormat},
                      {"version", kJournalVersion},
                      {"created", utc_iso8601(in.created)},
                      {"obscheck", in.obscheck_version},
                      {"host", in.host},
                      {"options", in.options},
                      {"seed", plan.seed()},
                      {"target", {{"path", in.target.path}, {"argv", in.target.argv}, {"sha256", in.target.sha256}}},
                      {"env", env_summary(in.env)},
                      {"plan", plan_to_json(plan)}};
  if (in.warnings) m["warnings"] = *in.warnings;
  if (!in.plan_digest.empty()) m["plan_digest"] = in.plan_digest;
  return m;
}

std::string manifest_plan_digest(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return "";
  const auto digest = manifest.find("plan_digest");
  return digest != manifest.end() && digest->is_string() ? digest->get<std::string>() : "";
}

std::optional<Shard> manifest_shard(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return std::nullopt;
  const auto plan = manifest.find("plan");
  if (plan == manifest.end() || !plan->is_object()) return std::nullopt;
  try {
    return plan_from_json(*plan).spec.shard;
  } catch (const Error&) {
    return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::string>> manifest_warnings(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return std::nullopt;
  const auto w = manifest.find("warnings");
  if (w == manifest.end() || !w->is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const nlohmann::json& item : *w)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

nlohmann::json manifest_host(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return nlohmann::json::object();
  const auto host = manifest.find("host");
  return host == manifest.end() ? nlohmann::json::object() : *host;
}

std::optional<HostInfo> manifest_host_info(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return std::nullopt;
  const auto host = manifest.find("host");
  if (host == manifest.end()) return std::nullopt;
  if (const std::string problem = host_json_problem(*host); !problem.empty()) throw Error(ErrorKind::io, problem);
  return host->get<HostInfo>();
}

nlohmann::json manifest_env(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return nlohmann::json::array();
  const auto env = manifest.find("env");
  return env == manifest.end() ? nlohmann::json::array() : *env;
}

bool has_manifest_options(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return false;
  const auto options = manifest.find("options");
  return options != manifest.end() && options->is_object();
}

const nlohmann::json& manifest_options(const nlohmann::json& manifest) { return manifest.at("options"); }

void put_options_backend(nlohmann::json& options, std::string_view backend) {
  options["backend"] = std::string(backend);
}

void put_sweep_part(nlohmann::json& manifest, nlohmann::json part) { manifest["sweep"] = std::move(part); }

const nlohmann::json& manifest_sweep_part(const nlohmann::json& manifest, const std::string& path) {
  if (!manifest.is_object() || !manifest.contains("sweep")) throw Error(ErrorKind::io, path + ": the manifest has no sweep");
  return manifest.at("sweep");
}

std::uint64_t manifest_env_bytes(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return 0;
  const auto env = manifest.find("env");
  if (env == manifest.end() || !env->is_array()) return 0;
  std::uint64_t bytes = 0;
  for (const nlohmann::json& e : *env)
    if (e.is_object()) bytes += e.value("bytes", std::uint64_t{0});
  return bytes;
}

std::string default_journal_path(const std::string& dir, std::chrono::system_clock::time_point now) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  const std::filesystem::path base(dir);
  for (int n = 0;; ++n) {
    const std::string name = n == 0 ? fmt::format("obscheck-{}.jsonl", stamp)
                                    : fmt::format("obscheck-{}-{}.jsonl", stamp, n);
    const std::string path = dir.empty() ? name : (base / name).string();
    if (!exists(path)) return path;
  }
}

namespace {

// load_journal's sink: RunRecords from the same checked fields the table reader uses.
class RecordSink : public JournalSink {
 public:
  explicit RecordSink(JournalData& d) : d_(d) {}
  void manifest(nlohmann::json&& m, const Plan&) override { d_.manifest = std::move(m); }
  void run(const RunFields& f, std::size_t line) override {
    RunRecord& r = d_.runs.emplace_back(run_record_of(f));
    try {
      read_run_extra(r, f.extra);
    } catch (const Error& e) {
      bad_record_line(d_.path, line, e.what());
    }
  }
  void note(nlohmann::json&& n) override { d_.notes.push_back(std::move(n)); }

 private:
  JournalData& d_;
};

}  // namespace

namespace {

JournalData journal_data(const std::string& path, const std::function<JournalScan(RecordSink&)>& scan_with) {
  JournalData data;
  data.path = path;
  RecordSink sink(data);
  const JournalScan scan = scan_with(sink);
  data.torn_tail = scan.torn_tail;
  data.valid_bytes = scan.valid_bytes;
  data.unchecked_lines = scan.unchecked_lines;
  data.lines = scan.lines;
  return data;
}

}  // namespace

JournalData load_journal(const std::string& path) {
  return journal_data(path, [&](RecordSink& sink) { return scan_journal(path, sink); });
}

JournalData parse_journal(std::string_view text, const std::string& path) {
  return journal_data(path, [&](RecordSink& sink) { return scan_journal_text(text, path, sink); });
}

Plan plan_from_journal(const JournalData& data) {
  Plan plan;
  try {
    plan = plan_from_json(data.manifest.at("plan"));
  } catch (const Error& e) {
    throw Error(ErrorKind::io, fmt::format("journal {} line 1: {}", data.path, e.what()), e.hint());
  }
  apply_plan_notes(plan, data.notes, data.path);
  return plan;
}

std::set<std::size_t> completed_indexes(const JournalData& data) {
  std::set<std::size_t> done;
  for (const RunRecord& r : data.runs) done.insert(r.index);
  return done;
}

std::vector<Trial> remaining_trials(const Plan& plan, std::span<const RunRecord> runs, const std::string& path,
                                    std::size_t end_block) {
  std::set<std::size_t> done;
  for (const RunRecord& r : runs) {
    const Trial t = trial_at(plan, r.index);
    if (t.block != r.block || t.position != r.position || t.config != r.config ||
        plan.configs[t.config].id != r.config_id)
      throw Error(ErrorKind::io,
                  fmt::format("journal {}: run {} is block {} position {} config '{}', but the plan "
                              "puts config '{}' at block {} position {}",
                              path, r.index, r.block, r.position, r.config_id,
                              plan.configs[t.config].id, t.block, t.position),
                  "the journal was not written with this plan; resume it with the obscheck that wrote it");
    done.insert(r.index);
  }
  std::vector<Trial> out;
  for (const Trial& t : trials(plan, 0, end_block))
    if (!done.count(t.index)) out.push_back(t);
  return out;
}

std::vector<Trial> remaining_trials(const Plan& plan, const JournalData& data, std::size_t end_block) {
  return remaining_trials(plan, data.runs, data.path, end_block);
}

std::size_t completed_blocks(const Plan& plan, const JournalData& data) {
  const auto done = completed_indexes(data);
  const std::size_t n = plan.block_size();
  std::size_t blocks = 0;
  for (;; ++blocks)
    for (std::size_t p = 0; p < n; ++p)
      if (!done.count(blocks * n + p)) return blocks;
}

JournalWriter JournalWriter::create(const std::string& path, const nlohmann::json& manifest) {
  if (!manifest.is_object() || manifest.value("type", "") != "manifest")
    throw Error(ErrorKind::internal, "JournalWriter::create needs a manifest (make_manifest)");
  int err = 0;
  UniqueFd fd = open_exclusive(path, err);
  if (err == EEXIST) throw exists_error(path);
  if (!fd)
    throw Error(ErrorKind::io, fmt::format("cannot create journal {}: {}", path, errno_text(err)),
                "choose a writable place with --journal FILE");
  // The file is new and only a writer can hold the lock: the only one who could is a
  // --resume started on this name just now, which gives it up at once (no manifest).
  if (!try_lock_writer(fd.get(), true))
    throw Error(ErrorKind::io, fmt::format("cannot lock journal {}: {}", path, errno_text(errno)));
  JournalWriter w(std::move(fd), path);
  w.new_entry_ = true;
  w.write_line(dump_line(manifest));
  return w;
}

JournalWriter JournalWriter::create_default(const std::string& dir,
                                            std::chrono::system_clock::time_point now,
                                            const nlohmann::json& manifest) {
  for (int attempt = 0; attempt < kMaxDefaultNameAttempts; ++attempt) {
    const std::string path = default_journal_path(dir, now);
    try {
      return create(path, manifest);
    } catch (const Error&) {
      if (!exists(path)) throw;  // not lost a race: a real failure
    }
  }
  throw Error(ErrorKind::io,
              fmt::format("cannot find a free journal name in {}", dir.empty() ? "." : dir),
              "choose a name with --journal FILE");
}

namespace {

Error not_a_file(const std::string& path) {
  return Error(ErrorKind::io, fmt::format("journal {} is not a regular file (a device, pipe or socket)", path),
               "a journal is a file obscheck wrote; copy it to a file first");
}

}  // namespace

ResumedJournal JournalWriter::open_for_resume(const std::string& path) {
  // The lock first, then the reading: what is read is what no one else is appending to.
  // O_NONBLOCK: opening a FIFO for writing must not wait for a reader (it hung until
  // one came); O_NOCTTY: a terminal named as the journal does not become ours. Neither
  // is a journal, which fstat then finds, before anything is read or locked.
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) {
    const int err = errno;
    // A missing file or a directory: the reader's message says it best.
    if (err == ENOENT || err == EISDIR) load_journal(path);
    if (err == ENXIO) throw not_a_file(path);  // a FIFO without a reader
    throw Error(ErrorKind::io, fmt::format("cannot open journal {} for appending: {}", path, errno_text(err)));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw Error(ErrorKind::io, fmt::format("cannot read journal {}: {}", path, errno_text(errno)));
  if (!S_ISREG(st.st_mode)) throw not_a_file(path);
  ::fcntl(fd.get(), F_SETFL, O_APPEND);  // blocking writes again, as every journal's
  if (!try_lock_writer(fd.get(), false)) throw busy_error(path);
  JournalData data = load_journal(path);
  JournalWriter w(std::move(fd), path);
  // The torn tail is cut off only before the first new line: a resume refused after
  // this (a changed binary or environment) leaves the file byte for byte as it was.
  if (data.torn_tail) w.cut_to_ = data.valid_bytes;
  return ResumedJournal{std::move(w), std::move(data)};
}

void JournalWriter::cut_torn_tail() {
  if (!cut_to_) return;
  if (::ftruncate(fd_.get(), static_cast<off_t>(*cut_to_)) != 0)
    throw Error(ErrorKind::io, fmt::format("cannot cut the torn last line off journal {}: {}", path_, errno_text(errno)));
  sync_fd(fd_.get(), path_);
  cut_to_.reset();
}

JournalWriter& JournalWriter::operator=(JournalWriter&& o) noexcept {
  if (this != &o) {
    sync_quietly();
    fd_ = std::move(o.fd_);
    path_ = std::move(o.path_);
    unsynced_ = std::exchange(o.unsynced_, 0);
    new_entry_ = std::exchange(o.new_entry_, false);
    last_sync_ = o.last_sync_;
    sync_interval_ = o.sync_interval_;
    cut_to_ = std::exchange(o.cut_to_, std::nullopt);
  }
  return *this;
}

JournalWriter::~JournalWriter() { sync_quietly(); }

void JournalWriter::sync_quietly() noexcept {
  if (!fd_ || unsynced_ == 0) return;
  while (::fdatasync(fd_.get()) != 0 && errno == EINTR) {
  }
  unsynced_ = 0;
  if (std::exchange(new_entry_, false)) sync_parent_dir(path_);
}

void JournalWriter::sync() {
  if (!fd_) throw Error(ErrorKind::internal, fmt::format("journal {} is not open", path_));
  if (unsynced_ == 0) return;
  sync_fd(fd_.get(), path_);
  unsynced_ = 0;
  if (std::exchange(new_entry_, false)) sync_parent_dir(path_);
  last_sync_ = std::chrono::steady_clock::now();
}

void JournalWriter::append(const RunRecord& run) {
  std::string line;
  append_checked_line(line, run_line(run));
  write_line(line);
  if (std::chrono::steady_clock::now() - last_sync_ >= sync_interval_) sync();
}

void JournalWriter::append_note(const nlohmann::json& note, Durable when) {
  if (!note.is_object()) throw Error(ErrorKind::internal, "a journal note must be a JSON object");
  nlohmann::json line = note;
  line["type"] = "note";
  write_line(dump_line(line));
  if (when == Durable::on_return) sync();
}

void JournalWriter::write_line(const std::string& bytes) {
  if (!fd_) throw Error(ErrorKind::internal, fmt::format("journal {} is not open", path_));
  cut_torn_tail();
  const off_t before = ::lseek(fd_.get(), 0, SEEK_END);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      // Take back a partial line so the file stays valid, and refuse further appends:
      // a line after a torn one would make the journal unreadable.
      if (before >= 0 && ::ftruncate(fd_.get(), before) == 0) ::fdatasync(fd_.get());
      fd_.reset();
      throw Error(ErrorKind::io, fmt::format("cannot append to journal {}: {}", path_, errno_text(err)),
                  fmt::format("free space, then continue with --resume {}; the runs so far are kept", path_));
    }
    done += static_cast<std::size_t>(n);
  }
  ++unsynced_;
}

}  // namespace obscheck
