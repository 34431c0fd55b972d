//! The modes: each walks a lab's steps in its own setting.

pub mod grade;
pub mod preflight;
pub mod self_check;
pub mod selftest;
