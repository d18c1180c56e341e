// memory.cpp — device memory: the arena, allocations and their per-word access counters, and the runtime API
// calls that manage them (cudaMalloc, cudaFree, cudaMemcpy, cudaMemset) or read them (element_counts).
// The counters are filled by the access checks (checks.cpp).
#include "memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "api.h"
#include "include/cudaemu.h"
#include "report.h"

namespace cudaemu {

// cudaMallocPitch's rows start this many bytes apart, at least (an H100's; tests/emu/programs/pitched_memory.cu)
constexpr size_t kPitchAlignment = 512;

uintptr_t g_arena_base = 0;
uintptr_t g_arena_size = 0;
uintptr_t g_arena_next = 0;
std::vector<HostOnlyRange> g_host_only;
// Constructed before any other file's globals: __device__ variables are allocated while those are initialised.
__attribute__((init_priority(101))) std::vector<int32_t> g_slot_owner;
__attribute__((init_priority(101))) std::vector<std::unique_ptr<Allocation>> g_allocations;

namespace {

bool reserve_arena() {
    if (g_arena_size) return true;
    for (int shift = 40; shift >= 34; --shift) {  // 1 TiB down to 16 GiB of address space, nothing committed
        size_t size = size_t(1) << shift;
        void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) continue;
        uintptr_t base = (reinterpret_cast<uintptr_t>(p) + kSlotBytes - 1) & ~(kSlotBytes - 1);
        g_arena_base = base;
        // the first slot stays unallocated: an access just before the first allocation is in the arena, so it is
        // found out of bounds like one before any other allocation
        g_arena_next = base + kSlotBytes;
        g_slot_owner.assign((size - (base - reinterpret_cast<uintptr_t>(p))) >> kSlotShift, -1);
        g_arena_size = g_slot_owner.size() << kSlotShift;
        return true;
    }
    return false;
}

std::string clean_variable_name(const char* expr) {
    // "&d_A", "(void**)&d_A", "reinterpret_cast<void**>(&d_A)" -> "d_A"
    std::string s = expr ? expr : "";
    size_t amp = s.rfind('&');
    if (amp != std::string::npos) s = s.substr(amp + 1);
    std::string out;
    for (char c : s)
        if (isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '[' || c == ']' || c == '>' ||
            c == '-')
            out += c;
    return out.empty() ? std::string(expr ? expr : "?") : out;
}

}  // namespace

Allocation* live_allocation_containing(const void* p, size_t bytes) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (a - g_arena_base >= g_arena_size) return nullptr;
    Allocation* al = allocation_at(a);
    if (!al || !al->live || a < al->base || a + bytes > al->base + al->bytes) return nullptr;
    return al;
}

// Gives the pages back and makes any later access fault; the addresses stay reserved, never reused.
void release(Allocation& al) {
    al.live = false;
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t len = (al.bytes + page - 1) / page * page;
    madvise(reinterpret_cast<void*>(al.base), len, MADV_DONTNEED);
    mprotect(reinterpret_cast<void*>(al.base), len, PROT_NONE);
}

ElementCounts element_counts(const void* device_ptr) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    ElementCounts c;
    Allocation* al = live_allocation_containing(device_ptr, 1);
    if (!al || reinterpret_cast<uintptr_t>(device_ptr) != al->base) return c;
    c.reads.assign(al->words, 0);
    c.writes.assign(al->words, 0);
    for (uint32_t* p : al->reads)
        if (p)
            for (size_t i = 0; i < al->words; ++i) c.reads[i] += p[i];
    for (uint32_t* p : al->writes)
        if (p)
            for (size_t i = 0; i < al->words; ++i) c.writes[i] += p[i];
    c.writer_block.resize(al->words);
    for (size_t i = 0; i < al->words; ++i) c.writer_block[i] = int64_t(uint32_t(al->store_by[i])) - 1;
    return c;
}

void reset_element_counts(const void* device_ptr) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    Allocation* al = live_allocation_containing(device_ptr, 1);
    if (!al) return;
    for (uint32_t* p : al->reads)
        if (p) memset(p, 0, al->words * 4);
    for (uint32_t* p : al->writes)
        if (p) memset(p, 0, al->words * 4);
    memset(al->store_by, 0, al->words * 8);
}

