// observe/: the driver side of in-process counting (counters counted inside the target).
//
// The paper's set-up (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §3.3, §4.1.1): a precompiled wrapper around main,
// libobsprobe.so (probes/obsprobe_preload.c), installed with LD_PRELOAD and told what
// to count through environment variables, as PAPI_EVENTS does. The event list grows
// with the dose, so the environment does, so the initial stack moves: under the
// natural condition the layout changes with the dose; under held the environment is
// padded to one constant size (EnvBlock::pad_to) and it does not (§5.1); under sham
// the whole list is announced but only the first counter programmed.
//
// Protocol, version 1 (the library's header comment says the same):
//
//   OBSCHECK_EVENTS     announced events, ';'-separated `type:config:config1:config2:name`
//                       (encode_event_list: type decimal, configs 0x-hex, name = the
//                       user's spec text). The only variable whose size follows the dose.
//   OBSCHECK_PROGRAM    how many of them, from the first, to program: 3 digits, "001".
//   OBSCHECK_RESULT_FD  the fd number the child writes its result to: 3 digits, "003".
//   OBSCHECK_BACKEND    "perf" or "papi" (4 characters either way).
//
//   result (one write(2) of <= PIPE_BUF bytes, so it is all there or not at all):
//     obsprobe 1\n
//     event\t<name>\t<raw>\t<time_enabled>\t<time_running>\n    per programmed event
//     user-only\t<name>\n         the kernel refused kernel-level counting (EACCES);
//                                 the event was reopened with exclude_kernel
//     end\n
//   or
//     obsprobe 1\n error\t<name or ->\t<errno or PAPI code>\t<message>\n end\n
//
// What the library counts: main only (ENABLE just before, DISABLE right after; on
// exit() from inside main, up to its atexit handler). Kernel level included unless a
// user-only line says otherwise; protocol 1 carries no privilege flags, so the
// EventDesc's exclude_* bits are not passed on. Events are separate counters, never a
// group. PAPI results carry wall nanoseconds as both times (exact, scale 1).
//
// Reach: LD_PRELOAD works on dynamically linked glibc programs only. A static binary
// or a non-glibc one runs unmeasured and writes nothing; so does a target killed
// before main returns or exits, one that calls _exit, or one that exec's. The driver
// learns this from an empty pipe: parse_inprocess_result throws Error(internal).
//
// Passing the fd: the write end must reach the child as fd kInprocessResultFd and
// nothing else must hold it. make_result_pipe() returns both ends close-on-exec; the
// launcher, in the child after fork, dup2()s the write end onto kInprocessResultFd
// (dup2 clears close-on-exec on the copy; if the numbers are equal it must clear the
// flag itself) and spares that fd when it closes fds above 2. The parent closes its
// write end once the child is released, keeps the read end open until the child is
// reaped (so the library's write cannot raise EPIPE), then drain_result().
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "events/event.h"
#include "launch/launcher.h"
#include "observe/reading.h"
#include "util/fd.h"

namespace obscheck {

inline constexpr const char* kInprocessEventsVar = "OBSCHECK_EVENTS";
inline constexpr const char* kInprocessProgramVar = "OBSCHECK_PROGRAM";
inline constexpr const char* kInprocessResultFdVar = "OBSCHECK_RESULT_FD";
inline constexpr const char* kInprocessBackendVar = "OBSCHECK_BACKEND";

// The child's fd for the result: the first one after stdio. A constant, so the
// environment (and the child's fd table) is the same at every dose.
inline constexpr int kInprocessResultFd = 3;
// The library's limit (MAX_EVENTS in probes/obsprobe_preload.c).
inline constexpr std::size_t kInprocessMaxEvents = 64;
// The protocol version this driver speaks (the result's first line).
inline constexpr int kInprocessProtocol = 1;

enum class InprocessBackend { perf, papi };

// The OBSCHECK_EVENTS value for set.events[announced[0]], set.events[announced[1]], ...
// e.g. "1:0x1:0x0:0x0:task-clock;1:0x2:0x0:0x0:page-faults". Throws Error(usage) for
// an event the library cannot program (uprobes, breakpoints: their attrs hold a
// pointer or a field the entry has no room for) or whose spec holds ';', a tab or a
// newline, and Error(internal) for an index outside set.events.
std::string encode_event_list(const EventSet& set, const std::vector<std::size_t>& announced);

// Sets the four variables on env (replacing earlier values): the announced list, the
// first `programmed` of them to program, the child's result fd number, the backend.
// Natural: programmed == announced.size(); sham: 1 with the full list. Pads nothing:
// for held, call env.pad_to() afterwards. Throws Error(usage) when programmed exceeds
// the list or kInprocessMaxEvents, or result_fd is not in 0..999; else as
// encode_event_list.
void set_inprocess_env(EnvBlock& env, const EventSet& set, const std::vector<std::size_t>& announced,
                       std::size_t programmed, int result_fd = kInprocessResultFd,
                       InprocessBackend backend = InprocessBackend::perf);

struct InprocessResult {
  std::vector<Reading> readings;        // in the order programmed, names as announced
  std::vector<std::string> user_only;   // events counted at user level only
};

// Parses what the library wrote. Readings are scaled as observe/ scales every counter
// (scale_reading, counters.h). An error line throws Error(event) naming the event, the
// errno or PAPI code and the library's message. An empty text throws Error(internal)
// "no result from the in-process library: did <target> start? ..."; any other text
// that is not exactly the format above (other version, unknown line, missing end,
// bad number) throws Error(internal).
InprocessResult parse_inprocess_report(std::string_view text, std::string_view target = "the target");
std::vector<Reading> parse_inprocess_result(std::string_view text, std::string_view target = "the target");

// Checks that `readings` (from parse_inprocess_result) are exactly the programmed
// events, set.events[programmed[0]], ..., in that order (the wire carries specs), and
// renames each to its EventDesc::name, as CounterSet names external readings.
// Throws Error(internal) on any mismatch, naming what was expected and what came.
std::vector<Reading> match_inprocess_readings(std::vector<Reading> readings, const EventSet& set,
                                              const std::vector<std::size_t>& programmed);

// A pipe for the result: both ends close-on-exec (see "Passing the fd" above), the
// read end non-blocking. Throws Error(host) when pipe2 fails.
struct ResultPipe {
  UniqueFd read_end;
  UniqueFd write_end;
};
ResultPipe make_result_pipe();

// Everything already in the pipe, without blocking (call after the child is reaped:
// the library's single write is then complete or absent). read_fd must be
// non-blocking, as make_result_pipe's read end is. Throws Error(host) on a read error
// other than EAGAIN.
std::string drain_result(int read_fd);

}  // namespace obscheck
