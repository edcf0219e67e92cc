// obscheck journals [--clean]: the journals checks keep in the user's state directory
// and the demo's directories (job/journal/journal_store.h); --clean removes them.
#include "cli/commands.h"
#include "job/journal/journal_store.h"

namespace obscheck {

int cmd_journals(const Options& o) {
  const std::vector<StoredJournal> js = o.clean ? clean_journals() : stored_journals();
  emit(o, o.json ? journals_json(js).dump(2) + "\n" : journals_text(js, o.clean));
  return 0;
}

}  // namespace obscheck
