"""python3 -m course: the course's command line (see course/__init__.py); the Makefile's targets call it."""
import argparse
import sys

from . import cache, grading, labs, student


def cmd_info(args):
    """Each lab's facts as the tools see them: lab.ini, and lab.h's constants from the compiler."""
    try:
        chosen = [labs.find(args.lab)] if args.lab else labs.all_labs()
        if args.readme_table:
            print(labs.readme_table(chosen), end="")
            return 0
        if args.grade_checks:
            for lab in chosen:
                print(labs.grade_checks(lab), end="")
            return 0
        for lab in chosen:
            print("%s (%s): %s" % (lab.short, lab.folder, lab.title))
            print("  constants: %s" % (", ".join("%s=%d" % kv for kv in lab.constants.items()) or "none"))
            print("  sizes: multiples of %d; demo: %s %s; points: %s; hidden sizes up to %d" % (
                lab.size_multiple, lab.demo_program, " ".join(lab.demo_args),
                ", ".join("%s %g" % kv for kv in lab.points.items()), lab.hidden_max_size))
    except labs.LabError as e:
        raise SystemExit("course: %s" % e)
    return 0


def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m course", description="the course's lab, pitfall and grade tools")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("lab", help="build and test one lab")
    p.add_argument("lab")
    p.add_argument("--kernel")
    p.add_argument("--backend")
    p = sub.add_parser("pitfall", help="run a known-wrong kernel through a lab's tests, to see its feedback")
    p.add_argument("--lab")
    p.add_argument("--name")
    p = sub.add_parser("grade", help="grade every lab of a submission")
    p.add_argument("--submission")
    p.add_argument("--backend")
    p.add_argument("--out")
    p = sub.add_parser("info", help="each lab's facts, as the tools read them")
    p.add_argument("lab", nargs="?")
    p.add_argument("--readme-table", action="store_true", help="the README's table of labs, in Markdown")
    p.add_argument("--grade-checks", action="store_true",
                   help="what each lab's traffic tests check, a Markdown line each (its lesson's list)")
    args = parser.parse_args(argv)
    commands = {"lab": student.cmd_lab, "pitfall": student.cmd_pitfall, "grade": grading.cmd_grade, "info": cmd_info}
    status = commands[args.command](args)
    if args.command in ("lab", "pitfall"):
        cache.prune()  # what this run built is the newest: the oldest others go, past BUILD_LIMIT_MB
    return status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
