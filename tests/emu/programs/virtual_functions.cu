// virtual_functions.cu: a class hierarchy with virtual __device__ functions, its objects made and called through a
// base pointer in the kernel, as CUDA allows (objects with virtual functions may not cross from host to device).
//
// Build: nvcc -arch=sm_90 -o virtual_functions tests/emu/programs/virtual_functions.cu
#include <vector>

#include "program.h"

struct Shape {
    __device__ virtual ~Shape() {}
    __device__ virtual float area() const { return 0.0f; }
};
struct Square : Shape {
    float side;
    __device__ explicit Square(float s) : side(s) {}
    __device__ float area() const override { return side * side; }
};
struct Circle : Shape {
    float radius;
    __device__ explicit Circle(float r) : radius(r) {}
    __device__ float area() const override { return 3.0f * radius * radius; }
};

__global__ void areas(float* out) {
    const int t = threadIdx.x;
    Square square{float(t)};
    Circle circle{float(t)};
    Shape plain;
    const Shape* shape = t % 3 == 0 ? static_cast<const Shape*>(&square)
                         : t % 3 == 1 ? static_cast<const Shape*>(&circle)
                                      : &plain;
    out[t] = shape->area();
}

int main() {
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
    areas<<<1, 32>>>(d_out);
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out(32), want(32);
    CHECK(cudaMemcpy(out.data(), d_out, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; ++t) want[t] = t % 3 == 0 ? float(t * t) : t % 3 == 1 ? 3.0f * t * t : 0.0f;
    print_compare("areas", out, want);
    std::printf("area of thread 31: %g\n", out[31]);
    return 0;
}
