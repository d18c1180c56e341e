"""Points: each lab's points per suite (its lab.ini), shared equally by the suite's test cases.

Traffic and memory safety are only awarded when every correctness case of the lab passes (hidden ones included),
so a skeleton, or a kernel right on some shapes only, scores nothing for them: fewer bytes or a clean run are worth
nothing for wrong results.
"""
from . import labs

WITHHELD = ("not awarded: traffic and memory safety points need every correctness test of %s to pass, and %d of %d "
            "failed (this test on its own passed)")


def score(results):
    """Sets score, max_score and withheld on each TestResult; returns {lab: (score, max)} in the labs' order."""
    totals = {}
    for lab in labs.all_labs():
        lab_results = [r for r in results if r.lab == lab.folder]
        if not lab_results:
            continue
        points = lab.points
        suites = {}
        for r in lab_results:
            suites.setdefault(r.suite, []).append(r)
        missing_points = sum(p for s, p in points.items() if s not in suites)
        correctness = suites.get("correctness", [])
        wrong = sum(not r.passed for r in correctness)
        for suite, rs in suites.items():
            share = points.get(suite, 0)
            if suite == "correctness":
                share += missing_points  # a lab that did not build has only its "builds" entry
            # in hundredths of a point, the remainder spread over the first cases, so a suite adds up exactly
            each, extra = divmod(round(share * 100), len(rs))
            for i, r in enumerate(rs):
                r.withheld = ""  # score() may run again on the same results (after the hidden tests)
                if suite != "correctness" and r.passed and wrong:
                    r.withheld = WITHHELD % (lab.folder, wrong, len(correctness))
                r.max_score = (each + (1 if i < extra else 0)) / 100
                r.score = r.max_score if r.earned else 0.0
        totals[lab.folder] = (round(sum(r.score for r in lab_results), 2),
                              round(sum(r.max_score for r in lab_results), 2))
    return totals
