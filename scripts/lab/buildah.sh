# buildah.sh — sourced by the scripts in scripts/lab: lab_buildah runs buildah on the project's
# own store outside the checkout (overlay storage, so layers share files), never the system's.
lab_store="${XDG_CACHE_HOME:-$HOME/.cache}/warplab/lab/containers"
lab_buildah() {
	buildah --storage-driver overlay --root "$lab_store/storage" --runroot "$lab_store/run" "$@"
}
