//! Speculative multi-frame unprotection for the decrypt pipeline.
//!
//! The pipeline reads a stretch of the capture, decides for each protected
//! frame which keys may protect it (the same candidates, in the same
//! order, as the frame-by-frame path would try), and queues the frame
//! here. [`Batch::run`] then unprotects the queued frames of each key
//! together with the multi-frame CCMP engine of `wisec_crypto::batch`:
//! round `r` tries every frame that has not verified yet under its `r`-th
//! candidate, exactly as the frame-by-frame path tries candidates in
//! order and stops at the first that verifies. The results are read back
//! in capture order, where replay counters, bookkeeping and key installs
//! happen; nothing here has any effect but the decryption itself.
//!
//! A batch shares the stretch's bytes as read and names its frames by
//! where they are; [`Batch::run`] copies them into a scratch buffer and
//! unprotects them there, on the engine's thread, so the ciphertext stays
//! available in the input for a frame whose result the pipeline discards
//! (a key changed earlier in the stretch), and the ordered stage does no
//! copying for it. The scratch may also hold a frame's FCS, computed
//! there for the same reason.

use super::keys::{BatchKey, KeyId, KeyStore};
use std::collections::HashMap;
use std::sync::Arc;
use wisec_crypto::batch::{FrameBuf, Status};
use wisec_crypto::suite::Suite;
use wisec_crypto::{FrameProtector, Unprotected};
use zeroize::Zeroize;

/// Most candidate keys a batched frame may have; frames with more take
/// the frame-by-frame path.
pub(crate) const MAX_CANDIDATES: usize = 4;

/// The keys to try for one frame, in order, with their suites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Candidates {
    ids: [(KeyId, Suite); MAX_CANDIDATES],
    n: u8,
}

impl Candidates {
    /// The keys of `ids`; `None` when there are none or more than
    /// `MAX_CANDIDATES`.
    pub(crate) fn new(ids: impl IntoIterator<Item = (KeyId, Suite)>) -> Option<Candidates> {
        let mut c = Candidates {
            ids: [(KeyId(0), Suite::Ccmp128); MAX_CANDIDATES],
            n: 0,
        };
        for id in ids {
            let slot = c.ids.get_mut(usize::from(c.n))?;
            *slot = id;
            c.n += 1;
        }
        (c.n > 0).then_some(c)
    }

    /// The candidates, in order.
    pub(crate) fn ids(&self) -> &[(KeyId, Suite)] {
        self.ids.get(..usize::from(self.n)).unwrap_or_default()
    }
}

/// What became of a queued frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Not run yet.
    Pending,
    /// Verified under this candidate; the plaintext is in the scratch.
    Verified(KeyId, Suite, Unprotected),
    /// No candidate verified; the scratch holds the frame as queued.
    Failed,
    /// A candidate had no multi-frame engine: the frame must take the
    /// frame-by-frame path.
    Unusable,
}

/// A queued frame as the pipeline queued it. The engine thread only reads
/// it: what it finds goes to a [`Done`] of its own, so that the two
/// threads do not write the same cache lines in turn.
struct Slot {
    /// Where the frame is in the input.
    src: usize,
    len: usize,
    /// Compute the FCS of the plaintext (the output has one).
    want_fcs: bool,
    cands: Candidates,
}

/// What became of a queued frame on the engine thread.
#[derive(Clone, Copy)]
struct Done {
    /// Where the frame is in the scratch.
    off: usize,
    len: usize,
    fcs: u32,
    outcome: Outcome,
}

/// Frames queued for multi-frame unprotection, and their results.
#[derive(Default)]
pub(crate) struct Batch {
    /// The bytes the queued frames are in.
    input: Option<Arc<Vec<u8>>>,
    /// Octets queued.
    queued: usize,
    scratch: Vec<u8>,
    slots: Vec<Slot>,
    /// Per slot, once run.
    done: Vec<Done>,
    /// Per round: the frames to try under each key.
    groups: Vec<(KeyId, Suite, Vec<usize>)>,
    /// The engines of the candidates, bound by [`Batch::bind`].
    engines: Option<Arc<Engines>>,
}

/// Shared copies of a store's multi-frame engines, made once per key, so
/// that a batch can be unprotected on another thread.
#[derive(Default, Clone)]
pub(crate) struct Engines(HashMap<KeyId, Arc<BatchKey>>);

impl Engines {
    /// True when the engine of `id` is here.
    pub(crate) fn has(&self, id: KeyId) -> bool {
        self.0.contains_key(&id)
    }

    /// Adds the engine of `id` when the store has one (and it is not
    /// here yet).
    pub(crate) fn add<K: KeyStore + ?Sized>(&mut self, keys: &K, id: KeyId) {
        if !self.has(id) {
            if let Some(k) = keys.batch_key(id) {
                self.0.insert(id, Arc::new(k.clone()));
            }
        }
    }
}

