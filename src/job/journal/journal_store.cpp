#include "job/journal/journal_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

#include <fmt/core.h>

#include "job/journal/journal_job.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/state_dir.h"

namespace obscheck {
namespace {

namespace fs = std::filesystem;

// Some obscheck holds the journal's writer lock (record/journal.cpp): it is being written.
bool held_by_writer(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return false;
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  return ::fcntl(fd.get(), F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

// "./prog args" from the journal's manifest, or why it is not one.
std::string target_of(const std::string& path) {
  const nlohmann::json m = read_manifest_line(path);
  if (!m.is_object()) return "(not a readable journal)";
  std::string out;
  try {
    for (const std::string& a : manifest_target(m).argv) out += (out.empty() ? "" : " ") + a;
  } catch (const Error&) {
    return "(its manifest's target is damaged)";
  }
  // A check's manifest names no command; a later version's command is shown as none.
  const std::optional<JobKind> kind = job_kind_of(m);
  const std::string command = kind && *kind != JobKind::check ? std::string(to_string(*kind)) + ": " : "";
  return command + (out.empty() ? "(no target recorded)" : out);
}

std::string when(std::int64_t t) {
  const std::time_t secs = static_cast<std::time_t>(t);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

std::string size_text(std::uintmax_t bytes) {
  if (bytes >= 10u << 20) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 10u << 10) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

std::string listing_of(const std::vector<StoredJournal>& js, const std::string& verb) {
  std::string out;
  for (const StoredJournal& j : js)
    out += fmt::format("{}  {:>8}  {}{}\n    {}\n", when(j.modified), size_text(j.bytes), j.what,
                       j.busy ? " (being written)" : "", j.path);
  std::uintmax_t total = 0;
  for (const StoredJournal& j : js) total += j.bytes;
  out += fmt::format("{} {} in {} ({})\n", js.size(), verb, journal_directory_path(), size_text(total));
  return out;
}

nlohmann::json json_of(const std::vector<StoredJournal>& js) {
  nlohmann::json out = nlohmann::json::array();
  for (const StoredJournal& j : js)
    out.push_back({{"path", j.path}, {"bytes", j.bytes}, {"modified", j.modified}, {"what", j.what},
                   {"demo", j.directory}, {"busy", j.busy}});
  return {{"directory", journal_directory_path()}, {"journals", out}};
}

bool is_journal_name(const std::string& name) {
  return name.rfind("obscheck-", 0) == 0 && name.size() > 6 && name.substr(name.size() - 6) == ".jsonl";
}

}  // namespace

std::vector<StoredJournal> stored_journals() {
  std::vector<StoredJournal> out;
  const std::string dir = journal_directory_path();
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename();
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    StoredJournal j;
    j.path = e.path();
    j.modified = st.st_mtime;
    if (S_ISREG(st.st_mode) && is_journal_name(name)) {
      j.bytes = static_cast<std::uintmax_t>(st.st_size);
      j.busy = held_by_writer(j.path);
      j.what = target_of(j.path);
    } else if (S_ISDIR(st.st_mode) && name.rfind("demo-", 0) == 0) {
      j.directory = true;
      j.what = "demo";
      for (const fs::directory_entry& f : fs::directory_iterator(e.path(), ec))
        if (f.is_regular_file(ec) && !f.is_symlink(ec)) {
          j.bytes += f.file_size(ec);
          j.busy = j.busy || (f.path().extension() == ".jsonl" && held_by_writer(f.path()));
        }
    } else {
      continue;
    }
    out.push_back(std::move(j));
  }
  std::sort(out.begin(), out.end(), [](const StoredJournal& a, const StoredJournal& b) {
    return a.modified != b.modified ? a.modified < b.modified : a.path < b.path;
  });
  return out;
}

std::vector<StoredJournal> clean_journals() {
  std::vector<StoredJournal> removed;
  for (StoredJournal& j : stored_journals()) {
    if (j.busy) continue;
    std::error_code ec;
    // remove_all does not follow symbolic links inside the directory.
    if (j.directory ? fs::remove_all(j.path, ec) > 0 : fs::remove(j.path, ec)) removed.push_back(std::move(j));
  }
  return removed;
}

std::string journals_text(const std::vector<StoredJournal>& js, bool cleaned) {
  std::string text = listing_of(js, cleaned ? "removed" : "kept");
  if (!cleaned && !js.empty()) text += "obscheck report JOURNAL prints one again; obscheck journals --clean removes them\n";
  return text;
}

nlohmann::json journals_json(const std::vector<StoredJournal>& js) { return json_of(js); }

}  // namespace obscheck
