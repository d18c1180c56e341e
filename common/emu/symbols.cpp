// symbols.cpp — source locations: return addresses -> file:line through addr2line, cached; and the names of
// __shared__ variables, read from the executable's symbol table (they are its TLS symbols).
#include "symbols.h"

#include "include/cuda_runtime.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>

namespace cudaemu {

// emucc's symbol for each extern __shared__ array's name (cudaemu_cc/declarations.py's SHARED_NAME_PREFIX)
constexpr const char kSharedNamePrefix[] = "__cudaemu_shared_name_";
// emucc's symbol for each __shared__ array of two or more dimensions: PREFIX2_16_128__NAME (ir.py's
// SHARED_DIMS_PREFIX)
constexpr const char kSharedDimsPrefix[] = "__cudaemu_shared_dims_";

namespace {

std::mutex g_symbol_mutex;
std::map<uintptr_t, SourceLocation> g_symbols;

std::string cwd_prefix() {
    char buf[4096];
    if (!getcwd(buf, sizeof buf)) return "";
    return std::string(buf) + "/";
}

std::string self_exe() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("/proc/self/exe");
}

}  // namespace

void symbolize(std::vector<uintptr_t> pcs) {
    std::lock_guard<std::mutex> lock(g_symbol_mutex);
    std::map<std::string, std::vector<std::pair<uintptr_t, uintptr_t>>> by_module;  // module -> (pc, offset)
    for (uintptr_t pc : pcs) {
        if (!pc || g_symbols.count(pc)) continue;
        g_symbols[pc] = SourceLocation{};
        Dl_info info{};
        if (!dladdr(reinterpret_cast<void*>(pc), &info) || !info.dli_fname) continue;
        std::string module = info.dli_fname;
        Dl_info main_info{};
        if (dladdr(reinterpret_cast<void*>(&symbolize), &main_info) && main_info.dli_fbase == info.dli_fbase)
            module = self_exe();
        // A return address points after the call; the access belongs to the instruction before it.
        by_module[module].push_back({pc, pc - 1 - reinterpret_cast<uintptr_t>(info.dli_fbase)});
    }
    if (by_module.empty()) return;  // all cached: a barrier whose call the compiler duplicated asks again and again
    const std::string prefix = cwd_prefix();
    for (auto& [module, list] : by_module) {
        // -a: each address first, then -f -i: the function and file:line of each frame, the innermost first
        std::string cmd = "addr2line -a -f -i -e '" + module + "'";
        for (auto& [pc, off] : list) {
            char hex[32];
            snprintf(hex, sizeof hex, " 0x%lx", static_cast<unsigned long>(off));
            cmd += hex;
        }
        cmd += " 2>/dev/null";
        FILE* f = popen(cmd.c_str(), "r");
        if (!f) continue;
        std::vector<std::string> out;
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            std::string s(line);
            while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
            out.push_back(s);
        }
        size_t at = 0;
        for (auto& [pc, off] : list) {
            if (at >= out.size() || out[at].compare(0, 2, "0x") != 0) break;
            SourceLocation loc;
            for (++at; at + 1 < out.size() && out[at].compare(0, 2, "0x") != 0; at += 2) {
                std::string s = out[at + 1];
                size_t disc = s.find(" (discriminator");
                if (disc != std::string::npos) s.resize(disc);
                size_t colon = s.rfind(':');
                Frame frame;
                frame.function = out[at] == "??" ? "" : out[at];
                if (colon != std::string::npos) {
                    frame.file = s.substr(0, colon);
                    frame.line = atoi(s.c_str() + colon + 1);
                }
                if (frame.file == "??") frame.file.clear();
                if (!prefix.empty() && frame.file.compare(0, prefix.size(), prefix) == 0)
                    frame.file = frame.file.substr(prefix.size());
                if (frame.file.compare(0, 2, "./") == 0) frame.file = frame.file.substr(2);
                loc.frames.insert(loc.frames.begin(), frame);
            }
            if (!loc.frames.empty()) loc.file = loc.frames.back().file, loc.line = loc.frames.back().line;
            if (!loc.line) loc.frames.clear();
            g_symbols[pc] = loc;
        }
        pclose(f);
    }
}

