#!/usr/bin/env bash
# The speed guard (docs/performance.md, "The speed guard"): analyze's speed against the bare pass over the same bytes,
# on generated XE XML and ERRORLOG, checked against the ratios recorded in docs/performance.md.
# Usage: bench/speed-guard.sh CLI [PAIRS]            check; exit 1 when a ratio fell by more than the stated tolerance
#        bench/speed-guard.sh CLI [PAIRS] --update   measure and record the ratios in docs/performance.md
#        bench/speed-guard.sh CLI [COUNTS] --instructions [--update]
#                                                   the same with valgrind's instruction counts of analyze instead of CPU
#                                                   ratios: load-independent, so CI fails on it (exit 1)
# CLI is the native executable users install (build/release.sh's linux-x64 archive, or a Release publish for this runtime).
# The harness is the Debug build CI makes with the solution, so that a recorded figure and CI's check measure the same
# bare pass.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ]; then
  echo "usage: bench/speed-guard.sh CLI [PAIRS] [--update]" >&2
  exit 2
fi
cli=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
harness="$root/bench/BackupXe.Benchmarks/bin/Debug/net10.0/BackupXe.Benchmarks.dll"
if [ ! -f "$harness" ]; then
  dotnet build "$root/bench/BackupXe.Benchmarks" -v q -nologo >&2
fi
cd "$root"
exec dotnet "$harness" speed-guard "$cli" "$root/docs/performance.md" "$@"
