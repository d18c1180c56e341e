"""Reading C++ source text: which characters are code, where a declaration starts and ends, and one way to apply
edits. The source rewrites (source.py, launches.py, declarations.py) share these."""
import re


def code_mask(text):
    """True for characters that are code (not inside a comment, string or character literal)."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            i += 1
            continue
        for k in range(i, j):
            mask[k] = False
        i = j
    return mask


def line_of(text, pos):
    """The line (from 1) that text[pos] is on."""
    return text.count("\n", 0, pos) + 1


def statement_end(text, mask, i):
    """Index of the `;` that ends the declaration going on at i (brackets balanced), or -1."""
    depth = 0
    while i < len(text):
        if mask[i]:
            c = text[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth < 0:
                    return -1
            elif c == ";" and depth == 0:
                return i
        i += 1
    return -1


def statement_start(text, mask, i):
    """Start of the declaration whose keyword is at i: after the previous `;`, `{`, `}` or preprocessor line."""
    j = i
    while j > 0:
        c = text[j - 1]
        if mask[j - 1] and c in ";{}":
            break
        if c == "\n" and text[j:].lstrip(" \t").startswith("#"):
            break
        j -= 1
    line_start = text.rfind("\n", 0, i) + 1
    while line_start > 0 and text[:line_start - 1].rstrip(" \t").endswith("\\"):  # a continued line
        line_start = text.rfind("\n", 0, line_start - 1) + 1
    if text[line_start:].lstrip(" \t").startswith("#"):
        return None  # inside a #define: left alone
    return j


def block_start(text, mask, at):
    """The `{` of the innermost block around `at` that is not a namespace's or an `extern "C"`'s (a function's body,
    or a block inside one), or None at namespace scope."""
    depth, k = 0, at
    while k > 0:
        k -= 1
        if not mask[k]:
            continue
        if text[k] == "}":
            depth += 1
        elif text[k] == "{":
            if depth:
                depth -= 1
            elif not re.search(r'(?:\bnamespace(?:\s+[\w:]+)?|\bextern\s*"C(?:\+\+)?")\s*$', text[:k]):
                return k
    return None


def apply_edits(text, edits):
    """text with each (start, end, replacement) of edits applied; the edits must not overlap."""
    out, pos = [], 0
    for a, b, r in sorted(edits, key=lambda e: (e[0], e[1])):
        out.append(text[pos:a])
        out.append(r)
        pos = b
    out.append(text[pos:])
    return "".join(out)
