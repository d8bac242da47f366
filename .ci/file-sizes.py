#!/usr/bin/env python3
"""Source files a reader can hold in mind: at most LIMIT lines of non-test code per file under
src/ (blank lines, comment lines and `#[cfg(test)]` modules not counted). Exits 1 naming the
files over the limit."""
import re
import sys
from pathlib import Path

LIMIT = 800
ROOT = Path(__file__).resolve().parent.parent


def code_lines(text):
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\(crate\))?\s+)?mod\s+\w+\s*(;|\{)", text)
    body = text[: m.start()] if m else text
    return sum(1 for line in body.splitlines() if line.strip() and not line.strip().startswith("//"))


def main():
    sizes = sorted(((code_lines(p.read_text()), p) for p in (ROOT / "src").rglob("*.rs")), reverse=True)
    over = [(n, p) for n, p in sizes if n > LIMIT]
    n, p = sizes[0]
    print(f"{len(sizes)} files under src/; largest {p.relative_to(ROOT)} with {n} lines of non-test code (limit {LIMIT})")
    for n, p in over:
        print(f"  over the limit: {p.relative_to(ROOT)}: {n}")
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
