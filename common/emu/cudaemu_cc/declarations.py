"""Memory declarations. `extern __shared__ T name[];` names the one dynamic shared buffer (an asm label on a TLS
declaration, defined once per program by the definition appended below). `__device__`/`__constant__` variables at
namespace scope become a host object with the initial value and a reference to a copy of it in device memory, so
that kernels' accesses to them are counted and checked. Same length and same newlines where possible: what is added
goes at the end of the declaration's line. And an alignas after __shared__, __device__ or __constant__ moves to the
declaration's start, where C++ allows it."""
import re

from .scan import apply_edits, block_start, line_of, statement_end, statement_start

SHARED_NAME_PREFIX = "__cudaemu_shared_name_"  # symbols.cpp reads these
DYNAMIC_SHARED_DEFINITION = (
    '\nalignas(128) __thread unsigned char cudaemu_dynamic_shared_storage[CUDAEMU_DYNAMIC_SHARED_MAX] '
    '__asm__(CUDAEMU_DYNAMIC_SHARED) __attribute__((weak, used));\n')


ATTRIBUTE = re.compile(r"(?<![\w])(?:__align__|alignas|__attribute__|__declspec)\s*\(")  # up to its (


def matching_close(text, mask, open_at):
    """Index of the `)` that closes the `(` at open_at (code only), or the text's end."""
    depth = 0
    for i in range(open_at, len(text)):
        if mask[i]:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                return i
    return len(text)


def hoist_alignas(text, mask):
    """`__shared__ alignas(16) float tile[N];`: nvcc reads __shared__ as an attribute, but here it is a storage class
    (`static thread_local`), after which C++ allows no alignas. The alignas moves to the declaration's start, the
    same characters on the same line: `alignas(16) __shared__ float tile[N];`."""
    edits = []
    for m in re.finditer(r"\b(?:__shared__|__device__|__constant__)(\s+)alignas\s*\(", text):
        if not mask[m.start()]:
            continue
        close = m.end() - 1
        depth = 0
        while close < len(text):
            depth += {"(": 1, ")": -1}.get(text[close], 0)
            if depth == 0:
                break
            close += 1
        start = statement_start(text, mask, m.start())
        alignas_at = m.start() + len(m.group(0)) - len(re.search(r"alignas\s*\($", m.group(0)).group(0))
        spec = text[alignas_at:close + 1]
        if start is None or close >= len(text) or "\n" in spec:
            continue
        while start < m.start() and (text[start] in " \t\r\n" or not mask[start]):
            start += 1
        after = close + 1
        while after < len(text) and text[after] in " \t":
            after += 1
        edits.append((start, start, spec + " "))
        edits.append((alignas_at, after, ""))
    return apply_edits(text, edits)


