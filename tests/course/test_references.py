"""The references as programs beyond their lab's tests. Lab 6's launcher stays correct across cudaDeviceReset(),
which the harness calls after a kernel faults: its split-K workspace is allocated per call, not kept in a static
that the reset frees. Checked on the emulator with programs/split_k_across_reset.cu, which splits K once the
emulator has two workers; a copy of the reference that keeps its workspace in a static, as it once did, must fail
the same check."""
import os
import subprocess
import unittest

from course import toolchain

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build", "tests", "references")
LAB6 = os.path.join(ROOT, "solutions", "lab6-warptiling", "kernel.cu")
DRIVER = os.path.join(ROOT, "tests", "course", "programs", "split_k_across_reset.cu")

PER_CALL = """    float* out = C;
    if (splits > 1) {
        keep_pool_memory();
        CUDA_CHECK(cudaMallocAsync(&out, size_t(splits) * M * N * sizeof(float), 0));
    }
"""
KEPT_IN_A_STATIC = """    static float* kept = nullptr;  // kept from call to call: a reset frees it under the launcher
    static size_t capacity = 0;
    float* out = C;
    if (splits > 1) {
        if (size_t(splits) * M * N > capacity) {
            CUDA_CHECK(cudaMalloc(&kept, size_t(splits) * M * N * sizeof(float)));
            capacity = size_t(splits) * M * N;
        }
        out = kept;
    }
"""
FREED = "    CUDA_CHECK(cudaFreeAsync(out, 0));\n"


def run_across_reset(name, kernel_text):
    """Builds the driver with `kernel_text` as lab 6's kernel.cu and runs it with two emulator workers."""
    out = os.path.join(BUILD, name)
    os.makedirs(out, exist_ok=True)
    kernel = os.path.join(out, "kernel.cu")
    with open(kernel, "w") as f:
        f.write(kernel_text)
    chain = toolchain.Toolchain("emu")
    includes = [os.path.join(ROOT, "labs", "lab6-warptiling"), os.path.join(ROOT, "common")]
    objects = [chain.compile(kernel, os.path.join(out, "kernel.o"), includes),
               chain.compile(DRIVER, os.path.join(out, "driver.o"), includes)]
    program = chain.link(objects, os.path.join(out, "split_k_across_reset"))
    return subprocess.run([program], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, CUDAEMU_THREADS="2"))


class Lab6AcrossAReset(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(LAB6) as f:
            cls.reference = f.read()

    def test_the_reference_gives_the_same_bits_after_a_reset(self):
        got = run_across_reset("lab6-reference", self.reference)
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertEqual(got.stdout.splitlines(),
                         ["before the reset: cudaSuccess", "after the reset: cudaSuccess", "same bits: yes"])
        self.assertNotIn("cudaemu:", got.stderr)

    def test_a_workspace_kept_in_a_static_is_written_after_it_was_freed(self):
        self.assertEqual(self.reference.count(PER_CALL), 1, "the reference's workspace changed: update this test")
        self.assertEqual(self.reference.count(FREED), 1, "the reference's workspace changed: update this test")
        kept = self.reference.replace(PER_CALL, KEPT_IN_A_STATIC).replace(FREED, "")
        got = run_across_reset("lab6-workspace-in-a-static", kept)
        self.assertIn("which was freed before this access", got.stderr)
        self.assertNotEqual(got.stdout.splitlines()[-1:], ["same bits: yes"])
