"""Where the course's files are: everything is found from the repository root."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
COMMON = os.path.join(ROOT, "common")
LABS_DIR = os.path.join(ROOT, "labs")
DOCS = os.path.join(ROOT, "docs")  # the lessons, one per lab (docs/lab3-boundary.md), and the course's other texts
SOLUTIONS = os.path.join(ROOT, "solutions")
EMUCC = os.path.join(ROOT, "common", "emu", "emucc")


def rel(path):
    """`path` relative to the working directory, for messages."""
    return os.path.relpath(path, os.getcwd())
