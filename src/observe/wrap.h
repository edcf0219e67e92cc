// observe/: the profiler-command observer. The target is wrapped in the user's own
// profiler command (`perf record -F {level} -o /dev/null --`) at each level; level
// "0" runs the bare target. Nothing here goes through a shell: the template is split
// into words the way a POSIX shell splits a command line, without any expansion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "launch/launcher.h"

namespace obscheck {

// The level that means "not wrapped" (level 0 = least observation).
inline constexpr std::string_view kUnwrappedLevel = "0";

// Splits a command template into words as sh(1) would, minus every expansion:
// blanks (space, tab, newline) separate words; '...' keeps everything literally;
// "..." keeps everything but a backslash before $ ` " \ or newline (which escapes it);
// outside quotes a backslash makes the next character literal (backslash-newline
// disappears). Quotes join with adjacent text ("a"'b'c is one word, abc); '' and ""
// make an empty word. $, *, ~, {…} are ordinary characters.
// Throws Error(usage) for an unterminated quote or a trailing backslash.
std::vector<std::string> split_command_words(std::string_view templ);

// The argv that runs `target_argv` under the template at `level`.
//   - every occurrence of "{level}" in every word is replaced by `level`;
//   - a word that is exactly "{argv}" is replaced by all of target_argv (so a wrapper
//     that wants options after the target can say where it goes); without such a
//     word, target_argv is appended at the end, as `perf stat --` expects;
//   - level "0" returns target_argv unchanged (the template is still validated).
// Throws Error(usage) for an unterminated quote, an empty template, or a template
// whose first word is "{argv}" (no profiler program), and for an empty target_argv.
std::vector<std::string> wrap_command(std::string_view templ, const std::string& level,
                                      const std::vector<std::string>& target_argv);

// Throws Error(usage) unless a word of the template is "--" or "{argv}": without one
// the profiler may read the target for an argument of its own (or never run it), a
// failure otherwise found only when the first run fails.
void require_target_marker(std::string_view templ);

// `base` with its argv wrapped at `level` and `path` resolved (PATH lookup, as
// execvp) to the wrapper's program; level "0" returns `base` unchanged. Throws
// Error(target) when the profiler program cannot be found or executed, and the
// errors of wrap_command.
LaunchSpec wrap_launch(const LaunchSpec& base, std::string_view templ, const std::string& level);

// What a wrapper changes compared with the bare target, for the report's account of
// the held layout: held pads what can be padded and says what cannot.
struct WrapperAspect {
  std::string aspect;  // "argv", "environment", "process tree", "counted work"
  bool held = false;   // the held layout keeps it constant across levels
  std::string note;    // one line: what changes, and how (or why it cannot be) held
};
struct WrapperChanges {
  std::size_t extra_words = 0;   // argv words the wrapper adds in front of the target's
  std::size_t extra_bytes = 0;   // their bytes, NULs included (as the kernel copies them)
  std::string program;           // the wrapper's program (argv[0] of the wrapped command)
  std::vector<WrapperAspect> aspects;
};
// Pure. `wrapped` is what wrap_command returned for `target_argv`.
WrapperChanges describe_wrapper_changes(const std::vector<std::string>& wrapped,
                                        const std::vector<std::string>& target_argv);

// One line for a run whose wrapped command did not exit 0: the exact command, how it
// ended, and the last line of its captured output when there is one. `exit` is what
// CorkedChild::wait() returned. A profiler that fails fails every level, so the
// runner should stop the sweep with this (as Error(target_failed)) on the first
// failing wrapped run whose unwrapped runs succeed.
std::string describe_wrapper_failure(const std::vector<std::string>& wrapped, const std::string& level,
                                     const ExitInfo& exit);

// The samples a profiler says it took in its closing message, as `perf record` prints
// it ("[ perf record: Captured and wrote 0.012 MB /dev/null (213 samples) ]"); nullopt
// when the output has no such message (another profiler, or perf's output not
// captured). The last such message counts. Pure.
std::optional<std::uint64_t> profiler_reported_samples(std::string_view output);

// The sampling frequency (Hz) the template asks for at `level`: the level, when the
// template gives it as perf's frequency ("-F {level}", "-F{level}", "--freq {level}",
// "--freq={level}") and it is a whole number above 0; else nullopt (another kind of
// dose, or "max"). Throws as split_command_words.
std::optional<double> requested_frequency(std::string_view templ, const std::string& level);

// The command words joined for display, each quoted for sh when it needs quoting, so
// the user can paste it into a shell to try it by hand.
std::string quote_command(const std::vector<std::string>& words);

}  // namespace obscheck
