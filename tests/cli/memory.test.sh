#!/bin/sh
# memory.test.sh - info --memory's KV cache for the attention keys of public
# config.json files (tests/fixtures/gen_memory.py: Llama 3, Mistral with a
# sliding window on every layer, Qwen2.5 without, Gemma 2 alternating,
# Gemma 3 with a pattern, GPT-2's own key names), at the model's context,
# 8,192 tokens, and 32,768 tokens in float16 for a batch of 4: each equal to
# expected.tsv, which the generator computes by transformers' rule. Exit 0
# pass, 1 fail, 77 skipped (no python3).
cd "$(dirname "$0")/../.." || exit 2
py=/usr/bin/python3
[ -x $py ] || { echo "memory: no $py, skipped"; exit 77; }
bin=${TSHAPE:-$(command -v tshape)}
d=tests/fixtures/memory
fail=0 n=0
while IFS="$(printf '\t')" read -r dir context batch dtype want; do
    case $dir in '#'*) continue;; esac
    n=$((n + 1))
    set -- --context "$context" --batch "$batch"
    [ "$context" = 0 ] && set -- --batch "$batch"
    [ "$dtype" = - ] || set -- "$@" --kv-dtype "$dtype"
    got=$("$bin" --json info --memory "$@" "$d/$dir" |
          $py -c 'import json, sys; print(json.loads(sys.stdin.readline())["memory"]["kv_cache"])')
    if [ "$got" != "$want" ]; then
        echo "FAIL memory $dir $*: KV cache $got, expected $want"
        fail=$((fail + 1))
    fi
done < $d/expected.tsv
echo "memory: $n estimates, $fail failed"
[ $fail = 0 ] && [ $n -gt 0 ]
