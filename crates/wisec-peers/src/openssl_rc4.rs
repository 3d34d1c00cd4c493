//! OpenSSL's RC4 from its legacy provider (OpenSSL 3 keeps RC4 only
//! there), loaded into a library context of its own so the rest of the
//! process keeps OpenSSL's default providers untouched.
//!
//! As WEP and TKIP need it, every message has its own key: the context
//! is re-keyed per message (`EVP_EncryptInit_ex` with the key, which runs
//! RC4's key schedule) and XORs the keystream from its start.

use crate::{Availability, PeerError, Rc4Msg, Rc4Peer};
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;
use openssl::lib_ctx::LibCtx;
use openssl::provider::Provider;

/// Name of this peer.
pub const NAME: &str = "openssl-rc4";

fn lib(e: openssl::error::ErrorStack) -> PeerError {
    PeerError::Library(e.to_string())
}

/// Whether the legacy provider loads and has RC4.
pub fn availability() -> Availability {
    match OpensslRc4::new() {
        Ok(_) => Availability::Available {
            version: openssl::version::version().to_string(),
            detail: "RC4 of the legacy provider, re-keyed per message".to_string(),
        },
        Err(e) => Availability::Missing {
            reason: format!("OpenSSL's legacy provider or its RC4 is not available: {e}"),
        },
    }
}

/// OpenSSL RC4. Field order matters: the context and the cipher are
/// dropped before the provider and the library context they come from.
pub struct OpensslRc4 {
    ctx: CipherCtx,
    stream: CipherCtx,
    _cipher: Cipher,
    key_len: usize,
    stream_key_len: usize,
    _legacy: Provider,
    _lib: LibCtx,
}

impl OpensslRc4 {
    /// Loads the legacy provider into a new library context and fetches
    /// RC4 from it.
    pub fn new() -> Result<OpensslRc4, PeerError> {
        let libctx = LibCtx::new().map_err(lib)?;
        let legacy = Provider::load(Some(&libctx), "legacy").map_err(lib)?;
        let cipher = Cipher::fetch(Some(&libctx), "RC4", None).map_err(lib)?;
        let mut ctx = CipherCtx::new().map_err(lib)?;
        ctx.encrypt_init(Some(&cipher), None, None).map_err(lib)?;
        let mut stream = CipherCtx::new().map_err(lib)?;
        stream
            .encrypt_init(Some(&cipher), None, None)
            .map_err(lib)?;
        Ok(OpensslRc4 {
            ctx,
            stream,
            _cipher: cipher,
            key_len: 0,
            stream_key_len: 0,
            _legacy: legacy,
            _lib: libctx,
        })
    }
}

fn rekey(ctx: &mut CipherCtx, have: &mut usize, key: &[u8]) -> Result<(), PeerError> {
    if key.is_empty() || key.len() > 256 {
        return Err(PeerError::InvalidParameter("RC4 key of 1 to 256 octets"));
    }
    if *have != key.len() {
        ctx.set_key_length(key.len()).map_err(lib)?;
        *have = key.len();
    }
    ctx.encrypt_init(None, Some(key), None).map_err(lib)
}

impl Rc4Peer for OpensslRc4 {
    fn name(&self) -> &'static str {
        NAME
    }

    fn apply(&mut self, msgs: &mut [Rc4Msg<'_>]) -> Result<(), PeerError> {
        for m in msgs.iter_mut() {
            if m.input.len() != m.output.len() {
                return Err(PeerError::InvalidParameter(
                    "output and input lengths differ",
                ));
            }
            rekey(&mut self.ctx, &mut self.key_len, m.key)?;
            self.ctx
                .cipher_update(m.input, Some(m.output))
                .map_err(lib)?;
        }
        Ok(())
    }

    fn stream(&mut self, input: &[u8], output: &mut [u8]) -> Result<(), PeerError> {
        if input.len() != output.len() {
            return Err(PeerError::InvalidParameter(
                "output and input lengths differ",
            ));
        }
        if self.stream_key_len == 0 {
            return Err(PeerError::InvalidParameter("stream key not set"));
        }
        self.stream
            .cipher_update(input, Some(output))
            .map_err(lib)?;
        Ok(())
    }

    fn set_stream_key(&mut self, key: &[u8]) -> Result<(), PeerError> {
        rekey(&mut self.stream, &mut self.stream_key_len, key)
    }
}
