#!/usr/bin/env bash
# setup.sh — one idempotent set-up for warplab's notebook platform.
#
# What it makes sure of (each step checks first and is skipped when already done):
#   1. the Go tools pinned in go.mod `tool` lines (GoNB v0.11.5, goimports) are installed
#      in $(go env GOBIN) or $(go env GOPATH)/bin, with `go install tool`;
#   2. Debian's Jupyter packages (jupyter-nbconvert, jupyter-notebook) are installed —
#      with --browser also chromium and fonts-liberation, for the browser tests. As root it runs apt-get;
#      otherwise it prints the exact command and exits 2;
#   3. the GoNB kernel spec is installed (`gonb --install --go_work=<checkout>`), so
#      `import "github.com/warplab/warplab/..."` resolves inside notebooks through a go.work
#      pointing at this checkout (no replace lines, no network beyond the module proxy);
#   4. the kernel's environment finds go and goimports (PATH) and resolves modules from the local module cache first
#      (GOPROXY=file://$(go env GOMODCACHE)/cache/download,<your GOPROXY>), so a notebook's
#      `go get` picks the versions pinned in go.sum and works offline once they are cached
#      (with GOPROXY=off, as in the images, the kernel gets GOPROXY=off); and it names the
#      SuiteSparse matrices (WARPLAB_MATRICES) when they are found;
#   5. only when a GPU and CUDA are present (nvidia-smi works and cuda.h is found) and the
#      GPU build compiles against that cuda.h (it prints which one and its CUDA_VERSION), the
#      kernel's environment gets GOFLAGS=-tags=cuda and the CGO include/library paths; when
#      it does not compile, setup says what to do and leaves notebooks on the simulator;
#   6. with --nvcc, nvcc is installed: Debian's nvidia-cuda-toolkit (11.8 on bookworm), which
#      compiles the CUDA C typed into notebooks to PTX for the simulator — no GPU needed. On
#      Debian, where it lives in non-free, /etc/apt/sources.list.d/warplab-nonfree.sources adds
#      contrib and non-free for the host's release from the mirror the host's apt already uses
#      (scripts/apt-mirror.sh; WARPLAB_APT_MIRROR overrides), the components fetch-headers.sh
#      reads privately. As root it runs apt-get; otherwise it prints the commands and exits 2.
#
# Usage: scripts/setup.sh [--browser] [--nvcc] [--quiet]
# Env:   JUPYTER_DATA_DIR (where the kernel spec goes; Jupyter's default otherwise),
#        CUDA_HOME / CUDA_PATH (CUDA toolkit root; /usr/local/cuda otherwise),
#        WARPLAB_NO_CUDA=1 (never configure the cuda build, even with a GPU),
#        WARPLAB_MATRICES (the SuiteSparse matrices' folder), WARPLAB_APT_MIRROR (--nvcc's mirror).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
browser=0
nvcc=0
quiet=0
for arg in "$@"; do
	case "$arg" in
	--browser) browser=1 ;;
	--nvcc) nvcc=1 ;;
	--quiet) quiet=1 ;;
	-h | --help)
		sed -n '2,33p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "setup: unknown argument $arg (want --browser, --nvcc, --quiet)" >&2
		exit 2
		;;
	esac
done

say() { [ "$quiet" = 1 ] || echo "setup: $*"; }
die() {
	echo "setup: error: $*" >&2
	exit 1
}

command -v go >/dev/null 2>&1 || die "go not found in PATH; install Go $(sed -n 's/^go //p' "$root/go.mod") from https://go.dev/dl/ first"

# ---------------------------------------------------------------- 1. Go tools and modules
gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
export PATH="$gobin:$PATH"
# modver BINARY MODULE: the version of MODULE a Go binary was built from ("" if none).
modver() { [ -x "$1" ] && go version -m "$1" 2>/dev/null | awk -v m="$2" '($1 == "mod" || $1 == "dep") && $2 == m { print $3; exit }'; }
want_gonb=$(cd "$root" && go list -m -f '{{.Version}}' github.com/janpfeifer/gonb)
want_tools=$(cd "$root" && go list -m -f '{{.Version}}' golang.org/x/tools)
have_gonb=$(modver "$gobin/gonb" github.com/janpfeifer/gonb || true)
have_tools=$(modver "$gobin/goimports" golang.org/x/tools || true)
if [ "$have_gonb" = "$want_gonb" ] && [ "$have_tools" = "$want_tools" ]; then
	say "Go tools: gonb $have_gonb and goimports (x/tools $have_tools) already in $gobin"
