//! Bounds-checked reads shared by the views. Every helper returns `None`
//! instead of panicking when the buffer is too short.

pub(crate) fn array<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    let end = off.checked_add(N)?;
    b.get(off..end)?.try_into().ok()
}

pub(crate) fn u8_at(b: &[u8], off: usize) -> Option<u8> {
    b.get(off).copied()
}

pub(crate) fn u16_le(b: &[u8], off: usize) -> Option<u16> {
    array::<2>(b, off).map(u16::from_le_bytes)
}

pub(crate) fn u16_be(b: &[u8], off: usize) -> Option<u16> {
    array::<2>(b, off).map(u16::from_be_bytes)
}

pub(crate) fn u32_le(b: &[u8], off: usize) -> Option<u32> {
    array::<4>(b, off).map(u32::from_le_bytes)
}

pub(crate) fn u32_be(b: &[u8], off: usize) -> Option<u32> {
    array::<4>(b, off).map(u32::from_be_bytes)
}

pub(crate) fn u64_le(b: &[u8], off: usize) -> Option<u64> {
    array::<8>(b, off).map(u64::from_le_bytes)
}

pub(crate) fn u64_be(b: &[u8], off: usize) -> Option<u64> {
    array::<8>(b, off).map(u64::from_be_bytes)
}

/// Copies `src` into `buf[off..]`, failing with `Truncated` if it does not
/// fit. Returns the offset just past the copied bytes.
pub(crate) fn put(buf: &mut [u8], off: usize, src: &[u8]) -> crate::Result<usize> {
    let end = off.checked_add(src.len()).ok_or(crate::Error::Truncated)?;
    buf.get_mut(off..end)
        .ok_or(crate::Error::Truncated)?
        .copy_from_slice(src);
    Ok(end)
}
