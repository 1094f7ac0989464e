#!/usr/bin/env bash
# run.sh of the folder scripts/real_gpu.sh builds: the test suite and the benchmark on
# this machine's GPU, with no Rust toolchain and nothing of the machine that built it.
#
#   run.sh [--local] OUTDIR
#
# Run it from the repository root (the tests run there). Everything goes into OUTDIR:
# adapters.txt, smoke.log, tests.log, bench-NAME.json/.log and bench-NAME/ (plot and
# table), summary.txt (its last line is also printed last), and results.tar.gz holding
# all of them. Each step has a time limit, and the whole run a budget (REAL_GPU_BUDGET
# seconds, 450 by default), so that a stuck step cannot eat the machine's time.
#
# --local tries the folder on the machine that built it: no loader installed, any
# adapter accepted (software ones too), tiny benchmark sizes.
#
# Exit status: 0 when all went well; 1 no usable adapter, or (without --local) a software
# one; 2 tests failed; 3 a benchmark failed, or the gpu's pairs of an example scene differ
# from the cpu's (a benchmark cut off or not started for lack of time is reported only).
set -uo pipefail

usage() { echo "usage: $0 [--local] OUTDIR" >&2; exit 64; }
local_run=0
outdir=
while (($#)); do
    case $1 in
        --local) local_run=1; shift ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) echo "run.sh: unknown option \`$1\`" >&2; usage ;;
        *) [[ -z $outdir ]] || usage; outdir=$1; shift ;;
    esac
done
[[ -n $outdir ]] || usage

here=$(cd "$(dirname "$0")" && pwd)
bin=$here/bin
mkdir -p "$outdir" || exit 1
outdir=$(cd "$outdir" && pwd)
summary=$outdir/summary.txt
: >"$summary"
started=$(date +%s)
if ((local_run)); then
    budget=${REAL_GPU_BUDGET:-1800}
else
    budget=${REAL_GPU_BUDGET:-450}
fi
deadline=$((started + budget))

note() { echo "$*" | tee -a "$summary"; }

# finish STATUS VERDICT: the one-line summary (last in summary.txt and on stdout), every
# file in OUTDIR packed into results.tar.gz, and the exit.
finish() {
    local line="real-gpu: $2 | $(($(date +%s) - started)) s | exit $1" tarball
    echo "$line" >>"$summary"
    tarball=$(mktemp)
    tar -czf "$tarball" -C "$outdir" --exclude=results.tar.gz . && mv "$tarball" "$outdir/results.tar.gz" && chmod 644 "$outdir/results.tar.gz"
    echo "$line"
    exit "$1"
}

# step NAME LIMIT COMMAND...: runs COMMAND under `timeout`, for at most LIMIT seconds and
# never past the run's deadline; its status is COMMAND's, 124 when it was cut off, 125
# when too little of the run's time was left to start it.
step() {
    local name=$1 limit=$2 left
    shift 2
    left=$((deadline - $(date +%s)))
    if ((left < 10)); then
        note "$name: not started, the run's ${budget} s are spent"
        return 125
    fi
    ((limit <= left)) || limit=$left
    local t0 status
    t0=$(date +%s)
    timeout -k 10 "$limit" "$@"
    status=$?
    ((status != 137)) || status=124
    echo "$name: exit $status after $(($(date +%s) - t0)) s (limit $limit s)" >>"$summary"
    return $status
}

note "run.sh$( ((local_run)) && echo " --local") in $(pwd), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n)"
[[ -f $here/BUILD-INFO ]] && cat "$here/BUILD-INFO" >>"$summary"
[[ -f Cargo.toml && -d tests ]] || note "warning: $(pwd) does not look like the repository root"

# 1. The Vulkan loader: the driver's ICD needs one, and some machines come without it.
if ((!local_run)) && ! ldconfig -p | grep -q libvulkan; then
    note "no libvulkan on this machine: unpacking $(cd "$here/debs" && echo *.deb)"
    for f in "$here"/debs/*.deb; do dpkg -x "$f" / || exit 1; done
    ldconfig
fi

# 2. The adapter. The first `usable` line is the one wgpu (and the tests) will pick.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
chmod 700 "$XDG_RUNTIME_DIR"
adapters() {
    step adapters 30 "$bin/gpu-collide" adapters >"$outdir/adapters.txt" 2>&1
    picked=$(grep -m1 '^usable' "$outdir/adapters.txt" | sed 's/^usable *//')
}
adapters
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ((!local_run)) && [[ $picked != *"(Vulkan, "* || $picked == *", Cpu,"* ]] && [[ -f $nvidia_icd ]]; then
    note "no GPU Vulkan driver found: trying VK_DRIVER_FILES=$nvidia_icd"
    export VK_DRIVER_FILES=$nvidia_icd
    adapters
fi
cat "$outdir/adapters.txt"
if [[ -z $picked ]]; then
    note "FAILED: no usable adapter (adapters.txt)"
    finish 1 "no usable adapter"
fi
note "adapter: $picked"
if [[ $picked == *", Cpu,"* ]]; then
    if ((!local_run)); then
        note "FAILED: the adapter wgpu picks is a software one; no real-GPU figures from it"
        finish 1 "$picked is a software adapter"
    fi
    note "(a software adapter: --local accepts it)"
fi

