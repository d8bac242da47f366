#!/usr/bin/env python3
"""Book figures must be readable in the book's column (about 940 px wide).

Checks every SVG under book/src/figures (the copies of results/ the book shows) and fails when
one is wider than MAX_WIDTH px (its `width` attribute, or the viewBox width) or has text
smaller than MIN_FONT px (`font-size` attributes and `font-size:` in `style` attributes or
<style> blocks; px, pt and unitless values; em/% are relative and skipped).

    python3 .ci/figure-sizes.py [DIR ...]     default: book/src/figures
"""
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

MAX_WIDTH = 1200.0
MIN_FONT = 12.0
# A wider or smaller figure may be allowed here, with the reason (none is).
EXCEPTIONS: dict[str, str] = {}

UNITS = {"": 1.0, "px": 1.0, "pt": 96.0 / 72.0}
SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z%]*)\s*$")
STYLE_FONT_RE = re.compile(r"font-size\s*:\s*([^;}\"]+)")


def px(value: str):
    """A length in px, or None for relative units (em, %) and unparsable values."""
    m = SIZE_RE.match(value)
    if not m or m.group(2) not in UNITS:
        return None
    return float(m.group(1)) * UNITS[m.group(2)]


def check(svg: Path) -> list[str]:
    problems = []
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        return [f"{svg}: does not parse as XML: {e}"]
    width = px(root.get("width", "")) if root.get("width") else None
    if width is None and root.get("viewBox"):
        parts = root.get("viewBox").replace(",", " ").split()
        if len(parts) == 4:
            width = float(parts[2])
    if width is None:
        problems.append(f"{svg}: no width attribute or viewBox")
    elif width > MAX_WIDTH:
        problems.append(f"{svg}: {width:g} px wide (at most {MAX_WIDTH:g}: the book column is ~940 px)")
    smallest = None
    for el in root.iter():
        sizes = []
        if el.get("font-size"):
            sizes.append(el.get("font-size"))
        sizes += STYLE_FONT_RE.findall(el.get("style", ""))
        if el.tag.endswith("style") and el.text:
            sizes += STYLE_FONT_RE.findall(el.text)
        for s in sizes:
            v = px(s)
            if v is not None and (smallest is None or v < smallest):
                smallest = v
    if smallest is not None and smallest < MIN_FONT - 1e-9:
        problems.append(f"{svg}: text of {smallest:.1f} px (at least {MIN_FONT:g} px)")
    return problems


def main(argv: list[str]) -> int:
    dirs = [Path(a) for a in argv] or [Path(__file__).resolve().parent.parent / "book/src/figures"]
    svgs = sorted(p for d in dirs for p in (d.rglob("*.svg") if d.is_dir() else [d]))
    if not svgs:
        print(f"no SVG under {', '.join(map(str, dirs))}", file=sys.stderr)
        return 1
    problems = []
    for svg in svgs:
        if svg.name in EXCEPTIONS:
            continue
        problems += check(svg)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in {len(svgs)} figures: redraw them in the book layout "
              "(bloomlab run SPEC --replot; src/plot/book.rs)", file=sys.stderr)
        return 1
    print(f"{len(svgs)} figures: at most {MAX_WIDTH:g} px wide, no text under {MIN_FONT:g} px")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
