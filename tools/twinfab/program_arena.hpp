// Private copies of a program for `twinfab sim`, carved out of one memory mapping.
//
// `twinfab sim` gives every rank its own globals and statics by loading the program
// once per rank. With dlopen each copy is a file of its own and costs the kernel two
// mappings (code, data), so the default vm.max_map_count (65530) stops a run near
// 32,000 ranks. A ProgramArena makes the copies itself, as AMPI's PIE-globals
// privatization does: the program is dlopen'ed once (its libraries loaded, its
// symbols bound), and each further copy is the program's code and data laid out in one
// anonymous read-write-execute mapping, relocated to where it lies, its constructors
// run and its unwind tables registered: N copies cost one mapping, not 2N. Copies
// interleave: only the sections a copy uses are copied (not the ELF headers, symbol
// tables and relocations ld.so alone reads), and the next copy starts as soon as its
// sections, shifted, miss the previous ones', so a small program's copy costs the
// memory of its code and data rather than two pages. docs/mpi.md, "Private copies".
//
// What it refuses (with a message naming the alternative, --privatization dlopen):
// thread-local variables (PT_TLS), text relocations, relocation types a position-
// independent program built by twinfab-mpicc does not have, unwind tables in an
// encoding it does not read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace twinfab::tools {

class ProgramArena {
 public:
  using MainFunction = int (*)(int, char**);

  /// `image`: the program file's bytes (as loaded, DF_1_PIE cleared); `template_handle`:
  /// the same program dlopen'ed once, whose bound symbols the copies take; `copies`:
  /// how many copies to make; `argv` is what their constructors receive.
  /// Throws fabric::Error(InvalidArgument) for a program it cannot copy, naming why,
  /// and fabric::Error(NoResource) when the mapping cannot be made; both before any
  /// copy is made or any constructor runs.
  ProgramArena(const std::vector<char>& image, void* template_handle, const std::string& program, unsigned copies,
               std::vector<char*> argv);
  ProgramArena(const ProgramArena&) = delete;
  ProgramArena& operator=(const ProgramArena&) = delete;
  /// The mapping stays: the copies' code may run until the process exits (atexit
  /// handlers, destructors registered with __cxa_atexit).
  ~ProgramArena() = default;

  /// Copy `i`'s main (0 <= i < copies).
  MainFunction main_of(unsigned i) const;
 private:
  /// Where vaddr 0 of copy `i` is.
  char* base_of(unsigned i) const noexcept { return arena_ + std::size_t{i} * stride_ - first_vaddr_; }

  std::size_t stride_ = 0;  ///< bytes from one copy to the next
  unsigned copies_ = 0;
  char* arena_ = nullptr;
  std::uintptr_t main_offset_ = 0;  ///< main's address in a copy, from the copy's base
  std::uintptr_t first_vaddr_ = 0;  ///< the first copied address, rounded down to the copies' alignment
};

}  // namespace twinfab::tools
