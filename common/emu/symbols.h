// symbols.h — source locations: return addresses turned into file:line and the calls inlined there (through
// addr2line, cached), and the
// names of __shared__ variables (TLS symbols of the executable). Defined in symbols.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cudaemu {

// One function's part of a location: the line in `function` (mangled) that is executing, or that calls the next.
struct Frame {
    std::string function, file;
    int line = 0;
};

struct SourceLocation {
    std::string file;
    int line = 0;
    // The functions inlined at this address, from the compiled function (first) to the one whose line this is
    // (last, with file and line as above): `store_tile` inlined into the kernel gives the kernel's line of the call,
    // then store_tile's line. One frame where nothing was inlined; none where the address has no line.
    std::vector<Frame> frames;
    std::string text() const { return line ? file + ":" + std::to_string(line) : (file.empty() ? "?" : file); }
};

// Looks up every address of `pcs` at once (one addr2line per module); later location_of calls hit the cache.
void symbolize(std::vector<uintptr_t> pcs);
SourceLocation location_of(uintptr_t pc);
// A function's name as its source writes it, from a frame's mangled one: "copy_or_zero" for
// "_Z12copy_or_zeroILi4EEvPfPKfmb" (no namespace, template arguments or parameters); the name itself if it does not
// demangle.
std::string source_function_name(const std::string& mangled);
bool same_source_line(uintptr_t a, uintptr_t b);
// A stand-in address for a source location known by name (cooperative groups pass __builtin_FILE/LINE): the same
// for the same location, never a code address, and symbolised to that location.
uintptr_t site_pc(const char* file, int line);
// The executable's function and TLS symbols (mangled names; values as in its symbol table), read once.
struct ElfSymbol {
    std::string name;
    uint64_t value, size;
    unsigned type;  // STT_FUNC or STT_TLS
};
const std::vector<ElfSymbol>& executable_symbols();
// "'As' (byte 12)": the __shared__ variable at this offset of the TLS block.
std::string shared_variable_at(uint64_t offset);
// The size in bytes of the __shared__ variable at this offset of the TLS block (0 where none is known).
uint64_t shared_variable_bytes(uint64_t offset);
// Where the __shared__ variable at this offset is an array of two or more dimensions whose first is 2 to 4
// (As[2][BK][BM]: the stages of a double or triple buffer, if that is what it is): that first dimension, and the
// array's first byte and size; stages 0 otherwise.
struct SharedStages {
    int stages = 0;
    uint64_t offset = 0, size = 0;
};
SharedStages shared_stages_at(uint64_t offset);

}  // namespace cudaemu
