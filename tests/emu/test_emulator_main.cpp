// test_emulator_main.cpp: the CPU emulator's test suite (doctest): its main, and what its files cover.
//
// Two kinds of test:
//   - in process: kernels.cu's launchers run here, and cudaemu::launches() / element_counts() must report
//     exactly the traffic and the diagnostics each kernel's source implies;
//   - programs: the standalone programs in tests/emu/programs/ (built with common/emu/emucc into EMU_PROGRAMS_DIR)
//     run as child processes with their own CUDAEMU_* settings; the test reads their stdout, stderr, exit
//     status and CUDAEMU_STATS lines. The same programs build with nvcc, and gpu_check.sh diffs the two runs.
// Expected values are computed from the sizes, never typed in.
//
// One binary, one file per concern (each says what it covers at its top):
//   test_emulator_counts.cpp         exact byte and element counts, in process
//   test_emulator_memory_checks.cpp  bounds checks: allocations, __device__ variables, dynamic shared, host memory
//   test_emulator_races.cpp          races, barriers, shared memory read before it is written
//   test_emulator_warps.cpp          warp and cooperative-group diagnostics
//   test_emulator_requests.cpp       warp-level requests: sectors and wavefronts
//   test_emulator_runtime_api.cpp    launch configuration errors and the runtime API's answers
//   test_emulator_memory_spaces.cpp  dynamic shared, __constant__, mapped host memory, asynchronous copies
//   test_emulator_emucc.cpp          the compiler driver on sources written by the tests
//   test_emulator_programs.cpp       whole programs: clean runs, error programs, determinism, stats, watchdog
// test_emulator.h has the helpers several files use (test_emulator_helpers.cpp defines them).
//
// Build and run from the repository root (the top-level Makefile does both: make test-emulator):
//   common/emu/emucc -o build/tests/emu/test_emulator tests/emu/test_emulator_*.cpp tests/emu/kernels.cu
//   EMU_PROGRAMS_DIR=build/tests/emu/programs EMUCC=common/emu/emucc build/tests/emu/test_emulator
// Add -sf='*races*' to run one file's tests (doctest's --source-file filter), -tc='name' to run one test.

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