namespace {
// The bookkeeping of an allocation at `base` (counters, name); g_api_mutex held.
Allocation* add_allocation(uintptr_t base, size_t bytes, const char* name, const char* file, int line) {
    auto al = std::make_unique<Allocation>();
    al->id = static_cast<int>(g_allocations.size());
    al->base = base;
    al->bytes = bytes;
    al->words = (bytes + 3) / 4;
    al->name = clean_variable_name(name);
    al->file = file ? file : "";
    al->line = line;
    al->reads.assign(config().workers, nullptr);
    al->writes.assign(config().workers, nullptr);
    al->store_by = static_cast<uint64_t*>(calloc(al->words, 8));
    al->load_by = static_cast<uint64_t*>(calloc(al->words, 8));
    if (!al->store_by || !al->load_by) return nullptr;
    g_allocations.push_back(std::move(al));
    return g_allocations.back().get();
}
}  // namespace

Allocation* allocate(size_t bytes, const char* name, const char* file, int line) {
    if (!reserve_arena()) return nullptr;
    size_t slots = (bytes + kSlotBytes - 1) >> kSlotShift;
    size_t gap = slots + 1;  // a gap as large as the allocation catches strides that overshoot by a whole matrix
    if (g_arena_next + ((slots + gap) << kSlotShift) > g_arena_base + g_arena_size) return nullptr;
    uintptr_t base = g_arena_next;
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (mprotect(reinterpret_cast<void*>(base), (bytes + page - 1) / page * page, PROT_READ | PROT_WRITE) != 0)
        return nullptr;
    Allocation* al = add_allocation(base, bytes, name, file, line);
    if (!al) return nullptr;
    size_t first_slot = (base - g_arena_base) >> kSlotShift;
    for (size_t s = 0; s < slots + gap; ++s) g_slot_owner[first_slot + s] = al->id;
    g_arena_next = base + ((slots + gap) << kSlotShift);
    return al;
}

bool host_accessible(const void* p) {
    if (!in_arena(p)) return true;
    const Allocation* al = allocation_at(reinterpret_cast<uintptr_t>(p));
    return al && (al->kind == Allocation::Kind::kManaged || al->kind == Allocation::Kind::kHostAlloc);
}

std::vector<Allocation*> g_registered;

Allocation* register_host_range(uintptr_t base, size_t bytes, const char* name, const char* file, int line) {
    for (const Allocation* r : g_registered)
        if (base < r->base + r->bytes && r->base < base + bytes) return nullptr;
    Allocation* al = add_allocation(base, bytes, name, file, line);
    if (!al) return nullptr;
    al->kind = Allocation::Kind::kRegistered;
    g_registered.insert(std::upper_bound(g_registered.begin(), g_registered.end(), al,
                                         [](const Allocation* x, const Allocation* y) { return x->base < y->base; }),
                        al);
    return al;
}

void unregister_host_range(Allocation& al) {
    al.live = false;
    g_registered.erase(std::remove(g_registered.begin(), g_registered.end(), &al), g_registered.end());
}

Allocation* registered_range(uintptr_t a, size_t size, Allocation** near) {
    *near = nullptr;
    uint64_t best = UINT64_MAX;
    for (Allocation* r : g_registered) {
        if (a >= r->base && a + size <= r->base + r->bytes) return r;
        const uint64_t guard = std::min<uint64_t>(r->bytes, 64 * 1024);
        const uint64_t d = a < r->base ? r->base - a : a + size - (r->base + r->bytes);
        if (a + size > r->base && a < r->base + r->bytes) {
            *near = r;  // straddles one end of it
            best = 0;
        } else if (d <= guard && d < best) {
            *near = r;
            best = d;
        }
    }
    return nullptr;
}

std::vector<DeviceAllocation> device_allocations() {
    std::lock_guard<std::mutex> api(g_api_mutex);
    std::vector<DeviceAllocation> out;
    for (const auto& al : g_allocations)
        if (al->kind == Allocation::Kind::kMalloc) out.push_back({al->bytes, !al->live, al->name, al->file, al->line});
    return out;
}

void mark_host_memory(const void* host_ptr, size_t bytes, const char* name) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (host_ptr && bytes) g_host_only.push_back({reinterpret_cast<uintptr_t>(host_ptr), bytes, name ? name : "?"});
}

void forget_host_memory(const void* host_ptr) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    const uintptr_t a = reinterpret_cast<uintptr_t>(host_ptr);
    g_host_only.erase(
        std::remove_if(g_host_only.begin(), g_host_only.end(), [a](const HostOnlyRange& r) { return r.base == a; }),
        g_host_only.end());
}

void name_allocation(const void* device_ptr, const char* name) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (Allocation* al = live_allocation_containing(device_ptr, 1)) al->name = name;
}

}  // namespace cudaemu

using namespace cudaemu;

