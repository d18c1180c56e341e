// index_checks.cpp — an index outside its own dimension of an array of known size: `As[s][k][130]` in
// `__shared__ float As[2][16][128]`, or `acc[i][4]` in `float acc[4][4]`. The address may stay inside the array
// (As[s][k + 1][2] here), where a GPU reads or writes another element without any fault, and the symptom the
// other checks see is a race or an uninitialised read on the element it reached, whose advice (a barrier, a wait)
// would be wrong. clang's -fsanitize=array-bounds finds the index; emucc sends its calls here with the access as
// written (cudaemu_cc/ir.py, name_index_checks). Device code only: host code goes on as compiled.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "checks.h"
#include "report.h"
#include "scheduler.h"

namespace cudaemu {
namespace {

// The static data clang passes to UBSan's out-of-bounds handler (compiler-rt's ubsan_handlers.h).
struct TypeDescriptor {
    uint16_t kind;  // 0: an integer
    uint16_t info;  // integers: bit 0 signed, the rest log2 of the width
    char name[1];   // "'float[16][128]'", quotes included
};
struct OutOfBoundsData {
    const char* file;
    uint32_t line, column;
    const TypeDescriptor* array_type;
    const TypeDescriptor* index_type;
};

// The value of the index as its type has it: clang passes an integer up to 64 bits wide zero-extended.
std::string index_text(const TypeDescriptor* type, uint64_t value) {
    const unsigned width = type->kind == 0 ? 1u << (type->info >> 1) : 64;
    if (type->kind == 0 && (type->info & 1) && width < 64) {
        const unsigned extra = 64 - width;
        return std::to_string(static_cast<int64_t>(value << extra) >> extra);
    }
    if (type->kind == 0 && (type->info & 1)) return std::to_string(static_cast<int64_t>(value));
    return std::to_string(value);
}

}  // namespace
}  // namespace cudaemu

namespace cudaemu {
namespace {

// One report of an index outside its dimension: `what` names the access and the index that is out ("As[.][.][32]:
// index 32"), `extent` is the dimension's.
void report_index(Worker& w, uintptr_t pc, const std::string& what, long extent) {
    const std::string shape = index_or_block_shape(w);
    const std::string fix = shape.empty() ? "fix the index" : shape;
    add_diag(w, DiagKind::kOutOfBounds, w.current->linear, pc, 0,
             what + " outside 0.." + std::to_string(extent - 1) + " at %1, " + thread_name(w, w.current->linear) +
                 ": the element it reaches may lie inside the array, where a GPU gives no error — " + fix +
                 "; races and uninitialised reads in this launch are not reported until then, as they may follow "
                 "from it");
    auto it = w.diags.find(std::make_tuple(static_cast<int>(DiagKind::kOutOfBounds), pc, uintptr_t(0)));
    if (it != w.diags.end()) it->second.index_dimension = true;
}

}  // namespace
}  // namespace cudaemu

// `shape`: the access as written with % for the index that is out ("As[.][.][%]"), or "" where emucc could not
// read it from the source (a macro, a header).
extern "C" void __cudaemu_index_out_of_bounds(const void* data, uint64_t value, const char* shape) {
    using namespace cudaemu;
    Worker* w = tls_worker;
    if (!w || !w->current) return;
    const auto* d = static_cast<const OutOfBoundsData*>(data);
    const std::string type = d->array_type->name;
    const size_t open = type.find('[');
    const long extent = open == std::string::npos ? 0 : std::strtol(type.c_str() + open + 1, nullptr, 10);
    const std::string index = index_text(d->index_type, value);
    std::string written = shape;
    const size_t mark = written.find('%');
    if (mark != std::string::npos) written.replace(mark, 1, index);
    const std::string what = mark != std::string::npos
                                 ? written + ": index " + index
                                 : "index " + index + " into an array of " + type.substr(1, type.size() - 2);
    report_index(*w, CUDAEMU_RA, what, extent);
}

// An access `count` elements wide (a float4 read through `&As[s][k][c]`) from the element at `index` of a dimension
// of `extent` elements (emucc's check_vector_indices): reported where it runs past the dimension, with the elements
// it spans in place of the index ("As[.][.][30..33]: index 33"). `data` and `shape` are those of the index's check.
extern "C" void __cudaemu_index_range_check(const void* data, uint64_t index, uint64_t count, uint64_t extent,
                                            const char* shape) {
    using namespace cudaemu;
    if (index + count <= extent || index >= extent + 1) return;  // inside; or past it, which its index check reports
    Worker* w = tls_worker;
    if (!w || !w->current) return;
    const auto* d = static_cast<const OutOfBoundsData*>(data);
    const std::string type = d->array_type->name;
    const std::string first = std::to_string(index);
    const std::string last = std::to_string(index + count - 1);
    std::string written = shape;
    const size_t mark = written.find('%');
    if (mark != std::string::npos) written.replace(mark, 1, first + ".." + last);
    const std::string what = (mark != std::string::npos ? written
                                                        : "elements " + first + ".." + last + " of an array of " +
                                                              type.substr(1, type.size() - 2)) +
                             " (one access " + std::to_string(count) + " elements wide): index " + last;
    report_index(*w, CUDAEMU_RA, what, static_cast<long>(extent));
}
