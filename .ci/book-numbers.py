#!/usr/bin/env python3
"""The book's prose cannot drift from its results: every number with a unit of time (ns, µs, ms,
s), a rate (%), a speed ratio (×, x) or a bits-per-key figure in a chapter's prose comes through a
directive ({{#value …}} measured, {{#calc …}} computed: book/src/making-of.md), sits in an
included generated file (book/src/generated/, not scanned here), is a parameter the text sets
(p = 1%, "sized for 1%": see PARAMETER), or is listed in .ci/book-numbers-allow.txt with its
source (historical and external facts, and the numbers not yet routed, each named exactly).

  python3 .ci/book-numbers.py            check; exit 1 naming each number not accounted for
  python3 .ci/book-numbers.py --report   the count per chapter: hand-typed, allowed, parameters
  python3 .ci/book-numbers.py --list     every hand-typed number with its chapter and line
  python3 .ci/book-numbers.py --write-debt   the allow-list lines the unaccounted numbers need
  --src DIR                              read the chapters from DIR (an older commit's, say)

Fenced code blocks, inline code, HTML tags, link targets and the directives themselves are not
prose. A number is keyed by its chapter and its text (e.g. `static.md 18.9 bits per key`), not
by its line: editing around it does not disturb the list; typing a new one, or changing one,
fails until it goes through a directive (or, for an external fact, onto the allow-list with its
source).
"""
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "book" / "src"
ALLOW = ROOT / ".ci" / "book-numbers-allow.txt"

NUM = r"(?<![\w.,/⁻^-])[−-]?\d+(?:,\d{3})*(?:\.\d+)?"
UNIT = (
    r"(?:\s?(?:ns|µs|us|ms)\b|\s(?:s|seconds?|minutes?)\b|\s?%|\s?×|x\b"
    r"|\s(?:bits?(?:/| per )(?:key|item|element|entry))\b)"
)
HIT = re.compile(rf"(?:×\s?)?{NUM}(?:\s?[–-]\s?{NUM})?{UNIT}")
# A percentage the text *sets* rather than reports: a target ("p = 1%", "sized for 1%", "a 1%
# filter", "target 0.1%"), a load or fill chosen for an experiment ("at 150% of capacity", "94%
# full", "95% load"), a confidence level ("95% interval"). Measured and computed rates are none of
# these and stay subject to the check.
PARAMETER = re.compile(
    r"(?:\b[pεα]\s?=\s?|\bp\s?(?:≤|<)\s?|(?:for|at|to|from)\s(?:a\s|an\s|the\s|p\s?=\s?)?"
    r"|target(?:\sp)?\s(?:of\s)?|--p\s|instead of\s|\(n, p\) = \([^)]*,\s)$"
)
DECADE = re.compile(r"^(?:10|1|0\.1|0\.01|0\.001|0\.0001|0\.00001)%$")
PARAM_RATIO = re.compile(r"^\s?(?:headroom|growth|memory\))")
PARAM_AFTER = re.compile(
    r"^\s?(?:target|filters?\b|FPR target|false-positive target|error rate|rate target"
    r"|of (?:its |the )?(?:design|capacity)|capacity|full\b|load\b|(?:confidence )?intervals?\b"
    r"|CI\b|confidence|headroom|growth|(?:the )?design load|per false positive|memory\)"
    r"|(?:one |a )?(?:standard |counting )?(?:4-bit )?counters?\b)"
)


def prose(text):
    """The chapter without code, directives, tags and link targets, line by line."""
    text = re.sub(r"\{\{#(?:value|calc)[^}]*\}\}", "", text)
    text = re.sub(r"\{\{#include[^}]*\}\}", "", text)
    lines = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            lines.append("")
            continue
        if fenced:
            lines.append("")
            continue
        line = re.sub(r"``.*?``", "", line)  # code holding a backtick: `` `x` ``
        line = re.sub(r"`[^`]*`", "", line)
        line = re.sub(r"\]\([^)]*\)", "]", line)
        line = re.sub(r"<[^>]*>", "", line)
        lines.append(line)
    return lines


