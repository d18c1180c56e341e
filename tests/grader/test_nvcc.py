"""Every skeleton (as committed), reference solution and catalogue kernel compiles with nvcc for sm_90 without
warnings (make test-nvcc; `python3 -m grader.selftest --nvcc-only` makes the same checks as a table). Skipped where
nvcc is not installed."""
import shutil

import pytest

from grader import selftest

ENTRIES, READ = selftest.read_catalogue()
KERNELS = selftest.nvcc_kernels(ENTRIES)


def test_the_catalogue_reads_and_has_entries():
    assert READ.ok, "%s\n%s" % (READ.what, READ.detail)


@pytest.mark.parametrize("shown, path, lab", KERNELS, ids=[shown for shown, _, _ in KERNELS])
def test_nvcc_compiles_it_without_warnings(shown, path, lab):
    nvcc = shutil.which("nvcc")
    if not nvcc:
        pytest.skip("nvcc not found, so the kernels were not compiled with it")
    check = selftest.check_nvcc(nvcc, shown, path, lab)
    assert check.ok, "%s\n%s" % (check.what, check.detail)
