#!/usr/bin/env python3
"""Results of the compare scripts (benches/compare.sh, benches/history.sh, .ci/bench-gate.sh).

  results.py collect HOME [SUFFIX]         callgrind files (*.out, or *SUFFIX) under a gungraun
                                           home -> TSV rows (benchmark, metric, value), stdout
  results.py compare BASE HEAD [--thresholds F] [--markdown F] [--json F] [--gh-bench F]
                     [--wall F] [--base-label REV] [--head-label REV]
                                           two measure.sh result files -> the PR-comment table
                                           (stdout unless --markdown), BMF and github-action-
                                           benchmark files; exit 1 when anything regressed
  results.py history CSV COMMIT FILE ...   merge measure.sh result files into history.csv
  results.py steps CSV MD [N]              the N largest steps of history.csv -> history.md
  results.py validate bmf|gh FILE          check a --json / --gh-bench file against its format
  results.py executable TARGET             cargo --message-format=json on stdin -> the path of
                                           bench TARGET's executable

A benchmark is named GROUP/FUNCTION.ID, e.g. hot_paths/query_hit.standard, from gungraun's
directory layout HOME/[PACKAGE/]gate/GROUP/FUNCTION.ID/callgrind.FUNCTION.ID.out; the gate's
names have been stable since it began (checked over all 20 commits that touched it), and a
rename would be mapped by [rename] in benches/thresholds.toml. Thresholds are in percent.
"""

import csv
import fnmatch
import json
import os
import subprocess
import sys
import tomllib

METRIC = "instructions"
THRESHOLDS = os.path.join(os.path.dirname(__file__), "..", "thresholds.toml")


def ir_of(path):
    """The Ir total of one callgrind output file (its `summary:` or `totals:` line)."""
    events = total = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:") or (total is None and line.startswith("totals:")):
                total = line.split()[1:]
    if events is None or total is None or "Ir" not in events:
        raise ValueError(f"{path}: no events/summary line with Ir")
    return int(total[events.index("Ir")])


def collect(home, suffix=".out"):
    rows = {}
    for dirpath, _dirs, files in os.walk(home):
        for name in files:
            if not (name.startswith("callgrind.") and name.endswith(suffix)):
                continue
            # [PACKAGE/]BENCH/GROUP/FUNCTION.ID: the package level is there when cargo runs the
            # bench, not when its binary is run directly (measure.sh)
            rel = os.path.relpath(dirpath, home).split(os.sep)
            if len(rel) < 3:
                continue
            bench = f"{rel[-2]}/{rel[-1]}"
            rows[bench] = rows.get(bench, 0) + ir_of(os.path.join(dirpath, name))
    return rows


def load_thresholds(path):
    with open(path, "rb") as f:
        t = tomllib.load(f)
    default = t.get("default", {})
    return {
        "default": {
            "instructions": float(default.get("instructions", 1.0)),
            "wall": float(default.get("wall", 3.0)),
        },
        "benchmarks": t.get("benchmarks", {}),
        "rename": t.get("rename", {}),
    }


def threshold(th, bench, metric):
    """Per-benchmark threshold: the last matching pattern of [benchmarks] wins."""
    kind = "instructions" if metric == METRIC else "wall"
    value = th["default"][kind]
    for pattern, entry in th["benchmarks"].items():
        if fnmatch.fnmatchcase(bench, pattern) and kind in entry:
            value = float(entry[kind])
    return value