impl Batch {
    /// Forgets every queued frame (the scratch is reused, and wiped when
    /// the batch is dropped).
    pub(crate) fn clear(&mut self) {
        self.input = None;
        self.queued = 0;
        self.scratch.clear();
        self.slots.clear();
        self.done.clear();
        self.engines = None;
    }

    /// Binds the engines the queued frames' candidates are tried with: a
    /// key whose engine `engines` lacks leaves its frames
    /// [`Outcome::Unusable`]. (One set for every batch, kept up to date as
    /// candidates are looked up, rather than gathered here frame by
    /// frame.)
    pub(crate) fn bind(&mut self, engines: &Arc<Engines>) {
        self.engines = Some(engines.clone());
    }

    /// The bytes the frames queued next are in (until [`Batch::clear`]).
    pub(crate) fn set_input(&mut self, input: Arc<Vec<u8>>) {
        self.input = Some(input);
    }

    /// Queues the protected MPDU at `src` in the input (an empty frame
    /// where the input has no such bytes); with `want_fcs`, the FCS of
    /// its plaintext is computed too. Returns its index.
    pub(crate) fn push(
        &mut self,
        src: std::ops::Range<usize>,
        want_fcs: bool,
        cands: Candidates,
    ) -> usize {
        let len = src.end.saturating_sub(src.start);
        self.slots.push(Slot {
            src: src.start,
            len,
            want_fcs,
            cands,
        });
        self.queued += len;
        self.slots.len() - 1
    }

    /// Copies the queued frames from the input into the scratch.
    fn gather(&mut self) {
        self.scratch.clear();
        self.scratch.reserve(self.queued);
        let input: &[u8] = self.input.as_deref().map_or(&[], |v| v.as_slice());
        self.done.clear();
        for s in &self.slots {
            let off = self.scratch.len();
            let len = match input.get(s.src..s.src + s.len) {
                Some(f) => {
                    self.scratch.extend_from_slice(f);
                    s.len
                }
                None => 0,
            };
            self.done.push(Done {
                off,
                len,
                fcs: 0,
                outcome: Outcome::Pending,
            });
        }
    }

    /// The FCS of a verified frame's plaintext, if it was asked for.
    pub(crate) fn fcs(&self, i: usize) -> Option<u32> {
        let want = self.slots.get(i).is_some_and(|s| s.want_fcs);
        self.done
            .get(i)
            .filter(|d| want && matches!(d.outcome, Outcome::Verified(..)))
            .map(|d| d.fcs)
    }

    /// The outcome of frame `i` (`Unusable` for an index never queued or
    /// not run yet).
    pub(crate) fn outcome(&self, i: usize) -> Outcome {
        self.done.get(i).map_or(Outcome::Unusable, |d| d.outcome)
    }

    /// The candidates frame `i` was queued with.
    pub(crate) fn candidates(&self, i: usize) -> Option<Candidates> {
        self.slots.get(i).map(|s| s.cands)
    }

    /// The plaintext MPDU of a verified frame.
    pub(crate) fn plaintext(&self, i: usize) -> &[u8] {
        match self.done.get(i) {
            Some(Done {
                off,
                outcome: Outcome::Verified(_, _, u),
                ..
            }) => self.scratch.get(*off..off + u.len()).unwrap_or_default(),
            _ => &[],
        }
    }

