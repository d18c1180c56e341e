"""Shared by emucc's unit tests. pytest imports the package cudaemu_cc from common/emu (tests/pytest.ini's
pythonpath); nothing here compiles, but test_identity.py runs clang (its preprocessor) and test_libdevice.py
assembles a small libdevice with llvm-as."""
import sys

# No __pycache__ among the emulator's sources, as the emucc script itself ensures (it says why)
sys.dont_write_bytecode = True
