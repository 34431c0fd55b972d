# Everyday recipes. The README's two commands need none of these.

# Grade the bundled example submissions of both labs on the embedded cluster.
demo:
    cargo run --release -p proctor -- demo

# The unit tests alone: every crate's library tests, for the edit-compile-test loop.
fast:
    cargo test --workspace --lib

# The default tier (the README's test command): everything but the upstream suites and the load
# and soak tests, a few minutes once built. Tiers are profiles in .config/nextest.toml.
test:
    cargo nextest run --workspace

# Everything CI runs once the upstream binaries are built: the default tier, the upstream suites
# (differential, kwokctl) and the load tier.
test-all:
    cargo nextest run --workspace --profile ci --run-ignored all

# The default tier N times under a CPU hog; names every test that ever failed.
flakes rounds="10":
    tests/flakes.sh {{rounds}}

# Long-running checks (load for 3 min, determinism 50× on the real labs, hostile submissions at full size, interrupted external grading): about an hour.
soak:
    cargo test --workspace --release -- --ignored

# Benchmarks: cluster start, kubectl latency ratio, list/watch throughput, grading, a 200-submission batch and its shards, its class report, self-check, controllers at scale, embedded beside upstream (BENCH_ONLY=api|grade|batch|class-report|hanging|check|controllers|upstream|upstream-restore|upstream-grade for one section).
bench:
    cargo build --release -p proctor
    cargo run --release -p proctor-tests --bin bench

# Fuzz the request decoders, selectors, patch engines and router (needs `cargo install cargo-fuzz` and a nightly toolchain).
fuzz target="decode" seconds="60":
    cd fuzz && cargo +nightly fuzz run {{target}} -- -max_total_time={{seconds}}

# Formatting and lints as CI would want them.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    cargo run --quiet --bin proctor -- lint --all

# Build the upstream control plane the differential suite compares with (once per machine; about 5 minutes cold), and install the pinned Python client its client session drives.
upstream:
    upstream/build.sh
    python3 -m pip install --quiet -r tests/differential/clients/requirements.txt

# Write the protobuf tables the embedded cluster decodes bodies with, from the pinned release's Go types.
protobuf-tables:
    upstream/protobuf-tables.sh

# Every lab's fixtures graded on both runtimes, gradebooks compared (opt-in: thirty gradings
# one at a time on kwokctl, about 20 minutes; the upstream tier compares the bundled submissions).
cross-runtime:
    cargo nextest run --workspace --profile ci --run-ignored only -E 'binary(kwokctl) and test(/::fixtures/)'

# The differential suite alone: every session on the embedded cluster and on upstream.
differential:
    cargo nextest run -p proctor-tests --profile ci -E 'binary(differential)'

# Serve an embedded cluster for poking at with kubectl.
up lab="":
    cargo run -p proctor -- up {{lab}}
