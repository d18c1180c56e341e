// traffic_probe.cpp — the exact global traffic of one matmul() call, counted by the CPU emulator.
//
//   traffic_probe M N K      prints {"M": .., "N": .., "K": .., "bytes_read": .., "bytes_written": .., "launches": ..}
//
// Built with tools/emucc against a lab's kernel; `make bench` uses it to place kernels on the roofline and
// `make profile` to put the emulator's count next to the hardware counters.
#include <cstdio>
#include <cstdlib>

#include "harness.h"
#include "lab.h"

int main(int argc, char** argv) {
  if (argc != 4 || atoi(argv[1]) < 1 || atoi(argv[2]) < 1 || atoi(argv[3]) < 1) {
    fprintf(stderr, "usage: traffic_probe M N K   (each >= 1)\n");
    return 2;
  }
  const Problem p = random_problem(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), 1);
  const Run run = run_matmul(p, matmul);
  if (run.launch_error != cudaSuccess || run.sync_error != cudaSuccess) {
    fprintf(stderr, "traffic_probe: the kernel failed: %s\n",
            cudaGetErrorString(run.launch_error != cudaSuccess ? run.launch_error : run.sync_error));
    return 1;
  }
  printf("{\"M\": %d, \"N\": %d, \"K\": %d, \"bytes_read\": %llu, \"bytes_written\": %llu, \"launches\": %d}\n", p.M,
         p.N, p.K, (unsigned long long)run.bytes_read, (unsigned long long)run.bytes_written, run.kernel_launches);
  return 0;
}
