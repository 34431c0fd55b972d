# Sourced by setup.sh and run_autograder. Written by `proctor gradescope`.
#
# shared_tools SOURCE_DIR: copies the bundled kubectl where learners' scripts (under uids of
# their own) can run it — the bundle itself is closed to them — at a fixed path and with its time
# kept, so that the reference cache setup.sh fills matches at grading time. Prints the directory.
shared_tools() {
  local tools=/usr/local/lib/proctor-tools
  # A trial run (AUTOGRADER_ROOT set) leaves the host's /usr/local alone.
  [ -z "${AUTOGRADER_ROOT:-}" ] || tools="${TMPDIR:-/tmp}/proctor-autograder-tools"
  rm -rf "$tools"
  mkdir -p -m 711 "$tools"
  cp -p "$1/bin/kubectl" "$tools/kubectl"
  chmod 755 "$tools/kubectl"
  echo "$tools"
}