# 2b. The command line on the example scenes: the gpu's answer must be the cpu's.
smoke_failed=0
for scene in "$here"/scenes/*.json; do
    name=$(basename "$scene" .json)
    for backend in gpu cpu; do
        step "pairs-$name-$backend" 30 "$bin/gpu-collide" pairs "$scene" --backend "$backend" \
            >"$outdir/pairs-$name-$backend.json" 2>>"$outdir/smoke.log" || smoke_failed=1
    done
    # The pairs must be the same; times of impact (f32) may differ in their last digits.
    pairs_only() { sed 's/,"toi":\[[^]]*\]//' "$outdir/pairs-$name-$1.json"; }
    if [[ $(pairs_only gpu) != "$(pairs_only cpu)" || ! -s $outdir/pairs-$name-gpu.json ]]; then
        note "$name.json: the gpu's pairs differ from the cpu's (pairs-$name-*.json)"
        smoke_failed=1
    elif ! cmp -s "$outdir/pairs-$name-gpu.json" "$outdir/pairs-$name-cpu.json"; then
        note "$name.json: same pairs, times of impact differ (pairs-$name-*.json)"
    fi
done

# 3. The test suite, except the tests that run the `gpu-collide` binary or use its target
# directory: they find both through paths compiled in (env!("CARGO_BIN_EXE_gpu-collide"),
# env!("CARGO_TARGET_TMPDIR"), env!("CARGO_MANIFEST_DIR")) of the machine that built them.
# That is every test of tests/cli.rs, tests/draw.rs and tests/bench_cli.rs (`cli::`
# matches `bench_cli::` too); step 2b runs the binary instead.
if ((local_run)); then threads=2; test_limit=1500; else threads=8; test_limit=180; fi
CI=true FUZZ_SEED=20261127 step tests "$test_limit" "$bin/main-test" \
    --test-threads "$threads" --skip cli:: --skip draw:: >"$outdir/tests.log" 2>&1
tests_status=$?
result=$(grep '^test result:' "$outdir/tests.log" | tail -1)
if [[ -n $result ]]; then
    note "tests: ${result#test result: }"
else
    note "tests: no result line (exit $tests_status); see tests.log"
fi
grep -E '^test .* FAILED$' "$outdir/tests.log" | sort -u >>"$summary"

# 4. The benchmark, gpu and cpu side by side; one scene and size per run, so that a run
# cut off by its limit loses only itself. Stage timings (`stages_ms`) come with every gpu
# run whose adapter has timestamp queries.
bench_ok=0 bench_failed=0 bench_cut=0 bench_skipped=0
bench() { # NAME LIMIT BACKENDS SCENE BODIES
    local name=$1 limit=$2 backends=$3 scene=$4 bodies=$5 status
    step "bench-$name" "$limit" "$bin/gpu-collide" bench --scene "$scene" --bodies "$bodies" \
        --backend "$backends" --frames "$frames" --out "$outdir/bench-$name" \
        --json "$outdir/bench-$name.json" >"$outdir/bench-$name.log" 2>&1
    status=$?
    case $status in
        0) bench_ok=$((bench_ok + 1)) ;;
        124) bench_cut=$((bench_cut + 1)); note "bench-$name: cut off at its time limit" ;;
        125) bench_skipped=$((bench_skipped + 1)) ;;
        *) bench_failed=$((bench_failed + 1)); note "bench-$name: FAILED (exit $status), see bench-$name.log" ;;
    esac
}
if ((local_run)); then
    frames=3
    bench bullet-hell-1e3 120 gpu,cpu bullet-hell 1000
    bench bullet-hell-1e4 120 gpu,cpu bullet-hell 10000
    bench mixed-1e3 120 gpu,cpu mixed 1000
else
    frames=20
    bench bullet-hell-1e4 30 gpu,cpu bullet-hell 10000
    bench bullet-hell-1e5 40 gpu,cpu bullet-hell 100000
    # Format 1.2's scenes against their twins (BENCHMARKS.md), in one run each.
    bench concave-1e4 40 gpu,cpu concave,concave-hulls 10000
    bench lasers-1e5 40 gpu,cpu lasers,lasers-as-circles 100000
    bench bullet-hell-1e6 80 gpu,cpu bullet-hell 1000000
    bench mixed-1e4 25 gpu,cpu mixed 10000
    bench mixed-1e5 40 gpu,cpu mixed 100000
    bench bitmask-1e4 25 gpu,cpu bitmask 10000
    bench bitmask-1e5 40 gpu,cpu bitmask 100000
    bench queries-1e4 30 gpu,cpu queries 10000
    bench queries-1e5 40 gpu,cpu queries 100000
    bench swept-bullet-hell-1e5 40 gpu,cpu swept-bullet-hell 100000
    bench swept-bullet-hell-1e6 80 gpu,cpu swept-bullet-hell 1000000
    # Last, being the likeliest to run out of time: the bench predicts 10^7 from 10^6.
    bench bullet-hell-1e7 90 gpu bullet-hell 1000000,10000000
fi

# 5. The verdict.
status=0
((smoke_failed == 0)) || status=3
((bench_failed == 0)) || status=3
if [[ $tests_status != 0 || -z $result || $result != *" 0 failed"* ]]; then status=2; fi
line="$picked | tests: ${result:-no result line (exit $tests_status)}"
line=${line/test result: /}
line+=" | pairs gpu=cpu: $( ((smoke_failed)) && echo NO || echo yes)"
line+=" | bench: $bench_ok ok, $bench_failed failed, $bench_cut cut off, $bench_skipped not started"
finish "$status" "$line"
