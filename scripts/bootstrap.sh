#!/usr/bin/env bash
# One command from a fresh Debian 12 (or Ubuntu) machine with the CUDA toolkit
# to a result: installs what sweep needs, builds it, and then
#   bootstrap.sh quick   runs jobs/quick.yaml (on the GPU when there is one,
#                        otherwise on the model backend, which says so) and
#                        writes its report (sweep-report) to quick-report/
#   bootstrap.sh test    runs every test under ctest (GPU tests are SKIPPED
#                        without a GPU)
# quick installs and builds only what it runs: the sweep binary and the
# analysis venv for the report; test adds check, Slurm, munge, PMIx,
# Chromium (the report's browser test), every test and fuzz replay target,
# and analysis[test] (pytest, hypothesis, ruff) in the venv.
# Environment: BUILD_DIR (default build), CMAKE_BUILD_TYPE (default
# RelWithDebInfo; .ci/run builds Release), CMAKE_CUDA_ARCHITECTURES (default:
# the fat binary from CMakeLists.txt), NP (MPI ranks for quick, default 1),
# OUT_FILE (quick's result, default quick.h5), SWEEP_WERROR (ON: every
# compiler warning in sweep's own code is an error; .ci/run sets it, a
# user's build leaves it OFF).
set -euo pipefail

what=${1:-}
case "$what" in
quick | test) ;;
*)
	echo "usage: $0 quick|test" >&2
	exit 2
	;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
jobs=$(nproc 2>/dev/null || echo 2)

# --- dependencies (Debian package names) -------------------------------------
packages=(cmake ninja-build pkg-config g++ libopenmpi-dev openmpi-bin libhdf5-dev hdf5-tools
	libyaml-dev python3 python3-venv python3-pip)
# the tests: check, and a one-node Slurm of their own (tests/slurm)
[ "$what" = test ] && packages+=(check libsubunit-dev slurmctld slurmd slurm-client munge libpmix-dev)
missing=()
for p in "${packages[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "bootstrap: installing ${missing[*]}"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The format check (tests/check_format.sh) wants clang-format 14, Debian 12's;
# where the release has another, that test reports SKIPPED.
if [ "$what" = test ] && ! command -v clang-format-14 >/dev/null 2>&1 && apt-cache show clang-format-14 >/dev/null 2>&1; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang-format-14 >/dev/null ||
		echo "bootstrap: clang-format-14 not installed: test_format will report SKIPPED"
fi
# The report's browser test (test_report_browser) wants headless Chromium,
# Debian's chromium; where the release has none, that test reports SKIPPED.
if [ "$what" = test ] && ! command -v chromium >/dev/null 2>&1 && apt-cache show chromium >/dev/null 2>&1; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
		echo "bootstrap: chromium not installed: test_report_browser will report SKIPPED"
fi
if ! command -v nvcc >/dev/null 2>&1; then
	for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
		[ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
	done
fi
command -v nvcc >/dev/null 2>&1 || {
	echo "bootstrap: nvcc not found: install the CUDA toolkit (it compiles the kernels, a GPU is optional)" >&2
	exit 1
}
# Open MPI refuses root unless told; CI and containers run as root.
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# --- build ---------------------------------------------------------------------
archs=()
[ -n "${CMAKE_CUDA_ARCHITECTURES:-}" ] && archs=(-DCMAKE_CUDA_ARCHITECTURES="$CMAKE_CUDA_ARCHITECTURES")
# BUILD_TESTING, SWEEP_WERROR and the build type are cached: say them each
# time, so quick after test (or the reverse) in one build folder builds what
# it needs, and a folder CI configured does not stay strict or Release.
type=${CMAKE_BUILD_TYPE:-RelWithDebInfo}
if [ "$what" = test ]; then
	cmake -S "$top" -B "$build" -G Ninja "${archs[@]}" -DBUILD_TESTING=ON \
		-DCMAKE_BUILD_TYPE="$type" -DSWEEP_WERROR="${SWEEP_WERROR:-OFF}" >/dev/null
	cmake --build "$build" -j "$jobs"
else
	cmake -S "$top" -B "$build" -G Ninja "${archs[@]}" -DBUILD_TESTING=OFF \
		-DCMAKE_BUILD_TYPE="$type" -DSWEEP_WERROR="${SWEEP_WERROR:-OFF}" >/dev/null
	cmake --build "$build" -j "$jobs" --target sweep
fi

# --- Python analysis (analysis/): a venv in the build folder -----------------
venv=$build/venv
[ -x "$venv/bin/pip" ] || python3 -m venv --clear "$venv"
# test: with the test extra, what the tests need (pytest, hypothesis, ruff)
analysis=$top/analysis
[ "$what" = test ] && analysis="$top/analysis[test]"
"$venv/bin/pip" install -q --disable-pip-version-check -e "$analysis"

# --- run ---------------------------------------------------------------------
if [ "$what" = test ]; then
	cd "$build"
	exec ctest --output-on-failure -j "$jobs"
fi
out=${OUT_FILE:-$top/quick.h5}
if [ -e "$out" ]; then
	echo "bootstrap: $out exists; moving it to $out.old"
	mv -f "$out" "$out.old"
fi
mpirun -np "${NP:-1}" --oversubscribe "$build/sweep" "$top/jobs/quick.yaml" -o "$out"
echo "bootstrap: results in $out (h5dump -H $out shows its layout; docs/hdf5-schema.md explains it)"
"$venv/bin/sweep-report" -q "$out" -o "$top/quick-report"
echo "bootstrap: report in $top/quick-report/index.html (open it in a browser; report.md beside it)"