def hits(path):
    """(line, text, is_parameter) for every number with a unit in the chapter's prose."""
    for no, line in enumerate(prose(path.read_text(encoding="utf-8")), 1):
        for m in HIT.finditer(line):
            before = line[max(0, m.start() - 24) : m.start()]
            after = line[m.end() : m.end() + 30]
            text = m.group(0)
            if DECADE.match(text.strip()):
                param = True  # 10%, 1%, 0.1%, …: a target as written; no measurement is that round
            elif "×" in text or re.search(r"\dx$", text):
                # a ratio: a parameter only as headroom, growth or a memory multiple
                param = PARAM_RATIO.search(after) is not None
            else:
                param = PARAMETER.search(before) is not None or PARAM_AFTER.search(after) is not None
            yield no, m.group(0).strip(), param


def allow_list():
    """chapter -> Counter of allowed number texts (each line: `chapter | text | source`)."""
    allowed = collections.defaultdict(collections.Counter)
    if not ALLOW.exists():
        return allowed
    for raw in ALLOW.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) < 3 or not parts[2]:
            sys.exit(f"{ALLOW}: `{raw}`: expected `chapter | number as written | source`")
        allowed[parts[0]][parts[1]] += 1
    return allowed


def main():
    args = sys.argv[1:]
    src = SRC
    if "--src" in args:  # another copy of the chapters (e.g. an older commit's), for --report
        i = args.index("--src")
        src = pathlib.Path(args[i + 1])
        del args[i : i + 2]
    mode = args[0] if args else "--check"
    allowed = allow_list()
    chapters = sorted(p for p in src.glob("*.md") if p.name != "SUMMARY.md")
    rows, failures = [], []
    for path in chapters:
        found = list(hits(path))
        typed = [(no, t) for no, t, param in found if not param]
        params = len(found) - len(typed)
        budget = collections.Counter(allowed.get(path.name, {}))
        unaccounted = []
        for no, t in typed:
            if budget[t] > 0:
                budget[t] -= 1
            else:
                unaccounted.append((no, t))
        rows.append((path.name, len(typed), len(typed) - len(unaccounted), params))
        failures += [(path.name, no, t) for no, t in unaccounted]
        if mode == "--list":
            for no, t in typed:
                print(f"{path.name}:{no}: {t}")
        if mode == "--write-debt":
            for no, t in unaccounted:
                print(f"{path.name} | {t} | not yet routed")
        stale = [t for t, c in budget.items() if c > 0]
        if mode == "--check" and stale:
            failures += [(path.name, 0, f"allow-listed but not in the chapter: {t}") for t in stale]
    if mode == "--report":
        print("| chapter | hand-typed numbers with a unit | of them allow-listed | parameters (p = 1%) |")
        print("|---|---:|---:|---:|")
        for name, typed, allowed_n, params in rows:
            print(f"| {name} | {typed} | {allowed_n} | {params} |")
        tot = [sum(r[i] for r in rows) for i in (1, 2, 3)]
        print(f"| **total** | {tot[0]} | {tot[1]} | {tot[2]} |")
        return 0
    if mode in ("--list", "--write-debt"):
        return 0
    for name, no, t in failures:
        if not no:
            print(f"book/src/{name}: {t}: remove its line from .ci/book-numbers-allow.txt "
                  "(the list only shrinks)", file=sys.stderr)
            continue
        print(f"book/src/{name}:{no}: {t}: a hand-typed number; write it as {{{{#value …}}}} or "
              "{{#calc …}} (book/src/making-of.md), or allow-list it with its source in "
              ".ci/book-numbers-allow.txt", file=sys.stderr)
    if failures:
        print(f"{len(failures)} number(s) not accounted for", file=sys.stderr)
        return 1
    print(f"book numbers: {sum(r[1] for r in rows)} hand-typed, all allow-listed; "
          f"{sum(r[3] for r in rows)} parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
