#include "tools/twinfab/program_arena.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "fabric/error.hpp"

// libgcc's unwinder (libgcc_s.so.1, GCC_3.0): registers eh_frame sections that no
// loaded object's program headers describe. The table form takes a null-terminated
// array of eh_frame section starts and makes them one object, searched by binary
// search: one registration per copy would be a list the unwinder walks linearly.
extern "C" void __register_frame_table(void* begin);

extern char** environ;

namespace twinfab::tools {
namespace {

using fabric::Error;
using fabric::Status;

constexpr std::uint8_t kPcrelSdata4 = 0x1b;  // DW_EH_PE_pcrel | DW_EH_PE_sdata4

/// What the copies need from the program's file: its segments' layout, its dynamic
/// relocations, constructors and unwind table header.
struct ProgramLayout {
  std::uintptr_t lo = 0;  ///< the first page of the loadable segments
  std::uintptr_t hi = 0;  ///< the end of their last page
  std::size_t align = 0;  ///< the largest segment alignment
  std::vector<Elf64_Phdr> loads;
  /// The address ranges a copy's code and data use, sorted and disjoint ([first,
  /// second)): the allocated sections but those only ld.so reads (headers, symbol and
  /// version tables, relocations, notes), or the whole segments when the file has no
  /// section headers. Only these are copied, so copies can interleave.
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> live;
  std::size_t live_align = 0;  ///< what a copy's base must be a multiple of
  std::vector<Elf64_Rela> relocations;
  std::uintptr_t init = 0;  ///< DT_INIT (0: none)
  std::uintptr_t init_array = 0;
  std::size_t init_count = 0;
  std::uintptr_t fini = 0;  ///< DT_FINI (0: none)
  std::uintptr_t fini_array = 0;
  std::size_t fini_count = 0;
  std::uintptr_t eh_frame_hdr = 0;  ///< PT_GNU_EH_FRAME's address (0: none)
  std::uintptr_t eh_frame = 0;      ///< the .eh_frame section its header points to
};

std::uintptr_t page_size() { return static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)); }

[[noreturn]] void refuse(const std::string& program, const std::string& why) {
  throw Error(Status::InvalidArgument,
              fmt::format("'{}' cannot be copied into the shared program mapping: {}; run it with "
                          "--privatization dlopen (one mapping per copy: fewer ranks fit under vm.max_map_count)",
                          program, why));
}

using Ranges = std::vector<std::pair<std::uintptr_t, std::uintptr_t>>;

/// `ranges` sorted, with those closer than `gap` bytes merged.
Ranges merged(Ranges ranges, std::uintptr_t gap) {
  std::sort(ranges.begin(), ranges.end());
  Ranges out;
  for (const auto& r : ranges) {
    if (!out.empty() && r.first <= out.back().second + gap)
      out.back().second = std::max(out.back().second, r.second);
    else
      out.push_back(r);
  }
  return out;
}

/// The live ranges from the section headers, and their largest alignment (at least a
/// cache line); false when the file has no usable section headers.
bool live_from_sections(const std::vector<char>& image, const Elf64_Ehdr& header, ProgramLayout& layout) {
  if (header.e_shoff == 0 || header.e_shnum == 0 || header.e_shentsize != sizeof(Elf64_Shdr) ||
      header.e_shoff > image.size() ||
      std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr) > image.size() - header.e_shoff)
    return false;
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  std::memcpy(sections.data(), image.data() + header.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  const Elf64_Shdr* names = header.e_shstrndx < sections.size() ? &sections[header.e_shstrndx] : nullptr;
  auto name_of = [&](const Elf64_Shdr& sh) -> std::string_view {
    if (names == nullptr || names->sh_offset > image.size() || sh.sh_name >= names->sh_size ||
        names->sh_size > image.size() - names->sh_offset)
      return {};
    const char* text = image.data() + names->sh_offset + sh.sh_name;
    return {text, strnlen(text, names->sh_size - sh.sh_name)};
  };
  Ranges live;
  std::size_t align = 64;
  for (const Elf64_Shdr& sh : sections) {
    if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0) continue;
    switch (sh.sh_type) {
      case SHT_NOTE:
      case SHT_HASH:
      case SHT_GNU_HASH:
      case SHT_DYNSYM:
      case SHT_GNU_versym:
      case SHT_GNU_verneed:
      case SHT_GNU_verdef:
      case SHT_RELA:
      case SHT_REL:
      case SHT_RELR:
        continue;  // read by ld.so in the first copy only
      default:
        break;
    }
    const std::string_view name = name_of(sh);
    if (name == ".interp" || name == ".dynstr") continue;
    if (sh.sh_addr < layout.lo || sh.sh_addr > layout.hi || sh.sh_size > layout.hi - sh.sh_addr) return false;
    live.emplace_back(sh.sh_addr, sh.sh_addr + sh.sh_size);
    align = std::max<std::size_t>(align, sh.sh_addralign);
  }
  if (live.empty() || align > layout.align || (align & (align - 1)) != 0) return false;
  layout.live = merged(std::move(live), align);
  layout.live_align = align;
  return true;
}

