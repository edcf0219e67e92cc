// job/: the journals a check keeps in the user's state directory when no --journal
// names one (util/state_dir.h), and the demo's directories beside them: listed by
// `obscheck journals`, removed by `obscheck journals --clean`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace obscheck {

struct StoredJournal {
  std::string path;
  std::uintmax_t bytes = 0;     // a demo directory: the sum of its files
  std::int64_t modified = 0;    // seconds since the epoch
  std::string what;             // the target's command line, "demo", or why it cannot be read
  bool directory = false;       // a demo's directory
  bool busy = false;            // a running obscheck holds it (its writer's lock)
};

// The state directory's journals (obscheck-*.jsonl) and demo directories (demo-*),
// oldest first; none when the directory does not exist yet. Reads only: creates nothing.
std::vector<StoredJournal> stored_journals();

// Removes what stored_journals() lists, but what a running obscheck is writing and
// anything not a regular file (a journal) or a real directory of this user (a demo's):
// nothing is followed through a symbolic link. Returns what was removed.
std::vector<StoredJournal> clean_journals();

// One entry a line pair (its time in UTC, size, target, and "(being written)"; then its
// path), then "N kept in DIR (SIZE)" ("removed" when `cleaned`) and, for a listing,
// how to print one again and how to remove them.
std::string journals_text(const std::vector<StoredJournal>& js, bool cleaned);
// {"directory": DIR, "journals": [{"path", "bytes", "modified", "what", "demo", "busy"}]}.
nlohmann::json journals_json(const std::vector<StoredJournal>& js);

}  // namespace obscheck
