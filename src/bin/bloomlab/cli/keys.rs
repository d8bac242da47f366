//! Reading keys and secret keys, bounded: a key line is at most [`MAX_KEY_LEN`] bytes and a key
//! file at most [`KEY_FILE_MAX`] bytes, so no input (`/dev/zero`, a file without newlines) can
//! make a command grow without bound.

use bloomlab::{Error, Param, Result};
use std::io::{BufRead, Read};
use std::path::Path;

/// The longest key line accepted, in bytes (without its line ending): 64 KiB.
pub const MAX_KEY_LEN: usize = 64 * 1024;

/// A key file: 32 hex digits and an optional line ending (`\n` or `\r\n`).
pub const KEY_FILE_MAX: u64 = 34;

fn io_err(name: &str, e: &std::io::Error) -> Error {
    Error::Io {
        path: name.to_string(),
        message: e.to_string(),
    }
}

/// Call `f` with every non-empty line of `r` (without its line ending) and its 1-based line
/// number. Returns how many lines were passed; stops at the first error `f` returns.
///
/// # Errors
/// [`Error::Io`]; [`Error::InvalidParameter`] about `param` for a line longer than
/// [`MAX_KEY_LEN`], naming the line.
pub fn for_each_line(
    r: &mut dyn BufRead,
    name: &str,
    param: &'static str,
    mut f: impl FnMut(&[u8], u64) -> Result<()>,
) -> Result<u64> {
    let mut line = Vec::new();
    let (mut count, mut number) = (0u64, 0u64);
    loop {
        line.clear();
        // Room for the longest key and a "\r\n": a longer line is refused without reading more.
        let n = (&mut *r)
            .take(MAX_KEY_LEN as u64 + 2)
            .read_until(b'\n', &mut line)
            .map_err(|e| io_err(name, &e))?;
        if n == 0 {
            return Ok(count);
        }
        number += 1;
        let mut key = line.as_slice();
        key = key.strip_suffix(b"\n").unwrap_or(key);
        key = key.strip_suffix(b"\r").unwrap_or(key);
        if key.len() > MAX_KEY_LEN {
            return Err(Error::invalid(
                Param::Other(param),
                format!("{name}: line {number} is longer than {MAX_KEY_LEN} bytes"),
                "lines (keys) of at most 65,536 bytes",
            ));
        }
        if !key.is_empty() {
            f(key, number)?;
            count += 1;
        }
    }
}

/// Read a 128-bit key written as exactly 32 hex digits, optionally followed by a line ending
/// (what `openssl rand -hex 16 > key.hex` writes). Anything else is refused without reading
/// more than [`KEY_FILE_MAX`] + 1 bytes; so is the all-zero key (it is no secret: a zero SipHash
/// key is what an unkeyed file stores in the clear).
///
/// # Errors
/// [`Error::Io`] or [`Error::InvalidParameter`] naming `key-file`.
pub fn read_key_file(path: &Path) -> Result<[u8; 16]> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| Error::opening(&name, &e))?;
    let mut text = Vec::with_capacity(KEY_FILE_MAX as usize + 1);
    f.take(KEY_FILE_MAX + 1)
        .read_to_end(&mut text)
        .map_err(|e| io_err(&name, &e))?;
    let bad = || {
        Error::invalid(
            Param::Other("key-file"),
            path.display(),
            "a file holding exactly 32 hex digits (a 128-bit key) and an optional newline, e.g. from `openssl rand -hex 16`",
        )
    };
    let mut hex = text.as_slice();
    hex = hex.strip_suffix(b"\n").unwrap_or(hex);
    hex = hex.strip_suffix(b"\r").unwrap_or(hex);
    // `u8::from_str_radix` would take "+f": every byte is checked to be a hex digit first.
    if hex.len() != 32 || !hex.iter().all(u8::is_ascii_hexdigit) {
        return Err(bad());
    }
    let digit = |c: u8| (c as char).to_digit(16).map_or(0, |d| d as u8);
    let mut key = [0u8; 16];
    for (i, b) in key.iter_mut().enumerate() {
        *b = digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1]);
    }
    if key == [0; 16] {
        return Err(Error::invalid(
            Param::Other("key-file"),
            path.display(),
            "a key that is not all zero (the zero key is no secret; make one with `openssl rand -hex 16`)",
        ));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Result<Vec<(Vec<u8>, u64)>> {
        let mut v = Vec::new();
        for_each_line(&mut &input[..], "mem", "keys", |k, n| {
            v.push((k.to_vec(), n));
            Ok(())
        })?;
        Ok(v)
    }

    #[test]
    fn lines_are_bounded_and_numbered() {
        let got = lines(b"a\r\n\nb\n").unwrap();
        assert_eq!(got, vec![(b"a".to_vec(), 1), (b"b".to_vec(), 3)]);
        let mut long = vec![b'x'; MAX_KEY_LEN];
        long.extend_from_slice(b"\r\n");
        assert_eq!(lines(&long).unwrap()[0].0.len(), MAX_KEY_LEN);
        let mut too_long = b"ok\n".to_vec();
        too_long.extend(std::iter::repeat_n(b'x', MAX_KEY_LEN + 1));
        let e = lines(&too_long).unwrap_err().to_string();
        assert!(e.contains("mem: line 2 is longer than 65536 bytes"), "{e}");
    }
}
