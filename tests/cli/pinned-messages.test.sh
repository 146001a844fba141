#!/bin/sh
# pinned-messages.test.sh - no golden file repeats a message that a Check
# suite pins whole (see tests/cli/run.sh and pinned-messages.py): each
# message has one place to change. Exit 0 pass, 77 skip (no python3), 1 fail.
set -u
cd "$(dirname "$0")/../.." || exit 2
command -v python3 >/dev/null 2>&1 || { echo "pinned-messages: no python3, skipped"; exit 77; }
python3 tests/cli/pinned-messages.py || exit 1
