#include "job/journal_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "job/journal_job.h"
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
  if (const auto t = m.find("target"); t != m.end() && t->is_object())
    for (const auto& a : t->value("argv", nlohmann::json::array()))
      if (a.is_string()) out += (out.empty() ? "" : " ") + a.get<std::string>();
  const std::string command = m.value("command", std::string());
  return (command.empty() ? "" : command + ": ") + (out.empty() ? "(no target recorded)" : out);
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

}  // namespace obscheck
