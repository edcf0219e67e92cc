// record/: the outcomes --fail-on names, as a journal records them (a sweep's brief
// holds its --fail-on, report/sweep_brief.h), and the one check of a list of them
// against the outcomes a command produces. The command line's defaults and --ci's gate
// are job/'s (job/common/request_bounds.h default_fail_on, ci_fail_on).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

// An outcome --fail-on may name: the check's verdicts, bias's and compare's findings,
// and "none", which names none of them.
enum class FindingKind { perturbed, layout, incomparable, inconclusive, worse, better, aa, bias, failed, none };
std::string_view to_string(FindingKind o);
// The outcome `word` names (a verdict key, "worse", "bias", ...), if any.
std::optional<FindingKind> outcome_named(std::string_view word);

// --fail-on's outcomes, a set (empty: the command's default).
class FailOn {
 public:
  FailOn() = default;
  FailOn(std::initializer_list<FindingKind> outcomes) {
    for (FindingKind o : outcomes) add(o);
  }
  void add(FindingKind o) { bits_ |= bit(o); }
  bool has(FindingKind o) const { return (bits_ & bit(o)) != 0; }
  bool empty() const { return bits_ == 0; }
  // Its outcomes' words, in FindingKind's order: as a journal records them.
  std::vector<std::string> words() const;
  bool operator==(const FailOn&) const = default;

 private:
  static std::uint32_t bit(FindingKind o) { return 1u << static_cast<unsigned>(o); }
  std::uint32_t bits_ = 0;
};

// The command whose outcomes --fail-on names.
enum class FailOnOf { check, bias, compare };
// --fail-on LIST as its outcomes (also a journal's words); Error(usage) for an outcome
// the command does not produce, or a list without one ("none" is one).
FailOn fail_on_outcomes(FailOnOf command, const std::string& list);
FailOn fail_on_outcomes(FailOnOf command, const std::vector<std::string>& words);

}  // namespace obscheck
