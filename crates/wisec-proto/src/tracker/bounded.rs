//! The tracker's maps of links and BSSes, bounded: a capture (or an
//! attacker) can name any number of stations and BSSes, and the tracker
//! must not grow with them. When a map is full, a new entry first makes
//! room by dropping the least recently used entries that hold no key, and
//! only when those are not enough the least recently used ones that do.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// An entry that may hold keys (kept longer than one that does not).
pub(super) trait HoldsKeys {
    fn holds_keys(&self) -> bool;
}

pub(super) struct Bounded<K, V> {
    map: BTreeMap<K, (u64, V)>,
    tick: u64,
    limit: usize,
    /// Entries dropped to make room.
    pub evicted: u64,
    /// Of those, entries that held keys.
    pub evicted_keyed: u64,
}

impl<K: Ord + Copy, V: Default + HoldsKeys> Bounded<K, V> {
    pub fn new(limit: usize) -> Self {
        Bounded {
            map: BTreeMap::new(),
            tick: 0,
            limit: limit.max(1),
            evicted: 0,
            evicted_keyed: 0,
        }
    }

    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit.max(1);
        if self.map.len() > self.limit {
            self.prune(self.limit);
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn get(&self, k: &K) -> Option<&V> {
        self.map.get(k).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        self.map.get_mut(k).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        self.map.iter().map(|(k, (_, v))| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.map.keys()
    }

    /// The entry of `k`, created empty when missing (after making room).
    pub fn or_default(&mut self, k: K) -> &mut V {
        self.tick += 1;
        if !self.map.contains_key(&k) && self.map.len() >= self.limit {
            // Down to three quarters, so that the work of one pruning
            // (sorting the entries) is spread over a quarter of the limit
            // of insertions.
            self.prune(self.limit - self.limit / 4 - 1);
        }
        let tick = self.tick;
        let e = self.map.entry(k).or_insert_with(|| (tick, V::default()));
        e.0 = tick;
        &mut e.1
    }

    /// Drops entries until at most `keep` are left: keyless ones first,
    /// least recently used first.
    fn prune(&mut self, keep: usize) {
        let mut order: Vec<(bool, u64, K)> = self
            .map
            .iter()
            .map(|(k, (t, v))| (v.holds_keys(), *t, *k))
            .collect();
        order.sort_unstable_by_key(|e| (e.0, e.1));
        let excess = self.map.len().saturating_sub(keep);
        for (keyed, _, k) in order.into_iter().take(excess) {
            self.map.remove(&k);
            self.evicted += 1;
            if keyed {
                self.evicted_keyed += 1;
            }
        }
    }
}
