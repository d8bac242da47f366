#!/usr/bin/env bash
# The README's picture of the explorer: the real binary in a detached tmux session (100×26),
# driven to Lessons, lesson 7 at 1% answered; the screen captured with its colours
# (tmux capture-pane -e), turned into HTML (ansi_html.py) and photographed by headless Chromium.
#
#   BLOOMLAB_BIN=target/release/bloomlab book/tools/tui_screenshot.sh   writes results/tui/
#
# The screen shows rates and bits per key only (no timings), so a debug build draws the same.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$(realpath "${BLOOMLAB_BIN:-target/release/bloomlab}")
OUT=results/tui
mkdir -p "$OUT"
S="bloomlab-shot-$$"
trap 'tmux kill-session -t "$S" 2>/dev/null || true' EXIT
tmux new-session -d -s "$S" -x 100 -y 26 "'$BIN'"
wait_for() {
    for ((i = 0; i < $2 * 10; i++)); do
        tmux capture-pane -p -t "$S" | grep -qE -- "$1" && return 0
        sleep 0.1
    done
    echo "timed out waiting for /$1/" >&2
    tmux capture-pane -p -t "$S" >&2
    exit 1
}
wait_for 'Explore' 30
# The Explore screen's background measurement first, so no progress figure is in the picture.
wait_for 'done: [0-9,]+ absent keys queried' 300
tmux send-keys -t "$S" 5
wait_for 'Lesson 1/8' 10
for _ in 1 2 3 4 5 6; do tmux send-keys -t "$S" Down; done
wait_for 'Lesson 7/8' 60
wait_for 'standard for 0.3906%' 60
tmux send-keys -t "$S" b
wait_for 'Right:' 10
tmux capture-pane -e -p -t "$S" > "$OUT/lessons-7.ansi"
tmux capture-pane -p -t "$S" > "$OUT/lessons-7.txt"
python3 book/tools/ansi_html.py "$OUT/lessons-7.ansi" > "$OUT/lessons-7.html"
chromium --headless --no-sandbox --hide-scrollbars --screenshot="$OUT/lessons-7.png" \
    --window-size=930,520 "file://$(realpath "$OUT/lessons-7.html")" 2>/dev/null
rm -f "$OUT/lessons-7.ansi"
echo "wrote $OUT/lessons-7.png, .html and .txt"
