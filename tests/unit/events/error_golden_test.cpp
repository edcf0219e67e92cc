// Golden error messages, with the column at fault marked, for malformed event lists
// (tests/golden/events/errors.json). OBSCHECK_UPDATE_GOLDEN=1 rewrites the file, as it
// rewrites every golden file of the tests.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "events/event.h"

namespace fs = std::filesystem;
using namespace obscheck;

namespace {

const fs::path kGolden = fs::path(OBSCHECK_GOLDEN_DIR) / "events";

// What a user sees on stderr after "obscheck: error: ", and the hint.
std::pair<std::string, std::string> error_text(const std::string& spec) {
  ResolveOptions o;
  o.sysfs_root = (kGolden / "sysfs").string();
  o.tracefs_root = (kGolden / "tracefs").string();
  o.kernel_levels = KernelLevels::allowed;
  // The fixture's place in this checkout is not part of the message's meaning.
  const auto relative = [&](std::string text) {
    for (const auto& [path, name] : {std::pair{o.sysfs_root, "$SYSFS"}, {o.tracefs_root, "$TRACEFS"}})
      for (std::size_t at; (at = text.find(path)) != std::string::npos;) text.replace(at, path.size(), name);
    return text;
  };
  try {
    parse_events(spec, o);
  } catch (const EventSyntaxError& e) {
    return {relative(format_event_error(e)), relative(e.hint())};
  } catch (const Error& e) {
    return {std::string("(no column) ") + relative(e.what()), relative(e.hint())};
  }
  return {"(accepted)", ""};
}

}  // namespace

TEST_CASE("malformed event lists: golden messages with the column marked", "[golden]") {
  const fs::path file = kGolden / "messages" / "errors.json";
  std::ifstream in(file);
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(in);
  const char* update = std::getenv("OBSCHECK_UPDATE_GOLDEN");
  const bool rewrite = update && std::string(update) == "1";
  for (auto& c : doc.at("cases")) {
    const std::string spec = c.at("spec").get<std::string>();
    INFO("'" << spec << "'");
    const auto [message, hint] = error_text(spec);
    if (rewrite) {
      c["message"] = message;
      c["hint"] = hint;
      continue;
    }
    CHECK(message == c.at("message").get<std::string>());
    CHECK(hint == c.at("hint").get<std::string>());
  }
  if (rewrite) {
    std::ofstream(file) << doc.dump(2) << "\n";
    WARN("rewrote " << file);
  }
  CHECK(doc.at("cases").size() == 12);
}
