# Sourced by the compare scripts (benches/compare.sh, benches/history.sh, .ci/bench-gate.sh):
# the toolchain a measurement belongs to, the runner, the scratch worktree.
# shellcheck shell=bash

GUNGRAUN_VERSION=0.20.0 # must equal the gungraun dev-dependency's version

# rustc's full version (commit hash included) and the runner: what the counts depend on.
toolchain_label() {
    echo "$(rustc -V) + gungraun-runner $GUNGRAUN_VERSION"
}
toolchain_id() {
    { rustc -vV; echo "gungraun-runner $GUNGRAUN_VERSION"; } | sha1sum | cut -c1-10
}

# valgrind must be there; gungraun-runner is installed when missing (it must match the library).
ensure_runner() {
    if ! command -v valgrind >/dev/null; then
        echo "compare: valgrind is required (apt-get install valgrind)" >&2
        exit 2
    fi
    if [ "$(gungraun-runner --version 2>/dev/null | awk '{print $2}')" != "$GUNGRAUN_VERSION" ]; then
        echo "compare: installing gungraun-runner $GUNGRAUN_VERSION (cargo install --locked; ~2 min idle)"
        cargo install --locked "gungraun-runner@$GUNGRAUN_VERSION"
    fi
}

# resolve_rev REV: sets $commit (a commit object; for WORKTREE one made of the working tree as it
# is, tracked and untracked files with .gitignore respected, through a private index so the real
# one is untouched), $tree and $label. Exits 2 when REV is not a commit.
resolve_rev() {
    if [ "$1" = WORKTREE ]; then
        local idx
        idx="$(mktemp)"
        cp "$(git rev-parse --git-path index)" "$idx" 2>/dev/null || true
        GIT_INDEX_FILE="$idx" git add -A
        tree="$(GIT_INDEX_FILE="$idx" git write-tree)"
        rm -f "$idx"
        commit="$(git commit-tree "$tree" -p HEAD -m "compare: working tree of $(git rev-parse --short HEAD)")"
        label="worktree"
    else
        commit="$(git rev-parse --verify --quiet "$1^{commit}")" || {
            echo "compare: '$1' is not a commit of this repository" >&2
            exit 2
        }
        tree="$(git rev-parse "$commit^{tree}")"
        label="$commit"
    fi
}

# The scratch worktree builds happen in (COMPARE_TREE names another, e.g. history.sh's own, so
# that a backfill and a compare can run at the same time) and the one target directory all
# builds share (COMPARE_TARGET_DIR; cargo's lock serialises the builds, not the runs).
tree_dir() { echo "$COMPARE_ROOT/${COMPARE_TREE:-tree}"; }
build_dir() { echo "${COMPARE_TARGET_DIR:-$COMPARE_ROOT/build}"; }

# checkout_tree COMMIT: the scratch worktree at COMMIT.
checkout_tree() {
    local dir
    dir="$(tree_dir)"
    if [ ! -e "$dir/.git" ]; then
        rm -rf "$dir"
        git worktree add --detach --force "$dir" "$1" >&2
    fi
    git -C "$dir" checkout --quiet --detach --force "$1"
    git -C "$dir" clean -fdq
    # The benches need the library only, but cargo builds every binary of a package whose
    # benches it builds: drop the `bloomlab` binary from this scratch copy's manifest (a large
    # part of a commit's build). The library and bench compile with the same rustc arguments
    # either way: the gate measured this way matched the baseline `cargo bench` made (173 of 175
    # counts equal, the other two the cuckoofilter peer's random evictions).
    python3 - "$dir/Cargo.toml" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
s = re.sub(r"(?ms)^\[\[bin\]\]\n.*?(?=^\[)", "", s)
s = re.sub(r"(?m)^default-run\s*=.*\n", "", s)
s = s.replace("[package]\n", "[package]\nautobins = false\n", 1)
open(p, "w", encoding="utf-8").write(s)
PY
}
