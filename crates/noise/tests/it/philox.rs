//! Philox4x32-10 against the Random123 known answers and against `rand_philox`,
//! an independent implementation. spec: NOISE.md §1.

use crate::SplitMix64;
use tailrace_noise::philox::{philox4x32_10, philox4x32_10_lanes, Counter, Key, KNOWN_ANSWERS};

/// Random123 `kat_vectors`, "philox4x32 10": (ctr0..3, key0..1, out0..3).
const KAT: [(Counter, Key, Counter); 3] = KNOWN_ANSWERS;

fn random_counter(g: &mut SplitMix64) -> Counter {
    [g.next_u32(), g.next_u32(), g.next_u32(), g.next_u32()]
}

/// `N` lanes against `N` scalar calls, on the given counters and key.
fn check_lanes<const N: usize>(ctrs: [Counter; N], key: Key) {
    let lanes = philox4x32_10_lanes(ctrs, key);
    for (j, (c, l)) in ctrs.iter().zip(lanes).enumerate() {
        assert_eq!(
            l,
            philox4x32_10(*c, key),
            "lane {j} of {N}: ctr {c:08x?} key {key:08x?}"
        );
    }
}

#[test]
fn known_answer_vectors() {
    for (ctr, key, out) in KAT {
        assert_eq!(
            philox4x32_10(ctr, key),
            out,
            "ctr {ctr:08x?} key {key:08x?}"
        );
        // Every lane width, with the vector in every lane position.
        assert_eq!(philox4x32_10_lanes([ctr], key), [out]);
        let mut eight = [[0u32; 4]; 8];
        for (j, c) in eight.iter_mut().enumerate() {
            *c = if j % 3 == 0 {
                ctr
            } else {
                [j as u32, 0, !0, 7]
            };
        }
        let got = philox4x32_10_lanes(eight, key);
        for j in (0..8).step_by(3) {
            assert_eq!(got[j], out, "lane {j} of 8");
        }
    }
    // The three vectors share no key, so lanes are checked per key: all three
    // counters under each key, in widths 1, 2, 3, 4, 16.
    let ctrs = [KAT[0].0, KAT[1].0, KAT[2].0];
    let mut g = SplitMix64(0x5EED_0001);
    for (_, key, _) in KAT {
        check_lanes([ctrs[0]], key);
        check_lanes([ctrs[1], ctrs[2]], key);
        check_lanes(ctrs, key);
        check_lanes([ctrs[2], ctrs[1], ctrs[0], [1, 2, 3, 4]], key);
        check_lanes(
            std::array::from_fn::<Counter, 16, _>(|_| random_counter(&mut g)),
            key,
        );
    }
}

/// `rand_philox` 0.2 uses the same conventions as this crate: the counter is
/// `[u32; 4]` with word 0 the one multiplied by M0 (Random123's `ctr.v[0]`),
/// the key is `[u32; 2]` with word 0 xored into output word 0, and output word
/// `j` is Random123's `out.v[j]` (the KAT vectors pin all three). Its stream
/// type `Philox` maps a 128-bit block counter to the four words little-endian
/// (word 0 = low 32 bits) and serves the output words in order 0..3; that is
/// checked too, so the oracle is compared on its public API both ways.
#[test]
fn matches_rand_philox_oracle() {
    // The oracle itself is pinned by the Random123 vectors.
    for (ctr, key, out) in KAT {
        assert_eq!(rand_philox::philox4x32_10(ctr, key), out, "rand_philox KAT");
    }

    let mut g = SplitMix64(0x7A11_2ACE_0000_0001);
    const PAIRS: usize = 1 << 20;
    for n in 0..PAIRS {
        let ctr = random_counter(&mut g);
        let key = [g.next_u32(), g.next_u32()];
        let got = philox4x32_10(ctr, key);
        let want = rand_philox::philox4x32_10(ctr, key);
        assert_eq!(got, want, "pair {n}: ctr {ctr:08x?} key {key:08x?}");
    }

    // Structured counters: the layouts the profiles use (small c0, position in
    // words 1-2, tag in word 3) and carries at word boundaries.
    let key = [0x0123_4567, 0x89ab_cdef];
    for c0 in [0u32, 1, 2, 3, 0x7fff_ffff, 0x8000_0000, u32::MAX] {
        for pos in [0u64, 1, u32::MAX as u64, 1 << 32, u64::MAX] {
            for tag in 0..5 {
                let ctr = [c0, pos as u32, (pos >> 32) as u32, tag];
                assert_eq!(
                    philox4x32_10(ctr, key),
                    rand_philox::philox4x32_10(ctr, key)
                );
            }
        }
    }

    // Lanes against the oracle, 16 blocks at a time.
    for _ in 0..(1 << 14) {
        let key = [g.next_u32(), g.next_u32()];
        let ctrs: [Counter; 16] = std::array::from_fn(|_| random_counter(&mut g));
        let lanes = philox4x32_10_lanes(ctrs, key);
        for (c, l) in ctrs.iter().zip(lanes) {
            assert_eq!(l, rand_philox::philox4x32_10(*c, key), "ctr {c:08x?}");
        }
    }

    // The oracle's stream API: block counter c = sum ctr[j] << 32j.
    for n in 0..(1 << 16) {
        let ctr = random_counter(&mut g);
        let key = [g.next_u32(), g.next_u32()];
        let c = ctr
            .iter()
            .rev()
            .fold(0u128, |acc, &w| (acc << 32) | u128::from(w));
        let mut stream = rand_philox::Philox::new(key, c);
        let words = [
            stream.next_u32(),
            stream.next_u32(),
            stream.next_u32(),
            stream.next_u32(),
        ];
        assert_eq!(philox4x32_10(ctr, key), words, "stream block {n}");
    }
}
