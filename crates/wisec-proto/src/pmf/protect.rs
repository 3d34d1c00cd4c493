//! The keys of one protected association and their counters.
//!
//! [`Pairwise`] holds the TK of the PTK (the pairwise cipher, CCMP or
//! GCMP), the transmit packet number shared by data and individually
//! addressed robust management frames (12.5.3.3.2: one PN per PTKSA), and
//! the receive counters: one per TID and one for management frames
//! (12.5.3.4.4). [`GroupTx`] and [`GroupRx`] hold an IGTK with its IPN
//! (12.5.4.3.2 on the sender, 12.5.4.5 on the receiver).
//!
//! Counters advance only after the MIC verified: the receive paths take
//! the [`wisec_crypto::Unprotected`] proof into the replay counter, so a
//! forged frame with a large PN moves nothing.

use super::{suite_of, Error};
use wisec_crypto::replay::{ReplayCounter, ReplayCounters, ReplaySlot};
use wisec_crypto::suite::{BipKey, DataKey, Suite};
use wisec_crypto::FrameProtector;
use wisec_wire::element::CipherSuite;
use wisec_wire::mgmt::MgmtFrame;
use wisec_wire::security::PN_MAX;
use zeroize::Zeroize;

/// The pairwise key of an association (the TK of its PTK).
pub struct Pairwise {
    key: DataKey,
    tx_pn: u64,
    rx: ReplayCounters,
}

impl core::fmt::Debug for Pairwise {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pairwise")
            .field("suite", &self.key.suite())
            .field("tx_pn", &self.tx_pn)
            .finish_non_exhaustive()
    }
}

impl Pairwise {
    /// The key `tk` of the pairwise cipher `cipher` (CCMP-128/256,
    /// GCMP-128/256: the ciphers that protect management frames). Packet
    /// numbers start at 1 and every receive counter accepts any first PN.
    pub fn new(cipher: CipherSuite, tk: &[u8]) -> Result<Pairwise, Error> {
        let suite = suite_of(cipher)
            .filter(|s| s.protects_mgmt() && s.is_data())
            .ok_or(Error::InvalidKey)?;
        Ok(Pairwise {
            key: DataKey::new(suite, tk).map_err(|_| Error::InvalidKey)?,
            tx_pn: 0,
            rx: ReplayCounters::new(),
        })
    }

    /// The suite.
    pub fn suite(&self) -> Suite {
        self.key.suite()
    }

    /// The last packet number sent.
    pub fn tx_pn(&self) -> u64 {
        self.tx_pn
    }

    /// Bytes protection adds to a frame.
    pub fn overhead(&self) -> usize {
        self.key.overhead().total()
    }

    /// The receive counter of individually addressed robust management
    /// frames.
    pub fn mgmt_counter(&self) -> &ReplayCounter {
        self.rx.counter(ReplaySlot::Management)
    }

    fn next_pn(&mut self) -> Result<u64, Error> {
        // 12.5.3.3.2: the PN is incremented for each MPDU and never
        // repeats under one TK.
        if self.tx_pn >= PN_MAX {
            return Err(Error::PnExhausted);
        }
        self.tx_pn += 1;
        Ok(self.tx_pn)
    }

    /// Protects the plaintext MPDU `buf[..len]` (a data frame or an
    /// individually addressed management frame) in place with the next
    /// PN; `buf` needs [`Pairwise::overhead`] spare bytes. Returns the new
    /// length.
    pub fn protect(&mut self, buf: &mut [u8], len: usize) -> Result<usize, Error> {
        let f = buf.get(..len).ok_or(Error::BufferTooSmall)?;
        let h = wisec_wire::mac_header::Header::new_checked(f)?;
        if h.addr1().is_group() {
            // 12.6.19: group-addressed management frames use BIP; group
            // data frames use the GTK, which is not this key.
            return Err(Error::UnexpectedFrame);
        }
        let pn = self.next_pn()?;
        Ok(self.key.protect_in_place(buf, len, pn, 0)?)
    }

    /// Verifies, decrypts and replay-checks the protected MPDU `buf` in
    /// place; returns the plaintext length. Management frames use the
    /// management counter (12.5.3.4.4), data frames the counter of their
    /// TID. On failure `buf` is left as it came (no plaintext) and no
    /// counter moves.
    pub fn unprotect(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        let h = wisec_wire::mac_header::Header::new_checked(&*buf)?;
        let fc = h.frame_control();
        let slot = if fc.is_mgmt() {
            ReplaySlot::Management
        } else {
            ReplaySlot::Tid(h.tid())
        };
        // A cheap check before the MIC: the PN is in the clear.
        let sec = wisec_wire::security::CcmpHeader::parse(h.payload())?;
        if !self.rx.is_fresh(slot, sec.pn) {
            return Err(Error::Replayed);
        }
        let v = self.key.unprotect_in_place(buf)?;
        if self.rx.accept(slot, &v).is_err() {
            buf.zeroize();
            return Err(Error::Replayed);
        }
        Ok(v.len())
    }
}