/// Whether `addr`..`addr + bytes` lies in one of `layout`'s live ranges.
bool is_live(const ProgramLayout& layout, std::uintptr_t addr, std::size_t bytes) {
  return std::any_of(layout.live.begin(), layout.live.end(),
                     [&](const auto& r) { return addr >= r.first && addr <= r.second && bytes <= r.second - addr; });
}

/// Whether the unwind entries at `eh_frame` end with their zero terminator inside the
/// live range that holds them: the unwinder reads a registered table up to it, and
/// past a copy's ranges lie its neighbours' bytes.
bool eh_frame_ends_in_range(const std::vector<char>& image, const ProgramLayout& layout) {
  auto range = std::find_if(layout.live.begin(), layout.live.end(),
                            [&](const auto& r) { return layout.eh_frame >= r.first && layout.eh_frame < r.second; });
  if (range == layout.live.end()) return false;
  for (const Elf64_Phdr& ph : layout.loads) {
    if (layout.eh_frame < ph.p_vaddr || layout.eh_frame >= ph.p_vaddr + ph.p_filesz) continue;
    const std::uintptr_t end = std::min<std::uintptr_t>(range->second, ph.p_vaddr + ph.p_filesz);
    for (std::uintptr_t at = layout.eh_frame; at + 4 <= end;) {
      std::uint32_t length = 0;
      std::memcpy(&length, image.data() + ph.p_offset + (at - ph.p_vaddr), sizeof length);
      if (length == 0) return true;
      if (length == 0xffffffffu) return false;  // 64-bit lengths: not what GCC emits
      at += 4 + std::uintptr_t{length};
    }
    return false;
  }
  return false;
}

/// The smallest multiple of `align` at which copies of `ranges` can follow one another
/// without any two overlapping: taken modulo the stride, the ranges must not meet.
std::size_t interleave_stride(const Ranges& ranges, std::size_t align, std::size_t most) {
  std::size_t total = 0;
  for (const auto& r : ranges) total += r.second - r.first;
  for (std::size_t stride = (total + align - 1) / align * align; stride < most; stride += align) {
    Ranges folded;  // [start mod stride, + length)
    for (const auto& r : ranges) folded.emplace_back(r.first % stride, r.first % stride + (r.second - r.first));
    std::sort(folded.begin(), folded.end());
    bool fits = folded.back().second <= folded.front().first + stride;  // the last wraps onto the first
    for (std::size_t k = 1; fits && k < folded.size(); ++k) fits = folded[k].first >= folded[k - 1].second;
    if (fits) return stride;
  }
  return most;
}

