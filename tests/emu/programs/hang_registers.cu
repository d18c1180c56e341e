// Never finishes, and touches no device or shared memory while it spins: a volatile local counter keeps the
// optimiser from removing the loop. Only for the emulator's watchdog test (run with CUDAEMU_TIMEOUT=1): such a
// loop cannot be stopped from outside, so the emulator ends the program. gpu_check.sh skips hang_*.
//
// Build: common/emu/emucc -o hang_registers tests/emu/programs/hang_registers.cu

#include "program.h"

__global__ void spin_in_registers_kernel(int* out) {
    volatile int spins = 0;
    while (spins >= 0) {
        spins = (spins + 1) & 0xFFFF;  // BUG: never negative, so the loop never ends
    }
    out[threadIdx.x] = spins;
}

int main() {
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, 32 * sizeof(int)));
    std::printf("launching: spin_in_registers_kernel\n");
    std::fflush(stdout);  // the emulator ends the program from inside the launch
    spin_in_registers_kernel<<<1, 32>>>(d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    return 0;
}
