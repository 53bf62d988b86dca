#!/bin/sh
# Every Python file in the tree (analysis/, scripts/, tests/, examples/) is
# formatted and lints clean as ruff.toml (the tree's one ruff configuration)
# says. Formatting differs between ruff releases, so the check uses the
# release ruff.toml requires (the one analysis[test] installs into
# BUILD_DIR/venv, preferred, else one on PATH); SKIPPED (77) without it.
# To fix: ruff format FILE..., then ruff check --fix FILE... and what it
# leaves by hand.
# usage: check_python.sh SOURCE_DIR [BUILD_DIR]
top=$1
build=${2:-}
want=$(sed -n 's/^required-version = "==\([0-9.]*\)".*/\1/p' "$top/ruff.toml")
if [ -z "$want" ]; then
	echo "ruff.toml pins no ruff release (required-version = \"==X.Y.Z\")"
	exit 1
fi
# the test extra installs the release ruff.toml requires: one release, said twice
if ! grep -qF "\"ruff==$want\"" "$top/analysis/pyproject.toml"; then
	echo "ruff.toml requires ruff $want, but analysis/pyproject.toml's test extra does not install ruff==$want"
	exit 1
fi
ruff=""
found=""
for candidate in ${build:+"$build/venv/bin/ruff"} ruff; do
	command -v "$candidate" >/dev/null 2>&1 || continue
	version=$("$candidate" --version 2>/dev/null | sed -n 's/^ruff \([0-9.]*\).*/\1/p')
	if [ "$version" = "$want" ]; then
		ruff=$candidate
		break
	fi
	found="$found $candidate ${version:-?}"
done
if [ -z "$ruff" ]; then
	echo "ruff $want not found${found:+ (found:$found)}: SKIPPED (pip install ruff==$want)"
	exit 77
fi
cd "$top" || exit 1
files=$(git ls-files '*.py' 2>/dev/null)
# not a git checkout (a source tarball): the folders that hold Python, less
# what a build or a venv leaves there
[ -n "$files" ] || files=$(find analysis scripts tests examples -name '*.py' \
	-not -path '*/build/*' -not -path '*/venv/*' -not -path '*/.*' 2>/dev/null)
if [ -z "$files" ]; then
	echo "no Python files found under $top"
	exit 1
fi
status=0
# --no-cache: a test writes nothing into the source tree
# shellcheck disable=SC2086 # one word per file
if ! "$ruff" format --no-cache --diff $files; then
	echo "formatting differs from ruff format: run $ruff format on the files above"
	status=1
fi
# shellcheck disable=SC2086 # one word per file
if ! "$ruff" check --no-cache --output-format concise $files; then
	echo "ruff check found the problems above: $ruff check --fix fixes some"
	status=1
fi
[ "$status" = 0 ] && echo "$(echo "$files" | wc -w) Python files formatted and lint-clean as ruff $want says"
exit "$status"
