#!/bin/sh
# The tree's C, CUDA and header files are formatted as .clang-format says.
# Formatting differs between clang-format releases, so the check uses the
# release the tree is formatted with (14, Debian 12's); SKIPPED (77) without
# it. To reformat: clang-format-14 -i $(git ls-files '*.c' '*.h' '*.cu' '*.cuh')
# usage: check_format.sh SOURCE_DIR
top=$1
want=14
cf=""
for candidate in clang-format-$want clang-format; do
	command -v "$candidate" >/dev/null 2>&1 || continue
	major=$("$candidate" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
	if [ "$major" = "$want" ]; then
		cf=$candidate
		break
	fi
done
if [ -z "$cf" ]; then
	echo "clang-format $want not found: SKIPPED"
	exit 77
fi
cd "$top" || exit 1
files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null)
[ -n "$files" ] || files=$(find src kernels tests -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh')
# shellcheck disable=SC2086 # one word per file
if ! "$cf" --dry-run --Werror $files; then
	echo "formatting differs from .clang-format: run $cf -i on the files above"
	exit 1
fi
echo "$(echo "$files" | wc -w) files formatted as .clang-format says"
