// record/: a plan as the journal's manifest and a plan file hold it, and back. The
// one encoder and the one decoder of PlanSpec and of each level's knob (plan/levels.h
// LevelKnob, the level's "extra" object): the bytes are those plan/ wrote before the
// knob was typed, so every journal reads as it did.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "plan/levels.h"
#include "plan/plan.h"

namespace obscheck {

// The spec and, for readers, the expanded configurations.
nlohmann::json plan_to_json(const Plan& plan);
// Rebuilds the plan from its spec. Throws Error(io) when a field is missing or has the
// wrong type (a level's knob included: "plan level 2 extra: field 'freq' ..."), when
// "observer" names no observer and no other plan's kind (PlanSpec::name), or when the
// recorded configurations differ from the rebuilt ones (a journal written by an
// incompatible planner). The journal's readers put its file and line before the message.
Plan plan_from_json(const nlohmann::json& j);

// A level's knob as its "extra" object: {} for none, {"probes": k}, {"freq": hz},
// {"wrap": word}, {"variant": i, "sha256": digest}, {"context": c, "variant": v}.
nlohmann::json level_knob_to_json(const LevelKnob& knob);
// The knob the object `extra` names, by its keys, as level_knob_to_json writes it.
// Throws Error(io) naming `where` and the field for a value of the wrong type, and for
// keys that name no knob.
LevelKnob level_knob_from_json(const nlohmann::json& extra, const std::string& where);

}  // namespace obscheck
