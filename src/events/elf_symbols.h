// events/: symbols of an ELF file, for uprobes (file offsets) and hardware breakpoints
// (runtime addresses). Reused by observe/ for the software-probe observer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

struct ElfSymbol {
  std::string name;
  std::uint64_t value = 0;        // st_value: the link-time virtual address
  std::uint64_t file_offset = 0;  // where those bytes live in the file (uprobe offset)
  std::uint64_t size = 0;         // st_size (0 when the toolchain did not record it)
  unsigned type = 0;              // STT_FUNC, STT_OBJECT, STT_GNU_IFUNC, ...
};

// The defined symbols of one ELF file (.symtab, plus .dynsym entries .symtab lacks).
class ElfSymbols {
 public:
  // Throws Error(target) if the file cannot be opened or is not an ELF object.
  static ElfSymbols load(const std::string& path);

  const std::string& path() const { return path_; }
  bool is_pie() const { return is_dyn_; }       // ET_DYN: loaded at a base chosen by the kernel
  bool has_symtab() const { return has_symtab_; }  // false for a stripped binary

  std::optional<ElfSymbol> find(std::string_view name) const;

  // Like find, but throws Error(event): for a stripped file (no .symtab and the name
  // not in .dynsym) it says so; otherwise it names the file and suggests the closest
  // function name.
  ElfSymbol resolve(std::string_view name) const;

  // Function symbols (STT_FUNC, STT_GNU_IFUNC) with a non-zero address, sorted by
  // name, each name once.
  std::vector<ElfSymbol> functions() const;

 private:
  std::string path_;
  bool is_dyn_ = false;
  bool has_symtab_ = false;
  std::vector<ElfSymbol> symbols_;  // sorted by name, unique names
};

// Resolves a program name the way execvp(3) does: a name with a slash is taken as is,
// otherwise each $PATH entry is tried for an executable regular file. Returns an
// absolute, normalised path. Throws Error(target) when nothing is found.
std::string resolve_program_path(std::string_view program);

}  // namespace obscheck