ProgramLayout read_layout(const std::vector<char>& image, const std::string& program) {
  ProgramLayout layout;
  auto fits = [&](std::uint64_t offset, std::uint64_t size) {
    return offset <= image.size() && size <= image.size() - offset;
  };
  Elf64_Ehdr header;
  std::memcpy(&header, image.data(), sizeof header);  // checked by load_and_unmark_pie
  std::vector<Elf64_Phdr> phdrs(header.e_phnum);
  std::memcpy(phdrs.data(), image.data() + header.e_phoff, phdrs.size() * sizeof(Elf64_Phdr));
  const std::uintptr_t page = page_size();
  layout.lo = UINTPTR_MAX;
  layout.align = page;
  const Elf64_Phdr* dynamic = nullptr;
  for (const Elf64_Phdr& ph : phdrs) {
    if (ph.p_type == PT_TLS) refuse(program, "it has thread-local variables (a PT_TLS segment)");
    if (ph.p_type == PT_DYNAMIC) dynamic = &ph;
    if (ph.p_type == PT_GNU_EH_FRAME) layout.eh_frame_hdr = ph.p_vaddr;
    if (ph.p_type != PT_LOAD) continue;
    if (!fits(ph.p_offset, ph.p_filesz) || ph.p_filesz > ph.p_memsz)
      refuse(program, "a loadable segment lies outside the file");
    layout.loads.push_back(ph);
    layout.align = std::max<std::size_t>(layout.align, ph.p_align);
    layout.lo = std::min<std::uintptr_t>(layout.lo, ph.p_vaddr & ~(page - 1));
    layout.hi = std::max<std::uintptr_t>(layout.hi, (ph.p_vaddr + ph.p_memsz + page - 1) & ~(page - 1));
  }
  if (layout.loads.empty() || dynamic == nullptr) refuse(program, "it has no loadable segments or no dynamic section");
  if (layout.align > (std::size_t{1} << 21)) refuse(program, fmt::format("segment alignment {:#x}", layout.align));

  // The dynamic section, read from the file (the loaded one has addresses ld.so moved).
  std::uint64_t rela = 0, rela_size = 0, jmprel = 0, plt_size = 0, plt_kind = DT_RELA, init_array_size = 0,
                fini_array_size = 0;
  for (std::uint64_t off = dynamic->p_offset; off + sizeof(Elf64_Dyn) <= dynamic->p_offset + dynamic->p_filesz;
       off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    std::memcpy(&d, image.data() + off, sizeof d);
    if (d.d_tag == DT_NULL) break;
    switch (d.d_tag) {
      case DT_RELA: rela = d.d_un.d_ptr; break;
      case DT_RELASZ: rela_size = d.d_un.d_val; break;
      case DT_JMPREL: jmprel = d.d_un.d_ptr; break;
      case DT_PLTRELSZ: plt_size = d.d_un.d_val; break;
      case DT_PLTREL: plt_kind = d.d_un.d_val; break;
      case DT_INIT: layout.init = d.d_un.d_ptr; break;
      case DT_INIT_ARRAY: layout.init_array = d.d_un.d_ptr; break;
      case DT_INIT_ARRAYSZ: init_array_size = d.d_un.d_val; break;
      case DT_FINI: layout.fini = d.d_un.d_ptr; break;
      case DT_FINI_ARRAY: layout.fini_array = d.d_un.d_ptr; break;
      case DT_FINI_ARRAYSZ: fini_array_size = d.d_un.d_val; break;
      case DT_TEXTREL: refuse(program, "its code has relocations (DT_TEXTREL: an object not built with -fPIC)");
      case DT_FLAGS:
        if (d.d_un.d_val & DF_TEXTREL) refuse(program, "its code has relocations (DF_TEXTREL)");
        break;
      case DT_REL:
      case DT_RELR: refuse(program, "it has REL or RELR relocations (x86-64 programs use RELA)");
      case DT_PREINIT_ARRAY: refuse(program, "it has a DT_PREINIT_ARRAY");
      default: break;
    }
  }
  if (plt_kind != DT_RELA) refuse(program, "its PLT relocations are not RELA");
  layout.init_count = init_array_size / sizeof(void*);
  layout.fini_count = fini_array_size / sizeof(void*);
  // What the copies will read or call must lie inside their segments.
  auto inside = [&](std::uint64_t vaddr, std::uint64_t bytes) {
    return vaddr >= layout.lo && vaddr <= layout.hi && bytes <= layout.hi - vaddr;
  };
  if ((layout.init != 0 && !inside(layout.init, 1)) || (layout.fini != 0 && !inside(layout.fini, 1)) ||
      (layout.init_count != 0 && !inside(layout.init_array, init_array_size)) ||
      (layout.fini_count != 0 && !inside(layout.fini_array, fini_array_size)))
    refuse(program, "its constructor or destructor tables lie outside its segments");

  // Relocation tables by address: find the file bytes through the segment holding them.
  auto append = [&](std::uint64_t vaddr, std::uint64_t size) {
    if (size == 0) return;
    for (const Elf64_Phdr& ph : layout.loads) {
      if (vaddr < ph.p_vaddr || vaddr + size > ph.p_vaddr + ph.p_filesz) continue;
      const std::uint64_t offset = ph.p_offset + (vaddr - ph.p_vaddr);
      const std::size_t count = size / sizeof(Elf64_Rela);
      const std::size_t at = layout.relocations.size();
      layout.relocations.resize(at + count);
      std::memcpy(layout.relocations.data() + at, image.data() + offset, count * sizeof(Elf64_Rela));
      return;
    }
    refuse(program, "a relocation table lies outside its segments");
  };
  append(rela, rela_size);
  append(jmprel, plt_size);
  for (const Elf64_Rela& r : layout.relocations) {
    const std::uint32_t type = ELF64_R_TYPE(r.r_info);
    if (type != R_X86_64_NONE && type != R_X86_64_RELATIVE && type != R_X86_64_64 && type != R_X86_64_GLOB_DAT &&
        type != R_X86_64_JUMP_SLOT)
      refuse(program, fmt::format("it has relocations of type {} (only RELATIVE, 64, GLOB_DAT and JUMP_SLOT are "
                                  "copied)",
                                  type));
    if (type != R_X86_64_NONE && (r.r_offset < layout.lo || r.r_offset + sizeof(std::uint64_t) > layout.hi))
      refuse(program, fmt::format("a relocation at {:#x} lies outside its segments", r.r_offset));
  }
  // The unwind table header, read where the copies will read it.
  if (layout.eh_frame_hdr != 0) {
    bool found = false;
    for (const Elf64_Phdr& ph : layout.loads) {
      if (layout.eh_frame_hdr < ph.p_vaddr || layout.eh_frame_hdr + 8 > ph.p_vaddr + ph.p_filesz) continue;
      const auto* header = reinterpret_cast<const std::uint8_t*>(image.data() + ph.p_offset +
                                                                 (layout.eh_frame_hdr - ph.p_vaddr));
      if (header[0] != 1 || header[1] != kPcrelSdata4)
        refuse(program, fmt::format("its .eh_frame_hdr (version {}, pointer encoding {:#x}) is not the form it reads",
                                    header[0], header[1]));
      std::int32_t relative = 0;
      std::memcpy(&relative, header + 4, sizeof relative);
      const std::int64_t eh_frame = static_cast<std::int64_t>(layout.eh_frame_hdr) + 4 + relative;
      if (eh_frame < static_cast<std::int64_t>(layout.lo) || eh_frame >= static_cast<std::int64_t>(layout.hi))
        refuse(program, "its .eh_frame lies outside its segments");
      layout.eh_frame = static_cast<std::uintptr_t>(eh_frame);
      found = true;
    }
    if (!found) refuse(program, "its .eh_frame_hdr lies outside its segments");
  }
  // What the copies use must lie in the ranges copied; otherwise copy whole segments.
  bool sections_suffice = live_from_sections(image, header, layout);
  if (sections_suffice) {
    for (const Elf64_Rela& r : layout.relocations)
      if (ELF64_R_TYPE(r.r_info) != R_X86_64_NONE && !is_live(layout, r.r_offset, sizeof(std::uint64_t)))
        sections_suffice = false;
    if ((layout.init != 0 && !is_live(layout, layout.init, 1)) ||
        (layout.fini != 0 && !is_live(layout, layout.fini, 1)) ||
        (layout.init_count != 0 && !is_live(layout, layout.init_array, layout.init_count * sizeof(void*))) ||
        (layout.fini_count != 0 && !is_live(layout, layout.fini_array, layout.fini_count * sizeof(void*))) ||
        (layout.eh_frame != 0 && !eh_frame_ends_in_range(image, layout)))
      sections_suffice = false;
  }
  if (!sections_suffice) {
    Ranges segments;
    for (const Elf64_Phdr& ph : layout.loads) segments.emplace_back(ph.p_vaddr, ph.p_vaddr + ph.p_memsz);
    layout.live = merged(std::move(segments), 0);
    layout.live_align = layout.align;
  }
  return layout;
}

