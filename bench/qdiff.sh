#!/bin/sh
# qdiff.sh - diff --values of a safetensors model against its Q8_0 GGUF
# conversion (issue 25): names mapped to GGUF's, Q/K rows in the converter's
# order, every block dequantised, error metrics per tensor (bench/qdiff.py
# writes the ~300 MB float16 model and its ~170 MB Q8_0 conversion once into
# bench/data/qdiff). Against the memory-bandwidth floor: a plain summing pass
# over both files' maps (build/tsvalues sum), best of 3, page cache warm.
# Goal: floor / tshape >= 0.5. Exits 1 when missed.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
tool=build/tsvalues
py=/usr/bin/python3
d=bench/data/qdiff
[ -x "$tshape" ] && [ -x "$tool" ] || make -s build/tshape build/tsvalues || exit 2
[ -f "$d/q8_0.gguf" ] || $py bench/qdiff.py "$d" || exit 2
"$tshape" diff --values "$d/hf" "$d/q8_0.gguf" | tail -4
t=$(best_of 3 "$tshape" diff --values "$d/hf" "$d/q8_0.gguf")
f1=$(best_of 3 "$tool" sum "$d/hf/model.safetensors")
f2=$(best_of 3 "$tool" sum "$d/q8_0.gguf")
floor=$(echo "$f1 + $f2" | bc -l)
bytes=$(( $(stat -c %s "$d/hf/model.safetensors") + $(stat -c %s "$d/q8_0.gguf") ))
share=$(printf '%.2f' "$(echo "$floor / $t" | bc -l)")
printf 'tshape diff --values (safetensors vs Q8_0 GGUF, %d MB)  %s s  %.2f GB/s\n' \
    $((bytes / 1000000)) "$t" "$(echo "$bytes / $t / 1000000000" | bc -l)"
printf 'floor: summing both maps                                %.4f s\n' "$floor"
echo "share of the floor: $share (goal >= 0.5)"
[ "$(echo "$share >= 0.5" | bc -l)" = 1 ] || { echo "qdiff.sh: goal missed"; exit 1; }