else
	say "Go tools: installing gonb $want_gonb and goimports into $gobin (go install tool)"
	(cd "$root" && go install tool)
	have_gonb=$("$gobin/gonb" -V)
	[ "$have_gonb" = "$want_gonb" ] || die "installed gonb reports $have_gonb, go.mod pins $want_gonb"
fi

# Every module in go.sum, so notebooks resolve them from the local cache (fast no-op when cached).
(cd "$root" && go mod download)

# ---------------------------------------------------------------- 2. Debian packages
pkgs=(jupyter-nbconvert jupyter-notebook)
[ "$browser" = 1 ] && pkgs+=(chromium fonts-liberation) # gonum/plot SVGs name Liberation fonts
# have PKG: installed from the distribution, or what it provides is already here
# (e.g. Colab's own Jupyter from PyPI), in which case apt is left alone.
have() {
	if dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'; then
		return 0
	fi
	case "$1" in
	jupyter-nbconvert) jupyter nbconvert --version >/dev/null 2>&1 ;;
	jupyter-notebook) jupyter notebook --version >/dev/null 2>&1 ;;
	chromium) command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ;;
	fonts-liberation) fc-list 2>/dev/null | grep -q 'Liberation Serif' ;;
	*) return 1 ;;
	esac
}
missing=()
for p in "${pkgs[@]}"; do
	have "$p" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
	say "apt: ${pkgs[*]} already there"
else
	cmd="apt-get install -y --no-install-recommends ${missing[*]}"
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing Debian packages: ${missing[*]}" >&2
		echo "setup: run this as root, then run scripts/setup.sh again:" >&2
		echo "    sudo apt-get update && sudo $cmd" >&2
		exit 2
	fi
	command -v apt-get >/dev/null 2>&1 || die "missing packages ${missing[*]} and no apt-get (this script supports Debian/Ubuntu)"
	say "apt: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v jupyter >/dev/null 2>&1 || die "jupyter not in PATH after installing jupyter-notebook"

# ---------------------------------------------------------------- 6. nvcc (--nvcc)
# Only nvcc's PTX output is used on a machine without a GPU, so the distribution's toolkit
# is enough; the shipped notebooks need none (their PTX is in notebooks/ptxcache).
if [ "$nvcc" = 1 ]; then
	if command -v nvcc >/dev/null 2>&1 && nvcc --version >/dev/null 2>&1; then
		say "nvcc: $(command -v nvcc) already there ($(nvcc --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p'))"
	else
		command -v apt-get >/dev/null 2>&1 || die "--nvcc installs Debian's nvidia-cuda-toolkit and needs apt-get; elsewhere install NVIDIA's CUDA toolkit and put nvcc on PATH"
		os_id=$(. /etc/os-release && echo "${ID:-}")
		codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
		nonfree=/etc/apt/sources.list.d/warplab-nonfree.sources
		add_sources=0
		# Debian keeps nvidia-cuda-toolkit in non-free (its dependencies partly in contrib).
		# Add those components unless apt already offers the package (say, from Ubuntu's multiverse).
		if ! apt-cache policy nvidia-cuda-toolkit 2>/dev/null | grep -q 'Candidate: [0-9]'; then
			if [ "$os_id" != debian ] || [ -z "$codename" ]; then
				die "apt offers no nvidia-cuda-toolkit; on Ubuntu enable multiverse (add-apt-repository multiverse), then run scripts/setup.sh --nvcc again"
			fi
			[ -f "$nonfree" ] || add_sources=1
		fi
		# The mirror this machine's apt already uses (scripts/apt-mirror.sh; WARPLAB_APT_MIRROR overrides).
		mirror=""
		if [ "$add_sources" = 1 ]; then
			mirror=$("$root/scripts/apt-mirror.sh") || die "--nvcc: no Debian mirror to add contrib and non-free from (see above)"
		fi
		sources="Types: deb
