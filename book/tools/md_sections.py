#!/usr/bin/env python3
"""Split a results README into one file per `## name` section.

Usage: md_sections.py README.md OUTDIR
Each section `## name …` becomes OUTDIR/name.md without its heading line (the first word of the
heading, lower-cased, is the file name; a trailing ` — …` note is dropped from it), so chapters
can include the answer to one experiment. The first line of each file names the source.
"""
import os
import re
import sys

src, outdir = sys.argv[1], sys.argv[2]
os.makedirs(outdir, exist_ok=True)
with open(src, encoding="utf-8") as f:
    text = f.read()
parts = re.split(r"(?m)^## ", text)
for part in parts[1:]:
    head, _, body = part.partition("\n")
    name = head.split()[0].strip().lower()
    name = re.sub(r"[^a-z0-9_-]", "", name)
    if not name:
        continue
    with open(os.path.join(outdir, f"{name}.md"), "w", encoding="utf-8") as out:
        out.write(f"*From `{src}`, section “{head.strip()}”:*\n\n")
        out.write(body.strip() + "\n")
