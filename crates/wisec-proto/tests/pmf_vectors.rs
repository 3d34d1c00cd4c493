//! Known answers for the two protections PMF applies.
//!
//! - BIP-CMAC-128: IEEE Std 802.11-2012 M.9.1 (group-addressed
//!   Deauthentication, IGTK Key ID 4, IPN 4), the vector of
//!   `tests/vectors/ieee80211_vectors.json` (`bip_cmac128_M91`).
//! - CCMP-128 of an individually addressed robust management frame:
//!   IEEE Std 802.11-2012 M.9.2 (unicast Deauthentication, PN 1); the
//!   expected protected MPDU was computed independently with Python's
//!   `cryptography` (OpenSSL's AES-CCM) by `pmf_ccmp_mgmt.py`, which
//!   builds AAD and nonce by hand.
//!
//! Every vector also flips bytes and expects rejection.

use wisec_proto::pmf::{Error, GroupRx, GroupTx, Pairwise};
use wisec_wire::element::CipherSuite;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn bip_cmac128_m91() {
    let igtk = h("4ea9543e09cf2b1eca66ffc58bdecbcf");
    let plain = h("c0000000ffffffffffff02000000000002000000000009000200");
    let expected = h(
        "c0000000ffffffffffff020000000000020000000000090002004c10040004000000000048dfbfa7b8278872",
    );
    // The sender's IPN counter stands at 3: the frame carries IPN 4.
    let mut tx = GroupTx::new(CipherSuite::BIP_CMAC_128, &igtk, 4, 3).unwrap();
    let mut buf = [0u8; 64];
    buf[..plain.len()].copy_from_slice(&plain);
    let n = tx.protect(&mut buf, plain.len()).unwrap();
    assert_eq!(&buf[..n], &expected[..]);

    let mut rx = GroupRx::new(CipherSuite::BIP_CMAC_128, &igtk, 4, 0).unwrap();
    // Flipped MIC, body (reason), AAD-covered header (A2), IPN.
    for i in [expected.len() - 1, 24, 10, 30] {
        let mut b = expected.clone();
        b[i] ^= 0x01;
        assert!(rx.verify(&b).is_err(), "flipped byte {i} accepted");
    }
    assert_eq!(rx.verify(&expected), Ok(plain.len()));
    assert_eq!(rx.highest(), Some(4));
    assert_eq!(rx.verify(&expected), Err(Error::Replayed));
    let mut rx2 = GroupRx::new(CipherSuite::BIP_CMAC_128, &igtk, 4, 4).unwrap();
    assert_eq!(rx2.verify(&expected), Err(Error::Replayed));
}

#[test]
fn ccmp128_unicast_deauth_m92() {
    let tk = h("66ed21042f9f26d7115706e40414cf2e");
    let plain = h("c000000002000000010002000000000002000000000060000200");
    let expected =
        h("c0400000020000000100020000000000020000000000600001000020000000001d07cafd0409bb8bafef");
    let mut tx = Pairwise::new(CipherSuite::CCMP_128, &tk).unwrap();
    let mut buf = [0u8; 64];
    buf[..plain.len()].copy_from_slice(&plain);
    let n = tx.protect(&mut buf, plain.len()).unwrap();
    assert_eq!(tx.tx_pn(), 1);
    assert_eq!(&buf[..n], &expected[..]);

    let mut rx = Pairwise::new(CipherSuite::CCMP_128, &tk).unwrap();
    // Flipped MIC, ciphertext, AAD-covered header fields (FC subtype is
    // kept in a management AAD; A3), the PN.
    for i in [expected.len() - 1, 32, 0, 16, 24] {
        let mut b = expected.clone();
        b[i] ^= 0x10;
        assert!(rx.unprotect(&mut b).is_err(), "flipped byte {i} accepted");
        assert_eq!(b, {
            let mut e = expected.clone();
            e[i] ^= 0x10;
            e
        });
    }
    let mut b = expected.clone();
    assert_eq!(rx.unprotect(&mut b), Ok(plain.len()));
    assert_eq!(&b[..plain.len()], &plain[..]);
    assert_eq!(rx.mgmt_counter().highest(), Some(1));
    let mut b = expected.clone();
    assert_eq!(rx.unprotect(&mut b), Err(Error::Replayed));
}
