// The plan loader on arbitrary bytes: a manifest's "plan" through plan_from_json, and
// the plan's schedule of a plan that loads. Any outcome but a plan or an Error is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "record/plan_json.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return 0;
  for (const nlohmann::json* p : {&j, j.is_object() && j.contains("plan") ? &j.at("plan") : nullptr}) {
    if (!p) continue;
    try {
      const obscheck::Plan plan = obscheck::plan_from_json(*p);
      (void)obscheck::plan_looks(plan);
      (void)obscheck::trials(plan, 0, 2);
      (void)obscheck::plan_to_json(plan);
    } catch (const obscheck::Error&) {
    }
  }
  return 0;
}
