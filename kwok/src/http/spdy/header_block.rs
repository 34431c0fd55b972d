//! SPDY/3 header blocks: the name/value pairs of a stream's SYN_STREAM, SYN_REPLY and HEADERS
//! frames, zlib-compressed with the protocol's preset dictionary, one compression context per
//! direction for the whole connection (each block ends on a sync flush, so a frame's bytes
//! decode alone once the frames before it have).

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// A block's pairs in the order sent; names are lowercase, a value holding several separated
/// by NUL (`headerValueSeparator`) is kept as one string.
pub type Headers = Vec<(String, String)>;

/// The value of a header, the first one where a name appears twice.
pub fn get<'a>(headers: &'a Headers, name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The header names SPDY/3's dictionary starts with (draft 3 §2.6.10.1), each written as a
/// 32-bit big-endian length and the word.
const DICTIONARY_WORDS: [&str; 65] = [
    "options",
    "head",
    "post",
    "put",
    "delete",
    "trace",
    "accept",
    "accept-charset",
    "accept-encoding",
    "accept-language",
    "accept-ranges",
    "age",
    "allow",
    "authorization",
    "cache-control",
    "connection",
    "content-base",
    "content-encoding",
    "content-language",
    "content-length",
    "content-location",
    "content-md5",
    "content-range",
    "content-type",
    "date",
    "etag",
    "expect",
    "expires",
    "from",
    "host",
    "if-match",
    "if-modified-since",
    "if-none-match",
    "if-range",
    "if-unmodified-since",
    "last-modified",
    "location",
    "max-forwards",
    "pragma",
    "proxy-authenticate",
    "proxy-authorization",
    "range",
    "referer",
    "retry-after",
    "server",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "user-agent",
    "vary",
    "via",
    "warning",
    "www-authenticate",
    "method",
    "get",
    "status",
    "200 OK",
    "version",
    "HTTP/1.1",
    "url",
    "public",
    "set-cookie",
    "keep-alive",
    "origin",
];

/// The text the dictionary ends with, as it is, after the words.
const DICTIONARY_TAIL: &str = concat!(
    "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505",
    "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 ",
    "Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 ",
    "Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, ",
    "Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,application/xml,",
    "application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdch",
    "charset=utf-8charset=iso-8859-1,utf-,*,enq=0.",
);

fn dictionary() -> Vec<u8> {
    let mut dict = Vec::with_capacity(1423);
    for word in DICTIONARY_WORDS {
        dict.extend_from_slice(&(word.len() as u32).to_be_bytes());
        dict.extend_from_slice(word.as_bytes());
    }
    dict.extend_from_slice(DICTIONARY_TAIL.as_bytes());
    dict
}

/// Why a header block could not be read.
#[derive(Debug, PartialEq, Eq)]
pub struct BlockError(pub String);

/// The sending side's context.
pub struct Encoder {
    zlib: Compress,
}

impl Encoder {
    pub fn new() -> Encoder {
        let mut zlib = Compress::new(Compression::default(), true);
        // A fresh context takes a dictionary; this cannot fail before the first byte.
        let _ = zlib.set_dictionary(&dictionary());
        Encoder { zlib }
    }

    /// One block, compressed and flushed.
    pub fn encode(&mut self, headers: &[(&str, &str)]) -> Result<Vec<u8>, BlockError> {
        let mut plain = Vec::new();
        plain.extend_from_slice(&(headers.len() as u32).to_be_bytes());
        for (name, value) in headers {
            for part in [name.to_ascii_lowercase().as_str(), value] {
                plain.extend_from_slice(&(part.len() as u32).to_be_bytes());
                plain.extend_from_slice(part.as_bytes());
            }
        }
        let mut out = Vec::with_capacity(plain.len() + 128);
        let start = self.zlib.total_in();
        loop {
            let consumed = (self.zlib.total_in() - start) as usize;
            self.zlib
                .compress_vec(&plain[consumed..], &mut out, FlushCompress::Sync)
                .map_err(|e| BlockError(format!("header block: {e}")))?;
            // A sync flush is complete once it has taken everything and left room to spare.
            if (self.zlib.total_in() - start) as usize == plain.len() && out.len() < out.capacity()
            {
                return Ok(out);
            }
            out.reserve(out.capacity().max(256));
        }
    }
}

impl Default for Encoder {
    fn default() -> Encoder {
        Encoder::new()
    }
}

/// The receiving side's context.
pub struct Decoder {
    zlib: Decompress,
}

/// More than any client sends in one block: a bound on what a peer can make the server inflate.
const MAX_BLOCK: usize = 1 << 20;

impl Decoder {
    pub fn new() -> Decoder {
        Decoder {
            zlib: Decompress::new(true),
        }
    }

