//! Random name suffixes like the ones Kubernetes generates, so injected nodes look like nodes a
//! cloud would add and cannot be predicted by a learner's script.

use rand::Rng;

/// The alphabet of `k8s.io/apimachinery/pkg/util/rand.String`: no vowels (no accidental words)
/// and no confusable characters (0, 1, 3).
pub const KUBERNETES_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

pub fn random_suffix(len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| KUBERNETES_ALPHABET[rng.random_range(0..KUBERNETES_ALPHABET.len())] as char)
        .collect()
}

/// `prefix` plus a 5-character suffix, as a generateName would give.
pub fn generated_name(prefix: &str) -> String {
    format!("{prefix}{}", random_suffix(5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_uses_the_kubernetes_alphabet() {
        for _ in 0..50 {
            let name = generated_name("gpu-node-");
            let suffix = name.strip_prefix("gpu-node-").expect("prefix kept");
            assert_eq!(suffix.len(), 5);
            assert!(
                suffix.bytes().all(|b| KUBERNETES_ALPHABET.contains(&b)),
                "{name}"
            );
        }
    }
}
