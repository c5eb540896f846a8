#!/bin/bash
# cuda13.sh — issue 10's run on a GPU host (the session's H200 through the
# device tool): the GPU build compiled against CUDA 13.0's cuda.h runs the
# self-test, gpuext's GPU tests (the device-to-device copy among them) and
# the CG lesson, whose stage 3 now copies r·r with cuMemcpyDtoD.
#
# Built beforehand on a machine with Go (the GPU host has none), from the
# cuda.h and libcuda.so stub copied off the GPU host into .cuda/13.0:
#   source scripts/cuda/env.sh 13.0
#   go build -tags cuda -o .cache/cuda13/warplab-cuda ./cmd/warplab
#   go test -c -tags cuda -o .cache/cuda13/gpuext.test ./gpuext
# plus .cache/cuda13/BUILD.txt (commit, go version, CUDA_VERSION), and the
# call carries .cache/cuda13. Writes $OUT/cuda13.tar.gz and $OUT/summary.txt.
set -u
repo="$(cd "$(dirname "$0")/../.." && pwd)"
B="$repo/.cache/cuda13"
W="$B/warplab-cuda"
E="$(mktemp -d)/cuda13"
mkdir -p "$E"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
	echo "host cuda.h: $(grep -m1 '^#define CUDA_VERSION' /usr/local/cuda/include/cuda.h)"
} >"$E/env.txt" 2>&1
cp "$B/BUILD.txt" "$E/"

# 1. The self-test (prints the cuda.h the binary was compiled against).
"$W" selftest --backend gpu >"$E/selftest.txt" 2>&1
echo "selftest exit $?" >>"$E/selftest.txt"

# 2. gpuext's GPU tests, from the package folder (testdata).
(cd "$repo/gpuext" && "$B/gpuext.test" -test.v -test.timeout 300s >"$E/gpuext-test.txt" 2>&1
	echo "gpuext.test exit $?" >>"$E/gpuext-test.txt")

# 3. The CG lesson, every stage, at the three sizes recorded before.
for g in 20 50 100; do
	"$W" run cg --backend gpu --grid $g --stage all --json "$E/cg-$g.json" >"$E/cg-$g.txt" 2>&1
	echo "exit $?" >>"$E/cg-$g.txt"
done

tar -C "$(dirname "$E")" -czf "$OUT/cuda13.tar.gz" cuda13
{
	cat "$E/env.txt"
	head -3 "$E/selftest.txt"
	tail -1 "$E/selftest.txt"
	grep -E '^(--- |ok|PASS|FAIL)|exit' "$E/gpuext-test.txt"
	for g in 20 50 100; do echo "cg $g: $(tail -1 "$E/cg-$g.txt")"; done
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
