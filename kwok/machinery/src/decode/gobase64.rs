//! `[]byte` fields (Secret data, ConfigMap binaryData) arrive base64-encoded. Go's
//! `encoding/base64.StdEncoding.Decode` decides what is accepted (it skips `\r` and `\n`) and
//! reports `illegal base64 data at input byte N`; this mirrors its `decodeQuantum` loop.

fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

fn corrupt(at: usize) -> String {
    format!("illegal base64 data at input byte {at}")
}

/// Decode standard, padded base64 the way Go does.
pub fn decode(src: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    loop {
        let mut dbuf = [0u8; 4];
        let mut dlen = 4;
        let mut j = 0;
        let mut done = false;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                // Padding is mandatory for StdEncoding.
                return Err(corrupt(si - j));
            }
            let c = src[si];
            si += 1;
            if let Some(v) = sextet(c) {
                dbuf[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(corrupt(si - 1));
            }
            // Padding: only after two or three data characters.
            match j {
                0 | 1 => return Err(corrupt(si - 1)),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(corrupt(src.len()));
                    }
                    if src[si] != b'=' {
                        return Err(corrupt(si - 1));
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                return Err(corrupt(si));
            }
            dlen = j;
            done = true;
            break;
        }
        let val = (u32::from(dbuf[0]) << 18)
            | (u32::from(dbuf[1]) << 12)
            | (u32::from(dbuf[2]) << 6)
            | u32::from(dbuf[3]);
        let bytes = [(val >> 16) as u8, (val >> 8) as u8, val as u8];
        out.extend_from_slice(&bytes[..dlen - 1]);
        if done {
            return Ok(out);
        }
    }
}

/// Re-encode as Go's `json.Marshal` writes a `[]byte`.
pub fn encode(data: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_go() {
        assert_eq!(decode(b"aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode(b"aGVs\nbG8=").unwrap(), b"hello");
        assert_eq!(decode(b"").unwrap(), b"");
        // Offsets from Go's CorruptInputError.
        assert_eq!(
            decode(b"hello!").unwrap_err(),
            "illegal base64 data at input byte 5"
        );
        assert_eq!(
            decode(b"abc").unwrap_err(),
            "illegal base64 data at input byte 0"
        );
        assert_eq!(
            decode(b"abcde").unwrap_err(),
            "illegal base64 data at input byte 4"
        );
        assert_eq!(
            decode(b"a===").unwrap_err(),
            "illegal base64 data at input byte 1"
        );
        assert_eq!(
            decode(b"ab=").unwrap_err(),
            "illegal base64 data at input byte 3"
        );
    }
}