/// The copies' destructor functions, run at exit as ld.so runs a loaded object's
/// (DT_FINI_ARRAY backwards, then DT_FINI): the last copies first, as ld.so unloads in
/// the reverse order of loading.
struct Finalizers {
  char* first_base = nullptr;  ///< copy 0's vaddr 0
  std::size_t stride = 0;
  unsigned copies = 0;
  std::uintptr_t fini = 0;
  std::uintptr_t fini_array = 0;
  std::size_t fini_count = 0;
};
std::vector<Finalizers>& finalizers() {
  // One entry per arena made. Never destroyed: run_finalizers reads it at exit, and a
  // static vector's destructor could run before it.
  static auto* all = new std::vector<Finalizers>;
  return *all;
}

void run_finalizers() {
  using Destructor = void (*)();
  for (auto f = finalizers().rbegin(); f != finalizers().rend(); ++f)
    for (unsigned i = f->copies; i-- > 0;) {
      char* const base = f->first_base + std::size_t{i} * f->stride;
      for (std::size_t k = f->fini_count; k-- > 0;) {
        std::uintptr_t entry = 0;
        std::memcpy(&entry, base + f->fini_array + k * sizeof entry, sizeof entry);
        if (entry != 0 && entry != UINTPTR_MAX) reinterpret_cast<Destructor>(entry)();
      }
      if (f->fini != 0) reinterpret_cast<Destructor>(base + f->fini)();
    }
}

}  // namespace

