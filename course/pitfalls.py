"""pitfalls — known-wrong kernels a student can run to see the feedback a mistake gets, e.g.
`make pitfall LAB=3 NAME=missing_second_barrier`.

In the course repository they are the kernels of grader/catalogue/labN/ whose header says "known WRONG". The
student handout ships none of their sources (each is the lab's solution with one bug): grader/package.py builds
each into an emulator object, pitfalls/<lab>/<name>.o, next to its description, pitfalls/<lab>/<name>.txt.
"""
import glob
import os
import re

from .labs import Lab
from .paths import ROOT

CATALOGUE = os.path.join(ROOT, "grader", "catalogue")
SHIPPED = os.path.join(ROOT, "pitfalls")


class Pitfall:
    def __init__(self, lab, name, source=None, obj=None, description=""):
        self.lab, self.name, self.source, self.obj, self.description = lab, name, source, obj, description

    @property
    def shown_as(self):
        """The kernel's name in diagnostics: a catalogue path in the repository, pitfall/<name>.cu in the handout."""
        return os.path.relpath(self.source, ROOT) if self.source else "pitfall/%s.cu" % self.name


def describe(source):
    """A catalogue kernel's header comment as one paragraph, without its build line: what the bug is and what it
    must be diagnosed with."""
    lines = []
    with open(source, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("//"):
                break
            text = line[2:].strip()
            if text.startswith("Build:"):
                break
            lines.append(text)
    text = " ".join(t for t in lines if t)
    return re.sub(r"^Grader catalogue, lab \d+, known WRONG\s*", "", text).lstrip(":").strip()


def is_wrong(source):
    with open(source, encoding="utf-8") as f:
        return "known WRONG" in f.readline()


def available(lab):
    """{name: Pitfall} for a lab folder name (lab3-boundary): from the catalogue where it is here, else the
    objects the handout ships."""
    short = Lab(lab).short
    found = {}
    for source in sorted(glob.glob(os.path.join(CATALOGUE, short, "*.cu"))):
        if is_wrong(source):
            name = os.path.splitext(os.path.basename(source))[0]
            found[name] = Pitfall(lab, name, source=source, description=describe(source))
    if found:
        return found
    for obj in sorted(glob.glob(os.path.join(SHIPPED, lab, "*.o"))):
        name = os.path.splitext(os.path.basename(obj))[0]
        text = os.path.splitext(obj)[0] + ".txt"
        description = open(text, encoding="utf-8").read().strip() if os.path.isfile(text) else ""
        found[name] = Pitfall(lab, name, obj=obj, description=description)
    return found
