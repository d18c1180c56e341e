"""gen_class — a made-up class of submissions, for benchmarking and trying out `make grade-all`.

    python3 -m grader.gen_class --out DIR [--count 50] [--seed 1]

Mixes, in fixed proportions: correct submissions (the reference solutions, every lab or some), wrong ones (an
untouched skeleton, or a kernel of the grader's catalogue), malicious ones (grader/malicious/) and malformed entries
(empty, not laid out like labs/, a broken archive, an archive that climbs out of its folder). About a third are
.zip or .tar.gz archives. The same seed gives the same class.
"""
import argparse
import glob
import io
import os
import random
import shutil
import sys
import tarfile
import zipfile

from course import catalogue, labs  # the grader's catalogue (each kernel a patch to a reference); the Lab model
from course.paths import ROOT

LABS = labs.folders()
SHORT = {lab.short: lab.folder for lab in labs.all_labs()}
KINDS = [("correct", 0.4), ("wrong", 0.3), ("malicious", 0.2), ("malformed", 0.1)]


def kernels_in(folder):
    """[(lab, path)] for the lab-named subfolders (lab1/, ...) of grader/malicious/."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "lab*", "*.cu"))):
        short = os.path.basename(os.path.dirname(path))
        if short in SHORT:
            out.append((SHORT[short], path))
    return out


def write_folder(dest, kernels):
    for lab, path in kernels.items():
        os.makedirs(os.path.join(dest, lab), exist_ok=True)
        shutil.copy(path, os.path.join(dest, lab, "kernel.cu"))


def pack(folder, rng):
    """Turns a student's folder into a .zip or .tar.gz of it, or leaves it as it is."""
    form = rng.choice(["folder", "folder", "zip", "tar.gz"])
    if form == "folder":
        return
    if form == "zip":
        with zipfile.ZipFile(folder + ".zip", "w") as z:
            for dirpath, _, files in os.walk(folder):
                for f in files:
                    path = os.path.join(dirpath, f)
                    z.write(path, os.path.relpath(path, folder))
    else:
        with tarfile.open(folder + ".tar.gz", "w:gz") as t:
            for name in sorted(os.listdir(folder)):
                t.add(os.path.join(folder, name), name)
    shutil.rmtree(folder)


def main(argv):
    parser = argparse.ArgumentParser(prog="gen-class", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.count < 1:
        raise SystemExit("gen-class: --count must be >= 1")
    if os.path.exists(args.out) and os.listdir(args.out):
        raise SystemExit("gen-class: %s is not empty" % args.out)
    rng = random.Random(args.seed)
    wrong = [(e.lab.folder, path) for e, path in catalogue.materialise_all().items()]
    malicious = kernels_in(os.path.join(ROOT, "grader", "malicious"))
    os.makedirs(args.out, exist_ok=True)
    made = {k: 0 for k, _ in KINDS}
    # each kind gets its share of the count, rounded, and the rest goes to correct submissions
    shares = {k: int(round(p * args.count)) for k, p in KINDS[1:]}
    shares["correct"] = args.count - sum(shares.values())
    plan = [k for k, n in shares.items() for _ in range(n)]
    rng.shuffle(plan)
    for i, kind in enumerate(plan):
        student = os.path.join(args.out, "student%03d" % (i + 1))
        if kind == "correct":
            chosen = LABS if rng.random() < 0.5 else sorted(rng.sample(LABS, rng.randint(1, len(LABS))))
            write_folder(student, {lab: os.path.join(ROOT, "solutions", lab, "kernel.cu") for lab in chosen})
        elif kind == "wrong":
            lab, path = rng.choice(wrong + [(lab, os.path.join(ROOT, "labs", lab, "kernel.cu")) for lab in LABS])
            write_folder(student, {lab: path})
        elif kind == "malicious":
            lab, path = malicious[made["malicious"] % len(malicious)]  # every attack once before any twice
            write_folder(student, {lab: path})
        else:
            which = made["malformed"] % 4
            if which == 0:
                os.makedirs(student)
            elif which == 1:
                os.makedirs(student)
                shutil.copy(os.path.join(ROOT, "solutions", LABS[0], "kernel.cu"), student)
            elif which == 2:
                with open(student + ".zip", "wb") as f:
                    f.write(b"PK\x03\x04 not a zip archive")
            else:
                with tarfile.open(student + ".tar.gz", "w:gz") as t:
                    info = tarfile.TarInfo("../../outside.cu")
                    info.size = 1
                    t.addfile(info, io.BytesIO(b"\n"))
        made[kind] += 1
        if kind != "malformed":
            pack(student, rng)
    print("gen-class: %d submissions in %s (%s)" % (args.count, args.out,
                                                    ", ".join("%d %s" % (n, k) for k, n in made.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