    /// Unprotects every pending frame: round `r` tries each frame that has
    /// not verified under its `r`-th candidate, the frames of one key in
    /// one call of its multi-frame engine.
    /// Needs [`Batch::bind`] first.
    pub(crate) fn run(&mut self) {
        self.gather();
        let mut groups = std::mem::take(&mut self.groups);
        for round in 0..MAX_CANDIDATES {
            // The first `used` groups are this round's; every list keeps
            // its capacity from round to round and batch to batch.
            groups.iter_mut().for_each(|(_, _, v)| v.clear());
            let mut used = 0;
            let mut last = usize::MAX;
            for (i, (s, d)) in self.slots.iter().zip(&mut self.done).enumerate() {
                if d.outcome != Outcome::Pending {
                    continue;
                }
                let Some(&(id, suite)) = s.cands.ids().get(round) else {
                    d.outcome = Outcome::Failed;
                    continue;
                };
                // Frames of one key mostly come in runs.
                let g = match groups[..used].get(last) {
                    Some((k, _, _)) if *k == id => last,
                    _ => match groups[..used].iter().position(|(k, _, _)| *k == id) {
                        Some(g) => g,
                        None => {
                            match groups.get_mut(used) {
                                Some(e) => (e.0, e.1) = (id, suite),
                                None => groups.push((id, suite, Vec::new())),
                            }
                            used += 1;
                            used - 1
                        }
                    },
                };
                if let Some((_, _, v)) = groups.get_mut(g) {
                    v.push(i);
                }
                last = g;
            }
            if used == 0 {
                break;
            }
            // Disjoint views of every queued frame, in scratch order.
            let mut views: Vec<&mut [u8]> = Vec::with_capacity(self.done.len());
            let mut rest: &mut [u8] = &mut self.scratch;
            let mut at = 0usize;
            for s in &self.done {
                let (_, tail) = std::mem::take(&mut rest).split_at_mut(s.off - at);
                let (frame, tail) = tail.split_at_mut(s.len);
                views.push(frame);
                rest = tail;
                at = s.off + s.len;
            }
            for (id, suite, group) in &groups[..used] {
                let engine = self
                    .engines
                    .as_ref()
                    .and_then(|e| e.0.get(id))
                    .map(|e| &**e)
                    .filter(|k| k.suite() == *suite);
                let Some(engine) = engine else {
                    for &i in group {
                        if let Some(d) = self.done.get_mut(i) {
                            d.outcome = Outcome::Unusable;
                        }
                    }
                    continue;
                };
                if let Some(k) = engine.per_frame() {
                    // A suite without a multi-frame engine: one frame at a
                    // time (a frame that fails is left as it was given).
                    for &i in group {
                        let v = views.get_mut(i).map(std::mem::take).unwrap_or_default();
                        if let Ok(u) = k.unprotect_in_place(v) {
                            if let Some(d) = self.done.get_mut(i) {
                                d.outcome = Outcome::Verified(*id, *suite, u);
                            }
                        }
                    }
                    continue;
                }
                let mut frames: Vec<FrameBuf<'_>> = Vec::with_capacity(group.len());
                for &i in group {
                    // Every index is a queued frame's: `views` has them all.
                    let v = views.get_mut(i).map(std::mem::take).unwrap_or_default();
                    frames.push(FrameBuf::to_unprotect(v));
                }
                engine.unprotect_batch(&mut frames);
                for (f, &i) in frames.iter().zip(group) {
                    if let Status::Unprotected(u) = f.status() {
                        if let Some(d) = self.done.get_mut(i) {
                            d.outcome = Outcome::Verified(*id, *suite, u);
                        }
                    }
                }
            }
        }
        for (s, d) in self.slots.iter().zip(&mut self.done) {
            match d.outcome {
                Outcome::Pending => d.outcome = Outcome::Failed,
                Outcome::Verified(_, _, u) if s.want_fcs => {
                    let plain = self.scratch.get(d.off..d.off + u.len());
                    d.fcs = super::link::fcs(plain.unwrap_or_default());
                }
                _ => {}
            }
        }
        self.groups = groups;
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        // The scratch held plaintext.
        self.scratch.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decrypt::keys::{KeyQuery, KeyRole, StaticKeys};
    use wisec_crypto::suite::{DataKey, Suite};
    use wisec_crypto::FrameProtector;

    /// A QoS data frame from `ta` to `ra` with `n` body bytes, protected
    /// with `key` and `pn`.
    fn frame(key: &[u8], suite: Suite, pn: u64, n: usize) -> Vec<u8> {
        let mut f = vec![0x88, 0x01, 0, 0];
        f.extend([
            2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x10, 0,
        ]);
        f.extend([3, 0]);
        f.extend((0..n).map(|i| i as u8));
        let k = DataKey::new(suite, key).unwrap();
        let len = f.len();
        f.resize(len + k.overhead().total(), 0);
        let m = k.protect_in_place(&mut f, len, pn, 0).unwrap();
        f.truncate(m);
        f
    }

    #[test]
    fn rounds_pick_the_first_candidate_that_verifies() {
        let mut keys = StaticKeys::new();
        let k1 = [1u8; 16];
        let k2 = [2u8; 16];
        let k3 = [3u8; 32];
        keys.add_temporal(KeyRole::Pairwise, Some(Suite::Ccmp128), &k1)
            .unwrap();
        keys.add_temporal(KeyRole::Pairwise, Some(Suite::Ccmp128), &k2)
            .unwrap();
        keys.add_temporal(KeyRole::Pairwise, Some(Suite::Ccmp256), &k3)
            .unwrap();
        let q = KeyQuery {
            ra: wisec_wire::MacAddr([0; 6]),
            ta: wisec_wire::MacAddr([0; 6]),
            group: false,
            wep: false,
            key_id: 0,
            frame: &[],
        };
        let ids: Vec<(KeyId, Suite)> = keys
            .data_keys(&q)
            .iter()
            .map(|(id, k)| (*id, k.suite()))
            .collect();
        assert_eq!(ids.len(), 3);
        let all = Candidates::new(ids.iter().copied()).unwrap();
        let reversed = Candidates::new(ids.iter().rev().copied()).unwrap();
        let frames = [
            (frame(&k2, Suite::Ccmp128, 5, 40), all, Some(ids[1])),
            (frame(&k1, Suite::Ccmp128, 6, 0), all, Some(ids[0])),
            (frame(&k3, Suite::Ccmp256, 7, 300), all, Some(ids[2])),
            (frame(&k1, Suite::Ccmp128, 8, 17), reversed, Some(ids[0])),
            // Under a key no candidate holds.
            (frame(&[9u8; 16], Suite::Ccmp128, 9, 64), all, None),
            // Tampered.
            (
                {
                    let mut f = frame(&k1, Suite::Ccmp128, 10, 64);
                    f[40] ^= 1;
                    f
                },
                all,
                None,
            ),
            // Only the first key tried: the frame of the second fails.
            (
                frame(&k2, Suite::Ccmp128, 11, 64),
                Candidates::new([ids[0]]).unwrap(),
                None,
            ),
        ];
        let mut b = Batch::default();
        let mut input = Vec::new();
        let mut at = Vec::new();
        for (f, _, _) in &frames {
            at.push(input.len()..input.len() + f.len());
            input.extend_from_slice(f);
        }
        b.set_input(Arc::new(input));
        for ((_, c, _), r) in frames.iter().zip(at) {
            b.push(r, true, *c);
        }
        let mut engines = Engines::default();
        for &(id, _) in &ids {
            engines.add(&keys, id);
        }
        b.bind(&Arc::new(engines));
        b.run();
        for (i, (f, _, want)) in frames.iter().enumerate() {
            match (b.outcome(i), want) {
                (Outcome::Verified(id, suite, u), Some(w)) => {
                    assert_eq!((id, suite), *w, "frame {i}");
                    // The frame-by-frame path gives the same plaintext.
                    let (_, k) = keys
                        .data_keys(&q)
                        .into_iter()
                        .find(|(x, _)| *x == w.0)
                        .unwrap();
                    let mut g = f.clone();
                    let v = k.unprotect_in_place(&mut g).unwrap();
                    assert_eq!(u, v, "frame {i}");
                    assert_eq!(b.plaintext(i), &g[..v.len()], "frame {i}");
                    // The FCS: the CRC-32 of the plaintext MPDU.
                    let crc = wisec_crypto::crc32::crc32(&g[..v.len()]);
                    assert_eq!(b.fcs(i), Some(crc), "frame {i}");
                }
                (Outcome::Failed, None) => assert!(b.plaintext(i).is_empty()),
                (o, w) => panic!("frame {i}: {o:?}, expected {w:?}"),
            }
        }
        b.clear();
        assert_eq!(b.outcome(0), Outcome::Unusable);
    }

    #[test]
    fn other_suites_frame_by_frame_and_unknown_keys_unusable() {
        let mut keys = StaticKeys::new();
        keys.add_temporal(KeyRole::Pairwise, Some(Suite::Gcmp128), &[1u8; 16])
            .unwrap();
        let q = KeyQuery {
            ra: wisec_wire::MacAddr([0; 6]),
            ta: wisec_wire::MacAddr([0; 6]),
            group: false,
            wep: false,
            key_id: 0,
            frame: &[],
        };
        let id = (keys.data_keys(&q)[0].0, Suite::Gcmp128);
        let f = frame(&[1u8; 16], Suite::Gcmp128, 1, 10);
        let n = f.len();
        // The GCMP frame verifies on the engine thread, as it does frame
        // by frame; a key the store has no engine for leaves its frame
        // to the frame-by-frame path.
        let mut want = f.clone();
        let (_, k) = keys.data_keys(&q).into_iter().next().unwrap();
        let u = k.unprotect_in_place(&mut want).unwrap();
        let mut input = f.clone();
        input.extend_from_slice(&f);
        let mut b = Batch::default();
        b.set_input(Arc::new(input));
        b.push(0..n, false, Candidates::new([id]).unwrap());
        let unknown = (KeyId(0xdead), Suite::Ccmp128);
        b.push(n..2 * n, false, Candidates::new([unknown]).unwrap());
        let mut engines = Engines::default();
        engines.add(&keys, id.0);
        engines.add(&keys, unknown.0);
        b.bind(&Arc::new(engines));
        b.run();
        assert_eq!(b.outcome(0), Outcome::Verified(id.0, Suite::Gcmp128, u));
        assert_eq!(b.plaintext(0), &want[..u.len()]);
        assert_eq!(b.fcs(0), None);
        assert_eq!(b.outcome(1), Outcome::Unusable);
        assert_eq!(Candidates::new([]), None);
        assert_eq!(
            Candidates::new((0..5).map(|i| (KeyId(i), Suite::Ccmp128))),
            None
        );
    }
}