def rewrite_memory_declarations(path, text, mask, errors):
    """`extern __shared__` arrays and namespace-scope `__device__`/`__constant__` variables rewritten (`mask` is
    code_mask(text)); one `file:line: error: ...` appended to errors for each declaration the emulator cannot take
    (`__managed__`, `extern`, a variable template, two extern __shared__ arrays in one declaration)."""
    edits = []  # (start, end, replacement)
    uses_dynamic_shared = False
    shared_names = []  # the extern __shared__ arrays' names, for the emulator's reports
    # `extern __shared__ T name[];`, or with the type first: `extern T __shared__ name[];`
    for m in re.finditer(r"\bextern\s+(?:([A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*)\s+)?__shared__\b", text):
        if not mask[m.start()] or statement_start(text, mask, m.start()) is None:
            continue
        end = statement_end(text, mask, m.end())
        if end < 0 or "," in text[m.end():end]:
            errors.append("%s:%d: error: write one extern __shared__ array per declaration: "
                          "`extern __shared__ float name[];`" % (path, line_of(text, m.start())))
            continue
        uses_dynamic_shared = True
        name = re.findall(r"([A-Za-z_]\w*)\s*\[", text[m.end():end])
        if name and name[-1] not in shared_names:
            shared_names.append(name[-1])
        edits.append((m.start(), m.end(), "extern __thread" + (" " + m.group(1) if m.group(1) else "")))
        edits.append((end, end, " __asm__(CUDAEMU_DYNAMIC_SHARED)"))
        if name and block_start(text, mask, m.start()) is not None:
            # In a function, an extern declaration names the namespace's entity of that name: two kernels with
            # `extern __shared__ float s[];` and `extern __shared__ int s[];` would redeclare one variable with two
            # types. Each gets a name of its own (the same buffer, through the asm label), and the kernel's name
            # becomes a reference to it, bound as the kernel runs (each block's own buffer).
            own = "cudaemu_shared_%d_%s" % (line_of(text, m.start()), name[-1])
            at = m.end() + [x.start(1) for x in re.finditer(r"([A-Za-z_]\w*)\s*\[", text[m.end():end])][-1]
            edits.append((at, at + len(name[-1]), own))
            edits.append((end + 1, end + 1, " auto& %s = %s;" % (name[-1], own)))
    for m in re.finditer(r"\b(__device__|__constant__|__managed__)\b", text):
        if not mask[m.start()]:
            continue
        start = statement_start(text, mask, m.start())
        if start is None:
            continue
        # the first of ( = { ; after the keyword says what is declared: a function has its ( first. An alignment or
        # attribute (`__device__ __align__(16) float v[4];`) is part of neither, and is stepped over.
        k = m.end()
        while k < len(text) and not (mask[k] and text[k] in "(={;"):
            attribute = ATTRIBUTE.match(text, k) if mask[k] else None
            if attribute:
                k = matching_close(text, mask, attribute.end() - 1) + 1
            elif mask[k] and text.startswith("[[", k):  # [[gnu::aligned(16)]]
                k = text.find("]]", k) + 2 if text.find("]]", k) >= 0 else len(text)
            else:
                k += 1
        if k >= len(text) or text[k] == "(":
            continue
        prefix = text[start:m.start()]
        if re.search(r"\b(__device__|__constant__)\b", prefix):
            continue  # `__device__ __constant__ float c;`: the first keyword rewrites it
        keyword = m.group(1)
        where = "%s:%d: error: " % (path, line_of(text, m.start()))
        if keyword == "__managed__":
            errors.append(where + "__managed__ variables are not supported by the CPU emulator; "
                                  "allocate with cudaMallocManaged")
            continue
        if re.search(r"\bextern\b", prefix):
            errors.append(where + "extern %s variables (separate compilation of device code, -rdc) are not supported "
                                  "by the CPU emulator; define the variable in the .cu that uses it" % keyword)
            continue
        if re.search(r"\btemplate\b", prefix):
            errors.append(where + "%s variable templates are not supported by the CPU emulator" % keyword)
            continue
        declarator = text[m.end():k]
        if re.search(r"\boperator\b", declarator):
            continue
        rest = re.sub(r"\b(__device__|__constant__)\b", lambda x: " " * len(x.group()), declarator)
        # attributes are no part of a name: blanked in `rest` (its length kept). One after the name (`float w[4]
        # __attribute__((aligned(16)))`), or in [[...]], would not fit the rewritten declaration: refused by name, with
        # the form that is taken
        attributes = list(re.finditer(ATTRIBUTE.pattern + r"|\[\[", rest))
        for a in reversed(attributes):
            close = (rest.find("]]", a.start()) + 1 if a.group().startswith("[[")
                     else matching_close(rest, mask[m.end():m.end() + len(rest)], a.end() - 1))
            close = len(rest) - 1 if close <= 0 or close >= len(rest) else close
            rest = rest[:a.start()] + " " * (close + 1 - a.start()) + rest[close + 1:]
        last_name = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*$", rest)
        if any(a.group().startswith("[[") or (last_name and a.start() > last_name.start(1)) for a in attributes):
            errors.append(where + "the CPU emulator takes the alignment or attribute of a %s variable before its name, "
                                  "`%s __align__(16) float name[N];`, not after it or as [[...]]" % (keyword, keyword))
            continue
        depth = 0
        for i, c in enumerate(rest):  # the first declarator ends at the first comma outside the type's brackets
            depth += 1 if c in "<([" else -1 if c in ">)]" else 0
            if c == "," and depth == 0 and mask[m.end() + i]:
                rest = rest[:i]
                break
        name_m = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*$", rest)
        end = statement_end(text, mask, k)
        names = [m.end() + name_m.start(1)] if name_m else []
        # `__constant__ float a, b[4] = {...}, *c;`: each declarator after a top-level comma names one more variable
        i, depth = (names[0] + len(name_m.group(1)) if names else end), 0
        while 0 <= i < end:
            c = text[i]
            if mask[i] and c in "([{":
                depth += 1
            elif mask[i] and c in ")]}":
                depth -= 1
            elif mask[i] and c == "," and depth == 0:
                other = re.match(r"[\s*&]*([A-Za-z_]\w*)\s*(?=[\[=;,{]|$)", text[i + 1:end])
                if not other:
                    names = []
                    break
                names.append(i + 1 + other.start(1))
            i += 1
        if not names or end < 0:
            errors.append(where + "cannot read this %s declaration: declare the variables at namespace scope, "
                                  "`%s float name[N];`" % (keyword, keyword))
            continue
        static = re.search(r"\bstatic\b", prefix) is not None
        constant = keyword == "__constant__" or "__constant__" in declarator
        # The initial values must be constants, as nvcc requires ("dynamic initialization is not supported"): they
        # are data in the program, and no code of the file's runs before main() to compute them.
        for kw in re.finditer(r"\b(__device__|__constant__)\b", text[m.start():k]):
            a = m.start() + kw.start()
            edits.append((a, a + len(kw.group(1)),
                          "" if kw.start() else "CUDAEMU_CONSTANT_INIT" if static else "static CUDAEMU_CONSTANT_INIT"))
        references = []
        for n, name_at in enumerate(names):
            name = re.match(r"\w+", text[name_at:]).group(0)
            init = "cudaemu_initial_" + name
            edits.append((name_at, name_at + len(name), init))
            # Without an initialiser, `{}`: zero, as a variable of static storage starts, and a constant even for a
            # struct whose implicit constructor is not constexpr (C++17), which CUDAEMU_CONSTANT_INIT would refuse
            declarator_end = names[n + 1] if n + 1 < len(names) else end
            declarator = text[name_at:declarator_end]
            if not re.search(r"[={]", declarator):
                close = re.match(r"\w+\s*(?:\[[^\]]*\]\s*)*", declarator).end()
                while close > 0 and declarator[close - 1] in " \t\r\n":
                    close -= 1
                edits.append((name_at + close, name_at + close, "{}"))
            references.append(' %s%sdecltype(%s)& %s = CUDAEMU_DEVICE_VARIABLE(%s, %s, "%s");'
                              % ("static " if static else "", "const " if constant else "", init, name, init,
                                 "true" if constant else "false", name))
        edits.append((end + 1, end + 1, "".join(references)))
    # each name as a symbol of its own, which the runtime reads to name the buffer in its reports
    names = "".join('extern "C" __attribute__((weak, used)) const char %s%s = 0;\n' % (SHARED_NAME_PREFIX, n)
                    for n in shared_names)
    return apply_edits(text, edits) + (DYNAMIC_SHARED_DEFINITION + names if uses_dynamic_shared else "")
