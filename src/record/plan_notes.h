// record/: the plan's own notes, "retire" and "extend" (record/journal_notes.h RetireNote,
// ExtendNote), made from a plan and applied to one. A note reaches these functions
// typed: a journal's note lines were decoded and checked when read (journal_reader.cpp),
// so nothing here looks into JSON but apply_plan_notes, which decodes each note of the
// two kinds by its kind (journal_notes.h note_kind_of), never by comparing a word.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "record/journal_notes.h"

namespace obscheck {

// The note retiring `configs` (indexes into plan.configs) from block `from_block` on,
// at look `look`: its configurations by id.
RetireNote retire_note(const Plan& plan, const std::vector<std::size_t>& configs, std::size_t from_block,
                       std::size_t look);
// Adds a "retire" note's retirements to plan.retired (a configuration already retired
// keeps its earlier block). Throws Error(io) when the note names a configuration the
// plan does not have.
void apply_retire_note(Plan& plan, const RetireNote& note);
// Raises plan.spec.max_blocks to the note's, written when --resume continues a check
// that stopped at its cap (--max-runs). The blocks already run keep their order (it
// depends on the seed and the block alone), so the journal's runs stay where the plan
// puts them. Throws Error(io) when the note does not raise the cap, would pass 2^32
// runs, or the plan has fixed blocks.
void apply_extend_note(Plan& plan, const ExtendNote& note);
// Applies the "retire" and "extend" notes among a journal's `notes` to `plan`, in
// order; errors (a note of either kind that does not decode, or does not apply) are
// Error(io) naming the journal `path`.
void apply_plan_notes(Plan& plan, const std::vector<nlohmann::json>& notes, const std::string& path);

}  // namespace obscheck
