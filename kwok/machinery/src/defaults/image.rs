//! The image tag, as `parsers.ParseImageName` (k8s.io/kubernetes pkg/util/parsers, over
//! distribution/reference `ParseNormalizedNamed`) reads it for the pull policy default: `latest`
//! when neither tag nor digest is given, nothing when the reference does not parse.

/// `[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*`
fn path_component_ok(c: &str) -> bool {
    let b = c.as_bytes();
    if b.is_empty() || !is_alnum_lower(b[0]) || !is_alnum_lower(b[b.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if is_alnum_lower(b[i]) {
            i += 1;
            continue;
        }
        // A separator run: '.', '_', '__' or any number of '-'.
        let start = i;
        while i < b.len() && !is_alnum_lower(b[i]) {
            i += 1;
        }
        let sep = &c[start..i];
        let ok = sep == "." || sep == "_" || sep == "__" || sep.bytes().all(|x| x == b'-');
        if !ok {
            return false;
        }
    }
    true
}

fn is_alnum_lower(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `[\w][\w.-]{0,127}`
fn tag_ok(t: &str) -> bool {
    let b = t.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && (b[0].is_ascii_alphanumeric() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// `algorithm:hex` with at least 32 hex digits.
fn digest_ok(d: &str) -> bool {
    let Some((alg, hex)) = d.split_once(':') else {
        return false;
    };
    !alg.is_empty()
        && alg
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'+' | b'.'))
        && hex.len() >= 32
        && hex.bytes().all(|c| c.is_ascii_hexdigit())
}

/// A registry host (`host[:port]`), which may carry upper case letters.
fn domain_ok(d: &str) -> bool {
    let (host, port) = match d.rsplit_once(':') {
        Some((h, p)) if !h.starts_with('[') || h.ends_with(']') => (h, Some(p)),
        _ => (d, None),
    };
    if let Some(p) = port {
        if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) {
            return false;
        }
    }
    if host.starts_with('[') {
        return host.ends_with(']');
    }
    !host.is_empty()
        && host.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        })
}

/// (tag, has digest), or `None` when the reference is invalid.
fn parse(image: &str) -> Option<(String, bool)> {
    if image.is_empty() {
        return None;
    }
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    if let Some(d) = digest {
        if !digest_ok(d) {
            return None;
        }
    }
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let (repo, tag) = match name[last_slash..].rfind(':') {
        Some(i) => (&name[..last_slash + i], Some(&name[last_slash + i + 1..])),
        None => (name, None),
    };
    if let Some(t) = tag {
        if !tag_ok(t) {
            return None;
        }
    }
    // The first component is a registry when it looks like a host (distribution/reference
    // splitDockerDomain).
    let mut parts: Vec<&str> = repo.split('/').collect();
    if parts.len() > 1 {
        let first = parts[0];
        if first.contains(['.', ':']) || first == "localhost" || first.to_lowercase() != first {
            if !domain_ok(first) {
                return None;
            }
            parts.remove(0);
        }
    }
    if !parts.iter().all(|c| path_component_ok(c)) {
        return None;
    }
    Some((tag.unwrap_or("").to_string(), digest.is_some()))
}

/// `SetDefaults_Container`: `Always` for `:latest` (or no tag and no digest), else `IfNotPresent`.
pub fn default_pull_policy(image: &str) -> &'static str {
    match parse(image) {
        Some((tag, has_digest)) if tag == "latest" || (tag.is_empty() && !has_digest) => "Always",
        _ => "IfNotPresent",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_policy_follows_the_tag() {
        assert_eq!(default_pull_policy("nginx"), "Always");
        assert_eq!(default_pull_policy("nginx:latest"), "Always");
        assert_eq!(default_pull_policy("nginx:1.25"), "IfNotPresent");
        assert_eq!(
            default_pull_policy("registry.k8s.io/pause:3.9"),
            "IfNotPresent"
        );
        assert_eq!(default_pull_policy("localhost:5000/app"), "Always");
        assert_eq!(
            default_pull_policy(
                "nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            ),
            "IfNotPresent"
        );
        // Does not parse (upper case repository): no tag, so IfNotPresent.
        assert_eq!(default_pull_policy("Nginx"), "IfNotPresent");
        assert_eq!(default_pull_policy(""), "IfNotPresent");
    }
}