def load(path, rename=None):
    """A measure.sh result file: (meta {'commit', 'date', 'toolchain', ...}, {(bench, metric): value})."""
    meta, rows = {}, {}
    rename = rename or {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("# "):
                key, _, value = line[2:].partition("\t")
                meta[key] = value
                continue
            fields = line.split("\t")
            bench, metric, value = fields[0], fields[1], float(fields[2])
            extra = [float(x) for x in fields[3:5]]
            rows[(rename.get(bench, bench), metric)] = (value, *extra)
    return meta, rows


def verdict_of(metric, base, head, limit):
    """(change %, verdict) of one row; head/base are (value[, lo, hi]) tuples."""
    if base is None:
        return None, "new"
    if head is None:
        return None, "gone"
    change = (head[0] / base[0] - 1.0) * 100.0 if base[0] else 0.0
    if metric == METRIC:
        if change > limit:
            return change, "regression"
        if change < -limit:
            return change, "improvement"
        return change, "unchanged"
    # wall: head = (median ratio, lo, hi) of HEAD/BASE; the whole interval must be beyond ±limit
    lo, hi = (head[1] - 1.0) * 100.0, (head[2] - 1.0) * 100.0
    if lo > limit:
        return change, "regression"
    if hi < -limit:
        return change, "improvement"
    return change, "unchanged"


def short(commit):
    return commit if commit == "worktree" else commit[:10]


def fmt_value(metric, v):
    if v is None:
        return "—"
    if metric == METRIC:
        return f"{int(v[0]):,}"
    if len(v) == 3:
        return f"{v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}]"
    return f"{v[0]:.3f}"


def compare(args):
    opts = {"--thresholds": THRESHOLDS}
    files = []
    it = iter(args)
    for a in it:
        if a.startswith("--"):
            opts[a] = next(it, None)
        else:
            files.append(a)
    if len(files) != 2 or None in opts.values():
        print(__doc__, file=sys.stderr)
        return 2
    th = load_thresholds(opts["--thresholds"])
    bmeta, base = load(files[0], th["rename"])
    hmeta, head = load(files[1], th["rename"])
    # a cached result is keyed by its source tree: the caller names the revision it stands for
    bmeta["commit"] = opts.get("--base-label") or bmeta.get("commit", "?")
    hmeta["commit"] = opts.get("--head-label") or hmeta.get("commit", "?")
    if opts.get("--wall"):
        # wall rows: BASE is 1 by definition, HEAD is the ratio HEAD/BASE with its interval
        _, wall = load(opts["--wall"])
        for key, v in wall.items():
            base[key] = (1.0,)
            head[key] = v
    rows = []
    for key in sorted(set(base) | set(head)):
        bench, metric = key
        limit = threshold(th, bench, metric)
        change, verdict = verdict_of(metric, base.get(key), head.get(key), limit)
        rows.append((bench, metric, base.get(key), head.get(key), change, verdict, limit))
    order = {"regression": 0, "unchanged": 1, "improvement": 1, "new": 2, "gone": 3}
    rows.sort(key=lambda r: (order[r[5]], -(r[4] if r[4] is not None else 0.0), r[0], r[1]))
    counts = {v: sum(1 for r in rows if r[5] == v) for v in order}
    b, h = short(bmeta.get("commit", "?")), short(hmeta.get("commit", "?"))
    out = [
        f"### Benchmarks: `{b}` (BASE) → `{h}` (HEAD)",
        "",
        f"Toolchain: {hmeta.get('toolchain', '?')} (both built with it). "
        f"Thresholds: `benches/thresholds.toml` (instructions ±"
        f"{th['default']['instructions']:g}%, wall-clock: 95% interval beyond ±"
        f"{th['default']['wall']:g}%, unless set per benchmark).",
        "",
        f"**{counts['regression']} regression(s)**, {counts['improvement']} improvement(s), "
        f"{counts['unchanged']} unchanged, {counts['new']} new, {counts['gone']} gone.",
        "",
        f"| benchmark | metric | BASE `{b}` | HEAD `{h}` | change | verdict |",
        "|---|---|--:|--:|--:|---|",
    ]
    for bench, metric, bv, hv, change, verdict, limit in rows:
        ch = "—" if change is None else f"{change:+.2f}%"
        vd = verdict
        if verdict in ("regression", "improvement"):
            vd = f"**{verdict}**" if verdict == "regression" else verdict
            vd += f" (±{limit:g}%)"
        out.append(
            f"| `{bench}` | {metric} | {fmt_value(metric, bv)} | {fmt_value(metric, hv)} | {ch} | {vd} |"
        )
    text = "\n".join(out) + "\n"
    if opts.get("--markdown"):
        with open(opts["--markdown"], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if opts.get("--json"):
        write_bmf(opts["--json"], head)
    if opts.get("--gh-bench"):
        write_gh_bench(opts["--gh-bench"], head, hmeta)
    print(
        f"compare: {counts['regression']} regression(s), {counts['improvement']} improvement(s), "
        f"{counts['unchanged']} unchanged, {counts['new']} new, {counts['gone']} gone",
        file=sys.stderr,
    )
    return 1 if counts["regression"] else 0


def write_bmf(path, head):
    """bencher's metric format (https://bencher.dev/bmf.json): {benchmark: {measure: {value}}}.
    Wall rows are the HEAD/BASE ratio with its 95% interval as lower_value/upper_value."""
    doc = {}
    for (bench, metric), v in sorted(head.items()):
        m = {"value": int(v[0]) if metric == METRIC else v[0]}
        if len(v) == 3:
            m["lower_value"], m["upper_value"] = v[1], v[2]
        doc.setdefault(bench, {})[metric if metric == METRIC else "wall-ratio"] = m
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def write_gh_bench(path, head, meta):
    """github-action-benchmark's `customSmallerIsBetter` input: a list of
    {name, unit, value[, range, extra]} (its src/extract.ts `BenchmarkResult`)."""
    doc = []
    for (bench, metric), v in sorted(head.items()):
        entry = {"name": f"{bench} ({metric})", "unit": "instructions" if metric == METRIC else "ratio", "value": int(v[0]) if metric == METRIC else v[0]}
        if len(v) == 3:
            entry["range"] = f"95% CI [{v[1]:.3f}, {v[2]:.3f}]"
        entry["extra"] = f"commit {short(meta.get('commit', '?'))}\n{meta.get('toolchain', '')}"
        doc.append(entry)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


HEADER = ["commit", "date", "toolchain", "benchmark", "metric", "value"]


def read_history(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def history(args):
    """args: CSV COMMIT FILE [COMMIT FILE ...]"""
    path, pairs = args[0], args[1:]
    if len(pairs) % 2:
        print("history: give COMMIT FILE pairs", file=sys.stderr)
        return 2
    th = load_thresholds(THRESHOLDS)
    rows = read_history(path)
    for commit, file in zip(pairs[::2], pairs[1::2]):
        meta, data = load(file, th["rename"])
        meta["commit"] = commit
        meta["date"] = subprocess.run(
            ["git", "show", "-s", "--format=%cI", commit], capture_output=True, text=True, check=True
        ).stdout.strip()
        rows = [r for r in rows if r["commit"] != meta["commit"] or r["toolchain"] != meta["toolchain"]]
        for (bench, metric), v in sorted(data.items()):
            rows.append({
                "commit": meta["commit"], "date": meta["date"], "toolchain": meta["toolchain"],
                "benchmark": bench, "metric": metric, "value": f"{v[0]:.0f}",
            })
    rows.sort(key=lambda r: (r["date"], r["commit"], r["benchmark"], r["metric"]))
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, HEADER, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"history: {path}: {len({r['commit'] for r in rows})} commits, {len(rows)} rows", file=sys.stderr)
    return 0


def steps_of(rows):
    """Every (pct, commit, prev_commit, benchmark, before, after) between consecutive commits."""
    commits = []
    for r in rows:
        if not commits or commits[-1] != r["commit"]:
            commits.append(r["commit"])
    by = {}
    for r in rows:
        by.setdefault(r["benchmark"], {})[r["commit"]] = float(r["value"])
    out = []
    for bench, values in by.items():
        prev = None
        for c in commits:
            if c not in values:
                continue
            if prev is not None and values[prev]:
                pct = (values[c] / values[prev] - 1.0) * 100.0
                out.append((pct, c, prev, bench, values[prev], values[c]))
            prev = c
    out.sort(key=lambda s: -abs(s[0]))
    return commits, out


def steps(args):
    path, md = args[0], args[1]
    n = int(args[2]) if len(args) > 2 else 10
    rows = [r for r in read_history(path) if r["metric"] == METRIC]
    commits, all_steps = steps_of(rows)
    dates = {r["commit"]: r["date"] for r in rows}
    benches = {r["benchmark"] for r in rows}
    lines = [
        "# Instruction-count history of the gate's benchmarks",
        "",
        "Generated by `benches/history.sh` from `results/bench/history.csv` (do not edit by hand);",
        "the plot is `history.svg` / `history.png`. Counts are callgrind's instructions (Ir) of",
        "`benches/gate.rs` (1000 operations each, n = 10^4, p = 1%), every commit built with the",
        f"same toolchain ({rows[-1]['toolchain'] if rows else '?'}).",
        "",
        f"{len(commits)} commits from `{commits[0][:10]}` ({dates[commits[0]][:10]}) to "
        f"`{commits[-1][:10]}` ({dates[commits[-1]][:10]}), {len(benches)} benchmarks."
        if commits else "No commits yet.",
        "",
        f"## The {n} largest steps between consecutive measured commits",
        "",
        "A step lies somewhere in the commits after the previous measured one up to this one",
        "(`git log --first-parent PREVIOUS..COMMIT`; `benches/compare.sh` between any two of them",
        "narrows it down).",
        "",
        "| commit | previous measured | benchmark | before | after | change |",
        "|---|---|---|--:|--:|--:|",
    ]
    for pct, c, prev, bench, before, after in all_steps[:n]:
        lines.append(
            f"| `{c[:10]}` ({dates[c][:10]}) | `{prev[:10]}` | `{bench}` | {before:,.0f} | {after:,.0f} | {pct:+.1f}% |"
        )
    with open(md, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return 0


def validate(kind, path):
    """Check a written file against the published format; returns a list of problems.

    bmf: bencher's JSON schema https://bencher.dev/bmf.json (an object of benchmark names, each
    an object of measure names, each an object with a number `value` and optional number
    `lower_value` / `upper_value`). gh: github-action-benchmark's `BenchmarkResult` (src/extract.ts:
    name string, value number, unit string, optional range and extra strings), a non-empty list.
    """
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    num = (int, float)
    bad = []
    if kind == "bmf":
        if not isinstance(doc, dict) or not doc:
            return ["not a non-empty object"]
        for bench, measures in doc.items():
            if not bench or not isinstance(measures, dict) or not measures:
                bad.append(f"{bench!r}: not a non-empty object of measures")
                continue
            for measure, m in measures.items():
                if not measure or not isinstance(m, dict) or not isinstance(m.get("value"), num):
                    bad.append(f"{bench!r}/{measure!r}: no number 'value'")
                for k in ("lower_value", "upper_value"):
                    if k in m and not isinstance(m[k], num):
                        bad.append(f"{bench!r}/{measure!r}: {k} not a number")
    else:
        if not isinstance(doc, list) or not doc:
            return ["not a non-empty list"]
        for i, e in enumerate(doc):
            if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not isinstance(e.get("unit"), str) \
                    or not isinstance(e.get("value"), num) or isinstance(e.get("value"), bool):
                bad.append(f"entry {i}: needs string name, string unit, number value")
                continue
            for k in ("range", "extra"):
                if k in e and not isinstance(e[k], str):
                    bad.append(f"entry {i}: {k} not a string")
            extra = set(e) - {"name", "value", "unit", "range", "extra"}
            if extra:
                bad.append(f"entry {i}: unknown keys {sorted(extra)}")
    return bad


def executable(target):
    """The executable of bench target TARGET from cargo's --message-format=json on stdin."""
    exe = None
    for line in sys.stdin:
        if not line.startswith("{"):
            continue
        m = json.loads(line)
        if m.get("reason") == "compiler-artifact" and m["target"]["name"] == target and m.get("executable"):
            exe = m["executable"]
    if exe is None:
        print(f"no executable of bench target '{target}' in cargo's output", file=sys.stderr)
        return 3
    print(exe)
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "validate" and argv[2] in ("bmf", "gh"):
        bad = validate(argv[2], argv[3])
        for b in bad:
            print(f"{argv[3]}: {b}", file=sys.stderr)
        print(f"{argv[3]}: {'INVALID' if bad else 'valid'} {argv[2]}", file=sys.stderr)
        return 1 if bad else 0
    if len(argv) == 3 and argv[1] == "executable":
        return executable(argv[2])
    if len(argv) in (3, 4) and argv[1] == "collect":
        for bench, value in sorted(collect(*argv[2:]).items()):
            print(f"{bench}\t{METRIC}\t{value}")
        return 0
    if len(argv) >= 4 and argv[1] == "compare":
        return compare(argv[2:])
    if len(argv) >= 3 and argv[1] == "history":
        return history(argv[2:])
    if len(argv) >= 4 and argv[1] == "steps":
        return steps(argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except OSError as e:  # an output file that cannot be written, an input that cannot be read
        print(f"results.py: {e}", file=sys.stderr)
        sys.exit(2 if len(sys.argv) > 1 and sys.argv[1] == "compare" else 3)
    except (ValueError, KeyError) as e:  # a malformed result or history file
        print(f"results.py: malformed input: {e}", file=sys.stderr)
        sys.exit(3)
