#!/bin/sh
# src/ is laid out by role (docs/ARCHITECTURE.md, "Folders"): each folder's
# README.md ends in a line "May use: a, b" naming the folders below it, and
# this check fails when a file includes a header from any other src/ folder,
# when more than three C files sit at src/'s top, or when a C or CUDA file in
# src/, kernels/ or include/, or a Python file in analysis/ or scripts/, grows
# over 900 lines.
# usage: check_layout.sh SOURCE_DIR
top=$(cd "$1" && pwd) || exit 1
cd "$top/src" || exit 1
bad=0
folders=$(find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./||' | sort)
for d in $folders; do
	if [ ! -f "$d/README.md" ]; then
		echo "src/$d: no README.md saying what it holds and may use"
		bad=1
		continue
	fi
	may=$(sed -n 's/^May use: *//p' "$d/README.md" | tr -d ',')
	for f in "$d"/*.c "$d"/*.h; do
		[ -f "$f" ] || continue
		# shellcheck disable=SC2013 # folder names are single words
		for used in $(sed -n 's|^#include "\([a-z0-9_]*\)/.*|\1|p' "$f" | sort -u); do
			[ "$used" = "$d" ] && continue
			case " $may " in
			*" $used "*) ;;
			*)
				echo "src/$f includes from $used/, which src/$d/README.md does not allow (May use: $may)"
				bad=1
				;;
			esac
		done
	done
done
ntop=$(find . -maxdepth 1 -name '*.c' | wc -l)
if [ "$ntop" -gt 3 ]; then
	echo "src/ has $ntop C files at its top (at most 3): give them a folder"
	bad=1
fi
cd "$top" || exit 1
long=$({
	find src kernels include \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \) -exec wc -l {} +
	find analysis scripts -name '*.py' -exec wc -l {} +
} | awk '$2 != "total" && $1 > 900 { print "  " $2 ": " $1 " lines" }')
if [ -n "$long" ]; then
	echo "files over 900 lines (split them by role):"
	echo "$long"
	bad=1
fi
[ "$bad" = 0 ] && echo "layout: $(echo "$folders" | wc -w) folders, arrows one way, no file over 900 lines"
exit "$bad"
