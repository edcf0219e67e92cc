// The observer's knobs and lists as a manifest's "options.observer" records them, read
// back with the parsers the command line uses (plan/observer.h), without its kind. Kept
// apart from record/request.h so that the journal reader, which checks them as it reads
// a manifest, needs only plan/'s parsers and not the table of observer kinds.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "plan/observer.h"

namespace obscheck {

// The knobs and typed lists of an "options.observer" object; its kind is left as
// counters (record/request.cpp sets it from the table of kinds). Throws Error(io) naming
// the field of a list its parser refuses, nlohmann::json::exception on a wrong type.
ObserverRequest observer_lists_from_json(const nlohmann::json& j);

// What is wrong with a manifest's "options" object's observer (a list its reader
// refuses, "field options.observer.sample_freq is malformed: ..."), or "": the journal
// reader names it with the file and line (record/journal_reader.cpp).
std::string observer_problem(const nlohmann::json& options);

}  // namespace obscheck
