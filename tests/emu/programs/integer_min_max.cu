// CUDA's min and max overloads and umin/umax/llmin/llmax/ullmin/ullmax, called in a kernel: each call must pick
// the overload nvcc's math headers pick (a signed and an unsigned operand of one width compare as unsigned:
// min(-1, 5u) is 5u; float with double gives double) and compute its value. Each row checks a value and the
// result's type; the type is part of the answer because it decides what the program computes next.
//
// Build: nvcc -arch=sm_90 -o integer_min_max tests/emu/programs/integer_min_max.cu

#include <cmath>
#include <type_traits>

#include "program.h"

// ----------------------------------------------------------------------------
// kernel

// What each row computes: a value (as the bits of a 64-bit integer or a double) and a code for its type.
enum Type { INT = 1, UINT, LONG, ULONG, LLONG, ULLONG, FLOAT, DOUBLE };
template <class T>
__device__ int type_code() {
    return std::is_same<T, int>::value ? INT
           : std::is_same<T, unsigned int>::value ? UINT
           : std::is_same<T, long>::value ? LONG
           : std::is_same<T, unsigned long>::value ? ULONG
           : std::is_same<T, long long>::value ? LLONG
           : std::is_same<T, unsigned long long>::value ? ULLONG
           : std::is_same<T, float>::value ? FLOAT
           : std::is_same<T, double>::value ? DOUBLE : 0;
}

struct Row {
    long long bits;  // integers: the value; floating point: the value times 4 (exact for the inputs below)
    int type;
};

template <class T>
__device__ void put(Row* row, T value) {
    row->bits = std::is_floating_point<T>::value ? static_cast<long long>(value * 4) : static_cast<long long>(value);
    row->type = type_code<T>();
}

// a, b, c, d come from the host so that nothing is folded at compile time: a = -1, b = 5, c = 7, d = 2.5
__global__ void min_max_kernel(int a, int b, int c, float d, Row* rows) {
    const unsigned int ub = b;
    const long la = a, lc = c;
    const unsigned long ulb = b;
    const long long lla = a;
    const unsigned long long ullb = b;
    Row* r = rows;
    put(r++, min(a, b));          // int, int: -1
    put(r++, max(a, b));          // 5
    put(r++, min(a, ub));         // int, unsigned: unsigned, 5 (-1 is 0xffffffff)
    put(r++, max(a, ub));         // 0xffffffff
    put(r++, min(ub, a));         // unsigned, int: 5
    put(r++, max(ub, c));         // 7
    put(r++, umin(ub, 3u));       // 3
    put(r++, umax(ub, 3u));       // 5
    put(r++, min(la, lc));        // long: -1
    put(r++, max(la, ulb));       // long, unsigned long: 0xffffffffffffffff
    put(r++, min(ulb, la));       // 5
    put(r++, min(lla, lla + c));  // long long: -1
    put(r++, max(lla, ullb));     // long long, unsigned long long: all ones
    put(r++, min(ullb, lla));     // 5
    put(r++, llmin(lla, 3LL));    // -1
    put(r++, llmax(lla, 3LL));    // 3
    put(r++, ullmin(ullb, 9ULL)); // 5
    put(r++, ullmax(ullb, 9ULL)); // 9
    put(r++, min(d, 1.0f));       // float: 1
    put(r++, max(d, 1.0));        // float, double: double, 2.5
    put(r++, min(1.0, d));        // double, float: 1
    put(r++, max(static_cast<float>(NAN), d));  // a NaN operand gives the other: 2.5
    put(r++, min(static_cast<double>(c), static_cast<double>(a)));  // -1
}

// ----------------------------------------------------------------------------
// host

int main() {
    struct Want {
        const char* key;
        long long bits;
        int type;
    };
    const Want want[] = {
        {"min_int_int", -1, INT},           {"max_int_int", 5, INT},
        {"min_int_uint", 5, UINT},          {"max_int_uint", 0xffffffffLL, UINT},
        {"min_uint_int", 5, UINT},          {"max_uint_int", 7, UINT},
        {"umin", 3, UINT},                  {"umax", 5, UINT},
        {"min_long_long", -1, LONG},        {"max_long_ulong", -1, ULONG},
        {"min_ulong_long", 5, ULONG},       {"min_llong_llong", -1, LLONG},
        {"max_llong_ullong", -1, ULLONG},   {"min_ullong_llong", 5, ULLONG},
        {"llmin", -1, LLONG},               {"llmax", 3, LLONG},
        {"ullmin", 5, ULLONG},              {"ullmax", 9, ULLONG},
        {"min_float_float", 4, FLOAT},      {"max_float_double", 10, DOUBLE},
        {"min_double_float", 4, DOUBLE},    {"max_nan_float", 10, FLOAT},
        {"min_double_double", -4, DOUBLE},
    };
    const int n = sizeof want / sizeof want[0];
    Row* d_rows = nullptr;
    CHECK(cudaMalloc(&d_rows, n * sizeof(Row)));
    min_max_kernel<<<1, 1>>>(-1, 5, 7, 2.5f, d_rows);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<Row> rows(n);
    CHECK(cudaMemcpy(rows.data(), d_rows, n * sizeof(Row), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        if (rows[i].bits == want[i].bits && rows[i].type == want[i].type)
            std::printf("%s: pass\n", want[i].key);
        else
            std::printf("%s: FAIL (got %lld of type %d, want %lld of type %d)\n", want[i].key, rows[i].bits,
                        rows[i].type, want[i].bits, want[i].type);
    }
    CHECK(cudaFree(d_rows));
    return 0;
}
