// Never finishes: the kernel spins until a flag in global memory is set, and nothing sets it. Only for the
// emulator's watchdog test (run with CUDAEMU_TIMEOUT=1): a GPU would hang, so gpu_check.sh skips hang_*.
//
// Build: common/emu/emucc -o hang_global_flag tests/emu/programs/hang_global_flag.cu

#include "program.h"

__global__ void spin_on_flag_kernel(const int* flag) {
    while (flag[0] == 0) {
        // BUG: no thread ever sets the flag
    }
}

int main() {
    int* d_flag = nullptr;
    CHECK(cudaMalloc(&d_flag, sizeof(int)));
    CHECK(cudaMemset(d_flag, 0, sizeof(int)));
    spin_on_flag_kernel<<<2, 32>>>(d_flag);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    print_error("last_error", cudaGetLastError());
    return 0;
}
