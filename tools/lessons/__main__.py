"""python3 -m tools.lessons — the lessons' tools: traffic calculator, tile-phase trace, read heatmaps, exercise checker.

    python3 -m tools.lessons traffic M=55 K=48 N=43 TILE=16      what `make traffic` runs
    python3 -m tools.lessons traffic M=130 K=36 N=260 LAB=5      the same for lab 5's block tile, as its lab.h fixes it
    python3 -m tools.lessons traffic M=512 K=512 N=512 LAB=6 SPLIT=8 SMS=132 PER_SM=2   split-K, and waves on that GPU
    python3 -m tools.lessons trace M=4 K=4 N=4 TILE=2 [BLOCK=1,0]  the tiled algorithm phase by phase, for one block
    python3 -m tools.lessons heatmap LAB=3 [KERNEL=..] [M= K= N=]  SVG maps of the emulator's per-element counts
    python3 -m tools.lessons coalescing LAB=1 [KERNEL=..] [M= K= N=]  which lanes share a sector or a bank, one request per line
    python3 -m tools.lessons answers [LAB=3] [ANSWERS=file] [REVEAL=1]   check the exercises' answers: hints, then answers
    python3 -m tools.lessons tf32 K=1024 [TRIALS=100] [SEED=1]   TF32's errors on random dot products of length K
    python3 -m tools.lessons mma [ROW=5 COL=6]   mma.sync's fragments lane by lane, lab 8's swizzle and its banks

Arguments are NAME=VALUE, as make passes them; a NAME given empty counts as missing.
"""
import os
import sys

from course import cache  # build/ stays bounded: the lesson tools' programs are pruned with the rest
from .arguments import Arguments, UsageError
from .calculator import Shape
from .lesson_marks import block_shape

# 32×32 = 1,024 threads, the most a block may hold
MAX_TILE = 32
SIZE_USAGE = "M=<rows of A> K=<columns of A> N=<columns of B> TILE=<tile edge>, whole numbers >= 1"


def shape_from(args, max_size=None, why=""):
    M, K, N = [args.whole_number(name, max_size, why) for name in ("M", "K", "N")]
    if max_size is not None and max_size < MAX_TILE:
        return Shape(M, K, N, args.whole_number("TILE", max_size, why))
    return Shape(M, K, N, args.whole_number("TILE", MAX_TILE, "a TILE×TILE block holds at most 1,024 threads"))


# lab.h constants `make traffic LAB=N` may change, as the exercises do (BK=4 TM=16 for lab 4)
TILE_CONSTANTS = ["BM", "BN", "BK", "TM", "TN", "WM", "WN", "WMITER", "WNITER", "STAGES", "TILE_WIDTH"]


def cmd_traffic(argv):
    from . import traffic
    args = Arguments("traffic", argv, ["M", "K", "N", "TILE", "LAB", "SPLIT", "SMS", "PER_SM"] + TILE_CONSTANTS,
                     SIZE_USAGE + "; or LAB=<lab> instead of TILE, for that lab's block tile, with [SPLIT=<ranges of "
                     "K>] [SMS=<multiprocessors> PER_SM=<blocks each>] and any of its lab.h constants changed (%s)"
                     % ", ".join(n + "=.." for n in TILE_CONSTANTS))
    changed = {name: args.whole_number(name) for name in TILE_CONSTANTS if args.text(name)}
    if not args.text("LAB"):
        if changed:
            args.fail("%s= changes a lab's tile: give LAB=<lab> (TILE= alone is lab 3's square tile)"
                      % next(iter(changed)))
        print(traffic.report(shape_from(args)))
        return 0
    if args.text("TILE"):
        args.fail("give TILE or LAB, not both: LAB=%s fixes the tile" % args.text("LAB"))
    M, K, N = [args.whole_number(name) for name in ("M", "K", "N")]
    gpu = {name: args.whole_number(name) for name in ("SPLIT", "SMS", "PER_SM") if args.text(name)}
    gpu.update(changed)
    try:
        shape = block_shape(M, K, N, args.whole_number("LAB"), gpu)
    except ValueError as e:
        args.fail(str(e))
    print(traffic.block_report(shape))
    return 0


