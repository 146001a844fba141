#!/bin/sh
# fuzz.sh SECONDS [HARNESS...] - runs the libFuzzer harnesses of `make fuzz`
# for SECONDS each, FUZZ_JOBS (default 2: this machine has 2 cores) at a
# time, then prints a
# table: harness, executions, exec/s, crashes. Default: every harness built.
#
# Seeds are copied at run time into build-fuzz/seeds/<harness>/ from
# tests/fixtures/, examples/ and the shared corpus (../shared/corpus, or
# $TSHAPE_CORPUS), plus a few inline text seeds; nothing is committed. The
# corpus a run grows stays in build-fuzz/corpus/<harness>/ for the next run.
# libFuzzer stops at a crash; the harness is then restarted for the time left
# (at most FUZZ_MAX_CRASHES=5 times), so one bug does not hide the rest.
# Crash inputs are kept in build-fuzz/crashes/<harness>/ and listed at the
# end with the first lines of their report; reproduce one with
#     build-fuzz/<harness> build-fuzz/crashes/<harness>/crash-...
# FUZZ_ALLOW_MULTILINE=1 tolerates newlines in error messages (a known bug
# class) so the harnesses can look further for memory errors.
# Each input is limited to 10 s (25 s for the harnesses that run libhdf5,
# whose hangs its isolated child stops after 10 s), 64 KiB and 256 MiB per
# allocation
# (libFuzzer -timeout, -max_len, -malloc_limit_mb), so a hang or a huge
# allocation counts as a crash too.
#
# Exit status: 0 when no harness crashed, 1 otherwise, 2 on usage errors.
set -u

if [ "${1:-}" = "--one" ]; then
    # internal: --one HARNESS SECONDS (run by xargs below)
    h=$2 secs=$3
    out=build-fuzz/runs/$h
    mkdir -p "$out" "build-fuzz/corpus/$h" "build-fuzz/crashes/$h"
    : > "$out/log"
    execs=0 crashes=0 left=$secs
    dict=
    case $h in
        fuzz_file_npy|fuzz_file_npz|fuzz_file_tar) dict=fuzz/npy.dict;;
        fuzz_file_safetensors) dict=fuzz/safetensors.dict;;
        fuzz_file_gguf) dict=fuzz/gguf.dict;;
        fuzz_file_mxnet) dict=fuzz/mxnet.dict;;
        fuzz_file_tflite) dict=fuzz/tflite.dict;;
        fuzz_file_executorch) dict=fuzz/executorch.dict;;
        fuzz_file_tfjs) dict=fuzz/tfjs.dict;;
        fuzz_file_openvino) dict=fuzz/openvino.dict;;
        fuzz_file_coreml) dict=fuzz/coreml.dict;;
        fuzz_file_tfckpt) dict=fuzz/tfckpt.dict;;
        fuzz_file_pytorch|fuzz_pickle|fuzz_file_pickle|fuzz_scan) dict=fuzz/pytorch.dict;;
        fuzz_shape_parse|fuzz_einsum|fuzz_einops|fuzz_jagged) dict=fuzz/shape.dict;;
    esac
    # libhdf5 is not instrumented: its own faults on corrupted metadata
    # (see fuzz/fuzz_file_hdf5.c) would hide tshape's. Look past them.
    # A libhdf5 that loops is stopped after 10 s of silence (hdf5_child.c),
    # one clean error counted as libhdf5's hang: those harnesses get a
    # longer per-input timeout, so libFuzzer does not take it for tshape's.
    extra= timeout=10
    if [ "$h" = fuzz_file_hdf5 ] || [ "$h" = fuzz_file_keras ] || [ "$h" = fuzz_file_auto ]; then
        extra=-detect_leaks=0 timeout=25
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1
        export ASAN_OPTIONS
    fi
    start=$(date +%s)
    while [ "$left" -gt 0 ]; do
        "build-fuzz/$h" -max_total_time="$left" -timeout=$timeout -max_len=65536 \
            -malloc_limit_mb=256 -rss_limit_mb=1024 -print_final_stats=1 $extra \
            -artifact_prefix="build-fuzz/crashes/$h/" ${dict:+-dict=$dict} \
            "build-fuzz/corpus/$h" "build-fuzz/seeds/$h" > "$out/run.log" 2>&1
        rc=$?
        cat "$out/run.log" >> "$out/log"
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/run.log" | tail -1)
        execs=$((execs + ${n:-0}))
        if [ $rc -ne 0 ]; then
            crashes=$((crashes + 1))
            [ "$crashes" -ge "${FUZZ_MAX_CRASHES:-5}" ] && break
        fi
        left=$((secs - ($(date +%s) - start)))
    done
    elapsed=$(($(date +%s) - start))
    [ "$elapsed" -gt 0 ] || elapsed=1
    echo "$execs $((execs / elapsed)) $crashes $elapsed" > "$out/stats"
    exit 0
