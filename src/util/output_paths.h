// util/: the files a command will write, checked before it runs anything.
//
// Two mistakes cost the results of a whole check, so both are refused before the
// first run, with nothing written:
//   - an output (-o, --html, --json's -o, --export-json, --export-csv) that names an
//     input (the journal being written or resumed, the journal being reported, the
//     plan): the report would replace the runs it reports. The same file is found by
//     st_dev/st_ino when both exist, else by the resolved directory and name (the
//     output's last component is not followed: a link there is replaced, not written
//     through, util/safe_write.h). Error(usage), exit 2.
//   - an output that cannot be written: its directory missing or not a directory, the
//     output itself a directory, the directory not writable (a read-only filesystem
//     included). Error(io), exit 6. What may change while the check runs (a full disk)
//     is still found only when the report is written.
#pragma once

#include <string>
#include <vector>

namespace obscheck {

// A file named on the command line, with the option that names it.
struct NamedPath {
  std::string option;  // "-o", "--journal", "the journal", ...
  std::string path;
};

// Throws as above; does nothing when `outputs` is empty. `inputs`: the files the
// command reads or appends to (journals, plans).
void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// A profiler command (--observer-cmd) writes files of its own, by the paths in its
// words (`perf record -o J --`): one that names the journal or an output would replace
// it at every run, behind obscheck's back (perf renames the old file aside). Throws
// Error(usage), before anything runs, when a word of `words` names one of `files` by
// resolved path, as an output is compared with an input above: the word itself, the
// value of a `--name=VALUE` word, or what follows a one-letter option (`-oJ`). A
// character device among `files` is left out (both writing into /dev/null loses
// nothing). `option` names the command in the message.
void check_command_words(const std::string& option, const std::vector<std::string>& words,
                         const std::vector<NamedPath>& files);

}  // namespace obscheck
