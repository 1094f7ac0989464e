#!/usr/bin/env bash
# Builds a folder that runs the test suite and the benchmark on a machine with a real GPU
# but no Rust toolchain: the release `gpu-collide`, the test binary, the Vulkan loader as
# an x86-64 Debian package (for a machine whose driver comes without one) and run.sh.
#
#   scripts/real_gpu.sh [--out DIR]        # DIR defaults to target/real-gpu of the repository
#
# Then, on the GPU machine, from the repository root: DIR/run.sh OUTDIR
# (DIR/run.sh --local OUTDIR tries the folder here, on whatever adapter this machine has).
set -euo pipefail

usage() { echo "usage: $0 [--out DIR]" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/target/real-gpu
while (($#)); do
    case $1 in
        --out) (($# >= 2)) || usage; out=$2; shift 2 ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "real_gpu.sh: unknown argument \`$1\`" >&2; usage ;;
    esac
done
# What travels to the GPU machine with the working tree has to stay under this (MiB).
limit_mib=60

# A relative --out is relative to where this runs, the default to the repository root.
mkdir -p "$out/bin" "$out/debs" "$out/scenes"
out=$(cd "$out" && pwd)
cd "$root"

echo "== building the release binary and test binary" >&2
cargo build --release --features cli
build_json=$(mktemp)
trap 'rm -f "$build_json"' EXIT
cargo test --release --no-run --message-format=json >"$build_json"
test_exe=$(python3 - "$build_json" <<'EOF'
import json, sys

found = []
for line in open(sys.argv[1]):
    try:
        message = json.loads(line)
    except ValueError:
        continue
    target = message.get("target") or {}
    if (message.get("reason") == "compiler-artifact"
            and target.get("name") == "main"
            and "test" in target.get("kind", [])
            and message.get("executable")):
        found.append(message["executable"])
if len(found) != 1:
    sys.exit(f"expected one executable of the `main` test target, cargo named {len(found)}")
print(found[0])
EOF
)
cp "$root/target/release/gpu-collide" "$out/bin/gpu-collide"
cp "$test_exe" "$out/bin/main-test"
cp "$root"/examples/scenes/*.json "$out/scenes/"
cp "$root/scripts/real_gpu_run.sh" "$out/run.sh"
chmod +x "$out/run.sh" "$out/bin/gpu-collide" "$out/bin/main-test"
{
    echo "commit $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet HEAD || echo ' (with uncommitted changes)')"
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m) with $(rustc --version)"
} >"$out/BUILD-INFO"

# The Vulkan loader (libvulkan1) for x86-64, whatever this machine's own architecture;
# only downloaded once. The GPU machine's driver brings the ICD, not always the loader.
if ! ls "$out"/debs/libvulkan1_*.deb >/dev/null 2>&1; then
    echo "== downloading the Vulkan loader package" >&2
    mkdir -p /tmp/amd64/partial
    o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
    apt-get "${o[@]}" update >/dev/null
    (cd "$out/debs" && apt-get "${o[@]}" download libvulkan1)
fi
ls "$out"/debs/libvulkan1_*_amd64.deb >/dev/null 2>&1 || {
    echo "real_gpu.sh: no amd64 libvulkan1 package in $out/debs" >&2
    exit 1
}

size=$(du -sm "$out" | cut -f1)
if ((size > limit_mib)); then
    echo "== $out is $size MiB, stripping the binaries" >&2
    strip "$out/bin/gpu-collide" "$out/bin/main-test"
    size=$(du -sm "$out" | cut -f1)
fi
if ((size > limit_mib)); then
    echo "real_gpu.sh: $out is $size MiB, over the $limit_mib MiB that may travel" >&2
    exit 1
fi
echo "real_gpu.sh: $out ready ($size MiB); on the GPU machine, from the repository root:" >&2
echo "    ${out#"$root"/}/run.sh OUTDIR" >&2