URIs: $mirror
Suites: $codename $codename-updates
Components: contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
		install="apt-get install -y --no-install-recommends nvidia-cuda-toolkit"
		if [ "$(id -u)" != 0 ]; then
			echo "setup: --nvcc: nvcc is missing; as root:" >&2
			if [ "$add_sources" = 1 ]; then
				echo "setup:   write $nonfree (Debian $codename's contrib and non-free):" >&2
				sed 's/^/        /' <<<"$sources" >&2
			fi
			echo "setup:   sudo apt-get update && sudo $install" >&2
			echo "setup: then run scripts/setup.sh --nvcc again" >&2
			exit 2
		fi
		if [ "$add_sources" = 1 ]; then
			say "nvcc: adding Debian $codename's contrib and non-free in $nonfree"
			printf '%s\n' "$sources" >"$nonfree"
		fi
		say "nvcc: installing nvidia-cuda-toolkit (about 2 GB installed)"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		$install -qq >/dev/null
		command -v nvcc >/dev/null 2>&1 || die "nvidia-cuda-toolkit installed but nvcc is not on PATH"
		say "nvcc: installed $(command -v nvcc) ($(nvcc --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p'))"
	fi
fi

# ---------------------------------------------------------------- 4, 5. kernel environment
modcache=$(go env GOMODCACHE)
userproxy=$(go env GOPROXY)
goroot_bin=$(dirname "$(command -v go)")
# Jupyter (jupyter_client >= 7) expands ${PATH} in a kernel's env: the kernel finds go, gonb's
# goimports and the rest of the caller's PATH even when Jupyter was started without GOPATH/bin.
# GOPROXY=off (the images: docker/Dockerfile) stays off: the module cache is complete, and a
# cell must not wait on a network that is not there.
goproxy="file://$modcache/cache/download${userproxy:+,$userproxy}"
[ "$userproxy" != off ] || goproxy=off
kernel_env=(
	"GOPROXY=$goproxy"
	"PATH=$gobin:$goroot_bin:\${PATH}"
)
# The SuiteSparse matrices the lessons read (lessons/spmv.MatricesDir): $WARPLAB_MATRICES, else
# shared/matrices in the checkout or beside it (the images keep them in /warplab/shared/matrices).
# Named in the kernel's environment, so a notebook copied elsewhere (a hub student's
# ~/notebooks) finds them too.
matrices=${WARPLAB_MATRICES:-}
if [ -z "$matrices" ]; then
	for d in "$root/shared/matrices" "$(dirname "$root")/shared/matrices"; do
		if compgen -G "$d/*.mtx" >/dev/null; then
			matrices=$d
			break
		fi
	done
fi
[ -z "$matrices" ] || kernel_env+=("WARPLAB_MATRICES=$matrices")
cuda_env=()
cuda_why=""
if [ "${WARPLAB_NO_CUDA:-0}" = 1 ]; then
	cuda_why="WARPLAB_NO_CUDA=1"
elif ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	cuda_why="no working nvidia-smi (no GPU)"
else
	cuda_root=""
	# A toolkit (CUDA_HOME, /usr/local/cuda*) or the distribution's headers (/usr/include/cuda.h).
	for c in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /usr/local/cuda-* /usr; do
		if [ -n "$c" ] && [ -f "$c/include/cuda.h" ]; then
			cuda_root=$c
			break
		fi
	done
	if [ -z "$cuda_root" ]; then
		cuda_why="GPU present but cuda.h not found (set CUDA_HOME)"
	else
		libdir="$cuda_root/lib64"
		[ -d "$libdir" ] || libdir="$cuda_root/lib"
		[ "$cuda_root" != /usr ] || libdir="/usr/lib/$(uname -m)-linux-gnu"
		ldflags="-L$libdir"
		# The toolkit's link stub, for hosts whose driver ships only libcuda.so.1.
		[ ! -d "$libdir/stubs" ] || ldflags="$ldflags -L$libdir/stubs"
		cuda_env=(
			"GOFLAGS=-tags=cuda"
			"CGO_ENABLED=1"
			"CGO_CFLAGS=-I$cuda_root/include"
			"CGO_LDFLAGS=$ldflags"
			"LD_LIBRARY_PATH=$libdir:\${LD_LIBRARY_PATH}"
			"CUDA_HOME=$cuda_root"
		)
		# Every notebook cell is built with these flags: configure them only if
		# the GPU build compiles and links with them, or every cell would fail.
		# (The build cache makes this quick after the first time, and the
		# notebooks' own builds reuse what it compiled.)
		read -r header version <<<"$(CGO_CFLAGS="-I$cuda_root/include" "$root/scripts/cuda/header.sh" || echo "$cuda_root/include/cuda.h ?")"
		release="?"
		[[ "$version" =~ ^[0-9]+$ ]] && release="$((version / 1000)).$((version % 1000 / 10))"
		say "cuda: compiling the GPU build against $header (CUDA_VERSION $version, CUDA $release)"
		probe=$(mktemp -d)
		if ! out=$(cd "$root" && CGO_ENABLED=1 CGO_CFLAGS="-I$cuda_root/include" CGO_LDFLAGS="$ldflags" \
			go build -tags cuda -o "$probe/warplab-cuda" ./cmd/warplab 2>&1); then
			sed -n '1,20s/^/setup:   /p' <<<"$out" >&2 # the compiler's first errors
			cat >&2 <<-MSG
				setup: warning: the GPU build does not compile against $header (CUDA_VERSION $version),
				setup: so notebooks will run kernels on the simulator (GOFLAGS=-tags=cuda is not set).
				setup: To use the GPU: warplab's cuda build is tested against CUDA 11.8, 12.4 and 13.0
				setup: headers (third_party/cu/PATCHES.md). If $cuda_root is not your CUDA toolkit, set
				setup: CUDA_HOME to it; otherwise run scripts/cuda/build.sh for the whole error and report it.
				setup: Then run scripts/setup.sh again.
			MSG
			cuda_env=()
			cuda_why="the GPU build does not compile against $header (see the warning above)"
		fi
		rm -rf "$probe"
	fi
