//! Shared helpers for the integration suites.
