# Everyday recipes. The README's two commands need none of these.

# Grade the bundled example submissions of both labs on the embedded cluster.
demo:
    cargo run --release -p proctor -- demo

# The full test suite (what CI runs).
test:
    cargo test --workspace

# Long-running checks (load for 3 min, determinism 50× on the real labs, hostile submissions at full size, interrupted external grading): about an hour.
soak:
    cargo test --workspace --release -- --ignored

# Benchmarks: cluster start, kubectl latency ratio, list/watch throughput, grading, self-check, controllers at scale (BENCH_ONLY=api|grade|check|controllers for one section).
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

# Serve an embedded cluster for poking at with kubectl.
up lab="":
    cargo run -p proctor -- up {{lab}}
