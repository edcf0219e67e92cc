#include "record/observer_lists.h"

#include <fmt/core.h>

#include "util/error.h"

namespace obscheck {
namespace {

// The text of `key`, read by `read` once into the request; a value it refuses (a
// damaged journal) is an Error(io) naming the field.
template <class Read>
void read_field(const nlohmann::json& j, const char* key, Read read) {
  const std::string text = j.value(key, "");
  if (text.empty()) return;
  try {
    read(text);
  } catch (const Error& e) {
    throw Error(ErrorKind::io, fmt::format("field options.observer.{} is malformed: {}", key, e.what()));
  }
}

}  // namespace

ObserverRequest observer_lists_from_json(const nlohmann::json& j) {
  ObserverRequest o;
  o.sample_event = j.value("sample_event", "");
  o.command = j.value("observer_cmd", "");
  o.build = j.value("build", "");
  o.probe_sites = j.value("probe_sites", 8);
  const bool uprobes = !j.value("probes", "").empty();
  read_field(j, uprobes ? "probes" : "breakpoints",
             [&](const std::string& t) { read_symbols(uprobes ? "probes" : "breakpoints", t, o); });
  read_field(j, "sample_freq", [&](const std::string& t) { o.frequencies = read_frequencies(t); });
  read_field(j, "levels", [&](const std::string& t) { o.levels = read_levels(t); });
  return o;
}

std::string observer_problem(const nlohmann::json& options) {
  if (!options.contains("observer")) return "";
  try {
    observer_lists_from_json(options.at("observer"));
    return "";
  } catch (const nlohmann::json::exception&) {
    return "field options.observer has the wrong type";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace obscheck
