#!/usr/bin/env python3
# Style check run by CTest (style.function_size): no function body in src/ or tools/ is longer than
# 60 lines, counted from its opening brace to its closing one (docs/coding-guidelines.md). A brace
# scan over the sources with comments and literals blanked, not a parse: fast enough for every
# commit (clang-tidy's readability-function-size over every translation unit takes minutes).
import os
import re
import sys

LIMIT = 60
ROOTS = ("src", "tools")
# What opens a brace that is not a function body: a type, a namespace, an initializer, a control
# statement inside a body (never reached at depth 0 of a function), a lambda inside one.
NOT_A_FUNCTION = re.compile(r"\b(namespace|class|struct|union|enum)\b|=\s*$|\breturn\b")


def blank(text):
    """Comments, string and character literals replaced by spaces; newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000'000
            out.append(c)
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(path):
    text = blank(open(path, encoding="utf-8").read())
    found = []
    stack = []  # per open brace: (is a function body, line it opened on, head text)
    head_start = 0  # where the text before the next brace starts
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c in ";":
            if not any(f for f, _, _ in stack):
                head_start = i + 1
        elif c == "{":
            in_function = any(f for f, _, _ in stack)
            head = text[head_start:i].strip()
            is_function = (not in_function and ")" in head and not NOT_A_FUNCTION.search(head))
            stack.append((is_function, line, head))
            head_start = i + 1
        elif c == "}":
            if not stack:
                continue
            is_function, opened, head = stack.pop()
            if is_function and line - opened + 1 > LIMIT:
                name = re.sub(r"\s+", " ", head)[-100:]
                found.append(f"{path}:{opened}: {line - opened + 1} lines: {name}")
            head_start = i + 1
    return found


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    problems = []
    for root in ROOTS:
        for dirpath, _, files in os.walk(root):
            for f in sorted(files):
                if f.endswith((".cpp", ".h")):
                    problems += long_functions(os.path.join(dirpath, f))
    for p in problems:
        print(f"{p} (keep functions under {LIMIT} lines: split them into named steps)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
