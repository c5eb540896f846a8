# env.sh — point cgo at the CUDA header and link stub that fetch-headers.sh
# extracted, so the `cuda` build compiles on a machine with no CUDA toolkit.
#
#   source scripts/cuda/env.sh [DIR]   exports CGO_CFLAGS and CGO_LDFLAGS
#   bash scripts/cuda/env.sh [DIR]     prints the export lines (for eval, CI)
#
# DIR defaults to <repo>/.cuda. Paths are absolute: cgo runs the C compiler
# in each package's own directory (for gorgonia.org/cu, the module cache), so
# a relative -I would not be found there. Flags from CGO_CFLAGS come before
# the package's own #cgo flags, so these files win over any system cuda.h.
_warplab_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
_warplab_cuda="${1:-$_warplab_repo/.cuda}"
if [[ ! -s "$_warplab_cuda/include/cuda.h" || ! -s "$_warplab_cuda/stubs/libcuda.so" ]]; then
    echo "env.sh: $_warplab_cuda has no include/cuda.h or stubs/libcuda.so; run scripts/cuda/fetch-headers.sh first" >&2
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
unset _warplab_repo _warplab_cuda
