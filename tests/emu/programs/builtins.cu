// Built-in variables: every thread writes its threadIdx, blockIdx, blockDim and gridDim; the host checks each
// record against the coordinates it must have, for a 1-D, a 2-D and a 3-D launch (no dimension a power of two
// in the 3-D case, so a swapped or dropped dimension shows).
//
// Build: nvcc -arch=sm_90 -o builtins tests/emu/programs/builtins.cu   (or common/emu/emucc with the same arguments)

#include <string>

#include "program.h"

struct Coords {
    unsigned tx, ty, tz;  // threadIdx
    unsigned bx, by, bz;  // blockIdx
    unsigned bdx, bdy, bdz;  // blockDim
    unsigned gdx, gdy, gdz;  // gridDim
};

// ----------------------------------------------------------------------------
// kernel

__global__ void record_coords_kernel(Coords* out) {
    const unsigned threads_per_block = blockDim.x * blockDim.y * blockDim.z;
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    Coords c;
    c.tx = threadIdx.x, c.ty = threadIdx.y, c.tz = threadIdx.z;
    c.bx = blockIdx.x, c.by = blockIdx.y, c.bz = blockIdx.z;
    c.bdx = blockDim.x, c.bdy = blockDim.y, c.bdz = blockDim.z;
    c.gdx = gridDim.x, c.gdy = gridDim.y, c.gdz = gridDim.z;
    out[block * threads_per_block + thread] = c;
}

// ----------------------------------------------------------------------------
// host

static bool same(const Coords& a, const Coords& b) {
    return a.tx == b.tx && a.ty == b.ty && a.tz == b.tz && a.bx == b.bx && a.by == b.by && a.bz == b.bz &&
           a.bdx == b.bdx && a.bdy == b.bdy && a.bdz == b.bdz && a.gdx == b.gdx && a.gdy == b.gdy && a.gdz == b.gdz;
}

static void check_launch(const char* name, dim3 grid, dim3 block) {
    const unsigned threads_per_block = block.x * block.y * block.z;
    const unsigned total = grid.x * grid.y * grid.z * threads_per_block;
    Coords* d_coords = nullptr;
    CHECK(cudaMalloc(&d_coords, total * sizeof(Coords)));
    CHECK(cudaMemset(d_coords, 0xFF, total * sizeof(Coords)));  // no record is right until a thread writes it
    record_coords_kernel<<<grid, block>>>(d_coords);
    print_error((std::string(name) + "_launch").c_str(), cudaGetLastError());
    print_error((std::string(name) + "_sync").c_str(), cudaDeviceSynchronize());
    std::vector<Coords> got(total);
    CHECK(cudaMemcpy(got.data(), d_coords, total * sizeof(Coords), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_coords));

    int mismatches = 0;
    unsigned first_bad = 0;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx)
                for (unsigned tz = 0; tz < block.z; ++tz)
                    for (unsigned ty = 0; ty < block.y; ++ty)
                        for (unsigned tx = 0; tx < block.x; ++tx) {
                            const unsigned b = bx + grid.x * (by + grid.y * bz);
                            const unsigned t = tx + block.x * (ty + block.y * tz);
                            const Coords want{tx, ty, tz, bx, by, bz, block.x, block.y, block.z,
                                              grid.x, grid.y, grid.z};
                            if (!same(got[b * threads_per_block + t], want)) {
                                if (mismatches == 0) first_bad = b * threads_per_block + t;
                                ++mismatches;
                            }
                        }
    std::printf("%s_threads: %u\n", name, total);
    if (mismatches == 0) {
        std::printf("%s_coords: pass\n", name);
    } else {
        const Coords& c = got[first_bad];
        std::printf("%s_coords: FAIL (%d of %u wrong, first record %u: thread (%u,%u,%u) block (%u,%u,%u))\n", name,
                    mismatches, total, first_bad, c.tx, c.ty, c.tz, c.bx, c.by, c.bz);
    }
}

int main() {
    check_launch("grid_1d", dim3(5), dim3(64));
    check_launch("grid_2d", dim3(3, 4), dim3(8, 4));
    check_launch("grid_3d", dim3(2, 3, 5), dim3(7, 3, 2));
    return 0;
}
