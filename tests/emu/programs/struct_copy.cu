// Structs in kernels: a struct passed by value as a kernel parameter (with a struct inside it), whole-struct
// copies from and to global memory, and a field-by-field update.
//
// Build: nvcc -arch=sm_90 -o struct_copy tests/emu/programs/struct_copy.cu

#include "program.h"

struct Particle {
    float x, y, z;
    int id;
};

struct Shift {
    Particle origin;  // added to every particle's position
    float scale;      // applied before the shift
    int id_offset;
};

// ----------------------------------------------------------------------------
// kernels

// copy[i] = in[i] as a whole struct; moved[i] = in[i] scaled, shifted and renumbered.
__global__ void move_particles_kernel(const Particle* in, Particle* copy, Particle* moved, Shift shift, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        copy[i] = in[i];
        Particle p = in[i];
        p.x = p.x * shift.scale + shift.origin.x;
        p.y = p.y * shift.scale + shift.origin.y;
        p.z = p.z * shift.scale + shift.origin.z;
        p.id += shift.id_offset;
        moved[i] = p;
    }
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int n = 777;
    std::vector<Particle> in(n), copy(n), moved(n);
    for (int i = 0; i < n; ++i) in[i] = Particle{float(i), float(-i), float(i % 13), i};
    const Shift shift{Particle{1.0f, 2.0f, 3.0f, 0}, 2.0f, 100};

    Particle *d_in = nullptr, *d_copy = nullptr, *d_moved = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(Particle)));
    CHECK(cudaMalloc(&d_copy, n * sizeof(Particle)));
    CHECK(cudaMalloc(&d_moved, n * sizeof(Particle)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(Particle), cudaMemcpyHostToDevice));
    move_particles_kernel<<<(n + 127) / 128, 128>>>(d_in, d_copy, d_moved, shift, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    CHECK(cudaMemcpy(copy.data(), d_copy, n * sizeof(Particle), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(moved.data(), d_moved, n * sizeof(Particle), cudaMemcpyDeviceToHost));

    // small integers times 2 plus small integers: exact in float on both machines, fused or not
    std::vector<float> got_fields, want_fields;
    for (int i = 0; i < n; ++i) {
        const Particle& c = copy[i];
        const Particle& m = moved[i];
        const Particle& p = in[i];
        got_fields.insert(got_fields.end(), {c.x, c.y, c.z, float(c.id), m.x, m.y, m.z, float(m.id)});
        want_fields.insert(want_fields.end(),
                           {p.x, p.y, p.z, float(p.id), p.x * shift.scale + shift.origin.x,
                            p.y * shift.scale + shift.origin.y, p.z * shift.scale + shift.origin.z,
                            float(p.id + shift.id_offset)});
    }
    print_compare("struct_fields", got_fields, want_fields);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_copy));
    CHECK(cudaFree(d_moved));
    return 0;
}
