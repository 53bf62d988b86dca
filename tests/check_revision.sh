#!/bin/sh
# The revision a build records (cmake/version.cmake): git's only where the
# source folder is the top of its own work tree. Exports the tracked files
# into a temporary repository of its own, configures it and builds
# the version header there: the revision must be "unknown", not the outer
# repository's commit, and -DSWEEP_GIT_REV must name it. SKIPPED (77)
# outside a git checkout, where there is nothing to export from.
# usage: check_revision.sh SOURCE_DIR
top=$(cd "$1" && pwd) || exit 1
command -v git >/dev/null 2>&1 || { echo "git not found: SKIPPED"; exit 77; }
[ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ] ||
	{ echo "$top is not a git checkout: SKIPPED"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
header() { # BUILD_DIR -> the SW_GIT_REV its version.h records
	sed -n 's/^#define SW_GIT_REV "\(.*\)"$/\1/p' "$1/generated/version.h"
}

# In the checkout itself: git's own description.
cmake -DSRC="$top" -DOUT="$tmp/here.h" -DVERSION=0 -P "$top/cmake/version.cmake" || fail "version.cmake"
want=$(git -C "$top" describe --always --dirty --abbrev=12)
grep -q "SW_GIT_REV \"$want\"" "$tmp/here.h" || fail "checkout: want $want, got: $(cat "$tmp/here.h")"

# An export inside another repository.
outer=$tmp/outer
mkdir -p "$outer/sweep"
git -C "$outer" init -q
echo outer >"$outer/README"
git -C "$outer" add README
git -C "$outer" -c user.name=t -c user.email=t@t commit -qm outer || fail "outer commit"
outer_rev=$(git -C "$outer" rev-parse --short=12 HEAD)
# the tracked files as they stand (edits included), as git archive would pack them
(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -x -C "$outer/sweep" || fail "export"
for rev in "" exported-abc123; do
	b=$tmp/build${rev:+-given}
	cmake -S "$outer/sweep" -B "$b" -G Ninja -DBUILD_TESTING=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
		${rev:+-DSWEEP_GIT_REV=$rev} >"$tmp/configure.log" 2>&1 ||
		{ cat "$tmp/configure.log"; fail "configure the export"; }
	cmake --build "$b" --target sw_version >/dev/null || fail "build sw_version"
	got=$(header "$b")
	case $got in
	"$outer_rev"*) fail "the export records the outer repository's revision $outer_rev" ;;
	esac
	[ "$got" = "${rev:-unknown}" ] || fail "export${rev:+ with -DSWEEP_GIT_REV=$rev}: want ${rev:-unknown}, got $got"
	echo "export${rev:+ with -DSWEEP_GIT_REV=$rev} in a repository at $outer_rev: records '$got'"
done
echo "checkout records '$want'"