def cmd_trace(argv):
    from . import phase_trace
    limit = phase_trace.MAX_SIZE
    args = Arguments("trace", argv, ["M", "K", "N", "TILE", "BLOCK"],
                     SIZE_USAGE + ", each at most %d; [BLOCK=x,y] (blockIdx, default 0,0)" % limit)
    shape = shape_from(args, limit, "the trace prints every tile; make traffic takes any size")
    grid = (-(-shape.N // shape.TILE), -(-shape.M // shape.TILE))
    text = args.text("BLOCK", "0,0")
    try:
        block = tuple(int(v) for v in text.split(","))
    except ValueError:
        block = ()
    if len(block) != 2 or min(block) < 0:
        args.fail("BLOCK=%s is not x,y (two whole numbers from 0, blockIdx.x then blockIdx.y)" % text)
    if block[0] >= grid[0] or block[1] >= grid[1]:
        args.fail("BLOCK=%s is outside the grid of %d × %d blocks (x from 0 to %d, y from 0 to %d)"
                  % (text, grid[0], grid[1], grid[0] - 1, grid[1] - 1))
    print(phase_trace.report(shape, block))
    return 0


def lab_numbers():
    """'1, 2, 3, ...': the labs a LAB= may name, for a usage line."""
    from .emulator import labs
    return ", ".join(str(lab.number) for lab in labs.all_labs())


def lab_and_kernel(args):
    """The lab LAB names (any of its names) and the kernel to run: KERNEL, or that lab's labs/<lab>/kernel.cu; a
    usage error for a missing or unknown lab or a missing file."""
    from . import emulator
    if not args.text("LAB"):
        args.fail("LAB is missing")
    try:
        lab = emulator.lab_folder(args.text("LAB"))
    except ValueError as e:
        args.fail(str(e))
    kernel = args.text("KERNEL", os.path.join("labs", lab, "kernel.cu"))
    if not os.path.isfile(kernel):
        args.fail("no kernel file '%s'" % kernel)
    return lab, kernel


def cmd_heatmap(argv):
    from . import emulator
    from . import heatmap
    args = Arguments("heatmap", argv, ["LAB", "KERNEL", "M", "K", "N"],
                     "LAB=<%s> [KERNEL=<file>] [M=.. K=.. N=..] (sizes at most %d)" % (lab_numbers(),
                                                                                      heatmap.MAX_SIZE))
    lab, kernel = lab_and_kernel(args)
    constants = emulator.labs.find(lab).constants
    M, K, N = [args.whole_number(name, heatmap.MAX_SIZE, "one cell per element", default)
               for name, default in zip("MKN", heatmap.default_shape(lab, constants))]
    try:
        program = emulator.build(lab, kernel)
    except emulator.BuildError as e:
        print(e, file=sys.stderr)
        print("make heatmap: %s does not build" % kernel, file=sys.stderr)
        return 1
    counts = emulator.measure(program, M, K, N)
    if counts["error"]:  # the kernel stopped: no counts to draw (a finding alone leaves them, and is drawn)
        print("make heatmap: %s failed on %d×%d·%d×%d, so there is nothing to draw: %s"
              % (kernel, M, K, K, N, counts["failure"]), file=sys.stderr)
        return 1
    print(heatmap.summary(counts, kernel, os.path.join("build", "heatmap", lab), constants))
    return 0


def cmd_coalescing(argv):
    from . import coalescing
    from . import emulator
    args = Arguments("coalescing", argv, ["LAB", "KERNEL", "M", "K", "N"],
                     "LAB=<%s> [KERNEL=<file>] [M=.. K=.. N=..] (sizes at most 512)" % lab_numbers())
    lab, kernel = lab_and_kernel(args)
    M, K, N = [args.whole_number(name, 512, "the emulator runs it", default)
               for name, default in zip("MKN", coalescing.default_shape(lab))]
    try:
        program = emulator.build(lab, kernel)
    except emulator.BuildError as e:
        print(e, file=sys.stderr)
        print("make coalescing: %s does not build" % kernel, file=sys.stderr)
        return 1
    try:
        result = emulator.requests(program, M, K, N)
    except RuntimeError as e:
        print("make coalescing: %s failed on %d×%d·%d×%d: %s" % (kernel, M, K, K, N, str(e).strip().splitlines()[-1]),
              file=sys.stderr)
        return 1
    if not any(not line["shared"] for launch in result["launches"] for line in launch["lines"]):
        print("make coalescing: %s made no load or store of global memory on %d×%d·%d×%d: is its kernel written yet?"
              % (kernel, M, K, K, N), file=sys.stderr)
        return 1
    print(coalescing.report(result, kernel, M, K, N))
    if not result["correct"]:
        print("(its C is wrong on this shape: fix correctness first; the requests above are still what it made)")
    return 0


def cmd_answers(argv):
    from . import answers
    from . import emulator
    from .lesson_marks import lesson_of_lab
    args = Arguments("answers", argv, ["LAB", "ANSWERS", "REVEAL"], "[LAB=<1 to %d>] [ANSWERS=<file>, with LAB] "
                     "[REVEAL=1: the answers to the wrong exercises, the lesson's sections for the wrong "
                     "questions]" % len(emulator.LABS))
    if args.text("REVEAL") not in (None, "1"):
        args.fail("REVEAL=%s: REVEAL=1 shows the answers and the sections to reread, leave it out for hints"
                  % args.text("REVEAL"))
    if args.text("ANSWERS") and not args.text("LAB"):
        args.fail("ANSWERS needs LAB, to know which lesson's exercises it answers")
    try:
        labs = [emulator.lab_folder(args.text("LAB"))] if args.text("LAB") else emulator.LABS
    except ValueError as e:
        args.fail(str(e))
    all_right = True
    for lab in labs:
        lesson = lesson_of_lab(lab)
        path = args.text("ANSWERS", os.path.join("labs", lab, "answers.txt"))
        if lesson is None or not os.path.isfile(path):
            if args.text("LAB"):
                args.fail("no lesson for %s" % lab if lesson is None else "no answers file '%s'" % path)
            continue
        ok, lines = answers.check(lesson, path, reveal=args.text("REVEAL") == "1")
        print("\n".join(lines))
        all_right = all_right and ok
    return 0 if all_right else 1


def cmd_tf32(argv):
    from . import tf32
    args = Arguments("tf32", argv, ["K", "TRIALS", "SEED"],
                     "K=<length of the dot products, at most %d> [TRIALS=<how many, default %d, at most %d>] "
                     "[SEED=<whole number, default %d>]" % (tf32.MAX_K, tf32.DEFAULT_TRIALS, tf32.MAX_TRIALS,
                                                            tf32.DEFAULT_SEED))
    K = args.whole_number("K", tf32.MAX_K, "Python sums them one by one")
    trials = args.whole_number("TRIALS", tf32.MAX_TRIALS, "Python sums them one by one", tf32.DEFAULT_TRIALS)
    if K * trials > tf32.MAX_K * 100:
        args.fail("K·TRIALS = %d is above %d: Python sums them one by one" % (K * trials, tf32.MAX_K * 100))
    seed = args.whole_number("SEED", None, "", tf32.DEFAULT_SEED)
    print(tf32.report(tf32.Tf32Shape(K, trials, seed)))
    return 0


def cmd_mma(argv):
    from . import mma
    args = Arguments("mma", argv, ["ROW", "COL"], "[ROW=<row, 0 to %d> COL=<column, 0 to %d>]: the element whose "
                     "lanes and chunks to name (default 0 0)" % (mma.MAX_ROW, mma.A_ROW - 1))
    row = args.whole_number("ROW", mma.MAX_ROW, "a slice of A has BM = 128 rows", 0, minimum=0)
    col = args.whole_number("COL", mma.A_ROW - 1, "a row of As has BK = 32 floats", 0, minimum=0)
    print(mma.report(mma.MmaShape(row, col)))
    return 0


COMMANDS = {"traffic": cmd_traffic, "trace": cmd_trace, "heatmap": cmd_heatmap, "coalescing": cmd_coalescing,
            "answers": cmd_answers, "tf32": cmd_tf32, "mma": cmd_mma}


def main(argv):
    if not argv or argv[0] not in COMMANDS:
        print("usage: python3 -m tools.lessons {%s} NAME=VALUE ..." % ",".join(COMMANDS), file=sys.stderr)
        return 2
    try:
        status = COMMANDS[argv[0]](argv[1:])
    except UsageError as e:
        print(e, file=sys.stderr)
        return 2
    cache.prune()  # the programs built for this command are the newest: the oldest others go, past BUILD_LIMIT_MB
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