ProgramArena::ProgramArena(const std::vector<char>& image, void* template_handle, const std::string& program,
                           unsigned copies, std::vector<char*> argv)
    : copies_(copies) {
  const ProgramLayout layout = read_layout(image, program);
  const std::size_t unit = layout.live_align;
  first_vaddr_ = layout.live.front().first / unit * unit;
  const std::uintptr_t live_end = layout.live.back().second;
  // Copy i's vaddr 0 is stride_ bytes after copy i-1's: where the ranges a copy uses
  // leave room, the next copies' ranges fill it (a program's code and data are often a
  // few KB in pages of 4), so each copy costs the memory of what it uses.
  const std::size_t whole = (live_end - first_vaddr_ + unit - 1) / unit * unit;
  stride_ = interleave_stride(layout.live, unit, whole);

  link_map* map = nullptr;
  if (dlinfo(template_handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) {
    const char* why = dlerror();
    throw Error(Status::InvalidArgument,
                fmt::format("'{}': no link map for its first copy: {}", program, why != nullptr ? why : "dlinfo failed"));
  }
  const std::uintptr_t template_base = map->l_addr;
  const std::uintptr_t template_lo = template_base + layout.lo;
  const std::uintptr_t template_hi = template_base + layout.hi;
  void* main_symbol = dlsym(template_handle, "main");
  if (main_symbol == nullptr) refuse(program, "it exports no main");
  main_offset_ = reinterpret_cast<std::uintptr_t>(main_symbol) - template_base;
  if (!is_live(layout, main_offset_, 1)) refuse(program, "its main lies outside the sections it copies");
  if (copies == 0) return;

  // One mapping for every copy: read-write-execute, so that the copies' code and data
  // are one kind and the kernel keeps them as one mapping (an executable code page and
  // a writable data page would be two per copy). Over-sized by one alignment unit to
  // align the first copy.
  const std::size_t bytes = stride_ * (copies - 1) + whole + unit;
  void* raw = mmap(nullptr, bytes, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (raw == MAP_FAILED)
    throw Error(Status::NoResource,
                fmt::format("cannot map {:.1f} MiB for {} copies of '{}': {}", bytes / 1048576.0, copies, program,
                            std::strerror(errno)));
  const auto aligned = (reinterpret_cast<std::uintptr_t>(raw) + unit - 1) / unit * unit;
  arena_ = reinterpret_cast<char*>(aligned);

  std::vector<void*> frames;
  frames.reserve(copies + 1);
  for (unsigned i = 0; i < copies; ++i) {
    char* const base = base_of(i);
    // Only the live ranges: the rest of the copy's span belongs to its neighbours.
    for (const auto& [from, to] : layout.live)
      for (const Elf64_Phdr& ph : layout.loads) {
        const std::uintptr_t a = std::max<std::uintptr_t>(from, ph.p_vaddr);
        const std::uintptr_t b = std::min<std::uintptr_t>(to, ph.p_vaddr + ph.p_filesz);
        if (a < b) std::memcpy(base + a, image.data() + ph.p_offset + (a - ph.p_vaddr), b - a);  // .bss stays zero
      }
    const std::uintptr_t delta = reinterpret_cast<std::uintptr_t>(base) - template_base;
    for (const Elf64_Rela& r : layout.relocations) {
      const std::uint32_t type = ELF64_R_TYPE(r.r_info);  // one of read_layout's five
      if (type == R_X86_64_NONE) continue;
      std::uint64_t value = 0;
      if (type == R_X86_64_RELATIVE) {
        value = reinterpret_cast<std::uintptr_t>(base) + r.r_addend;
      } else {
        // 64, GLOB_DAT, JUMP_SLOT: what ld.so bound in the first copy (RTLD_NOW),
        // moved to this copy when it names the program's own code or data: the
        // copies bind alike.
        std::memcpy(&value, reinterpret_cast<const void*>(template_base + r.r_offset), sizeof value);
        if (value >= template_lo && value <= template_hi) value += delta;
      }
      std::memcpy(base + r.r_offset, &value, sizeof value);
    }
    if (layout.eh_frame_hdr != 0) frames.push_back(base + layout.eh_frame);
  }
  // The copies' unwind tables, before any of their code runs: C++ exceptions, and
  // SimGrid's unwinding of a rank it kills, pass through the copies' frames.
  if (!frames.empty()) {
    frames.push_back(nullptr);
    auto* table = new void*[frames.size()];  // kept: the unwinder reads it until exit
    std::copy(frames.begin(), frames.end(), table);
    __register_frame_table(table);
  }

  // Destructor functions at exit; registered before the constructors run, so that
  // exit() called by one of them still finds them (as ld.so's list has the object).
  if (layout.fini != 0 || layout.fini_count != 0) {
    static const bool registered = std::atexit(run_finalizers) == 0;
    (void)registered;
    finalizers().push_back(Finalizers{base_of(0), stride_, copies, layout.fini, layout.fini_array, layout.fini_count});
  }

  // Constructors, in ld.so's order (DT_INIT, then DT_INIT_ARRAY), copy by copy.
  argv.push_back(nullptr);
  const int argc = static_cast<int>(argv.size() - 1);
  using Constructor = void (*)(int, char**, char**);
  for (unsigned i = 0; i < copies; ++i) {
    char* const base = base_of(i);
    if (layout.init != 0) reinterpret_cast<Constructor>(base + layout.init)(argc, argv.data(), environ);
    for (std::size_t k = 0; k < layout.init_count; ++k) {
      std::uintptr_t entry = 0;
      std::memcpy(&entry, base + layout.init_array + k * sizeof entry, sizeof entry);
      if (entry != 0 && entry != UINTPTR_MAX) reinterpret_cast<Constructor>(entry)(argc, argv.data(), environ);
    }
  }
}

ProgramArena::MainFunction ProgramArena::main_of(unsigned i) const {
  if (i >= copies_) throw Error(Status::InvalidArgument, fmt::format("program copy {} of {}", i, copies_));
  return reinterpret_cast<MainFunction>(base_of(i) + main_offset_);
}

}  // namespace twinfab::tools
