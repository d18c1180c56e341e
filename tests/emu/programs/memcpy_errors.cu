// The cudaMemcpy mistakes of a first host program: a direction that does not match the pointers, a size in
// elements where bytes were meant (a copy past the end of an allocation), and a copy that nothing checks. Each
// prints the error the call returns; after each, cudaGetLastError returns it once, then cudaSuccess.
//
// Build: nvcc -arch=sm_90 -o memcpy_errors tests/emu/programs/memcpy_errors.cu

#include "program.h"

int main() {
    const int n = 256;
    const size_t bytes = n * sizeof(float);
    std::vector<float> host(n, 1.5f), back(n, 0.0f);

    float* d_small = nullptr;  // n elements asked for as n bytes: a quarter of what the copies below move
    float* d_full = nullptr;
    CHECK(cudaMalloc(&d_small, n));
    CHECK(cudaMalloc(&d_full, bytes));

    // the direction says host to device, but the destination is host memory and the source device memory
    print_error("host_to_device_reversed", cudaMemcpy(back.data(), d_full, bytes, cudaMemcpyHostToDevice));
    print_error("last_error_after_reversed", cudaGetLastError());
    print_error("last_error_again", cudaGetLastError());
    // the direction says device to host, but the destination is device memory
    print_error("device_to_host_reversed", cudaMemcpy(d_full, host.data(), bytes, cudaMemcpyDeviceToHost));
    cudaGetLastError();

    // the right direction, but n floats into an allocation of n bytes
    print_error("host_to_device_past_end", cudaMemcpy(d_small, host.data(), bytes, cudaMemcpyHostToDevice));
    print_error("last_error_after_past_end", cudaGetLastError());
    print_error("device_to_host_past_end", cudaMemcpy(back.data(), d_small, bytes, cudaMemcpyDeviceToHost));
    cudaGetLastError();
    // exactly the allocation: fine
    print_error("host_to_device_whole", cudaMemcpy(d_small, host.data(), n, cudaMemcpyHostToDevice));

    // a valid round trip still works after the errors (none of them is sticky)
    print_error("round_trip_in", cudaMemcpy(d_full, host.data(), bytes, cudaMemcpyHostToDevice));
    print_error("round_trip_out", cudaMemcpy(back.data(), d_full, bytes, cudaMemcpyDeviceToHost));
    print_compare("round_trip_values", back, host);

    // page-locked host memory is known to the runtime: a reversed direction between it and device memory
    float* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, bytes));
    for (int i = 0; i < n; ++i) pinned[i] = -2.0f;
    std::vector<float> pinned_values(n);
    print_error("pinned_host_to_device_reversed", cudaMemcpy(pinned, d_full, bytes, cudaMemcpyHostToDevice));
    cudaGetLastError();
    pinned_values.assign(pinned, pinned + n);
    print_compare("pinned_after_reversed_copy_out", pinned_values, host);  // d_full holds 1.5 everywhere
    for (int i = 0; i < n; ++i) pinned[i] = -2.0f;
    print_error("pinned_device_to_host_reversed", cudaMemcpy(d_full, pinned, bytes, cudaMemcpyDeviceToHost));
    cudaGetLastError();
    print_error("pinned_check_out", cudaMemcpy(back.data(), d_full, bytes, cudaMemcpyDeviceToHost));
    print_compare("device_after_reversed_copy_in", back, std::vector<float>(n, -2.0f));
    print_error("pinned_device_to_device", cudaMemcpy(pinned, d_full, bytes, cudaMemcpyDeviceToDevice));
    cudaGetLastError();
    print_error("pinned_host_to_host", cudaMemcpy(pinned, host.data(), bytes, cudaMemcpyHostToHost));
    cudaGetLastError();
    print_error("pageable_device_to_device", cudaMemcpy(back.data(), d_full, bytes, cudaMemcpyDeviceToDevice));
    cudaGetLastError();
    print_error("free_pinned", cudaFreeHost(pinned));

    // managed memory is reachable from both sides as well
    float* managed = nullptr;
    CHECK(cudaMallocManaged(&managed, bytes));
    print_error("managed_host_to_device_reversed", cudaMemcpy(managed, d_full, bytes, cudaMemcpyHostToDevice));
    cudaGetLastError();
    print_error("managed_device_to_host_reversed", cudaMemcpy(d_full, managed, bytes, cudaMemcpyDeviceToHost));
    cudaGetLastError();
    print_error("managed_from_pageable_device_to_device", cudaMemcpy(managed, host.data(), bytes, cudaMemcpyDeviceToDevice));
    cudaGetLastError();
    print_error("free_managed", cudaFree(managed));

    print_error("free_small", cudaFree(d_small));
    print_error("free_full", cudaFree(d_full));
    print_error("free_twice", cudaFree(d_full));
    return 0;
}
