"""Kernel launches. `kernel<<<grid, block, shmem, stream>>>(args)` (or `kernel<< <grid, block>> >(args)`, spaced as
older code writes it) becomes a call into the emulator,
`::cudaemu::__launch_site(kernel, "kernel", __FILE__, __LINE__, caller)(grid, block, shmem, stream)(args)`; a template
kernel launched by name, its template arguments deduced from the arguments, becomes
`::cudaemu::__launch_deduced("kernel", __FILE__, __LINE__, caller)(...)(args)`. And
`cudaLaunchCooperativeKernel((void *)kernel, ...)` keeps the kernel's type. Neither adds nor removes a newline."""
import re

from .scan import code_mask, line_of


def kernel_expression_start(text, end, mask):
    """Start of the kernel expression that ends just before `end`: a name, maybe qualified or templated, or any
    postfix expression that names a __global__ function: `kernels[i]`, `(*fp)`, `obj.kernel`. It may start on
    an earlier line (`name<T>` on one line, `<<<...>>>` on the next); comments between its parts, or before it,
    are skipped (`mask` is code_mask(text))."""
    def skip_space(i):
        while i > 0 and (text[i - 1] in " \t\r\n" or not mask[i - 1]):
            i -= 1
        return i

    def opener(i):  # text[i - 1] closes a bracket: where it opens, or None
        close = text[i - 1]
        open_ = {">": "<", "]": "[", ")": "("}[close]
        depth, j = 0, i - 1
        while j >= 0:
            if close == ">" and text[j] in ")]" and depth > 0:  # template arguments: `(M >> 2)` is one of them
                j = opener(j + 1)
                if j is None:
                    return None
            elif text[j] == close:
                depth += 1
            elif text[j] == open_:
                depth -= 1
                if depth == 0:
                    return j
            j -= 1
        return None

    i, start = skip_space(end), None
    while True:
        if i > 0 and text[i - 1] in ">])":  # template arguments, a subscript, a call or parentheses
            closer = text[i - 1]
            j = opener(i)
            if j is None:
                return start
            before = skip_space(j)
            if closer == ")" and not (before > 0 and (text[before - 1].isalnum() or text[before - 1] in "_>])")):
                return j  # a parenthesised expression: (*fp)
            if closer == ">":
                start = None  # template arguments need the name before them
            i = before
            continue
        j = i
        while j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_"):
            j -= 1
        if j == i:
            return start
        i = start = j
        p = skip_space(i)
        if text[max(0, p - 2):p] == "::":
            i = skip_space(p - 2)
            scope = re.search(r"(?:\w+|>)$", text[max(0, i - 64):i])  # what `::` qualifies: a name or a template-id
            if not scope or scope.group(0) in ("else", "return", "do"):
                return p - 2  # `::k`: a name in the global namespace
        elif text[max(0, p - 2):p] == "->":
            i = skip_space(p - 2)
        elif text[p - 1:p] == ".":
            i = skip_space(p - 1)
        else:
            return start


def template_kernels(text):
    """The names of the template __global__ functions that text declares (`template <class T> __global__ void
    scale(T* x)`: scale): a launch by such a name alone leaves the template arguments to be deduced."""
    mask = code_mask(text)
    names = set()
    for m in re.finditer(r"\btemplate\s*<", text):
        if not mask[m.start()]:
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:  # the template's parameter list
            if mask[j]:
                depth += {"<": 1, ">": -1}.get(text[j], 0)
            j += 1
        declaration = re.sub(r"\b__launch_bounds__\s*\([^()]*\)", "", text[j:j + 400])
        head = re.match(r"[^;{}()]*?\b__global__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*\(", declaration)
        if head:
            names.add(head.group(1))
    return names


# The types of a parameter list, without names or default arguments, to tell overloads from redeclarations.
TYPE_WORDS = {"int", "float", "double", "char", "short", "long", "unsigned", "signed", "bool", "void", "size_t",
              "__half", "half", "const", "volatile", "__restrict__"}


def parameter_types(params):
    """`const float* x, int n = 4` -> ('const float*', 'int')."""
    out = []
    for param in re.split(r",(?![^<>()]*[>)])", params):
        param = param.split("=", 1)[0].strip()
        m = re.match(r"(.*[*&>\]\s])\s*([A-Za-z_]\w*)$", param)
        if m and m.group(2) not in TYPE_WORDS:
            param = m.group(1)
        param = re.sub(r"\b(?:__restrict__|__restrict)\b|\bconst\s*$", "", param).strip()  # the same function
        if not re.search(r"[*&\[]", param):
            param = re.sub(r"^const\b", "", param)  # a value's own const is not its type's
        out.append(re.sub(r"\s+", "", param))
    return tuple(p for p in out if p not in ("", "void"))


