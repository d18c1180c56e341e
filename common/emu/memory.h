// memory.h — device memory: one reserved range of address space holding every cudaMalloc allocation.
// Allocations sit on 1 MiB slots with a guard gap after each and are never reused, so that an access just past an
// allocation or after cudaFree is always recognisable. Defined in memory.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace cudaemu {

constexpr unsigned kSlotShift = 20;
constexpr uintptr_t kSlotBytes = uintptr_t(1) << kSlotShift;

struct Allocation {
    int id = 0;
    uintptr_t base = 0;
    size_t bytes = 0;
    size_t words = 0;  // 4-byte words covered
    bool live = true;
    std::string name, file;
    int line = 0;
    // cudaMalloc; a __device__ or __constant__ variable (never freed); cudaMallocManaged (host code may use it too);
    // page-locked host memory: cudaHostAlloc/cudaMallocHost (in the arena), cudaHostRegister (the program's own
    // memory, outside the arena: see g_registered). Kernels may use all of them.
    enum class Kind : uint8_t {
        kMalloc,
        kDeviceVariable,
        kConstant,
        kManaged,
        kHostAlloc,
        kRegistered
    } kind = Kind::kMalloc;
    unsigned host_flags = 0;              // kHostAlloc, kRegistered: the flags it was made with
    uint64_t global_mask = ~uint64_t(0);  // ANDed with a load's size: the bytes it counts as global (0: constant)
    // Per 4-byte word. Each worker counts in its own arrays (allocated when it first touches the allocation), so
    // that workers never contend for a cache line; element_counts() adds them up.
    std::vector<uint32_t*> reads, writes;  // [worker][word]
    // [word]: the serial of the launch that made the last store (Launch::serial) << 32 | linear block index + 1 of
    // the block that made it; 0 = none. One word, so that a worker never reads one half of another's store.
    uint64_t* store_by = nullptr;
    // [word]: the serial of the last launch that loaded it << 32 | linear block index + 1 of the block that did, or
    // kManyBlocks where several blocks of that launch loaded it
    uint64_t* load_by = nullptr;
    static constexpr uint32_t kManyBlocks = UINT32_MAX;
    ~Allocation() {
        for (uint32_t* p : reads) free(p);
        for (uint32_t* p : writes) free(p);
        free(store_by);
        free(load_by);
    }
};

extern uintptr_t g_arena_base;
extern uintptr_t g_arena_size;             // 0 until the first cudaMalloc, so the fast path rejects everything
extern std::vector<int32_t> g_slot_owner;  // slot -> allocation id, -1 = never used
extern std::vector<std::unique_ptr<Allocation>> g_allocations;  // by id; never shrinks

// The allocation whose slots hold address a (which must be inside the arena), live or freed, or null.
inline Allocation* allocation_at(uintptr_t a) {
    int32_t id = g_slot_owner[(a - g_arena_base) >> kSlotShift];
    return id < 0 ? nullptr : g_allocations[id].get();
}

Allocation* live_allocation_containing(const void* p, size_t bytes);
// A new allocation of `bytes` (> 0) in the arena, or null when it is full; g_api_mutex held.
Allocation* allocate(size_t bytes, const char* name, const char* file, int line);
// Gives the pages back and makes any later access fault; the addresses stay reserved, never reused.
void release(Allocation& al);
inline bool in_arena(const void* p) { return reinterpret_cast<uintptr_t>(p) - g_arena_base < g_arena_size; }
// True for memory that host code may use directly (managed and page-locked host memory), and for any address
// outside the arena.
bool host_accessible(const void* p);

// Host memory registered with cudaHostRegister: live registrations, sorted by address. Changed by the runtime API
// (g_api_mutex held) only while no kernel runs; read by the checks while one does.
extern std::vector<Allocation*> g_registered;
// A new registration of [base, base + bytes) (an Allocation outside the arena, counted like global memory); null
// when it overlaps a live one. g_api_mutex held.
Allocation* register_host_range(uintptr_t base, size_t bytes, const char* name, const char* file, int line);
void unregister_host_range(Allocation& al);
// The live registration holding [a, a + size), or null; `*near`: else the registration whose guard zone (up to
// 64 KiB either side of it, not inside another registration) holds a, or null.
Allocation* registered_range(uintptr_t a, size_t size, Allocation** near);

// Host memory marked with cudaemu::mark_host_memory: [base, base + bytes) and its name. Changed only while no
// kernel runs.
struct HostOnlyRange {
    uintptr_t base = 0;
    size_t bytes = 0;
    std::string name;
};
extern std::vector<HostOnlyRange> g_host_only;
// Addresses below this are a null pointer plus an offset: no allocation is ever there.
constexpr uintptr_t kNullPage = 65536;

}  // namespace cudaemu
