//! The reference run and its reuse: R_n and S_n computed once, kept on disk, and read back as the
//! grading reference (`grade`) or the shadow reference (`check`).

pub mod answers;
pub mod cache;
pub mod run;
pub mod shadow;