def overloaded_kernels(text):
    """The names of the __global__ functions that text declares with two different parameter lists: a launch by such
    a name is resolved by its arguments, as a call is, so it takes no function pointer first."""
    mask = code_mask(text)
    kinds = {}
    for m in re.finditer(r"\b__global__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*\(", text):
        if not mask[m.start()]:
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        kinds.setdefault(m.group(1), set()).add(parameter_types(text[m.end():j - 1]))
    return {name for name, lists in kinds.items() if len(lists) > 1}


def rewrite_launches(path, text, errors, deduced=()):
    """Each `<<<...>>>` launch in text rewritten; one `file:line: error: ...` appended to errors for each launch that
    cannot be read (no kernel before `<<<`, no `>>>` after it), which stays as it was. `deduced`: the names of
    template kernels (template_kernels) of the translation unit, whose launches by name alone deduce their template
    arguments."""
    mask = code_mask(text)
    out, pos = [], 0
    for m in re.finditer(r"<<[ \t]*<", text):
        if m.start() < pos or not mask[m.start()]:
            continue
        start = kernel_expression_start(text, m.start(), mask)
        if start is None or start < pos:
            errors.append("%s:%d: error: cannot find the kernel name before '<<<'" % (path, line_of(text, m.start())))
            continue
        depth, j = 0, m.end()
        while j < len(text):
            if mask[j]:
                if text[j] in "([{":
                    depth += 1
                elif text[j] in ")]}":
                    depth -= 1
                elif depth == 0 and re.match(r">>[ \t]*>", text[j:j + 64]):
                    break
            j += 1
        if j >= len(text):
            errors.append("%s:%d: error: no '>>>' closes this '<<<'" % (path, line_of(text, m.start())))
            continue
        name = text[start:m.start()].rstrip(" \t")  # its newlines stay, so that lines stay put
        out.append(text[pos:start])
        shown_name = " ".join(name.split()).replace('"', "")
        # A call by name, for a launch that leaves parameters to the kernel's default arguments, which a function
        # pointer does not carry. On one line, so that no newline is added; comments in the name left out.
        code = "".join(c for c, in_code in zip(text[start:m.start()], mask[start:m.start()]) if in_code)
        caller = "[&](auto&&... cudaemu_args) { %s(cudaemu_args...); }" % " ".join(code.split())
        if re.sub(r"^::|\s", "", code).split("::")[-1] in deduced:
            out.append('::cudaemu::__launch_deduced("%s", __FILE__, __LINE__, %s)(' % (shown_name, caller))
        else:
            out.append('::cudaemu::__launch_site(%s, "%s", __FILE__, __LINE__, %s)(' % (name, shown_name, caller))
        out.append(text[m.end():j])
        out.append(")")
        pos = j + len(re.match(r">>[ \t]*>", text[j:j + 64]).group(0))
    out.append(text[pos:])
    return "".join(out)


# `cudaLaunchCooperativeKernel((void *)kernel, grid, block, args, ...)` becomes
# `::cudaemu::cooperative_launch("kernel", __FILE__, __LINE__, kernel, grid, block, args, ...)`: the kernel keeps its
# type, which the emulator needs to call it with its arguments, and the launch its name and line. The same for
# `cudaLaunchKernel(...)`, which becomes `::cudaemu::arguments_launch(...)`.
def rewrite_cooperative_launches(text):
    mask = code_mask(text)
    out, pos = [], 0
    for m in re.finditer(r"\bcudaLaunch(Cooperative)?Kernel\s*\(", text):
        if m.start() < pos or not mask[m.start()]:
            continue
        depth, j = 0, m.end()
        while j < len(text) and not (depth == 0 and text[j] in ",)"):
            if mask[j] and text[j] in "([<":
                depth += 1
            elif mask[j] and text[j] in ")]>":
                depth -= 1
            j += 1
        first = text[m.end():j]
        kernel = re.sub(r"^\s*(?:\(\s*(?:const\s+)?void\s*\*\s*\)|reinterpret_cast\s*<\s*(?:const\s+)?void\s*\*\s*>)",
                        "", first)
        name = " ".join(kernel.split()).replace('"', "")
        name = name[1:-1] if name.startswith("(") and name.endswith(")") else name
        out.append(text[pos:m.start()])
        out.append('::cudaemu::%s("%s", __FILE__, __LINE__, %s' % (
            "cooperative_launch" if m.group(1) else "arguments_launch", name, kernel))
        pos = j
    out.append(text[pos:])
    return "".join(out)

