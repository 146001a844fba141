#!/bin/sh
# torch-nn.test.sh - cross-checks the layer shape commands (conv,
# convtranspose, pool, linear, matmul, cat, stack, dim) against PyTorch:
# tests/fixtures/nn/cases.tsv, written by tests/gen_nn_table.py with
# python3-torch, holds random layer configurations, valid and invalid, with
# torch's output shape or its rejection. Each row is replayed here (no torch
# needed): tshape must print the same shape (and weight shape), or reject
# the configuration with exit status 2 and nothing on standard output.
# Run by run.sh from the repository root with tshape on PATH. Exit 0 pass,
# 1 fail.
set -u
table=tests/fixtures/nn/cases.tsv
[ -f "$table" ] || { echo "torch-nn.test.sh: no $table" >&2; exit 1; }
tab=$(printf '\t')
pass=0 fail=0 valid=0 rejected=0
while IFS=$tab read -r op args expect note; do
    case $op in '#'*|'') continue;; esac
    out=$(eval "tshape $args" 2>/dev/null)
    rc=$?
    if [ "$expect" = error ]; then
        rejected=$((rejected + 1))
        if [ $rc = 2 ] && [ -z "$out" ]; then pass=$((pass + 1)); continue; fi
    else
        valid=$((valid + 1))
        if [ $rc = 0 ] && [ "$out" = "$expect" ]; then pass=$((pass + 1)); continue; fi
    fi
    fail=$((fail + 1))
    [ $fail -le 20 ] && printf 'FAIL torch-nn: tshape %s\n  torch: %s (%s)\n  tshape (exit %s): %s\n' \
        "$args" "$expect" "$note" "$rc" "$out"
done < "$table"
echo "torch-nn.test.sh: $pass of $((pass + fail)) PyTorch cases agree ($valid valid, $rejected rejected by torch), $fail differ"
[ $fail = 0 ] && [ $pass -ge 2000 ]
