// obscheck journals [--clean]: the journals checks keep in the user's state directory
// (util/state_dir.h) and the demo's directories, one line each, oldest first; --clean
// removes them, but what a running obscheck is writing.
#include <fmt/core.h>

#include <ctime>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "job/journal_store.h"
#include "util/state_dir.h"

namespace obscheck {
namespace {

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

std::string listing(const std::vector<StoredJournal>& js, const std::string& verb) {
  std::string out;
  for (const StoredJournal& j : js)
    out += fmt::format("{}  {:>8}  {}{}\n    {}\n", when(j.modified), size_text(j.bytes), j.what,
                       j.busy ? " (being written)" : "", j.path);
  std::uintmax_t total = 0;
  for (const StoredJournal& j : js) total += j.bytes;
  out += fmt::format("{} {} in {} ({})\n", js.size(), verb, journal_directory_path(), size_text(total));
  return out;
}

nlohmann::json as_json(const std::vector<StoredJournal>& js) {
  nlohmann::json out = nlohmann::json::array();
  for (const StoredJournal& j : js)
    out.push_back({{"path", j.path}, {"bytes", j.bytes}, {"modified", j.modified}, {"what", j.what},
                   {"demo", j.directory}, {"busy", j.busy}});
  return {{"directory", journal_directory_path()}, {"journals", out}};
}

}  // namespace

int cmd_journals(const Options& o) {
  const std::vector<StoredJournal> js = o.clean ? clean_journals() : stored_journals();
  std::string text = listing(js, o.clean ? "removed" : "kept");
  if (!o.clean && !js.empty()) text += "obscheck report JOURNAL prints one again; obscheck journals --clean removes them\n";
  emit(o, o.json ? as_json(js).dump(2) + "\n" : text);
  return 0;
}

}  // namespace obscheck
