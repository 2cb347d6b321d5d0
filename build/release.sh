#!/usr/bin/env bash
# The release artifacts of the CLI, into the folder given (docs/installation.md):
#   backupxe.VERSION.nupkg                  the dotnet tool package (any platform with the .NET 10 runtime)
#   backupxe-VERSION-linux-x64.tar.gz       the native (NativeAOT) build: no .NET needed
#   backupxe-VERSION-win-x64.zip            a self-contained single-file build: no .NET needed
#   backupxe-worker-VERSION-linux-x64.tar.gz  the daemon, self-contained, with its production appsettings.json,
#   backupxe-worker-VERSION-win-x64.zip       its schema and (Linux) the systemd unit: docs/deploy.md
#   SHA256SUMS                              the artifacts' checksums
# Each prints VERSION+COMMIT on --version, the commit being the git HEAD the artifacts were built from, or
# "VERSION (unknown commit)" when the sources are not a git checkout.
# Usage: build/release.sh OUTPUT_FOLDER
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: build/release.sh OUTPUT_FOLDER" >&2
  exit 1
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
cli="$root/src/BackupXe.Cli"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

version=$(dotnet msbuild "$cli" -getProperty:Version)
# The SDK appends SourceRevisionId to the informational version that --version prints; given explicitly so the
# stamp does not depend on the source-link package finding the repository.
if commit=$(git -C "$root" rev-parse HEAD 2>/dev/null); then
  stamp=("-p:SourceRevisionId=$commit")
else
  commit=""
  stamp=("-p:IncludeSourceRevisionInInformationalVersion=false" "-p:InformationalVersion=$version (unknown commit)")
fi
echo "BackupXe $version, commit ${commit:-unknown}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The dotnet tool package (framework-dependent, any platform).
dotnet pack "$cli" -c Release -o "$out" "${stamp[@]}"

# Only the executable and the native libraries it loads go into an archive: the publish folder also holds the
# symbols (backupxe.dbg, 64 MB, for crash dumps).
pack_folder() { # pack_folder PUBLISH_DIR NAME: copies the files a user runs into $work/NAME
  mkdir -p "$work/$2"
  find "$1" -maxdepth 1 -type f \( -name 'backupxe' -o -name 'backupxe.exe' -o -name '*.so' -o -name '*.dll' \) \
    -exec cp {} "$work/$2/" \;
  cp "$root/README.md" "$work/$2/"
}

# 2. linux-x64: the native build the project publishes for a runtime (src/BackupXe.Cli/BackupXe.Cli.csproj).
linux="backupxe-$version-linux-x64"
dotnet publish "$cli" -c Release -r linux-x64 -o "$work/publish-linux-x64" "${stamp[@]}"
pack_folder "$work/publish-linux-x64" "$linux"
tar -C "$work" -czf "$out/$linux.tar.gz" "$linux"

# 3. win-x64: NativeAOT cannot compile for Windows on Linux (the native linker of the target platform is needed), so
# this is a self-contained single-file build of the same code, its native libraries inside the one executable.
# No ReadyToRun: the framework inside is precompiled already, and compiling it again as one composite image for
# Windows would add minutes to every CI run; BackupXe's own code is compiled as it first runs.
win="backupxe-$version-win-x64"
dotnet publish "$cli" -c Release -r win-x64 --self-contained -p:PublishAot=false -p:PublishReadyToRun=false \
  -p:PublishSingleFile=true -p:IncludeNativeLibrariesForSelfExtract=true -o "$work/publish-win-x64" "${stamp[@]}"
pack_folder "$work/publish-win-x64" "$win"
rm -f "$out/$win.zip"
(cd "$work" && zip -qr "$out/$win.zip" "$win")

# 4. The daemon for both platforms: self-contained (no .NET needed), as a folder (not one file: the SQLite and SNI
# native libraries would be extracted to a temporary folder at every start, which a hardened service may not write).
# Only what runs: no symbols, no XML documentation, no satellite resource folders for the 13 other languages.
worker="$root/src/BackupXe.Worker"
publish_worker() { # publish_worker RID: the daemon's files a user runs into $work/backupxe-worker-VERSION-RID
  local name="backupxe-worker-$version-$1"
  dotnet publish "$worker" -c Release -r "$1" --self-contained -o "$work/$name" "${stamp[@]}" \
    -p:DebugType=none -p:DebugSymbols=false -p:GenerateDocumentationFile=false \
    -p:PublishDocumentationFiles=false -p:PublishReferencesDocumentationFiles=false -p:SatelliteResourceLanguages=en
  cp "$root/README.md" "$work/$name/"
}
publish_worker linux-x64
cp "$root/deploy/systemd/backupxe.service" "$work/backupxe-worker-$version-linux-x64/"
tar -C "$work" -czf "$out/backupxe-worker-$version-linux-x64.tar.gz" "backupxe-worker-$version-linux-x64"
publish_worker win-x64
rm -f "$out/backupxe-worker-$version-win-x64.zip"
(cd "$work" && zip -qr "$out/backupxe-worker-$version-win-x64.zip" "backupxe-worker-$version-win-x64")

(cd "$out" && sha256sum "backupxe.$version.nupkg" "$linux.tar.gz" "$win.zip" \
  "backupxe-worker-$version-linux-x64.tar.gz" "backupxe-worker-$version-win-x64.zip" > SHA256SUMS)
ls -l "$out"
