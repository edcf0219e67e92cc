#include "events/elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "events/did_you_mean.h"
#include "util/error.h"
#include "util/fd.h"

namespace obscheck {
namespace {

struct ElfHandle {
  Elf* elf = nullptr;
  explicit ElfHandle(Elf* e) : elf(e) {}
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
  ~ElfHandle() {
    if (elf) elf_end(elf);
  }
};

struct LoadSegment {
  std::uint64_t vaddr, memsz, offset;
};

std::vector<LoadSegment> load_segments(Elf* elf) {
  std::size_t n = 0;
  std::vector<LoadSegment> segs;
  if (elf_getphdrnum(elf, &n) != 0) return segs;
  for (std::size_t i = 0; i < n; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD)
      segs.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset});
  }
  return segs;
}

// offset = st_value - p_vaddr + p_offset of the PT_LOAD segment that contains it.
std::optional<std::uint64_t> file_offset_of(const std::vector<LoadSegment>& segs,
                                            std::uint64_t vaddr) {
  for (const auto& s : segs)
    if (vaddr >= s.vaddr && vaddr < s.vaddr + s.memsz) return vaddr - s.vaddr + s.offset;
  return std::nullopt;
}

// Reads one symbol table section; returns false if `want` is absent.
bool read_table(Elf* elf, Elf64_Word want, const std::vector<LoadSegment>& segs,
                std::vector<ElfSymbol>& out) {
  bool found = false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || sh.sh_entsize == 0) continue;
    found = true;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    const std::size_t count = sh.sh_size / sh.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (!name || !*name) continue;
      ElfSymbol s;
      s.name = name;
      s.value = sym.st_value;
      s.size = sym.st_size;
      s.type = GELF_ST_TYPE(sym.st_info);
      s.file_offset = file_offset_of(segs, sym.st_value).value_or(0);
      out.push_back(std::move(s));
    }
  }
  return found;
}

bool is_function(const ElfSymbol& s) { return s.type == STT_FUNC || s.type == STT_GNU_IFUNC; }

}  // namespace

ElfSymbols ElfSymbols::load(const std::string& path) {
  if (elf_version(EV_CURRENT) == EV_NONE)
    throw Error(ErrorKind::internal, fmt::format("libelf: {}", elf_errmsg(-1)));
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd)
    throw Error(ErrorKind::target, fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  ElfHandle h(elf_begin(fd.get(), ELF_C_READ, nullptr));
  GElf_Ehdr eh;
  if (!h.elf || elf_kind(h.elf) != ELF_K_ELF || !gelf_getehdr(h.elf, &eh))
    throw Error(ErrorKind::target, fmt::format("'{}' is not an ELF file", path));

  ElfSymbols out;
  out.path_ = path;
  out.is_dyn_ = eh.e_type == ET_DYN;
  const auto segs = load_segments(h.elf);
  std::vector<ElfSymbol> all;
  out.has_symtab_ = read_table(h.elf, SHT_SYMTAB, segs, all);
  read_table(h.elf, SHT_DYNSYM, segs, all);
  // .symtab entries come first, so a stable sort + unique keeps them over .dynsym's;
  // among duplicates (local statics of the same name) the first one read wins.
  std::stable_sort(all.begin(), all.end(),
                   [](const ElfSymbol& a, const ElfSymbol& b) { return a.name < b.name; });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const ElfSymbol& a, const ElfSymbol& b) { return a.name == b.name; }),
            all.end());
  out.symbols_ = std::move(all);
  return out;
}

std::optional<ElfSymbol> ElfSymbols::find(std::string_view name) const {
  auto it = std::lower_bound(symbols_.begin(), symbols_.end(), name,
                             [](const ElfSymbol& s, std::string_view n) { return s.name < n; });
  if (it == symbols_.end() || it->name != name) return std::nullopt;
  return *it;
}

ElfSymbol ElfSymbols::resolve(std::string_view name) const {
  if (auto s = find(name)) return *s;
  if (!has_symtab_)
    throw Error(ErrorKind::event,
                fmt::format("'{}' is stripped (no .symtab) and '{}' is not in its .dynsym", path_,
                            name),
                "rebuild the program without stripping it (keep -g or at least the symbol table)");
  std::vector<std::string> names;
  for (const auto& f : functions()) names.push_back(f.name);
  throw Error(ErrorKind::event,
              fmt::format("no symbol '{}' in '{}'{}", name, path_, did_you_mean_suffix(name, names)),
              fmt::format("list its functions with: nm --defined-only {}", path_));
}

std::vector<ElfSymbol> ElfSymbols::functions() const {
  std::vector<ElfSymbol> out;
  std::copy_if(symbols_.begin(), symbols_.end(), std::back_inserter(out), is_function);
  return out;
}

std::string resolve_program_path(std::string_view program) {
  namespace fs = std::filesystem;
  auto executable = [](const fs::path& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.empty()) throw Error(ErrorKind::target, "empty program name");
  if (program.find('/') != std::string_view::npos) {
    fs::path p = fs::absolute(fs::path(program)).lexically_normal();
    if (!fs::exists(p)) throw Error(ErrorKind::target, fmt::format("'{}' does not exist", program));
    return p.string();
  }
  const char* env = std::getenv("PATH");
  // execvp's default search path when PATH is unset (glibc: confstr _CS_PATH).
  std::string_view path = env ? env : "/bin:/usr/bin";
  while (true) {
    const auto colon = path.find(':');
    std::string_view dir = path.substr(0, colon);
    fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / std::string(program);
    if (executable(candidate)) return fs::absolute(candidate).lexically_normal().string();
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  throw Error(ErrorKind::target, fmt::format("'{}' not found in $PATH", program));
}

}  // namespace obscheck