fi

usage() {
    echo "usage: bench/fuzz.sh SECONDS [HARNESS...]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
secs=$1
shift
case $secs in '' | *[!0-9]*) usage;; esac
cd "$(dirname "$0")/.." || exit 2

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
    make -s fuzz || { echo "fuzz.sh: make fuzz failed" >&2; exit 2; }
fi
if [ $# -gt 0 ]; then
    harnesses=$*
else
    harnesses=$(sh fuzz/harnesses.sh build-fuzz 2>/dev/null | sed 's|.*/||')
fi
for h in $harnesses; do
    [ -x "build-fuzz/$h" ] || { echo "fuzz.sh: build-fuzz/$h is not built" >&2; exit 2; }
done

# ---- seeds -----------------------------------------------------------------
corpus=${TSHAPE_CORPUS:-../shared/corpus}
files() { # files under the seed directories whose names match the globs
    for d in tests/fixtures examples "$corpus"; do
        [ -d "$d" ] || continue
        for g in "$@"; do find "$d" -type f -name "$g"; done
    done
}
seed_files() { # DIR GLOB...: copies the first 64 KiB of each matching file
    dir=$1
    shift
    i=0
    files "$@" | sort -u | while read -r f; do
        i=$((i + 1))
        head -c 65536 "$f" > "$dir/$(basename "$f").$i"
    done
}
seed_text() { # DIR TEXT...: one seed per argument (printf %b escapes)
    dir=$1
    shift
    i=0
    for t in "$@"; do
        i=$((i + 1))
        printf '%b' "$t" > "$dir/text$i"
    done
}
for h in $harnesses; do
    d=build-fuzz/seeds/$h
    rm -rf "$d"
    mkdir -p "$d"
    case $h in
        fuzz_file_npy) seed_files "$d" '*.npy';;
        fuzz_file_npz) seed_files "$d" '*.npz';;
        fuzz_file_tar) seed_files "$d" '*.tar';;
        fuzz_file_mxnet) seed_files "$d" '*.params' '*.nd' '*.v0';;
        fuzz_file_safetensors) seed_files "$d" '*.safetensors';;
        fuzz_file_gguf) seed_files "$d" '*.gguf';;
        fuzz_file_ggml) seed_files "$d" 'ggjt*.bin' 'ggm*.bin' 'lora.bin';;
        fuzz_file_darknet) # each .cfg, a line "%%", its .weights
            i=0
            files '*.weights' | sort -u | while read -r f; do
                i=$((i + 1))
                c=${f%.weights}.cfg
                { [ -f "$c" ] && cat "$c" && printf '\n%%%%\n'; head -c 60000 "$f"; } \
                    > "$d/$(basename "$f").$i"
            done;;
        fuzz_file_zarr) seed_files "$d" '.zarray' 'zarr.json' '.zgroup';;
        fuzz_file_pytorch|fuzz_pickle) seed_files "$d" '*.pt' '*.pth' '*.bin' '*.pt2';;
        fuzz_file_pickle) seed_files "$d" '*.pkl' '*.pickle' '*.pdparams' '*.joblib' '*.bin';;
        fuzz_scan)
            seed_files "$d" '*.pt' '*.pth' '*.bin' '*.ckpt' '*.pkl' '*.pdparams' '*.joblib' \
                '*.gz' '*.npy' '*.npz' '*.keras';;
        fuzz_file_onnx) seed_files "$d" '*.onnx';;
        fuzz_file_caffe) seed_files "$d" '*.caffemodel' '*.binaryproto';;
        fuzz_file_caffe2) seed_files "$d" '*.pb';;
        fuzz_file_hdf5) seed_files "$d" '*.h5';;
        fuzz_file_keras) seed_files "$d" '*.keras';;
        fuzz_file_tflite) seed_files "$d" '*.tflite';;
        fuzz_file_executorch) seed_files "$d" '*.pte';;
        fuzz_file_tfjs) seed_files "$d" 'model.json' '*weights_manifest.json';;
        fuzz_file_openvino) seed_files "$d" '*.xml';;
        fuzz_file_coreml) seed_files "$d" '*.mlmodel';;
        fuzz_file_tfckpt) seed_files "$d" '*.index';;
        fuzz_file_savedmodel) seed_files "$d" 'saved_model.pb';;
        fuzz_protobuf) seed_files "$d" '*.onnx' '*.caffemodel' '*.binaryproto' '*.pb' '*.mlmodel';;
        fuzz_file_tshape32)
            seed_files "$d" '*32*.tshape' 'empty.tshape'
            seed_text "$d" '\003\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000';;
        fuzz_file_tshape64)
            seed_files "$d" '*64*.tshape' 'empty.tshape'
            seed_text "$d" '\002\000\000\000\003\000\000\000\000\000\000\000\004\000\000\000\000\000\000\000';;
        fuzz_file_auto)
            seed_files "$d" '*.npy' '*.npz' '*.params' '*.nd' '*.v0' '*.safetensors' '*.gguf' \
                '*.pt' '*.pth' '*.bin';;
        fuzz_convert)
            seed_files "$d" '*.npy' '*.npz' '*.params' '*.safetensors' '*.gguf' '*.pt' '*.bin';;
        fuzz_shape_parse)
            seed_text "$d" '(3,4,5)' '[3, 4]' '(3,)' '()' '5' '(3L, 4l)' ' ( 1 , 2 , ) ' \
                '(-1,4)' '(9223372036854775807,2)' '(4294967296,4294967296)' \
                'torch.Size([3, 4])' 'torch.Size([])' 'TensorShape([None, 4])' \
                'tf.TensorShape([2, 5])' 'TensorShape(None)' '(None, 28, 28)' \
                '\002\000\000\000\003\000\000\000\004\000\000\000';;
        fuzz_dtype)
            seed_text "$d" '<f4' '|b1' '>c16' '<M8[ns]' 'float32' 'bf16' '12' '|S5' '<U3' \
                '|V16' '|O' 'torch.float16' 'tf.half' 'np.float_' \
                '\002\040\001\000' '\006\010\001\000';;
        fuzz_einsum)
            seed_text "$d" 'ij,jk->ik\n(2,3)\n(3,4)' '...ij->...ji\n(5,2,3)' 'ii\n(3,3)' \
                'ij,j\n(2,3)\n(1,)' 'ba\n(2,3)';;
        fuzz_einops)
            seed_text "$d" '\000b c (h h2) w -> b c h h2 w\n(2,3,8,5)\nh2=2' \
                '\001b h w c -> b c\n(2,4,4,3)' '\002h w -> h w c\n(2,3)\nc=4' \
                '\000... h w -> ... (h w)\n(2,3,4,5)' '\000b (h 2) -> b h 2\n(3,8)';;
        fuzz_renames)
            seed_text "$d" '# A-name B-name, after --strip-prefix\nfc1_weight dense1_weight\n' \
                'a b\r\n\tc\t d\n\n#x\n' 'only\n' 'a b c\n';;
        fuzz_jagged)
            seed_text "$d" '{(10,),(20,),(30,)}' '{(10,20),(30,40)}' \
                'tile (5,10,15) (5,10,15)' '{{(1,2)},{(3,4),(5,6)}}' '(10,20)' '{}';;
        fuzz_npyname)
            seed_text "$d" 'dense/kernel:0' '-rf' 'a\nb' 'bell\a' '\342\200\256evil' '100%' \
                'sub/-x' '\302\205' '%2D' '%E2%80%AE' '../up' 'a//b' 'x/.';;
    esac
