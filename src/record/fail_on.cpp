#include "record/fail_on.h"

#include <algorithm>
#include <iterator>

#include "util/error.h"
#include "util/words.h"

namespace obscheck {
namespace {

// FindingKind's words, in its order.
constexpr std::string_view kOutcomeWords[] = {"perturbed", "layout", "incomparable", "inconclusive", "worse",
                                              "better",    "aa",     "bias",         "failed",       "none"};

}  // namespace

std::string_view to_string(FindingKind o) {
  return kOutcomeWords[static_cast<std::size_t>(o)];
}

std::optional<FindingKind> outcome_named(std::string_view word) {
  for (std::size_t i = 0; i < std::size(kOutcomeWords); ++i)
    if (word == kOutcomeWords[i]) return static_cast<FindingKind>(i);
  return std::nullopt;
}

std::vector<std::string> FailOn::words() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < std::size(kOutcomeWords); ++i)
    if (has(static_cast<FindingKind>(i))) out.emplace_back(kOutcomeWords[i]);
  return out;
}

FailOn fail_on_outcomes(FailOnOf command, const std::vector<std::string>& words) {
  using O = FindingKind;
  const std::vector<FindingKind> known = command == FailOnOf::compare ? std::vector{O::worse, O::better, O::incomparable, O::aa, O::none}
                                     : command == FailOnOf::bias ? std::vector{O::bias, O::failed, O::incomparable, O::none}
                                     : std::vector{O::perturbed, O::layout, O::incomparable, O::inconclusive, O::none};
  FailOn outcomes;
  for (const std::string& word : words) {
    const std::optional<FindingKind> o = outcome_named(word);
    if (!o || std::find(known.begin(), known.end(), *o) == known.end()) {
      std::string accepted;
      for (const FindingKind k : known) accepted += (accepted.empty() ? "" : ", ") + std::string(to_string(k));
      throw Error(ErrorKind::usage, "--fail-on: '" + word + "' is not an outcome of this command",
                  "one or more of " + accepted);
    }
    outcomes.add(*o);
  }
  if (outcomes.empty()) throw Error(ErrorKind::usage, "--fail-on is empty", "name an outcome, or none");
  return outcomes;
}

FailOn fail_on_outcomes(FailOnOf command, const std::string& list) {
  return fail_on_outcomes(command, split_commas(list));
}

}  // namespace obscheck