SourceLocation location_of(uintptr_t pc) {
    symbolize({pc});
    std::lock_guard<std::mutex> lock(g_symbol_mutex);
    return g_symbols[pc];
}

uintptr_t site_pc(const char* file, int line) {
    thread_local const char* last_file = nullptr;  // a collective in a loop asks for the same site again and again
    thread_local int last_line = 0;
    thread_local uintptr_t last_pc = 0;
    if (file == last_file && line == last_line) return last_pc;
    static std::map<std::pair<std::string, int>, uintptr_t> sites;
    std::lock_guard<std::mutex> lock(g_symbol_mutex);
    std::string name = file ? file : "";
    if (name.compare(0, 2, "./") == 0) name = name.substr(2);
    auto it = sites.find({name, line});
    if (it == sites.end()) {
        // no code lives at these addresses (user space ends below 2^47), and a request's key (requests.h: pc << 10)
        // keeps them whole
        const uintptr_t pc = (uintptr_t(1) << 53) | sites.size();
        it = sites.emplace(std::make_pair(name, line), pc).first;
        g_symbols[pc] = SourceLocation{name, line};
    }
    last_file = file, last_line = line, last_pc = it->second;
    return it->second;
}

bool same_source_line(uintptr_t a, uintptr_t b) {
    if (a == b) return true;
    // A barrier the compiler duplicated has two addresses: every thread of every block asks about the same pair.
    thread_local uintptr_t last_a = 0, last_b = 0;
    thread_local bool last_same = false;
    if (a == last_a && b == last_b) return last_same;
    SourceLocation la = location_of(a), lb = location_of(b);
    last_a = a, last_b = b, last_same = la.line && la.file == lb.file && la.line == lb.line;
    return last_same;
}

// ---------------------------------------------------------------------------------------------------------------
// Names of __shared__ variables: they are TLS symbols of the executable; st_value is the offset in its TLS block.
// ---------------------------------------------------------------------------------------------------------------
struct TlsSymbol {
    uint64_t offset, size;
    std::string name;
    std::vector<uint64_t> dims;  // of an array of two or more dimensions; else empty
};

const std::vector<ElfSymbol>& executable_symbols() {
    static const std::vector<ElfSymbol> symbols = [] {
        std::vector<ElfSymbol> out;
        std::ifstream in("/proc/self/exe", std::ios::binary);
        std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (data.size() < sizeof(Elf64_Ehdr)) return out;
        auto* eh = reinterpret_cast<const Elf64_Ehdr*>(data.data());
        if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return out;
        if (eh->e_shoff + size_t(eh->e_shnum) * sizeof(Elf64_Shdr) > data.size()) return out;
        auto* sh = reinterpret_cast<const Elf64_Shdr*>(data.data() + eh->e_shoff);
        for (int i = 0; i < eh->e_shnum; ++i) {
            if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
            const Elf64_Shdr& strtab = sh[sh[i].sh_link];
            if (sh[i].sh_offset + sh[i].sh_size > data.size() || strtab.sh_offset + strtab.sh_size > data.size())
                continue;
            auto* sym = reinterpret_cast<const Elf64_Sym*>(data.data() + sh[i].sh_offset);
            size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
            for (size_t j = 0; j < n; ++j) {
                unsigned type = ELF64_ST_TYPE(sym[j].st_info);
                if (sym[j].st_name >= strtab.sh_size) continue;
                const char* name = data.data() + strtab.sh_offset + sym[j].st_name;
                // emucc names the extern __shared__ arrays with a data symbol each (declarations.py)
                const bool shared_name =
                    type == STT_OBJECT && (strncmp(name, kSharedNamePrefix, strlen(kSharedNamePrefix)) == 0 ||
                                           strncmp(name, kSharedDimsPrefix, strlen(kSharedDimsPrefix)) == 0);
                if (type != STT_TLS && type != STT_FUNC && !shared_name) continue;
                // a symbol another library defines (libstdc++'s thread-local __once_callable@GLIBCXX_3.4.11) has
                // no place in this executable: its value 0 would name the first bytes of shared memory
                if (sym[j].st_shndx == SHN_UNDEF) continue;
                out.push_back({name, sym[j].st_value, sym[j].st_size, type});
            }
        }
        return out;
    }();
    return symbols;
}

