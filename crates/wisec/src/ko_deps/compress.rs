//! Kernel modules as kernels ship them: plain ELF, or compressed with
//! gzip, xz or zstd (`.ko.gz`, `.ko.xz`, `.ko.zst`, kmod's
//! `CONFIG_MODULE_COMPRESS_*`). The format is told by the content's magic
//! number, never by the file name.

use super::Error;
use std::io::Read;

/// How a file was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (RFC 1952).
    Gzip,
    /// xz (the .xz container of LZMA2).
    Xz,
    /// Zstandard (RFC 8878).
    Zstd,
    /// The legacy `.lzma` ("LZMA alone") format; only kernel images use it.
    Lzma,
}

impl Compression {
    /// Its usual name.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
            Compression::Lzma => "lzma",
        }
    }
}

/// The ELF magic number.
pub const ELF_MAGIC: &[u8] = b"\x7fELF";
const GZIP_MAGIC: &[u8] = b"\x1f\x8b";
const XZ_MAGIC: &[u8] = b"\xfd7zXZ\x00";
const ZSTD_MAGIC: &[u8] = b"\x28\xb5\x2f\xfd";

/// Formats recognised by their magic number but not decompressed here.
const UNSUPPORTED: &[(&[u8], &str)] = &[
    (b"BZh", "bzip2"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"\x02\x21\x4c\x18", "lz4 (legacy)"),
    (b"\x89LZO\x00\r\n\x1a\n", "lzop"),
];

/// What the first bytes of `data` say it is.
pub fn detect(data: &[u8]) -> Result<Compression, Error> {
    if data.is_empty() {
        return Err(Error::Empty);
    }
    if data.starts_with(ELF_MAGIC) {
        return Ok(Compression::None);
    }
    for (magic, c) in [
        (GZIP_MAGIC, Compression::Gzip),
        (XZ_MAGIC, Compression::Xz),
        (ZSTD_MAGIC, Compression::Zstd),
    ] {
        if data.starts_with(magic) {
            return Ok(c);
        }
    }
    for (magic, name) in UNSUPPORTED {
        if data.starts_with(magic) {
            return Err(Error::UnsupportedCompression(name));
        }
    }
    Err(Error::NotElf(first_bytes(data)))
}

/// The first bytes of `data` in hex, for error messages.
pub fn first_bytes(data: &[u8]) -> String {
    data.iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Decompresses one stream of `format` from `data`, refusing to produce
/// more than `limit` bytes. Bytes after the end of the stream are ignored
/// (kernel images append the uncompressed size; signatures follow some
/// modules).
pub fn decompress(data: &[u8], format: Compression, limit: u64) -> Result<Vec<u8>, Error> {
    let fail = |detail: String| Error::Decompress {
        format: format.name(),
        detail,
    };
    let reader: Box<dyn Read + '_> = match format {
        Compression::None => return Ok(data.to_vec()),
        Compression::Gzip => Box::new(flate2::read::GzDecoder::new(data)),
        Compression::Xz => Box::new(liblzma::read::XzDecoder::new(data)),
        Compression::Lzma => {
            let stream = liblzma::stream::Stream::new_lzma_decoder(u64::MAX)
                .map_err(|e| fail(e.to_string()))?;
            Box::new(liblzma::read::XzDecoder::new_stream(data, stream))
        }
        Compression::Zstd => Box::new(
            ruzstd::decoding::StreamingDecoder::new(data).map_err(|e| fail(e.to_string()))?,
        ),
    };
    let mut out = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| fail(e.to_string()))?;
    if out.len() as u64 > limit {
        return Err(Error::TooLarge {
            format: format.name(),
            limit,
        });
    }
    if out.is_empty() {
        return Err(fail("the stream holds no data".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn xz(data: &[u8]) -> Vec<u8> {
        let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn formats_are_told_by_magic() {
        assert_eq!(detect(b"\x7fELF\x02\x01").unwrap(), Compression::None);
        assert_eq!(detect(&gzip(b"x")).unwrap(), Compression::Gzip);
        assert_eq!(detect(&xz(b"x")).unwrap(), Compression::Xz);
        assert_eq!(detect(b"\x28\xb5\x2f\xfd\x00").unwrap(), Compression::Zstd);
        assert!(matches!(
            detect(b"BZh91AY&SY"),
            Err(Error::UnsupportedCompression("bzip2"))
        ));
        assert!(matches!(detect(b""), Err(Error::Empty)));
        match detect(b"#!/bin/sh\n") {
            Err(Error::NotElf(s)) => assert_eq!(s, "23 21 2f 62 69 6e 2f 73"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn round_trips_and_trailing_bytes() {
        let body: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        for (c, mut packed) in [
            (Compression::Gzip, gzip(&body)),
            (Compression::Xz, xz(&body)),
        ] {
            packed.extend_from_slice(&[0xb4, 0xa7, 0xed, 0x03]);
            assert_eq!(decompress(&packed, c, 1 << 20).unwrap(), body, "{c:?}");
        }
    }

    #[test]
    fn truncation_and_limits_are_errors() {
        let body = vec![0x55u8; 100_000];
        let packed = xz(&body);
        for cut in [1, 6, 12, packed.len() / 2, packed.len() - 1] {
            assert!(
                decompress(&packed[..cut], Compression::Xz, 1 << 20).is_err(),
                "cut at {cut}"
            );
        }
        assert!(matches!(
            decompress(&packed, Compression::Xz, 1000),
            Err(Error::TooLarge { .. })
        ));
        let g = gzip(&body);
        assert!(decompress(&g[..g.len() - 9], Compression::Gzip, 1 << 20).is_err());
    }
}
