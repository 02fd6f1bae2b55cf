//! Philox4x32-10 (Salmon et al., SC'11; Random123). spec: NOISE.md §1.

/// Multiplier applied to counter word 0 in every round.
pub const M0: u32 = 0xD251_1F53;
/// Multiplier applied to counter word 2 in every round.
pub const M1: u32 = 0xCD9E_8D57;
/// Weyl increment of key word 0 between rounds.
pub const W0: u32 = 0x9E37_79B9;
/// Weyl increment of key word 1 between rounds.
pub const W1: u32 = 0xBB67_AE85;

/// A Philox counter block: four 32-bit words.
pub type Counter = [u32; 4];
/// A Philox key: two 32-bit words.
pub type Key = [u32; 2];

#[inline(always)]
fn round(c: Counter, k: Key) -> Counter {
    let p0 = u64::from(M0) * u64::from(c[0]);
    let p1 = u64::from(M1) * u64::from(c[2]);
    [
        (p1 >> 32) as u32 ^ c[1] ^ k[0],
        p1 as u32,
        (p0 >> 32) as u32 ^ c[3] ^ k[1],
        p0 as u32,
    ]
}

/// Philox4x32 with ten rounds: the bijection of `ctr` keyed by `key`.
#[inline]
pub fn philox4x32_10(ctr: Counter, key: Key) -> Counter {
    let mut c = ctr;
    let mut k = key;
    c = round(c, k);
    for _ in 1..10 {
        k[0] = k[0].wrapping_add(W0);
        k[1] = k[1].wrapping_add(W1);
        c = round(c, k);
    }
    c
}

/// Evaluates `N` independent Philox blocks that share a key. Laid out so the
/// compiler can vectorise the 32x32->64 multiplies across blocks; the result
/// equals `N` calls of [`philox4x32_10`].
#[inline(always)]
pub fn philox4x32_10_lanes<const N: usize>(ctr: [Counter; N], key: Key) -> [Counter; N] {
    let mut c0 = [0u32; N];
    let mut c1 = [0u32; N];
    let mut c2 = [0u32; N];
    let mut c3 = [0u32; N];
    for j in 0..N {
        c0[j] = ctr[j][0];
        c1[j] = ctr[j][1];
        c2[j] = ctr[j][2];
        c3[j] = ctr[j][3];
    }
    let mut k = key;
    for r in 0..10 {
        if r > 0 {
            k[0] = k[0].wrapping_add(W0);
            k[1] = k[1].wrapping_add(W1);
        }
        for j in 0..N {
            let p0 = u64::from(M0) * u64::from(c0[j]);
            let p1 = u64::from(M1) * u64::from(c2[j]);
            let n0 = (p1 >> 32) as u32 ^ c1[j] ^ k[0];
            let n2 = (p0 >> 32) as u32 ^ c3[j] ^ k[1];
            c0[j] = n0;
            c1[j] = p1 as u32;
            c2[j] = n2;
            c3[j] = p0 as u32;
        }
    }
    let mut out = [[0u32; 4]; N];
    for j in 0..N {
        out[j] = [c0[j], c1[j], c2[j], c3[j]];
    }
    out
}

/// The Random123 known-answer vectors (`kat_vectors`, "philox4x32 10"):
/// (counter, key, output). spec: NOISE.md §1.4.
pub const KNOWN_ANSWERS: [(Counter, Key, Counter); 3] = [
    (
        [0, 0, 0, 0],
        [0, 0],
        [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8],
    ),
    (
        [0xffff_ffff; 4],
        [0xffff_ffff, 0xffff_ffff],
        [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd],
    ),
    (
        [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
        [0xa409_3822, 0x299f_31d0],
        [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1],
    ),
];

/// The key of a request seed: low word first. spec: NOISE.md §2.
#[inline]
pub fn seed_key(seed: u64) -> Key {
    [seed as u32, (seed >> 32) as u32]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answer_vectors() {
        for (ctr, key, out) in KNOWN_ANSWERS {
            assert_eq!(
                philox4x32_10(ctr, key),
                out,
                "ctr {ctr:08x?} key {key:08x?}"
            );
        }
    }

    #[test]
    fn lanes_equal_scalar() {
        let ctrs = [
            KNOWN_ANSWERS[0].0,
            KNOWN_ANSWERS[1].0,
            KNOWN_ANSWERS[2].0,
            [1, 2, 3, 4],
        ];
        let key = [0x1234_5678, 0x9abc_def0];
        let lanes = philox4x32_10_lanes(ctrs, key);
        for (c, l) in ctrs.iter().zip(lanes) {
            assert_eq!(philox4x32_10(*c, key), l);
        }
    }
}
