// test_emulator_helpers.cpp: the definitions of test_emulator.h's helpers, and the settings every test of the
// suite runs under.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "test_emulator.h"

extern char** environ;

doctest::String toString(cudaError_t e) { return cudaGetErrorName(e); }

std::string name_of(cudaError_t e) { return cudaGetErrorName(e); }

namespace emu_test {
namespace {

// The in-process kernels provoke errors on purpose; their diagnostics are checked through cudaemu::launches(),
// so they need not also go to stderr. Set CUDAEMU_QUIET=0 to see them.
// (Child processes get their own CUDAEMU_* settings: see run().)
[[maybe_unused]] const bool quiet_in_process = setenv("CUDAEMU_QUIET", "1", 0) == 0;

struct Scratch {
    fs::path dir;
    ~Scratch() {
        std::error_code ignored;
        if (!dir.empty()) fs::remove_all(dir, ignored);
    }
} scratch;

std::string env_or_fail(const char* name, const char* what) {
    const char* value = std::getenv(name);
    if (!value || !*value) {
        FAIL((std::string(name) + " is not set: it must name " + what + " (make test-emulator sets it)"));
    }
    return value;
}

}  // namespace

std::string emucc() {
    const std::string path = env_or_fail("EMUCC", "common/emu/emucc");
    if (!fs::exists(path)) FAIL(("EMUCC=" + path + " does not exist"));
    return path;
}

// ===============================================================================================================
// Files, marked lines, device arrays, first mismatches
// ===============================================================================================================
const fs::path kTestDir = fs::path(__FILE__).parent_path();

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int marked_line(const std::string& text, const std::string& name, const std::string& file) {
    const std::string marker = "[line: " + name + "]";
    const size_t at = text.find(marker);
    INFO("looking for '", marker, "' in ", file);
    REQUIRE(at != std::string::npos);
    REQUIRE(text.find(marker, at + 1) == std::string::npos);
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

int kernels_line(const std::string& name) {
    static const std::string text = read_file(kTestDir / "kernels.cu");
    INFO("kernels.cu is read from ", (kTestDir / "kernels.cu").string(), ": run the test from the repository root");
    REQUIRE(!text.empty());
    return marked_line(text, name, "kernels.cu");
}

std::string kernels_at(const std::string& name) { return "kernels.cu:" + std::to_string(kernels_line(name)); }

std::vector<float> random_floats(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = uniform(rng);
    return v;
}

const cudaemu::LaunchReport& only_launch() {
    REQUIRE(cudaemu::launches().size() == 1);
    return cudaemu::launches().front();
}

std::vector<cudaemu::Diagnostic> diagnostics_of_kind(const cudaemu::LaunchReport& r, const std::string& kind) {
    std::vector<cudaemu::Diagnostic> out;
    for (const cudaemu::Diagnostic& d : r.diagnostics)
        if (d.kind == kind) out.push_back(d);
    return out;
}

std::string all_messages(const cudaemu::LaunchReport& r) {
    std::string s;
    for (const cudaemu::Diagnostic& d : r.diagnostics) s += d.kind + ": " + d.message + "\n";
    return s;
}

ResetDeviceAtEnd::~ResetDeviceAtEnd() {
    cudaDeviceReset();
    cudaGetLastError();
    cudaemu::clear_launches();
}

// ===============================================================================================================
// Child processes
// ===============================================================================================================
fs::path scratch_dir() {
    if (scratch.dir.empty()) {
        std::string pattern = (fs::temp_directory_path() / "emu-test-XXXXXX").string();
        REQUIRE(mkdtemp(pattern.data()) != nullptr);
        scratch.dir = pattern;
    }
    return scratch.dir;
}

Run run(const std::vector<std::string>& argv, const Settings& settings, double kill_after_s) {
    static int runs = 0;
    const std::string base = (scratch_dir() / ("run" + std::to_string(++runs))).string();
    const std::string out_path = base + ".out", err_path = base + ".err", stats_path = base + ".jsonl";

    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "CUDAEMU_", 8) != 0) env.push_back(*e);
    env.push_back("CUDAEMU_THREADS=" + settings.threads);
    env.push_back("CUDAEMU_TIMEOUT=" + settings.timeout);
    env.push_back("CUDAEMU_STATS=" + stats_path);
    if (settings.quiet) env.push_back("CUDAEMU_QUIET=1");
    if (settings.requests) env.push_back("CUDAEMU_REQUESTS=1");
    std::vector<char*> envp, args;
    for (std::string& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    for (std::string& s : argv_copy) args.push_back(s.data());
    args.push_back(nullptr);

    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {  // only async-signal-safe calls between fork and exec
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
        execve(args[0], args.data(), envp.data());
        _exit(127);
    }
    int status = 0;
    bool killed = false;
    for (;;) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0) FAIL("waitpid failed");
        if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(kill_after_s) && !killed) {
            kill(pid, SIGKILL);
            killed = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    Run r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out_path);
    r.err = read_file(err_path);
    std::istringstream stats(read_file(stats_path));
    for (std::string line; std::getline(stats, line);)
        if (!line.empty()) r.stats.push_back(line);
    INFO("command: ", argv[0]);
    CHECK_MESSAGE(!killed, "killed after ", kill_after_s, " s");
    CHECK_MESSAGE(r.exit_code != 127, "could not execute ", argv[0]);
    return r;
}

std::string program(const std::string& name) {
    const fs::path path = fs::path(env_or_fail("EMU_PROGRAMS_DIR", "the folder of the built test programs")) / name;
    if (!fs::exists(path)) FAIL(("test program " + path.string() + " is missing: build it with make test-emulator"));
    return path.string();
}

Run emucc_build(const std::string& name, const std::string& source) {
    const fs::path src = scratch_dir() / (name + ".cu");
    std::ofstream(src) << source;
    return run({emucc(), "-o", (scratch_dir() / name).string(), src.string()});
}

// ===============================================================================================================
// Reading what a program printed
// ===============================================================================================================
bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

int count_of(const std::string& haystack, const std::string& needle) {
    int n = 0;
    for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
    return n;
}

std::map<std::string, std::string> parse_output(const std::string& out) {
    std::map<std::string, std::string> values;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        const size_t colon = line.find(": ");
        INFO("line: ", line);
        REQUIRE(colon != std::string::npos);
        REQUIRE(values.count(line.substr(0, colon)) == 0);
        values[line.substr(0, colon)] = line.substr(colon + 2);
    }
    return values;
}

std::string lines(const std::vector<std::pair<std::string, std::string>>& key_values) {
    std::string s;
    for (const auto& kv : key_values) s += kv.first + ": " + kv.second + "\n";
    return s;
}

void check_values(const std::map<std::string, std::string>& out,
                  const std::vector<std::pair<std::string, std::string>>& want) {
    for (const auto& key_value : want) {
        const std::string key = key_value.first;
        CAPTURE(key);
        CHECK(out.count(key) == 1);
        if (out.count(key)) CHECK(out.at(key) == key_value.second);
    }
}

long long json_number(const std::string& line, const std::string& key) {
    const std::string pattern = "\"" + key + "\": ";
    const size_t at = line.find(pattern);
    if (at == std::string::npos) return -1;
    return std::atoll(line.c_str() + at + pattern.size());
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace emu_test
