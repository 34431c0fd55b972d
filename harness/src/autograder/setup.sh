#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image; the bundle is
# unpacked in /autograder/source. Written by `proctor gradescope`.
set -euo pipefail
source_dir="${AUTOGRADER_ROOT:-/autograder}/source"

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# jq: the labs' scripts use it; bubblewrap: the script sandbox (without it Proctor falls back to
# a weaker isolation and says so in each report).
apt-get install -y -qq --no-install-recommends jq bubblewrap ca-certificates >/dev/null

chmod 755 "$source_dir/bin/"* "$source_dir/run_autograder"
if ! "$source_dir/bin/proctor" --version; then
  echo "The bundled proctor does not run on this image (it needs a glibc at least as new as" >&2
  echo "the one it was built with): choose a newer base image, or bundle a build made on an" >&2
  echo "older system with 'proctor gradescope --binary FILE'." >&2
  exit 1
fi
"$source_dir/bin/kubectl" version --client

# The reference run depends only on the lab, the tools and this build: computed now, once, so
# that grading a submission does not pay for it.
# As run_autograder lays it out: the bundled kubectl where learners' scripts can run it.
# shellcheck source=tools.sh
source "$source_dir/tools.sh"
tools="$(shared_tools "$source_dir")"
export PATH="$tools:$source_dir/bin:$PATH" PROCTOR_CACHE="$source_dir/cache"
# An empty submission fails its checks (exit 1); only exit 2 says the reference itself failed.
empty="$(mktemp -d)"
status=0
proctor grade "@LAB@" --scenarios "$source_dir/scenarios" --submission "$empty" \
  --format json --output /dev/null --quiet --color never || status=$?
rm -rf "$empty"
if [ "$status" -gt 1 ]; then
  echo "the lab's reference run failed (exit $status): see the lines above" >&2
  exit 1
fi
