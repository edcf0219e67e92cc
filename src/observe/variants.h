// observe/: the compile-time-probe observer (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.1.2, Figures 4–5). One build
// of the target per dose: dose k compiles in probe sites 0..k-1 of probes/obsprobe.h
// (OBS_PROBES = the mask with the first k bits set), from the user's build template,
// e.g.  cc -O2 -DOBS_PROBES={mask} prog.c -o {out}
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

// obsprobe.h's OBS_PROBE_MAX: ids 0..63, one bit each of a 64-bit mask.
inline constexpr int kMaxProbeSites = 64;

// The file in out_dir recording how each variant was built (the rebuild cache).
inline constexpr std::string_view kVariantManifest = "variants.json";

struct BuildVariant {
  int dose = 0;                       // probe sites compiled in: 0..max_sites
  std::uint64_t mask = 0;             // the OBS_PROBES value: the first `dose` bits set
  std::string path;                   // the built executable (absolute)
  std::string digest;                 // sha256 of it
  std::vector<std::string> command;   // the exact build command (words, no shell)
  bool cached = false;                // reused from an earlier identical build
};

// The OBS_PROBES mask of dose k: bits 0..k-1 set. Throws Error(usage) outside 0..64.
std::uint64_t probe_mask_for_dose(int k);

// Builds variants for doses 0..max_sites, in dose order. In every word of the
// template "{mask}" becomes the mask in decimal and "{out}" the variant's path,
// <out_dir>/variant-<k> (absolute; out_dir is created). The template is split into
// words as observe/wrap.h's split_command_words does and run without a shell, in the
// current directory, with this process's environment; its stdout and stderr are
// captured.
//
// Cache: a variant is not rebuilt when its output exists with the digest recorded in
// <out_dir>/variants.json, the command is identical, and every file the command names
// (each word that is an existing regular file other than the output, e.g. prog.c) has
// the content recorded then. Headers a source includes are not tracked: pass
// rebuild = true (or delete out_dir) after editing one.
//
// Throws Error(usage) when the template lacks {mask} or {out}, is empty or has an
// unterminated quote, or max_sites is outside 0..64; Error(target) when the build
// program cannot be found, or a build fails (exits non-zero, is killed) or does not
// produce {out} — the message gives the exact command and the hint the last lines of
// the build's output; Error(io) when out_dir cannot be created or the manifest written.
std::vector<BuildVariant> build_variants(std::string_view build_template, int max_sites,
                                         const std::string& out_dir, bool rebuild = false);

// The counts written by a program built with obsprobe.h when OBSCHECK_PROBE_DUMP_FD
// is set (format in probes/obsprobe.h).
struct ProbeCounts {
  std::uint64_t mask = 0;
  std::map<int, std::uint64_t> counts;  // id -> executions, one entry per id compiled in
  std::uint64_t total() const;
};
// Throws Error(target) when `text` holds no "obsprobe mask=" line (the program was not
// built with obsprobe.h, or exited without running its exit hooks) or a malformed one.
ProbeCounts parse_probe_dump(std::string_view text);

// The environment variable obsprobe.h reads.
inline constexpr std::string_view kProbeDumpFdEnv = "OBSCHECK_PROBE_DUMP_FD";

}  // namespace obscheck
