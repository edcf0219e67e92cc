// The event grammar on arbitrary bytes: parse_events against the fixture sysfs tree
// (tests/golden/events/sysfs), so a run does not depend on the host's PMUs. Any
// outcome but an EventSet or an Error is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "events/event.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Event lists are typed by people: longer inputs only slow the search down.
  if (size > 4096) return 0;
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  obscheck::ResolveOptions opts;
  opts.sysfs_root = OBSCHECK_GOLDEN_DIR "/events/sysfs";
  try {
    (void)obscheck::parse_events(spec, opts);
  } catch (const obscheck::Error&) {
  }
  try {
    (void)obscheck::split_event_list(spec);
  } catch (const obscheck::Error&) {
  }
  return 0;
}
