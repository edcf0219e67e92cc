#include "record/plan_notes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "util/error.h"

namespace obscheck {

RetireNote retire_note(const Plan& plan, const std::vector<std::size_t>& configs, std::size_t from_block,
                       std::size_t look) {
  RetireNote note{look, from_block, {}};
  for (std::size_t c : configs) note.configs.push_back(plan.configs.at(c).id);
  return note;
}

void apply_retire_note(Plan& plan, const RetireNote& note) {
  for (const std::string& id : note.configs) {
    const auto it = std::find_if(plan.configs.begin(), plan.configs.end(),
                                 [&](const Configuration& c) { return c.id == id; });
    if (it == plan.configs.end())
      throw Error(ErrorKind::io, fmt::format("a \"retire\" note names \"{}\", not a configuration of the plan", id));
    if (runs_in(plan, it->index, note.from_block)) plan.retired.push_back({it->index, note.from_block});
  }
}

void apply_extend_note(Plan& plan, const ExtendNote& note) {
  if (plan.spec.fixed_blocks) throw Error(ErrorKind::io, "an \"extend\" note in a check of fixed blocks (--runs)");
  const std::uint64_t to = note.max_blocks;
  if (to <= plan.spec.max_blocks)
    throw Error(ErrorKind::io, fmt::format("an \"extend\" note to {} blocks does not raise the cap ({})", to,
                                           plan.spec.max_blocks));
  constexpr std::uint64_t kMaxRuns = std::numeric_limits<std::uint32_t>::max();
  if (to > kMaxRuns / plan.block_size() - plan.spec.warmup_blocks)
    throw Error(ErrorKind::io, fmt::format("an \"extend\" note to {} blocks of {} runs is beyond 2^32 runs", to,
                                           plan.block_size()));
  plan.spec.max_blocks = static_cast<std::size_t>(to);
}

void apply_plan_notes(Plan& plan, const std::vector<nlohmann::json>& notes, const std::string& path) {
  for (const nlohmann::json& note : notes) {
    const std::optional<NoteKind> kind = note_kind_of(note);
    try {
      if (kind == NoteKind::retire) apply_retire_note(plan, retire_note_from(note));
      if (kind == NoteKind::extend) apply_extend_note(plan, extend_note_from(note));
    } catch (const Error& e) {
      throw Error(ErrorKind::io, fmt::format("journal {}: {}", path, e.what()), e.hint());
    }
  }
}

}  // namespace obscheck