/// The sender's IGTK (the AP): protects group-addressed robust
/// management frames with BIP.
pub struct GroupTx {
    key: BipKey,
    key_id: u8,
    ipn: u64,
}

impl core::fmt::Debug for GroupTx {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GroupTx")
            .field("key_id", &self.key_id)
            .field("ipn", &self.ipn)
            .finish_non_exhaustive()
    }
}

fn bip(cipher: CipherSuite, key: &[u8], key_id: u16) -> Result<(BipKey, u8), Error> {
    let suite = suite_of(cipher)
        .filter(|s| s.is_bip())
        .ok_or(Error::InvalidKey)?;
    // 12.7.2: the IGTK's Key ID is 4 or 5.
    let id = match key_id {
        4 | 5 => key_id as u8,
        _ => return Err(Error::InvalidKey),
    };
    Ok((BipKey::new(suite, key).map_err(|_| Error::InvalidKey)?, id))
}

impl GroupTx {
    /// The IGTK `key` of the group management cipher `cipher` under
    /// `key_id` (4 or 5); `ipn` is the last IPN used (the next frame
    /// carries `ipn + 1`), the value the IGTK KDE announces.
    pub fn new(cipher: CipherSuite, key: &[u8], key_id: u16, ipn: u64) -> Result<GroupTx, Error> {
        let (key, key_id) = bip(cipher, key, key_id)?;
        Ok(GroupTx { key, key_id, ipn })
    }

    /// The Key ID.
    pub fn key_id(&self) -> u8 {
        self.key_id
    }

    /// The last IPN used.
    pub fn ipn(&self) -> u64 {
        self.ipn
    }

    /// Bytes the MME adds.
    pub fn overhead(&self) -> usize {
        self.key.overhead().total()
    }

    /// Appends an MME to the group-addressed management frame
    /// `buf[..len]` (12.5.4.3). Returns the new length.
    pub fn protect(&mut self, buf: &mut [u8], len: usize) -> Result<usize, Error> {
        if self.ipn >= PN_MAX {
            return Err(Error::PnExhausted);
        }
        let n = self
            .key
            .protect_in_place(buf, len, self.ipn + 1, self.key_id)?;
        self.ipn += 1;
        Ok(n)
    }
}

/// A receiver's IGTK (a STA): verifies the MME of group-addressed robust
/// management frames and keeps the IPN replay counter.
pub struct GroupRx {
    key: BipKey,
    key_id: u8,
    rx: ReplayCounter,
}

impl core::fmt::Debug for GroupRx {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GroupRx")
            .field("key_id", &self.key_id)
            .field("rx", &self.rx)
            .finish_non_exhaustive()
    }
}

impl GroupRx {
    /// The IGTK `key` under `key_id` (4 or 5) with the IPN of its KDE:
    /// only frames with a greater IPN are accepted.
    pub fn new(cipher: CipherSuite, key: &[u8], key_id: u16, ipn: u64) -> Result<GroupRx, Error> {
        let (key, key_id) = bip(cipher, key, key_id)?;
        Ok(GroupRx {
            key,
            key_id,
            rx: ReplayCounter::starting_after(ipn),
        })
    }

    /// The Key ID.
    pub fn key_id(&self) -> u8 {
        self.key_id
    }

    /// The highest IPN accepted.
    pub fn highest(&self) -> Option<u64> {
        self.rx.highest()
    }

