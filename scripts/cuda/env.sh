# env.sh — point cgo at the CUDA header and link stub of one CUDA release
# (from fetch-headers.sh, or copied from a CUDA 13 machine), so the `cuda`
# build compiles on a machine with no CUDA toolkit.
#
#   source scripts/cuda/env.sh [VERSION|DIR]   exports CGO_CFLAGS and CGO_LDFLAGS
#   bash scripts/cuda/env.sh [VERSION|DIR]     prints the export lines (for eval, CI)
#   bash scripts/cuda/env.sh --dir VERSION     prints the folder VERSION's files are in
#
# VERSION (11.8, the default; 12.4; 13.0) names the folder: <repo>/.cuda/VERSION
# when that holds the files (how CUDA 13.0's, which Debian does not package,
# are kept: ignored by git), else the cache fetch-headers.sh fills,
# ${WARPLAB_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warplab/cuda}/VERSION.
# A DIR is any folder with include/cuda.h and stubs/libcuda.so.
#
# Paths are absolute: cgo runs the C compiler in each package's own
# directory (for gorgonia.org/cu, third_party/cu), so a relative -I would not
# be found there. Flags from CGO_CFLAGS come before the package's own #cgo
# flags, so these files win over any system cuda.h.
_warplab_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
_warplab_cudadir() {
	local v="$1" cache="${WARPLAB_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warplab/cuda}"
	if [[ -s "$_warplab_repo/.cuda/$v/include/cuda.h" ]]; then
		echo "$_warplab_repo/.cuda/$v"
	else
		echo "$cache/$v"
	fi
}
if [[ "${1:-}" == --dir ]]; then
	_warplab_cudadir "${2:-11.8}"
else
	_warplab_cuda="${1:-11.8}"
	if [[ "$_warplab_cuda" =~ ^[0-9]+\.[0-9]+$ ]]; then
		_warplab_cuda="$(_warplab_cudadir "$_warplab_cuda")"
	fi
	if [[ ! -s "$_warplab_cuda/include/cuda.h" || ! -s "$_warplab_cuda/stubs/libcuda.so" ]]; then
		echo "env.sh: $_warplab_cuda has no include/cuda.h or stubs/libcuda.so; run scripts/cuda/fetch-headers.sh ${1:-11.8} first" >&2
	else
		_warplab_cuda="$(cd "$_warplab_cuda" && pwd)"
		if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
			export CGO_ENABLED=1
			export CGO_CFLAGS="-I$_warplab_cuda/include"
			export CGO_LDFLAGS="-L$_warplab_cuda/stubs"
		else
			echo "export CGO_ENABLED=1"
			echo "export CGO_CFLAGS=\"-I$_warplab_cuda/include\""
			echo "export CGO_LDFLAGS=\"-L$_warplab_cuda/stubs\""
		fi
	fi
	unset _warplab_cuda
fi
unset -f _warplab_cudadir
unset _warplab_repo
