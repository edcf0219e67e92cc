#include "analysis/findings.h"

#include <array>
#include <string>

#include "util/error.h"

namespace obscheck {
namespace {

struct VerdictName {
  Verdict verdict;
  std::string_view text;
  std::string_view key;
};

constexpr std::array<VerdictName, 5> kVerdictNames{{
    {Verdict::perturbed, "perturbed by the measurement", "perturbed"},
    {Verdict::explained_by_layout, "explained by layout", "layout"},
    {Verdict::not_perturbed, "not perturbed (within ±ε)", "not-perturbed"},
    {Verdict::incomparable, "incomparable", "incomparable"},
    {Verdict::inconclusive, "inconclusive", "inconclusive"},
}};

const VerdictName& name_of(Verdict v) {
  for (const VerdictName& n : kVerdictNames)
    if (n.verdict == v) return n;
  throw Error(ErrorKind::internal, "verdict out of range: " + std::to_string(static_cast<int>(v)));
}

}  // namespace

std::string_view verdict_text(Verdict v) { return name_of(v).text; }

std::string_view verdict_key(Verdict v) { return name_of(v).key; }

Verdict verdict_from_key(std::string_view key) {
  for (const VerdictName& n : kVerdictNames)
    if (n.key == key) return n.verdict;
  throw Error(ErrorKind::io, "unknown verdict \"" + std::string(key) + "\"",
              "expected one of: perturbed, layout, not-perturbed, incomparable, inconclusive");
}

}  // namespace obscheck
