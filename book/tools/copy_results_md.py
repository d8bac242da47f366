#!/usr/bin/env python3
"""Copy a results Markdown file for inclusion in the book.

Two rewrites, nothing else: image links relative to the results file's folder become links to
the copies under figures/ (pages that include the file live in book/src), and a generic type such
as `HashSet<u64>` written outside a code span is escaped, so mdBook does not take `<u64>` for an
unclosed HTML tag.

Usage: copy_results_md.py SRC DEST FIGURE_PREFIX
"""
import re
import sys

src, dest, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
HTML = {"a", "b", "i", "em", "strong", "code", "sub", "sup", "br", "div", "span", "img", "p",
        "table", "tr", "td", "th", "details", "summary", "small", "kbd", "pre", "ul", "ol", "li"}


def escape_generics(line):
    out = []
    for j, part in enumerate(line.split("`")):
        if j % 2 == 0:  # outside a code span
            part = re.sub(
                r"<(/?)([A-Za-z][A-Za-z0-9_, ]*)>",
                lambda m: m.group(0) if m.group(2).lower() in HTML else f"&lt;{m.group(1)}{m.group(2)}&gt;",
                part,
            )
        out.append(part)
    return "`".join(out)


with open(src, encoding="utf-8") as f:
    text = f.read()
text = re.sub(r"\]\(([A-Za-z0-9_.-]+\.(?:svg|png))\)", lambda m: f"]({prefix}{m.group(1)})", text)
fence = False
lines = []
for line in text.split("\n"):
    if line.lstrip().startswith("```"):
        fence = not fence
    lines.append(line if fence else escape_generics(line))
with open(dest, "w", encoding="utf-8") as f:
    f.write("\n".join(lines))