    /// One block's pairs from its compressed bytes.
    pub fn decode(&mut self, compressed: &[u8]) -> Result<Headers, BlockError> {
        let plain = self.inflate(compressed)?;
        parse(&plain)
    }

    fn inflate(&mut self, compressed: &[u8]) -> Result<Vec<u8>, BlockError> {
        let mut out = Vec::with_capacity(compressed.len() * 4 + 64);
        let start = self.zlib.total_in();
        loop {
            let consumed = (self.zlib.total_in() - start) as usize;
            let before = (consumed, out.len());
            match self
                .zlib
                .decompress_vec(&compressed[consumed..], &mut out, FlushDecompress::Sync)
            {
                Ok(Status::StreamEnd) => return Ok(out),
                Ok(_) => {}
                Err(e) if e.needs_dictionary().is_some() => {
                    self.zlib
                        .set_dictionary(&dictionary())
                        .map_err(|e| BlockError(format!("header dictionary: {e}")))?;
                    continue;
                }
                Err(e) => return Err(BlockError(format!("header block: {e}"))),
            }
            let consumed = (self.zlib.total_in() - start) as usize;
            if out.len() < out.capacity() {
                if consumed == compressed.len() {
                    return Ok(out);
                }
                if before == (consumed, out.len()) {
                    return Err(BlockError("header block: corrupt stream".into()));
                }
            } else {
                if out.len() >= MAX_BLOCK {
                    return Err(BlockError("header block too large".into()));
                }
                out.reserve(out.len().max(256));
            }
        }
    }
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new()
    }
}

/// `parseHeaderValueBlock`: a count, then length-prefixed names and values.
fn parse(plain: &[u8]) -> Result<Headers, BlockError> {
    let mut cursor = Cursor(plain);
    let count = cursor.word()?;
    let mut headers = Vec::new();
    for _ in 0..count {
        let name = cursor.string()?.to_ascii_lowercase();
        let value = cursor.string()?;
        headers.push((name, value));
    }
    Ok(headers)
}

/// What is left of a decompressed block.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], BlockError> {
        if self.0.len() < n {
            return Err(BlockError("truncated header block".into()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn word(&mut self) -> Result<u32, BlockError> {
        let bytes = self.take(4)?;
        Ok(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn string(&mut self) -> Result<String, BlockError> {
        let len = self.word()? as usize;
        Ok(String::from_utf8_lossy(self.take(len)?).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dictionary_is_the_one_zlib_streams_name() {
        // A zlib stream names its preset dictionary by Adler-32; Go's SPDY framer's is
        // 0xe3c6a7c2, 1,423 bytes.
        let dict = dictionary();
        assert_eq!(dict.len(), 1423);
        let mut sender = Compress::new(Compression::default(), true);
        let id = sender.set_dictionary(&dict).unwrap();
        assert_eq!(id, 0xe3c6_a7c2);
    }

    #[test]
    fn blocks_round_trip_through_one_context_per_direction() {
        let mut encoder = Encoder::new();
        let mut decoder = Decoder::new();
        for round in 0..3 {
            let port = format!("{}", 8080 + round);
            let sent = [
                ("streamType", "data"),
                ("port", port.as_str()),
                ("requestID", "0"),
            ];
            let block = encoder.encode(&sent).unwrap();
            let got = decoder.decode(&block).unwrap();
            assert_eq!(
                got,
                vec![
                    ("streamtype".to_string(), "data".to_string()),
                    ("port".to_string(), port.clone()),
                    ("requestid".to_string(), "0".to_string()),
                ]
            );
            assert_eq!(get(&got, "StreamType"), Some("data"));
        }
    }

    #[test]
    fn a_block_compressed_by_plain_zlib_with_the_dictionary_reads() {
        // Another implementation's context: the same dictionary, its own flush points.
        let mut zlib = Compress::new(Compression::best(), true);
        zlib.set_dictionary(&dictionary()).unwrap();
        let mut plain = Vec::new();
        plain.extend_from_slice(&1u32.to_be_bytes());
        for part in ["streamtype", "error"] {
            plain.extend_from_slice(&(part.len() as u32).to_be_bytes());
            plain.extend_from_slice(part.as_bytes());
        }
        let mut out = Vec::with_capacity(256);
        zlib.compress_vec(&plain, &mut out, FlushCompress::Sync)
            .unwrap();
        let got = Decoder::new().decode(&out).unwrap();
        assert_eq!(got, vec![("streamtype".into(), "error".into())]);
    }

    #[test]
    fn garbage_and_truncation_are_errors_not_panics() {
        assert!(Decoder::new().decode(b"not zlib at all").is_err());
        assert!(parse(&[0, 0, 0, 2, 0, 0, 0, 9, b'a']).is_err());
        assert!(parse(&[0, 0]).is_err());
    }
}
