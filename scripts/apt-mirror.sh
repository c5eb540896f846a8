#!/bin/sh
# apt-mirror.sh — the Debian mirror this machine's apt uses, for everything in the repository
# that writes Debian sources of its own (scripts/setup.sh --nvcc, scripts/cuda/fetch-headers.sh,
# scripts/lab/build.sh and the images' Dockerfiles), so that they follow the machine's own
# mirror or caching proxy, and the repository names none.
#
#   apt-mirror.sh          prints the mirror's URL, e.g. http://mirror.example/debian:
#                          $WARPLAB_APT_MIRROR when set, else the URI of the first enabled `deb`
#                          source in apt's sources (sources.list, then sources.list.d/*.list and
#                          *.sources in apt's order) whose suite is a Debian release (bookworm,
#                          trixie-updates, sid, ...: not -security, not a third party's archive).
#                          Exits 1, saying what to set, when there is none (an Ubuntu host, say).
#   apt-mirror.sh --use    in an image build: when WARPLAB_APT_MIRROR is set, points the sources
#                          that name the current mirror at it instead (security sources stay).
#
# Env: WARPLAB_APT_MIRROR (the override; the images take it as a build argument),
#      WARPLAB_APT_ETC (apt's folder, /etc/apt; for the tests), WARPLAB_OS_RELEASE (/etc/os-release).
# POSIX sh with sed and grep only: it runs in a bare Debian image before apt has installed anything.
set -eu

etc=${WARPLAB_APT_ETC:-/etc/apt}
osrel=${WARPLAB_OS_RELEASE:-/etc/os-release}

# Debian's release names and aliases; the machine's own codename too when it is Debian.
releases="buster bullseye bookworm trixie forky duke sid stable oldstable testing unstable experimental"
if [ -r "$osrel" ]; then
	id=$(sed -n 's/^ID=//p' "$osrel" | tr -d '"')
	codename=$(sed -n 's/^VERSION_CODENAME=//p' "$osrel" | tr -d '"')
	if [ "$id" = debian ] && [ -n "$codename" ]; then releases="$codename $releases"; fi
fi

# debian_suite SUITE...: true when one of the suites is a Debian release or its -updates or
# -backports (the same archive).
debian_suite() {
	for s in "$@"; do
		base=${s%-updates}
		base=${base%-backports}
		for r in $releases; do
			[ "$base" != "$r" ] || return 0
		done
	done
	return 1
}

# emit URI...: prints each http(s) URI without trailing slashes.
emit() {
	for u in "$@"; do
		case "$u" in
		http://* | https://*) printf '%s\n' "$u" | sed 's:/*$::' ;;
		esac
	done
}

# oneline FILE: the Debian archive URIs of a one-line-style sources file.
oneline() {
	# "deb [options] URI SUITE COMPONENTS...": keep "URI SUITE".
	sed -n 's/^[[:space:]]*deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]\{1,\}\)[[:space:]]\{1,\}\([^[:space:]]\{1,\}\).*/\2 \3/p' "$1" |
		while read -r uri suite; do
			if debian_suite "$suite"; then emit "$uri"; fi
		done
}

# deb822 FILE: the Debian archive URIs of a deb822-style .sources file (stanzas separated by
# blank lines; field names are case-insensitive).
deb822() {
	types="" uris="" suites="" enabled=yes
	flush() {
		# shellcheck disable=SC2086 # word lists
		if [ "$enabled" != no ] && printf ' %s ' "$types" | grep -q '[[:space:]]deb[[:space:]]' && debian_suite $suites; then
			emit $uris
		fi
		types="" uris="" suites="" enabled=yes
	}
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		'#'*) continue ;;
		*[![:space:]]*) ;;
		*)
			flush
			continue
			;;
		esac
		value=${line#*:}
		case "$line" in
		[Tt][Yy][Pp][Ee][Ss]:*) types=$value ;;
		[Uu][Rr][Ii][Ss]:*) uris=$value ;;
		[Ss][Uu][Ii][Tt][Ee][Ss]:*) suites=$value ;;
		[Ee][Nn][Aa][Bb][Ll][Ee][Dd]:*) enabled=$(printf '%s' "$value" | tr -d '[:space:]') ;;
		esac
	done <"$1"
	flush
}

# archive: every Debian archive URI in apt's sources, in apt's order.
archive() {
	[ ! -r "$etc/sources.list" ] || oneline "$etc/sources.list"
	for f in "$etc"/sources.list.d/*; do
		[ -r "$f" ] || continue
		case "$f" in
		*.list) oneline "$f" ;;
		*.sources) deb822 "$f" ;;
		esac
	done
}

current=$(archive | head -n 1)
wanted=$(printf '%s' "${WARPLAB_APT_MIRROR:-}" | sed 's:/*$::')

case "${1:-}" in
"")
	if [ -n "$wanted" ]; then
		echo "$wanted"
	elif [ -n "$current" ]; then
		echo "$current"
	else
		echo "apt-mirror: no Debian mirror in $etc's sources (no enabled deb source of a Debian release): set WARPLAB_APT_MIRROR to one, e.g. the URL your Debian machines' apt sources name" >&2
		exit 1
	fi
	;;
--use)
	if [ -z "$wanted" ] || [ "$wanted" = "$current" ]; then
		exit 0
	fi
	if [ -z "$current" ]; then
		echo "apt-mirror: WARPLAB_APT_MIRROR=$wanted, but $etc's sources name no Debian mirror to replace" >&2
		exit 1
	fi
	# The current URI as a sed pattern, matched as a whole word (a trailing slash allowed), so
	# "…/debian-security" is left alone.
	pat=$(printf '%s' "$current" | sed 's/[][\\.*^$#]/\\&/g')
	for f in "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
		[ -w "$f" ] || continue
		sed -i \
			-e "/^[[:space:]]*deb[[:space:]]/s#\\([[:space:]]\\)$pat/*\\([[:space:]]\\|\$\\)#\\1$wanted\\2#g" \
			-e "/^[Uu][Rr][Ii][Ss]:/s#\\([[:space:]:]\\)$pat/*\\([[:space:]]\\|\$\\)#\\1$wanted\\2#g" \
			"$f"
	done
	echo "apt-mirror: apt's Debian sources now use $wanted (was $current)" >&2
	;;
*)
	echo "usage: apt-mirror.sh [--use]" >&2
	exit 2
	;;
esac
