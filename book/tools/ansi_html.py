#!/usr/bin/env python3
"""A terminal capture with colours (`tmux capture-pane -e -p`) as an HTML page: one <pre>, a span
per run of equal style, the terminal's default colours light on dark. Handles the SGR codes tmux
writes (reset, bold, dim, italic, underline, reverse, 8/16/256-colour and RGB fore- and
background). Usage: ansi_html.py CAPTURE.txt > page.html"""
import html
import re
import sys

BASE = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
        "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"]
FG, BG = "#e5e5e5", "#1e1e1e"


def c256(n):
    if n < 16:
        return BASE[n]
    if n < 232:
        n -= 16
        lv = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (lv[n // 36], lv[n // 6 % 6], lv[n % 6])
    g = 8 + 10 * (n - 232)
    return "#%02x%02x%02x" % (g, g, g)


def apply(st, params):
    p = [int(x) if x else 0 for x in params.split(";")] if params else [0]
    i = 0
    while i < len(p):
        c = p[i]
        if c == 0:
            st.clear()
        elif c == 1:
            st["b"] = True
        elif c == 2:
            st["dim"] = True
        elif c == 22:
            st.pop("b", None); st.pop("dim", None)
        elif c == 3:
            st["i"] = True
        elif c == 23:
            st.pop("i", None)
        elif c == 4:
            st["u"] = True
        elif c == 24:
            st.pop("u", None)
        elif c == 7:
            st["rev"] = True
        elif c == 27:
            st.pop("rev", None)
        elif 30 <= c <= 37:
            st["fg"] = BASE[c - 30]
        elif 90 <= c <= 97:
            st["fg"] = BASE[c - 90 + 8]
        elif 40 <= c <= 47:
            st["bg"] = BASE[c - 40]
        elif 100 <= c <= 107:
            st["bg"] = BASE[c - 100 + 8]
        elif c in (38, 48):
            key = "fg" if c == 38 else "bg"
            if p[i + 1] == 5:
                st[key] = c256(p[i + 2]); i += 2
            elif p[i + 1] == 2:
                st[key] = "#%02x%02x%02x" % tuple(p[i + 2:i + 5]); i += 4
        elif c == 39:
            st.pop("fg", None)
        elif c == 49:
            st.pop("bg", None)
        i += 1


def css(st):
    fg, bg = st.get("fg", FG), st.get("bg", BG)
    if st.get("rev"):
        fg, bg = bg, fg
    out = [f"color:{fg}", f"background:{bg}"]
    if st.get("b"):
        out.append("font-weight:bold")
    if st.get("dim"):
        out.append("opacity:0.7")
    if st.get("i"):
        out.append("font-style:italic")
    if st.get("u"):
        out.append("text-decoration:underline")
    return ";".join(out)


def main():
    text = open(sys.argv[1], encoding="utf-8").read().rstrip("\n")
    st, parts = {}, []
    for line in text.split("\n"):
        pos = 0
        for m in re.finditer(r"\x1b\[([0-9;]*)m", line):
            if m.start() > pos:
                parts.append(f'<span style="{css(st)}">{html.escape(line[pos:m.start()])}</span>')
            apply(st, m.group(1))
            pos = m.end()
        if pos < len(line):
            parts.append(f'<span style="{css(st)}">{html.escape(line[pos:])}</span>')
        parts.append("\n")
    print(f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; background: {BG}; }}
pre {{ margin: 0; padding: 12px; font: 15px/18px "DejaVu Sans Mono", monospace; color: {FG}; }}
</style></head><body><pre>{"".join(parts)}</pre></body></html>""")


if __name__ == "__main__":
    main()