    /// Verifies the MME that ends the group-addressed management frame
    /// `frame` and its IPN (12.5.4.5): a missing MME, another Key ID or a
    /// bad MIC is refused, and so is an IPN not greater than the last
    /// accepted one. Returns the frame length without the MME.
    pub fn verify(&mut self, frame: &[u8]) -> Result<usize, Error> {
        let f = MgmtFrame::new_checked(frame)?;
        let mme = f.mme().ok_or(Error::MissingMme)?;
        if mme.key_id() != u16::from(self.key_id) {
            return Err(Error::MissingMme);
        }
        if !self.rx.is_fresh(mme.ipn()) {
            return Err(Error::Replayed);
        }
        let v = self.key.verify(frame).map_err(|e| match e {
            wisec_crypto::Error::Integrity => Error::Integrity,
            _ => Error::MissingMme,
        })?;
        self.rx.accept(&v).map_err(|_| Error::Replayed)?;
        Ok(v.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wisec_wire::frame_control::{FrameControl, FrameType};
    use wisec_wire::mgmt::MgmtSubtype;
    use wisec_wire::{HeaderRepr, MacAddr};

    fn deauth(a1: MacAddr, buf: &mut [u8]) -> usize {
        let h = HeaderRepr {
            frame_control: FrameControl::new(
                FrameType::Management,
                MgmtSubtype::Deauthentication.to_u8(),
            ),
            duration: 0,
            addr1: a1,
            addr2: Some(MacAddr([2, 0, 0, 0, 0, 1])),
            addr3: Some(MacAddr([2, 0, 0, 0, 0, 1])),
            sequence_control: Some(0x10),
            addr4: None,
            qos_control: None,
            ht_control: None,
        };
        let n = h.emit(buf).unwrap();
        buf[n..n + 2].copy_from_slice(&3u16.to_le_bytes());
        n + 2
    }

    #[test]
    fn pairwise_round_trip_replay_and_tamper() {
        let tk = [0x11u8; 16];
        let mut tx = Pairwise::new(CipherSuite::CCMP_128, &tk).unwrap();
        let mut rx = Pairwise::new(CipherSuite::CCMP_128, &tk).unwrap();
        let mut buf = [0u8; 128];
        let n = deauth(MacAddr([2, 0, 0, 0, 1, 1]), &mut buf);
        let plain = buf[..n].to_vec();
        let m = tx.protect(&mut buf, n).unwrap();
        assert_eq!(m, n + 16);
        let protected = buf[..m].to_vec();
        assert_ne!(&protected[24 + 8..m - 8], &plain[24..]);
        let mut b = protected.clone();
        assert_eq!(rx.unprotect(&mut b), Ok(n));
        assert_eq!(&b[..n], &plain[..]);
        // The same frame again is a replay.
        let mut b = protected.clone();
        assert_eq!(rx.unprotect(&mut b), Err(Error::Replayed));
        // A flipped body octet or header field (A3, in the AAD) fails.
        let next = {
            let mut b = [0u8; 128];
            b[..n].copy_from_slice(&plain);
            let m = tx.protect(&mut b, n).unwrap();
            b[..m].to_vec()
        };
        for i in [m - 1, 24 + 8, 16] {
            let mut b = next.clone();
            b[i] ^= 1;
            let sent = b.clone();
            assert_eq!(rx.unprotect(&mut b), Err(Error::Integrity), "byte {i}");
            assert_eq!(b, sent, "restored, no plaintext left");
        }
        // The failures moved nothing: the genuine frame still passes.
        let mut b = next.clone();
        assert_eq!(rx.unprotect(&mut b), Ok(n));
        // Group-addressed frames are not for the pairwise key.
        let k = deauth(MacAddr::BROADCAST, &mut buf);
        assert_eq!(tx.protect(&mut buf, k), Err(Error::UnexpectedFrame));
        assert!(Pairwise::new(CipherSuite::BIP_CMAC_128, &tk).is_err());
        assert!(Pairwise::new(CipherSuite::CCMP_128, &[0; 15]).is_err());
    }

    #[test]
    fn bip_round_trip_replay_and_tamper() {
        let igtk = [0x22u8; 16];
        let mut tx = GroupTx::new(CipherSuite::BIP_CMAC_128, &igtk, 4, 7).unwrap();
        let mut rx = GroupRx::new(CipherSuite::BIP_CMAC_128, &igtk, 4, 7).unwrap();
        let mut buf = [0u8; 128];
        let n = deauth(MacAddr::BROADCAST, &mut buf);
        let m = tx.protect(&mut buf, n).unwrap();
        assert_eq!(m, n + 18);
        assert_eq!(tx.ipn(), 8);
        let f = buf[..m].to_vec();
        for i in [n - 1, m - 1, 10, n + 4] {
            let mut b = f.clone();
            b[i] ^= 0x80;
            assert!(rx.verify(&b).is_err(), "byte {i}");
        }
        assert_eq!(rx.verify(&f), Ok(n));
        assert_eq!(rx.verify(&f), Err(Error::Replayed));
        assert_eq!(rx.verify(&f[..n]), Err(Error::MissingMme));
        // Another Key ID is refused before the MIC.
        let mut rx5 = GroupRx::new(CipherSuite::BIP_CMAC_128, &igtk, 5, 0).unwrap();
        assert_eq!(rx5.verify(&f), Err(Error::MissingMme));
        assert!(GroupTx::new(CipherSuite::BIP_CMAC_128, &igtk, 1, 0).is_err());
        // An IPN at or below the KDE's is a replay.
        let mut late = GroupRx::new(CipherSuite::BIP_CMAC_128, &igtk, 4, 8).unwrap();
        assert_eq!(late.verify(&f), Err(Error::Replayed));
    }
}
