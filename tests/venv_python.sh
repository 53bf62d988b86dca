#!/bin/sh
# Runs a Python test script with the build's venv (argument 1, the venv
# scripts/bootstrap.sh makes; it has h5py and sweep-report) when it exists,
# else python3. usage: venv_python.sh VENV SCRIPT ARGS...
venv=$1
shift
py=python3
if [ -x "$venv/bin/python" ]; then
	py=$venv/bin/python
fi
exec "$py" "$@"
