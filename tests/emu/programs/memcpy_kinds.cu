// cudaMemcpy in all four directions and with cudaMemcpyDefault (the runtime works out the direction), and
// cudaMemset, which sets bytes, not elements. Each copy's result is checked on the host.
//
// Build: nvcc -arch=sm_90 -o memcpy_kinds tests/emu/programs/memcpy_kinds.cu

#include "program.h"

int main() {
    const int n = 1000;
    const size_t bytes = n * sizeof(int);
    std::vector<int> src(n), back(n, 0), host_copy(n, 0), zeros(n, 0), ones_bytes(n, 0x01010101);
    for (int i = 0; i < n; ++i) src[i] = i * 31 - 7000;

    int* d_first = nullptr;
    int* d_second = nullptr;
    CHECK(cudaMalloc(&d_first, bytes));
    CHECK(cudaMalloc(&d_second, bytes));

    print_error("host_to_device", cudaMemcpy(d_first, src.data(), bytes, cudaMemcpyHostToDevice));
    print_error("device_to_device", cudaMemcpy(d_second, d_first, bytes, cudaMemcpyDeviceToDevice));
    print_error("device_to_host", cudaMemcpy(back.data(), d_second, bytes, cudaMemcpyDeviceToHost));
    print_compare("round_trip", back, src);
    print_error("host_to_host", cudaMemcpy(host_copy.data(), back.data(), bytes, cudaMemcpyHostToHost));
    print_compare("host_copy", host_copy, src);

    print_error("memset_zero", cudaMemset(d_first, 0, bytes));
    print_error("default_device_to_host", cudaMemcpy(back.data(), d_first, bytes, cudaMemcpyDefault));
    print_compare("memset_zero_values", back, zeros);
    print_error("memset_ones", cudaMemset(d_first, 1, bytes));  // every byte 0x01, so every int 0x01010101
    print_error("default_device_to_host_2", cudaMemcpy(back.data(), d_first, bytes, cudaMemcpyDefault));
    print_compare("memset_ones_values", back, ones_bytes);

    print_error("default_host_to_device", cudaMemcpy(d_first, src.data(), bytes, cudaMemcpyDefault));
    print_error("default_device_to_device", cudaMemcpy(d_second, d_first, bytes, cudaMemcpyDefault));
    print_error("default_device_to_host_3", cudaMemcpy(back.data(), d_second, bytes, cudaMemcpyDefault));
    print_compare("default_round_trip", back, src);

    // part of an allocation: offsets in elements on the pointer, sizes in bytes
    print_error("memset_part", cudaMemset(d_second + 10, 0, 5 * sizeof(int)));
    print_error("device_to_host_part", cudaMemcpy(back.data(), d_second, bytes, cudaMemcpyDeviceToHost));
    std::vector<int> want_part = src;
    for (int i = 10; i < 15; ++i) want_part[i] = 0;
    print_compare("memset_part_values", back, want_part);

    print_error("free_first", cudaFree(d_first));
    print_error("free_second", cudaFree(d_second));
    print_error("free_null", cudaFree(nullptr));
    return 0;
}
