//! End-to-end checks of `patch::apply` on served kinds.
