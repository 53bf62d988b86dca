#!/bin/sh
# ctest's test_analysis: pytest over analysis/tests with the Python of the venv
# scripts/bootstrap.sh makes (argument 1) when it exists, else python3; the
# other arguments, if any, go to pytest instead of the folder. A
# Python without pytest or the package's dependencies FAILS the test rather
# than skipping it: the README's test command installs them.
venv=$1
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
py=python3
if [ -n "$venv" ] && [ -x "$venv/bin/python" ]; then
	py=$venv/bin/python
fi
if ! "$py" -c 'import pytest, h5py, numpy, pandas, matplotlib' 2>/dev/null; then
	echo "test_analysis: $py lacks pytest, h5py, numpy, pandas or matplotlib:" \
		"run scripts/bootstrap.sh test, or pip install ./analysis pytest" >&2
	exit 1
fi
# The tree's package, not an installed copy; figures without a display.
PYTHONPATH="$here/..${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH MPLBACKEND=Agg
[ $# -eq 0 ] && set -- "$here"
exec "$py" -m pytest -q -p no:cacheprovider "$@"
