#!/usr/bin/env python3
"""Check the built mdBook (book/book/ by default) for broken internal links and missing images.

Also flags pages where an mdBook directive (`{{#include …}}`) was left unexpanded, which is what
a missing include file or anchor produces.

Every <img src>, and every <a href>, <link href> and <script src> that is not external, must
resolve to a file inside the built book; a #fragment must name an element id in the target page.
Exit status 1 lists each problem as `page: kind target (reason)`.

Usage: check_links.py [BUILD_DIR]
"""
import os
import re
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

EXTERNAL = ("http:", "https:", "mailto:", "javascript:", "data:", "ftp:")


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.refs = []  # (kind, target)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "img" and "src" in a:
            self.refs.append(("image", a["src"]))
        elif tag == "a" and "href" in a:
            self.refs.append(("link", a["href"]))
        elif tag == "link" and "href" in a:
            self.refs.append(("stylesheet", a["href"]))
        elif tag == "script" and a.get("src"):
            self.refs.append(("script", a["src"]))
        elif tag in ("source", "embed") and a.get("src"):
            self.refs.append(("media", a["src"]))
        elif tag == "object" and a.get("data"):
            self.refs.append(("media", a["data"]))


def parse(path, cache):
    if path not in cache:
        p = Page()
        with open(path, encoding="utf-8", errors="replace") as f:
            p.feed(f.read())
        cache[path] = p
    return cache[path]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "book/book")
    if not os.path.isfile(os.path.join(root, "index.html")):
        print(f"check_links: no built book at {root} (run `mdbook build book` first)")
        return 1
    cache = {}
    problems = []
    pages = 0
    refs = 0
    for dirpath, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".html"):
                continue
            page_path = os.path.join(dirpath, name)
            rel_page = os.path.relpath(page_path, root)
            # The print page and the 404 page repeat the others with rewritten links.
            if rel_page in ("print.html", "404.html") or rel_page.startswith("toc"):
                continue
            pages += 1
            page = parse(page_path, cache)
            with open(page_path, encoding="utf-8", errors="replace") as f:
                # {{#value}} and {{#calc}} in a page are shown on purpose (escaped): the numbers
                # preprocessor fails the build on any it cannot expand.
                if re.search(r"\{\{#(?!value\b|calc\b)", f.read()):
                    problems.append(f"{rel_page}: an mdBook directive was left unexpanded ({{{{#…}}}})")
            for kind, target in page.refs:
                t = target.strip()
                if not t or t.lower().startswith(EXTERNAL) or t.startswith("//"):
                    continue
                refs += 1
                parts = urlsplit(t)
                if parts.path:
                    dest = os.path.normpath(os.path.join(dirpath, unquote(parts.path)))
                    if os.path.isdir(dest):
                        dest = os.path.join(dest, "index.html")
                else:
                    dest = page_path
                if not dest.startswith(root + os.sep) and dest != root:
                    problems.append(f"{rel_page}: {kind} {t} (points outside the book)")
                    continue
                if not os.path.isfile(dest):
                    problems.append(f"{rel_page}: {kind} {t} (no such file)")
                    continue
                frag = unquote(parts.fragment)
                if frag and dest.endswith(".html") and kind == "link":
                    if frag not in parse(dest, cache).ids:
                        problems.append(f"{rel_page}: {kind} {t} (no element with id '{frag}')")
    for p in problems:
        print(p)
    print(f"check_links: {pages} pages, {refs} internal references, {len(problems)} problems")
    return 1 if problems or pages == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
