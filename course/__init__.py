"""course — the course's tools as one package, run from the repository root.

    python3 -m course lab lab3 [--kernel FILE] [--backend gpu|emu]    what `make lab3` runs
    python3 -m course pitfall --lab 3 --name NAME                      what `make pitfall` runs
    python3 -m course grade [--submission DIR] [--backend gpu|emu]     what `make grade` runs
    python3 -m course info [LAB]                                       each lab's facts, as the tools see them

Modules:
    paths      where things are (the repository root, build/, emucc)
    labs       the Lab model: each lab's facts from its lab.h (compiled) and lab.ini
    toolchain  the two backends (nvcc on a GPU, emucc on the CPU emulator): command lines and the object cache
    runner     one doctest case at a time, in its own process, its verdict read from the course's channel
    results    a test's result, and the reports built from results (results.json, junit.xml, the table)
    scoring    points per suite, shared by a lab's cases, withheld when correctness fails
    grading    `make grade`: every lab of a submission, built and tested (in a sandbox for class grading)
    student    `make labN` and `make pitfall`: a student's own run, with the demo and its request table
    confine, sandbox, pitfalls   what a kernel may use; the bubblewrap sandbox; the catalogue's pitfalls
    cache      build/ stays bounded: after each student run, the least recently used programs past BUILD_LIMIT_MB
    catalogue  the grader's known-wrong and known-right kernels, each a patch to a reference and an .ini
"""