namespace {
const std::vector<TlsSymbol>& tls_symbols() {
    static const std::vector<TlsSymbol> symbols = [] {
        std::vector<TlsSymbol> out;
        std::string dynamic;  // the extern __shared__ arrays' names: "'buf', extern __shared__"
        std::map<std::string, std::vector<uint64_t>> dims;  // by mangled name
        for (const ElfSymbol& s : executable_symbols()) {
            if (s.type != STT_OBJECT) continue;
            if (s.name.compare(0, strlen(kSharedNamePrefix), kSharedNamePrefix) == 0) {
                dynamic += (dynamic.empty() ? "" : "' or '") + s.name.substr(strlen(kSharedNamePrefix));
                continue;
            }
            const std::string rest = s.name.substr(strlen(kSharedDimsPrefix));  // 2_16_128__NAME
            const size_t end = rest.find("__");
            if (end == std::string::npos) continue;
            std::vector<uint64_t>& d = dims[rest.substr(end + 2)];
            std::istringstream parts(rest.substr(0, end));
            for (std::string part; std::getline(parts, part, '_');)
                d.push_back(std::strtoull(part.c_str(), nullptr, 10));
        }
        if (dynamic.empty()) dynamic = "extern __shared__";
        for (const ElfSymbol& s : executable_symbols()) {
            if (s.type != STT_TLS) continue;
            std::string name = s.name;
            const auto found = dims.find(name);
            if (name == CUDAEMU_DYNAMIC_SHARED) name = dynamic;
            int status = 0;
            char* dem = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
            if (dem) {
                name = dem;
                free(dem);
            }
            size_t colons = name.rfind("::");
            if (colons != std::string::npos) name = name.substr(colons + 2);
            out.push_back({s.value, s.size, name, found == dims.end() ? std::vector<uint64_t>{} : found->second});
        }
        return out;
    }();
    return symbols;
}
}  // namespace

std::string source_function_name(const std::string& mangled) {
    int status = 0;
    char* dem = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (!dem) return mangled;
    const std::string full = dem;
    free(dem);
    // the name is what stands, outside any <...>, before the parameters' '(' and after a return type's ' ' or a
    // namespace's "::"
    std::string name;
    int depth = 0;
    for (char c : full) {
        if (c == '<') ++depth;
        if (depth == 0) {
            if (c == '(') break;
            if (c == ' ' || c == ':') {
                name.clear();
                continue;
            }
            name += c;
        }
        if (c == '>') --depth;
    }
    return name.empty() ? full : name;
}

std::string shared_variable_at(uint64_t offset) {
    for (const TlsSymbol& s : tls_symbols())
        if (offset >= s.offset && offset < s.offset + std::max<uint64_t>(s.size, 1))
            return "'" + s.name + "' (byte " + std::to_string(offset - s.offset) + ")";
    return "shared byte " + std::to_string(offset);
}

uint64_t shared_variable_bytes(uint64_t offset) {
    for (const TlsSymbol& s : tls_symbols())
        if (offset >= s.offset && offset < s.offset + s.size) return s.size;
    return 0;
}

SharedStages shared_stages_at(uint64_t offset) {
    for (const TlsSymbol& s : tls_symbols())
        if (offset >= s.offset && offset < s.offset + s.size)
            return s.dims.size() >= 2 && s.dims[0] >= 2 && s.dims[0] <= 4
                       ? SharedStages{int(s.dims[0]), s.offset, s.size}
                       : SharedStages{};
    return {};
}

}  // namespace cudaemu
