#!/usr/bin/env bash
# header.sh — say which cuda.h `go build -tags cuda` compiles against and
# its CUDA_VERSION, so that build.sh and setup.sh can print it: the cuda build
# must compile against the headers of CUDA 11.8, 12.x and 13.x, and when it
# does not, the first thing to know is which header it met.
#
# Usage: scripts/cuda/header.sh      (reads CGO_CFLAGS as go build does)
# Prints one line, "PATH CUDA_VERSION" (say "/usr/local/cuda/include/cuda.h
# 13000"; "?" when the file defines no CUDA_VERSION); exits 1 when no cuda.h
# is on the include path.
#
# The search follows the C compiler's: the -I folders of CGO_CFLAGS first
# (cgo puts them before a package's own flags), then those of
# third_party/cu/cgoflags.go and gpuext/gpu_cuda.go (/usr/local/cuda/include
# first), then the system's /usr/include.
set -euo pipefail

dirs=()
read -r -a flags <<<"${CGO_CFLAGS:-}"
for ((i = 0; i < ${#flags[@]}; i++)); do
	case "${flags[i]}" in
	-I) dirs+=("${flags[i + 1]:-}") && i=$((i + 1)) ;;
	-I*) dirs+=("${flags[i]#-I}") ;;
	esac
done
dirs+=(/usr/local/cuda/include /usr/local/cuda-11.0/targets/x86_64-linux/include /usr/local/cuda-10.2/include
	/usr/include /opt/cuda/include)
for d in "${dirs[@]}"; do
	if [[ -n "$d" && -f "$d/cuda.h" ]]; then
		v="$(awk '$1 == "#define" && $2 == "CUDA_VERSION" {print $3; exit}' "$d/cuda.h")"
		echo "$d/cuda.h ${v:-?}"
		exit 0
	fi
done
echo "header.sh: no cuda.h in ${dirs[*]}" >&2
exit 1