namespace {

// The name of the live allocation holding [p, p + bytes), for the copy reports; "" for memory the runtime does not
// know (the program's own).
std::string allocation_name(const void* p, size_t bytes) {
    Allocation* near = nullptr;
    if (Allocation* al = live_allocation_containing(p, bytes)) return al->name;
    if (Allocation* al = registered_range(reinterpret_cast<uintptr_t>(p), bytes, &near)) return al->name;
    return "";
}

// Memory the runtime knows: from cudaMalloc, cudaMallocManaged or cudaHostAlloc (the arena), or cudaHostRegister'd.
bool known_to_runtime(const void* p) {
    Allocation* near = nullptr;
    return in_arena(p) || registered_range(reinterpret_cast<uintptr_t>(p), 1, &near);
}

}  // namespace

extern "C" {

cudaError_t cudaMallocEmulated(void** ptr, size_t bytes, const char* name, const char* file, int line) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    *ptr = nullptr;
    if (bytes == 0) return cudaSuccess;
    Allocation* al = allocate(bytes, name, file, line);
    if (!al) return record(cudaErrorMemoryAllocation);
    *ptr = reinterpret_cast<void*>(al->base);
    return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    if (!ptr) return cudaSuccess;
    Allocation* al = live_allocation_containing(ptr, 1);
    if (!al || al->base != reinterpret_cast<uintptr_t>(ptr)) return record(cudaErrorInvalidValue);
    if (al->kind == Allocation::Kind::kDeviceVariable || al->kind == Allocation::Kind::kConstant ||
        al->kind == Allocation::Kind::kHostAlloc)  // cudaFreeHost's
        return record(cudaErrorInvalidValue);
    release(*al);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    return cudaMemcpy2D(dst, bytes, src, bytes, bytes, 1, kind);
}

// A copy of height rows of width bytes, each pitch bytes after the last (one row: cudaMemcpy). Every row is checked
// before any is copied.
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    if (width == 0 || height == 0) return cudaSuccess;
    if (!dst || !src) return record(cudaErrorInvalidValue);
    if (height > 1 && (width > dpitch || width > spitch)) return record(cudaErrorInvalidPitchValue);
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    // The runtime knows where device, page-locked and managed memory live, and copies between them whatever
    // direction is named; only a pointer it does not know (the program's ordinary memory) must stand on the host
    // side the direction names. So it is on the H100 (tests/emu/programs/memcpy_errors.cu).
    const bool dst_known = known_to_runtime(dst), src_known = known_to_runtime(src);
    switch (kind) {
        case cudaMemcpyHostToHost:
            break;
        case cudaMemcpyHostToDevice:
            if (!dst_known) return record(cudaErrorInvalidValue);
            break;
        case cudaMemcpyDeviceToHost:
            if (!src_known) return record(cudaErrorInvalidValue);
            break;
        case cudaMemcpyDeviceToDevice:
            if (!dst_known || !src_known) return record(cudaErrorInvalidValue);
            break;
        case cudaMemcpyDefault:
            break;
        default:
            return record(cudaErrorInvalidMemcpyDirection);
    }
    // anything in the arena (device memory, or page-locked host memory) must lie inside one live allocation
    for (size_t row = 0; row < height; ++row) {
        if (in_arena(d + row * dpitch) && !live_allocation_containing(d + row * dpitch, width))
            return record(cudaErrorInvalidValue);
        if (in_arena(s + row * spitch) && !live_allocation_containing(s + row * spitch, width))
            return record(cudaErrorInvalidValue);
    }
    for (size_t row = 0; row < height; ++row) memmove(d + row * dpitch, s + row * spitch, width);
    g_copies.push_back({allocation_name(src, width), allocation_name(dst, width), width * height});
    return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, size_t bytes) { return cudaMemset2D(ptr, bytes, value, bytes, 1); }

cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    if (width == 0 || height == 0) return cudaSuccess;
    if (height > 1 && width > pitch) return record(cudaErrorInvalidValue);
    auto* p = static_cast<char*>(ptr);
    for (size_t row = 0; row < height; ++row)
        if (!live_allocation_containing(p + row * pitch, width)) return record(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; ++row) memset(p + row * pitch, value, width);
    g_copies.push_back({"cudaMemset", allocation_name(ptr, width), width * height});
    return cudaSuccess;
}

// A pitched allocation is an ordinary one of pitch * height bytes, its pitch the width rounded up to the H100's
// (tests/emu/programs/pitched_memory.cu).
cudaError_t cudaMallocPitchEmulated(void** ptr, size_t* pitch, size_t width, size_t height, const char* name,
                                    const char* file, int line) {
    if (!ptr || !pitch) {
        std::lock_guard<std::mutex> api(g_api_mutex);
        return record(cudaErrorInvalidValue);
    }
    *pitch = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
    return cudaMallocEmulated(ptr, *pitch * height, name, file, line);
}

}  // extern "C"
