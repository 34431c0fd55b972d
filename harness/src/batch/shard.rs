//! `--shard I/N`: a stable share of a course's submissions, so that N machines (a Kubernetes
//! Indexed Job's pods, say) grade the course between them, each submission exactly once.
//!
//! A submission belongs to the shard its name hashes to (SHA-256, not the standard library's
//! hasher, whose output may change between Rust releases and which would then move submissions
//! between shards of one course graded by two builds). Hashing the name, rather than numbering
//! the sorted list, keeps every submission on its shard when others arrive late: a resumed shard
//! finds what it graded before.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// Shard `index` (0-based, as a Job's `JOB_COMPLETION_INDEX`) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".to_string());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} is out of range for {count} shard(s): indexes run from 0 to {}",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// Whether the submission called `name` is this shard's to grade.
    pub fn picks(&self, name: &str) -> bool {
        shard_of(name, self.count) == self.index
    }
}

/// The shard (0-based) of `count` that the submission called `name` belongs to.
pub fn shard_of(name: &str, count: u64) -> u64 {
    let digest = Sha256::digest(name.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first) % count.max(1)
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `0/4` for the first of four shards.
    fn from_str(text: &str) -> Result<Shard, String> {
        let (index, count) = text.split_once('/').ok_or_else(|| {
            format!("{text:?} is not I/N (e.g. 0/4 for the first of four shards)")
        })?;
        let number = |part: &str, what: &str| {
            part.trim()
                .parse::<u64>()
                .map_err(|_| format!("{text:?}: the {what} {part:?} is not a whole number"))
        };
        Shard::new(number(index, "index")?, number(count, "count")?)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(count: usize) -> Vec<String> {
        (0..count).map(|i| format!("student-{i:04}")).collect()
    }

    #[test]
    fn every_submission_lands_in_exactly_one_shard() {
        let all = names(1000);
        for count in 1..=16u64 {
            let shards: Vec<Shard> = (0..count)
                .map(|index| Shard::new(index, count).expect("valid shard"))
                .collect();
            for name in &all {
                let owners = shards.iter().filter(|shard| shard.picks(name)).count();
                assert_eq!(owners, 1, "{name} with {count} shards");
            }
        }
    }

    #[test]
    fn shards_do_not_depend_on_the_other_submissions() {
        // The shard of a name is a function of the name and the count alone.
        let before: std::collections::BTreeMap<String, u64> = names(200)
            .into_iter()
            .map(|name| (name.clone(), shard_of(&name, 4)))
            .collect();
        let mut more = names(200);
        more.push("a-late-submission".to_string());
        more.reverse();
        let shard = Shard::new(1, 4).expect("valid");
        let picked: Vec<&String> = more.iter().filter(|name| shard.picks(name)).collect();
        for name in &picked {
            if let Some(was) = before.get(*name) {
                assert_eq!(*was, 1, "{name} moved");
            }
        }
        let had = before.values().filter(|&&s| s == 1).count();
        let late = usize::from(shard_of("a-late-submission", 4) == 1);
        assert_eq!(picked.len(), had + late);
    }

    #[test]
    fn the_hash_is_sha256_of_the_name() {
        // SHA-256("alice") = 2bd806c97f0e00af1a1fc3328fa763a9269723c8db8fac4f93af71db186d6e90;
        // its first 8 bytes big-endian modulo 7.
        let first = 0x2bd8_06c9_7f0e_00af_u64;
        assert_eq!(shard_of("alice", 7), first % 7);
    }

    #[test]
    fn shares_are_roughly_even() {
        let all = names(2000);
        let mut sizes = [0usize; 4];
        for name in &all {
            sizes[shard_of(name, 4) as usize] += 1;
        }
        for size in sizes {
            assert!((400..=600).contains(&size), "{sizes:?}");
        }
    }

    #[test]
    fn parses_and_refuses() {
        assert_eq!("0/4".parse::<Shard>(), Ok(Shard { index: 0, count: 4 }));
        assert_eq!(
            "3/4".parse::<Shard>().map(|s| s.to_string()),
            Ok("3/4".into())
        );
        for bad in ["4/4", "1/0", "x/4", "1", "-1/4", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let error = "4/4".parse::<Shard>().expect_err("out of range");
        assert!(error.contains("from 0 to 3"), "{error}");
    }
}
