#!/usr/bin/env bash
# gen-ptx.sh — regenerate the PTX of every lesson kernel: for each
# lessons/*/*.cu (and internal/sweep/*.cu, the time model's own kernels), write the .ptx beside it with nvcc 11.8
# (-ptx -arch=compute_75 -O3 -lineinfo). The first line of each .ptx records
# the sha256 of the source it came from; internal/ptxcheck's test fails when a
# .cu changed and this script was not run again.
#
# Why -lineinfo: the simulator executes this PTX, and its .file/.loc lines let
# counters and faults name the .cu line ("spmv.cu:42") instead of a PTX line.
# It changes no instruction (checked: the PTX without .file/.loc/.section
# lines is the PTX nvcc emits without -lineinfo). nvcc compiles a copy at a
# fixed path (/tmp/warplab-gen-ptx; lessons include only system headers),
# and the .file line of the lesson's own source keeps only its name, so that
# .file says "spmv.cu", not this machine's path.
#
# Why exactly nvcc 11.8 and compute_75:
#   * A driver JIT-compiles PTX only up to the PTX ISA version it knows.
#     nvcc 11.8 emits PTX ISA 7.8, which every driver since CUDA 11.8 (R520)
#     loads: Colab's T4 runtime, CUDA 12.x and 13.x drivers, the H200's R580.
#     PTX from a CUDA 12/13 nvcc (ISA 8.x/9.x) is refused by older drivers
#     with CUDA_ERROR_UNSUPPORTED_PTX_VERSION.
#   * compute_75 (Turing, the T4) is the oldest GPU the course targets; the
#     driver JIT-compiles compute_75 PTX for any newer GPU (sm_80, sm_90,...).
#   * The recorded nvcc version makes a regenerated file byte-comparable:
#     another 11.8 build gives the same PTX, another release would not.
#
# Usage: scripts/cuda/gen-ptx.sh [FILE.cu...]   (default: every lessons/*/*.cu and internal/sweep/*.cu;
#        NVCC=/path/to/nvcc to choose the compiler; PTX_OUT=DIR writes DIR/<name>.ptx
#        instead of beside the source, which internal/ptxcheck's freshness test uses)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
nvcc="${NVCC:-nvcc}"

if ! command -v "$nvcc" >/dev/null; then
    echo "gen-ptx: no nvcc on PATH; install CUDA 11.8 (Debian bookworm non-free: apt-get install nvidia-cuda-toolkit)" >&2
    exit 1
fi
version="$("$nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')"
case "$version" in
11.8.*) ;;
*)
    echo "gen-ptx: nvcc $version is not 11.8; its PTX ISA would not load on older drivers (see the comment at the top of this script)" >&2
    exit 1
    ;;
esac

shopt -s nullglob
if [[ $# -gt 0 ]]; then
    sources=("$@")
else
    sources=(lessons/*/*.cu internal/sweep/*.cu)
fi
if [[ ${#sources[@]} -eq 0 ]]; then
    echo "gen-ptx: no lessons/*/*.cu files"
    exit 0
fi

tmp="$(mktemp -d)"
# nvcc names internal-linkage symbols (the debug strings of inlined
# intrinsics such as __shfl_down_sync) with a hash of the source's absolute
# path, so each source is compiled from one fixed path, the same on every
# machine; the lock keeps two runs from sharing it.
fixed=/tmp/warplab-gen-ptx
mkdir -p "$fixed"
exec 9>"$fixed/.lock"
flock 9
trap 'rm -rf "$tmp" "$fixed"/*.cu' EXIT
for cu in "${sources[@]}"; do
    ptx="${cu%.cu}.ptx"
    if [[ -n "${PTX_OUT:-}" ]]; then ptx="$PTX_OUT/$(basename "$ptx")"; fi
    base="$(basename "$cu" .cu)"
    sum="$(sha256sum "$cu" | cut -d' ' -f1)"
    cp "$cu" "$fixed/$base.cu"
    # A source whose instructions need a newer architecture says so on a
    # line of its own, "// arch: compute_80" (the kernel corpus's sm80.cu).
    arch="$(sed -n 's|^// arch: \(compute_[0-9]*\)$|\1|p' "$cu" | head -1)"
    arch="${arch:-compute_75}"
    (cd "$fixed" && "$nvcc" -ptx -arch="$arch" -O3 -lineinfo -o "$tmp/$base.ptx" "$base.cu")
    {
        echo "// warplab: source sha256 $sum of $base.cu, nvcc $version, -arch=$arch -lineinfo"
        # nvcc writes the absolute path of the source into .file; keep the
        # name only, so the PTX is the same on every machine.
        sed -E 's|^(\s*\.file\s+[0-9]+\s+")[^"]*/('"$base"'\.cu")|\1\2|' "$tmp/$base.ptx"
    } >"$ptx"
    echo "gen-ptx: $ptx"
done
