"""emucc's driver: compiles CUDA C++ for the CPU emulator (the script common/emu/emucc runs cli.main).

    source.py        the source rewrite of a .cu file and its own headers: what is refused, and the order of the
                     rewrites in launches.py (<<<...>>>, cooperative launches) and declarations.py (extern
                     __shared__, __device__/__constant__ variables, alignas); scan.py reads the text
    ir.py            the passes over the LLVM IR text, between instrumenting and optimising
    arithmetic.py    the passes that fuse device multiply-adds as nvcc does and count floating-point operations
    toolchain.py     clang, LLVM's tools and Boost.Context on this machine
    build.py         compile, instrument, optimise, link; the runtime object's cache
    cli.py           the command line
    errors.py        how emucc stops

Unit tests: tests/emucc (make test-emucc).
"""
