//! Sprig's regular expressions, encodings, digests, versions and
//! reflection. Regular expressions are RE2's syntax, which the `regex`
//! crate shares, compiled under a size limit.

use sha2::Digest;

use super::super::{Call, Functions};
use super::semver::{self, Version};
use super::{Value, exact, fits, go_kind, go_type, string};

/// The most memory one compiled regular expression may take.
const REGEX_SIZE: usize = 1 << 20;

pub(super) fn add(f: &mut Functions) {
    f.insert("regexMatch", |_, a| {
        exact(a, 2)?;
        let (pattern, s) = (string(&a[0])?, string(&a[1])?);
        // Sprig swallows a bad pattern here and answers false.
        Ok(Value::Bool(compile(pattern).is_ok_and(|r| r.is_match(s))))
    });
    f.insert("regexFind", |_, a| {
        exact(a, 2)?;
        let (pattern, s) = (string(&a[0])?, string(&a[1])?);
        let found = compile(pattern)?.find(s).map_or("", |m| m.as_str());
        Ok(Value::String(found.to_string()))
    });
    f.insert("regexReplaceAll", regex_replace_all);
    f.insert("b64enc", |c, a| {
        exact(a, 1)?;
        let s = string(&a[0])?;
        fits(c, s.len().div_ceil(3).saturating_mul(4))?;
        Ok(Value::String(base64_encode(s.as_bytes())))
    });
    f.insert("b64dec", |_, a| {
        exact(a, 1)?;
        // Sprig returns the decoder's error as the text.
        Ok(Value::String(match base64_decode(string(&a[0])?) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => e,
        }))
    });
    f.insert("sha256sum", |_, a| {
        exact(a, 1)?;
        Ok(Value::String(hex::encode(sha2::Sha256::digest(string(
            &a[0],
        )?))))
    });
    f.insert("sha1sum", |_, a| {
        exact(a, 1)?;
        Ok(Value::String(hex::encode(sha1(string(&a[0])?.as_bytes()))))
    });
    f.insert("semver", |_, a| {
        exact(a, 1)?;
        let v = Version::parse(string(&a[0])?)?;
        Ok(Value::Version(std::sync::Arc::new(v)))
    });
    f.insert("semverCompare", |_, a| {
        exact(a, 2)?;
        Ok(Value::Bool(semver::matches(
            string(&a[0])?,
            string(&a[1])?,
        )?))
    });
    f.insert("typeOf", |_, a| {
        exact(a, 1)?;
        Ok(Value::String(go_type(&a[0]).into()))
    });
    f.insert("kindOf", |_, a| {
        exact(a, 1)?;
        Ok(Value::String(go_kind(&a[0]).into()))
    });
    f.insert("kindIs", |_, a| {
        exact(a, 2)?;
        Ok(Value::Bool(string(&a[0])? == go_kind(&a[1])))
    });
}

/// A pattern compiled under [`REGEX_SIZE`], its error worded as Go's
/// `regexp.MustCompile` panics.
fn compile(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE)
        .dfa_size_limit(REGEX_SIZE)
        .build()
        .map_err(|e| {
            let why = e.to_string();
            let last = why.lines().last().unwrap_or_default().trim().to_string();
            format!("regexp: Compile(`{pattern}`): error parsing regexp: {last}")
        })
}

/// `regexReplaceAll REGEX SRC REPL`, `$1` and `${name}` expanded, the
/// result grown within the output limit.
fn regex_replace_all(call: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 3)?;
    let (pattern, s, replacement) = (string(&a[0])?, string(&a[1])?, string(&a[2])?);
    let re = compile(pattern)?;
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(s) {
        let Some(whole) = caps.get(0) else { continue };
        out.push_str(&s[last..whole.start()]);
        caps.expand(replacement, &mut out);
        last = whole.end();
        fits(call, out.len().saturating_add(s.len() - last))?;
    }
    out.push_str(&s[last..]);
    Ok(Value::String(out))
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding, as Go's `base64.StdEncoding`.
fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Go's strict standard base64 decoding (line breaks skipped, padding
/// required), its error text Go's.
fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let illegal = |at: usize| format!("illegal base64 data at input byte {at}");
    let symbols: Vec<(usize, u8)> = text
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b != b'\n' && *b != b'\r')
        .collect();
    let mut out = Vec::with_capacity(symbols.len() / 4 * 3);
    for (q, quad) in symbols.chunks(4).enumerate() {
        let mut n = 0u32;
        let mut data = 0;
        for (j, (at, b)) in quad.iter().enumerate() {
            if *b == b'=' {
                // Padding may only close the last quantum, after at least
                // two symbols, and fill it.
                let last = (q + 1) * 4 >= symbols.len();
                if j < 2 || !last || quad.len() != 4 || quad[j..].iter().any(|(_, b)| *b != b'=') {
                    return Err(illegal(*at));
                }
                break;
            }
            let Some(v) = BASE64.iter().position(|c| c == b) else {
                return Err(illegal(*at));
            };
            n |= (v as u32) << (18 - 6 * j);
            data = j + 1;
        }
        if quad.len() < 4 && quad.iter().all(|(_, b)| *b != b'=') {
            return Err(illegal(text.len()));
        }
        for i in 0..data.saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Ok(out)
}

/// SHA-1 (FIPS 180-4) of `bytes`: `sha1sum` is for naming, not security.
fn sha1(bytes: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let mut message = bytes.to_vec();
    let bits = (bytes.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bits.to_be_bytes());
    for block in message.chunks(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A827999),
                20..=39 => (b ^ c ^ d, 0x6ED9EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, word) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&word.to_be_bytes());
    }
    out
}
