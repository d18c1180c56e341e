// test_emulator.h: what the emulator's test suite (tests/emu/test_emulator_*.cpp) shares: device arrays and the
// launch reports of the in-process tests, the child processes of the program tests, and the small string helpers
// both read their results with. Definitions in test_emulator_helpers.cpp; a helper only one file uses is in that file.
#pragma once

#include <doctest/doctest.h>

#include <cudaemu.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

// A failed CHECK shows cudaErrorIllegalAddress, not 700 (doctest finds this overload by argument-dependent lookup).
doctest::String toString(cudaError_t e);

// Error names as std::string, so that doctest compares and shows them as text (a const char* shows as an address).
std::string name_of(cudaError_t e);

namespace emu_test {

// ===============================================================================================================
// Files, marked lines, device arrays, first mismatches
// ===============================================================================================================
namespace fs = std::filesystem;

extern const fs::path kTestDir;  // tests/emu, relative to the repository root

std::string read_file(const fs::path& path);

// The number of the line in `text` that carries `[line: name]`; fails unless there is exactly one.
int marked_line(const std::string& text, const std::string& name, const std::string& file);

// The line of kernels.cu marked `[line: name]`
int kernels_line(const std::string& name);

// "kernels.cu:123", as a diagnostic names a line of kernels.cu
std::string kernels_at(const std::string& name);

// A device array that frees itself. Its allocation is named "ptr" (the variable cudaMalloc sees); tests of
// allocation names use cudaMalloc directly.
template <class T>
struct DeviceArray {
    T* ptr = nullptr;
    size_t n = 0;
    explicit DeviceArray(size_t count) : n(count) { REQUIRE(cudaMalloc(&ptr, n * sizeof(T)) == cudaSuccess); }
    explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
        REQUIRE(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    }
    ~DeviceArray() { cudaFree(ptr); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    std::vector<T> to_host() const {
        std::vector<T> host(n);
        REQUIRE(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return host;
    }
};

// "" when got has n elements and got[i] == want(i) for all of them; otherwise the first mismatch, once.
template <class T, class Want>
std::string first_mismatch(const std::vector<T>& got, size_t n, Want want) {
    if (got.size() != n) return "size " + std::to_string(got.size()) + ", want " + std::to_string(n);
    for (size_t i = 0; i < n; ++i) {
        const auto expected = want(i);
        if (!(got[i] == expected)) {
            std::ostringstream s;
            s << "element " << i << " of " << n << ": got " << got[i] << ", want " << expected;
            return s.str();
        }
    }
    return "";
}

// n floats drawn uniformly from [-1, 1) with `seed`
std::vector<float> random_floats(size_t n, unsigned seed);

// The report of the one launch since clear_launches().
const cudaemu::LaunchReport& only_launch();

std::vector<cudaemu::Diagnostic> diagnostics_of_kind(const cudaemu::LaunchReport& r, const std::string& kind);

// Every diagnostic of a launch, one `kind: message` line each
std::string all_messages(const cudaemu::LaunchReport& r);

// Declared first in a test that provokes a sticky error: when the test ends, even by a failed REQUIRE, and after
// its device arrays are gone, the context is reset, so that the next test starts clean.
struct ResetDeviceAtEnd {
    ~ResetDeviceAtEnd();
};

// ===============================================================================================================
// Child processes: the built test programs, and sources compiled here with emucc
// ===============================================================================================================
// A private temporary folder for the children's output files and the sources given to emucc; removed at exit.
fs::path scratch_dir();

struct Run {
    int exit_code = -1;              // exit status; 128 + signal number if it was killed
    std::string out, err;            // everything it wrote
    std::vector<std::string> stats;  // the lines it appended to CUDAEMU_STATS
    double seconds = 0;
};

// Settings for one child. Every CUDAEMU_* variable of this process is dropped first, so a run never depends on
// the caller's environment.
struct Settings {
    std::string threads = "2";   // CUDAEMU_THREADS
    std::string timeout = "30";  // CUDAEMU_TIMEOUT: a bug that hangs fails this suite instead of stalling it
    bool quiet = false;          // CUDAEMU_QUIET
    bool requests = false;       // CUDAEMU_REQUESTS
};

// Runs argv[0] (a path) with `settings` and a fresh CUDAEMU_STATS file; kills it after kill_after_s seconds.
Run run(const std::vector<std::string>& argv, const Settings& settings = {}, double kill_after_s = 60);

// The built program tests/emu/programs/<name>.cu (from EMU_PROGRAMS_DIR)
std::string program(const std::string& name);

// The emucc under test ($EMUCC)
std::string emucc();

// Writes `source` to the scratch folder as <name>.cu and compiles it with emucc ($EMUCC) into <name>.
Run emucc_build(const std::string& name, const std::string& source);

// ===============================================================================================================
// Reading what a program printed
// ===============================================================================================================
bool contains(const std::string& haystack, const std::string& needle);

int count_of(const std::string& haystack, const std::string& needle);

// A program's `key: value` lines; fails on any other line and on a repeated key
std::map<std::string, std::string> parse_output(const std::string& out);

// The `key: value` lines a program should print, in order
std::string lines(const std::vector<std::pair<std::string, std::string>>& key_values);

// CHECKs that `out` (from parse_output) has each key of `want` once, with its value; a failure names the key.
void check_values(const std::map<std::string, std::string>& out,
                  const std::vector<std::pair<std::string, std::string>>& want);

// The number after `"key": ` in a CUDAEMU_STATS line, or -1 where the key is missing
long long json_number(const std::string& line, const std::string& key);

int ceil_div(int a, int b);

}  // namespace emu_test
