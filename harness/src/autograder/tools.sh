# Sourced by setup.sh and run_autograder. Written by `proctor gradescope`.
#
# shared_tools SOURCE_DIR: copies the bundled kubectl where learners' scripts (under uids of
# their own) can run it — the bundle itself is closed to them — at a fixed path and with its time
# kept, so that the reference cache setup.sh fills matches at grading time. Prints the directory.
shared_tools() {
  local tools
  tools="$(tools_dir)"
  rm -rf "$tools"
  mkdir -p -m 711 "$tools"
  cp -p "$1/bin/kubectl" "$tools/kubectl"
  chmod 755 "$tools/kubectl"
  echo "$tools"
}

# tools_dir: where shared_tools puts them. A trial run (AUTOGRADER_ROOT set) leaves the host's
# /usr/local alone, and has a directory of its own: trials of other bundles on the machine may be
# running at the same time.
tools_dir() {
  if [ -n "${AUTOGRADER_ROOT:-}" ]; then
    echo "${TMPDIR:-/tmp}/proctor-autograder-tools-$(printf '%s' "$AUTOGRADER_ROOT" | sha256sum | cut -c1-16)"
  else
    echo /usr/local/lib/proctor-tools
  fi
}
