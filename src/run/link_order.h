// run/: link-order variants (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2.2). The same object files linked in
// different orders give binaries whose functions sit at different addresses; each
// order is one measurement context. The link command is a user template run without
// a shell, e.g. 'cc -O2 {objects} -o {out}'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/temp_dir.h"

namespace obscheck {

// Link templates are split into words by observe/wrap.h's split_command_words
// (as sh splits plain words; no shell, no expansion).

// The link command for one order: every word that is exactly "{objects}" becomes
// the objects (one word each, in `objects` order); "{out}" inside any word becomes
// `out`. Throws Error(usage) when the template has no "{objects}" word or no "{out}".
std::vector<std::string> expand_link_command(const std::vector<std::string>& words,
                                             const std::vector<std::string>& objects,
                                             const std::string& out);

// `count` distinct permutations of 0..n-1, seeded: the first is the identity (the
// order the user gave), the others are Fisher-Yates shuffles (stats::Rng, so the
// same seed gives the same orders on every platform), redrawn when a duplicate comes
// up. Throws Error(usage) when count is 0 or more than n! orders exist.
std::vector<std::vector<std::size_t>> link_permutations(std::size_t n, std::size_t count,
                                                        std::uint64_t seed);

struct LinkSpec {
  std::string command;               // the template, e.g. "cc {objects} -o {out}"
  std::vector<std::string> objects;  // in the user's order
  std::size_t orders = 1;            // how many orders (the first is the user's)
  std::uint64_t seed = 0;
  std::string dir;                   // where the binaries go (a TempDir's path)
  double timeout_s = 300;            // a link that hangs is killed and reported
};

struct LinkVariant {
  std::size_t order = 0;                 // 0-based; 0 is the user's order
  std::vector<std::size_t> permutation;  // indexes into LinkSpec::objects
  std::vector<std::string> objects;      // the objects in link order
  std::vector<std::string> command;      // the exact argv that was run
  std::string binary;                    // dir/order-N
  std::string sha256;                    // of the binary (empty when the link failed)
  std::string failure;                   // empty: linked; else what went wrong + linker output tail
  bool ok() const { return failure.empty(); }
};

// Links every order into spec.dir. A failing link (non-zero exit, signal, timeout,
// command not found) fails only its own variant, with the command and the last lines
// the linker printed; the others go on. Throws Error(usage) for a bad template.
std::vector<LinkVariant> build_link_variants(const LinkSpec& spec);

// The last `max_lines` lines of `text` (for linker diagnostics).
std::string tail_lines(const std::string& text, std::size_t max_lines);

}  // namespace obscheck
