"""pitfalls — known-wrong kernels a student can run to see the feedback a mistake gets, e.g.
`make pitfall LAB=3 NAME=missing_second_barrier`.

In the course repository they are the catalogue's entries whose verdict is wrong or slow (course/catalogue.py):
each is a patch to a reference, materialised under build/catalogue/ when it is run, with its description from its
.ini. The student handout ships none of their sources: grader/package.py builds each into an emulator object,
pitfalls/<lab>/<name>.o, next to its description, pitfalls/<lab>/<name>.txt.
"""
import glob
import os

from . import catalogue
from .labs import Lab
from .paths import ROOT

SHIPPED = os.path.join(ROOT, "pitfalls")


class Pitfall:
    def __init__(self, lab, name, description="", entry=None, obj=None):
        self.lab, self.name, self.description, self.entry, self.obj = lab, name, description, entry, obj

    @property
    def source(self):
        """The kernel's source, materialised from the catalogue; None in the handout, which has only its object."""
        if not self.entry:
            return None
        try:
            return catalogue.materialise(self.entry)
        except catalogue.CatalogueError as e:
            raise SystemExit("course: the pitfall %s cannot be built: %s" % (self.name, e))

    @property
    def shown_as(self):
        """The kernel's name in diagnostics: its catalogue name in the repository, pitfall/<name>.cu in the handout."""
        return self.entry.shown if self.entry else "pitfall/%s.cu" % self.name


def available(lab):
    """{name: Pitfall} for a lab folder name (lab3-boundary): from the catalogue where it is here, else the
    objects the handout ships."""
    short = Lab(lab).short
    try:
        entries = [e for e in catalogue.entries() if e.lab.short == short and e.pitfall]
    except catalogue.CatalogueError as e:
        raise SystemExit("course: %s" % e)
    if entries:
        return {e.short: Pitfall(lab, e.short, e.description, entry=e) for e in entries}
    found = {}
    for obj in sorted(glob.glob(os.path.join(SHIPPED, lab, "*.o"))):
        name = os.path.splitext(os.path.basename(obj))[0]
        text = os.path.splitext(obj)[0] + ".txt"
        description = open(text, encoding="utf-8").read().strip() if os.path.isfile(text) else ""
        found[name] = Pitfall(lab, name, description, obj=obj)
    return found
