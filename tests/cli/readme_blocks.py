"""The README's shell blocks as one bash session, and the figures its example output shows (cli.readme).

  readme_blocks.py session README TMP DIR   writes DIR/session.sh (every ```sh block not marked
                                            no-test, in order) and DIR/N.expect per block; prints
                                            the number of blocks
  readme_blocks.py check DIR N              checks block N's output (DIR/N.out) against DIR/N.expect

The session text is the block's text, but for two things: /tmp/ is TMP/ (the test's scratch), and a
line whose comment says "until Ctrl-C" is given to until_ctrl_c (readme.sh), which does what the
reader does. N.expect holds the lines of the example output block after block N (``` with no
language, before the next ```sh block; "..." elides lines) and the figures of its comments.
"""
import json
import re
import sys

# What a tested block must not do (it runs as whoever runs the tests, root on CI): a block that
# installs, builds, runs the suite or changes the system is marked no-test instead.
UNSAFE = re.compile(r"\b(sudo|apt|apt-get|dpkg|systemctl|cmake|ctest|modprobe)\b|scripts/|/etc/|/usr/|/run/|/sys/|/dev/(?!null\b|zero\b)")
FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+")
COMMENT = re.compile(r"(?:^|\s)#(.*)$")


def fences(lines):
    """(info, first line number, body lines) of every fenced block."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            out.append((lines[i][3:].strip(), i + 2, lines[i + 1 : j]))
            i = j
        i += 1
    return out


def blocks(readme):
    """The tested blocks: (README line, body, example output lines) in order."""
    tested = []
    for info, line, body in fences(open(readme, encoding="utf-8").read().split("\n")):
        if info == "sh":
            tested.append((line, body, []))
        elif info == "" and tested and tested[-1] and not tested[-1][2]:
            tested[-1][2].extend(body)
        elif info.startswith("sh"):
            tested.append(None)  # no-test: what follows it is not the last tested block's output
    return [b for b in tested if b]


def session_line(text, tmp):
    if UNSAFE.search(text):
        sys.exit(f"README.md: '{text}' is in a tested block: fence its block ```sh no-test")
    text = text.replace("/tmp/", tmp.rstrip("/") + "/")
    if "until Ctrl-C" in (COMMENT.search(text) or [None, ""])[1]:
        return "until_ctrl_c << 'PMUKIT_README_LINE'\n" + text + "\nPMUKIT_README_LINE"
    return text


def write_session(readme, tmp, out_dir):
    found = blocks(readme)
    with open(f"{out_dir}/session.sh", "w", encoding="utf-8") as s:
        for n, (line, body, shown) in enumerate(found, 1):
            s.write(f"block_begin {n} {line}\n")
            s.write("\n".join(session_line(t, tmp) for t in body) + "\n")
            s.write(f"block_end {n}\n")
            figures = [f for t in body for f in FIGURE.findall((COMMENT.search(t) or [None, ""])[1])]
            with open(f"{out_dir}/{n}.expect", "w", encoding="utf-8") as e:
                json.dump({"line": line, "lines": [x for x in shown if x.strip() != "..."], "figures": figures}, e)
    print(len(found))


def check(out_dir, n):
    expect = json.load(open(f"{out_dir}/{n}.expect", encoding="utf-8"))
    text = open(f"{out_dir}/{n}.out", encoding="utf-8", errors="replace").read()
    have_lines = {" ".join(t.split()) for t in text.split("\n")}
    words = set(text.split())
    missing = [x for x in expect["lines"] if " ".join(x.split()) not in have_lines]
    missing += [f"figure {f}" for f in expect["figures"] if f not in words]
    for m in missing:
        print(f"README block at line {expect['line']}: not in its output: {m}", file=sys.stderr)
    shown = len(expect["lines"]) + len(expect["figures"])
    print(f"block {n} (README line {expect['line']}): {shown - len(missing)}/{shown} shown lines and figures found")
    return 1 if missing else 0


if __name__ == "__main__":
    if sys.argv[1] == "session":
        write_session(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(check(sys.argv[2], int(sys.argv[3])))