fi

# ---------------------------------------------------------------- 3. GoNB kernel spec
datadir=${JUPYTER_DATA_DIR:-}
if [ -z "$datadir" ]; then
	datadir=$(jupyter --data-dir 2>/dev/null || true)
	[ -n "$datadir" ] || datadir="$HOME/.local/share/jupyter"
fi
kernel_json="$datadir/kernels/gonb/kernel.json"

# desired_env prints the wanted kernel "env" object as sorted KEY=VALUE lines.
desired_env() { printf '%s\n' "${kernel_env[@]}" "${cuda_env[@]+"${cuda_env[@]}"}" | sed '/^$/d' | sort; }
# current_env / current_argv read kernel.json with the system Python that Jupyter itself uses.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
current_env() {
	"$py" -c 'import json,sys; e=json.load(open(sys.argv[1])).get("env") or {}; print("\n".join(sorted(k+"="+v for k,v in e.items())))' "$kernel_json" | sed '/^$/d'
}
current_argv() { "$py" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["argv"]))' "$kernel_json"; }

kernel_ok=0
if [ -f "$kernel_json" ]; then
	argv=$(current_argv 2>/dev/null || true)
	if [ "$(printf '%s\n' "$argv" | head -1)" = "$gobin/gonb" ] &&
		printf '%s\n' "$argv" | grep -qx -- "-go_work=$root" &&
		[ "$(current_env 2>/dev/null || echo broken)" = "$(desired_env)" ]; then
		kernel_ok=1
	fi
fi
if [ "$kernel_ok" = 1 ]; then
	say "kernel: GoNB kernel spec already at $kernel_json (go.work -> $root)"
else
	say "kernel: installing GoNB kernel spec at $kernel_json (go.work -> $root)"
	# --force_deps: gopls (autocomplete only) is not pinned; cells run without it.
	if ! out=$(JUPYTER_DATA_DIR="$datadir" "$gobin/gonb" --install --go_work="$root" --force_deps 2>&1); then
		echo "$out" >&2
		die "gonb --install failed"
	fi
	[ -f "$kernel_json" ] || die "gonb --install did not write $kernel_json"
	"$py" - "$kernel_json" "${kernel_env[@]}" "${cuda_env[@]+"${cuda_env[@]}"}" <<-'EOF'
			import json, sys
			path, pairs = sys.argv[1], sys.argv[2:]
			spec = json.load(open(path))
			env = spec.get("env") or {}
			for p in pairs:
			    k, v = p.split("=", 1)
			    env[k] = v
			spec["env"] = env
			json.dump(spec, open(path, "w"), indent=1)
		EOF
	[ "$(current_env)" = "$(desired_env)" ] || die "kernel env in $kernel_json is not what was asked for"
fi
if [ "${#cuda_env[@]}" -gt 0 ]; then
	say "cuda: kernel env has ${cuda_env[*]}"
else
	say "cuda: simulator only ($cuda_why)"
fi
say "done: open the notebooks with the \"Go (gonb)\" kernel: jupyter notebook $root/notebooks"