done

# ---- run, FUZZ_JOBS at a time ----------------------------------------------
rm -rf build-fuzz/runs
mkdir -p build-fuzz/runs
touch build-fuzz/runs/.start
jobs=${FUZZ_JOBS:-2}
case $jobs in '' | *[!0-9]* | 0) usage;; esac
echo "fuzzing $(echo $harnesses | wc -w) harnesses for $secs s each, $jobs at a time..."
printf '%s\n' $harnesses | xargs -P "$jobs" -I{} sh bench/fuzz.sh --one {} "$secs"

# ---- report ----------------------------------------------------------------
status=0
printf '%-24s %12s %10s %8s\n' harness executions exec/s crashes
for h in $harnesses; do
    if [ -f "build-fuzz/runs/$h/stats" ]; then
        read -r execs rate crashes elapsed < "build-fuzz/runs/$h/stats"
    else
        execs=? rate=? crashes=?
    fi
    printf '%-24s %12s %10s %8s\n' "$h" "$execs" "$rate" "$crashes"
    [ "$crashes" = 0 ] || status=1
done
found=0
for h in $harnesses; do
    for f in build-fuzz/crashes/$h/crash-* build-fuzz/crashes/$h/leak-* \
             build-fuzz/crashes/$h/timeout-* build-fuzz/crashes/$h/oom-* \
             build-fuzz/crashes/$h/malloc-limit-*; do
        [ -f "$f" ] && [ "$f" -nt build-fuzz/runs/.start ] || continue
        if [ $found = 0 ]; then echo; echo "crash inputs of this run:"; found=1; fi
        echo "  $f ($(wc -c < "$f") bytes)"
    done
done
if [ $found = 1 ]; then
    echo
    echo "first report of each crashing harness (full logs in build-fuzz/runs/*/log):"
    for h in $harnesses; do
        log=build-fuzz/runs/$h/log
        [ -f "$log" ] || continue
        grep -E 'fuzz invariant failed|runtime error:|^SUMMARY:|ERROR: libFuzzer: (out-of|timeout|malloc)' \
            "$log" | sort | uniq -c | sed "s|^|  $h: |"
    done
fi
exit $status
