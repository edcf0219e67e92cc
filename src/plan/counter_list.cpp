#include "plan/counter_list.h"

namespace obscheck {

std::string CounterList::text() const {
  std::string out;
  for (const std::string& item : items_) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace obscheck
