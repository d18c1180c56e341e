// cudaGetErrorName and cudaGetErrorString for the codes the course meets: printed as `name: string`.
//
// Build: nvcc -arch=sm_90 -o get_error_strings tests/emu/programs/get_error_strings.cu

#include "program.h"

int main() {
    const cudaError_t codes[] = {
        cudaSuccess,           cudaErrorInvalidValue,   cudaErrorMemoryAllocation, cudaErrorInvalidConfiguration,
        cudaErrorInvalidDevice, cudaErrorIllegalAddress, cudaErrorLaunchTimeout,    cudaErrorLaunchFailure,
    };
    for (cudaError_t code : codes) {
        std::printf("%s: %s\n", cudaGetErrorName(code), cudaGetErrorString(code));
    }
    std::printf("code_of_cudaErrorIllegalAddress: %d\n", int(cudaErrorIllegalAddress));
    std::printf("code_of_cudaErrorInvalidConfiguration: %d\n", int(cudaErrorInvalidConfiguration));
    return 0;
}
