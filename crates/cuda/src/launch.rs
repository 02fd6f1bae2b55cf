//! Launch geometry and the kernels' argument block. The geometry never
//! changes a result (every reduction is order-free); it only changes speed.

use crate::error::{CudaError, Result};

/// How the work is split. Results never depend on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchOptions {
    /// Threads per block of the main pass (multiple of 32, 32..=512; 0 =
    /// automatic: 256, or fewer, down to 96, for batches of one chunk a row
    /// that would fill the device more than once, in the specialized kernels
    /// and for rows of up to 131,072 elements; see
    /// [`Geometry::for_build`]).
    pub block_threads: u32,
    /// Blocks (vocabulary chunks) per row of the main pass (0 = automatic:
    /// enough blocks to fill the device at small batch sizes).
    pub blocks_per_row: u32,
    /// Threads per block of the filter kernel (multiple of 32, 32..=512; 0 = 512).
    pub filter_threads: u32,
    /// Candidate queue entries per warp of the exact race (32..=1024; 0 =
    /// 64). The queues take 16 bytes an entry and must fit in
    /// [`PASS_SMEM_MAX`] bytes a block (at 256 threads, at most 368 entries).
    pub queue_cap: u32,
    /// Always use the generic pass kernel (the specialized one is otherwise
    /// taken for batches without bias whose racing rows all use `exact`).
    pub generic: bool,
    /// Never take the fused top-k path (rows with 2 <= top_k <= 256, no bias,
    /// T > 0) nor the binned top-p path (top-p without top-k, no bias, T > 0):
    /// such rows then go through the filter kernel. Same results.
    pub no_fused: bool,
    /// Launch every kernel with plain stream order. By default, on devices
    /// of compute capability 9.0 and later, kernels are launched with
    /// programmatic dependent launch: each may be scheduled while the
    /// previous one runs, and waits for it (and for its writes) before it
    /// touches memory. Same results.
    pub no_pdl: bool,
    /// Never let the race find a bf16 top-p row's cut: by default, where
    /// the cut's value holds at most [`TOPP_PEND_CAP`] elements of the row,
    /// the race lists them as it reads the row and settles the cut itself,
    /// and the gather kernel skips the row (`kernels/topp.cu`,
    /// `tr_topp_pend`). With this option the gather finds every cut. Same
    /// results.
    pub no_topp_pend: bool,
    /// Always launch the first pass. By default a bf16 batch whose rows all
    /// take the binned top-p path with pending cuts (see `no_topp_pend`)
    /// has none: each row's histogram blocks, launched as one thread block
    /// cluster a row, scan their chunks for the row's status and maximum,
    /// exchange them through distributed shared memory and write the record
    /// the first pass would (`kernels/topp.cu`, `tr_topp_own_max`). Same
    /// results. Launches in plain stream order (`no_pdl`) keep the first
    /// pass.
    pub first_pass_always: bool,
    /// Blocks of such a row's cluster, which are its histogram's chunks:
    /// 1..=[`TOPP_CLUSTER_MAX`], 0 = automatic ([`topp_cluster_blocks`]).
    /// Rows the histogram would split into more chunks are split into this
    /// many; fewer stay as they are. Same results.
    pub topp_cluster: u32,
    /// When the bf16 top-p kernels (histogram, gather) let the next kernel
    /// of the call be scheduled, with programmatic dependent launch. Same
    /// results; see [`ToppTrigger`].
    pub topp_trigger: ToppTrigger,
}

/// When a bf16 top-p kernel lets its successor be scheduled
/// ([`LaunchOptions::topp_trigger`]). The successor always waits for the
/// kernel's completion and writes before it reads anything, so this moves
/// only time: a successor scheduled early has its blocks resident, waiting,
/// beside the kernel's last blocks (the rows' selects and cuts), which it
/// slows; one scheduled late pays its launch after them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToppTrigger {
    /// [`ToppTrigger::Late`] for batches of at least [`TOPP_LATE_ROWS`]
    /// rows, [`ToppTrigger::Early`] below ([`topp_late_trigger`]).
    #[default]
    Auto,
    /// As soon as every block of the kernel has begun.
    Early,
    /// Once each row's last block has done its select or cut.
    Late,
}

/// Rows from which [`ToppTrigger::Auto`] takes the late trigger. Measured
/// on the H200 (docs/cuda-notes.md, run 29: top-p 0.9, V = 131072, queued,
/// late against early, two processes): B = 1 32.2, 32.3 against 32.1, 31.9
/// us; B = 2 32.6, 33.0 against 33.4, 34.0; B = 64 61.2, 61.4 against
/// 62.7, 63.1; B = 256 113.8, 114.4 against 115.7, 116.2.
pub const TOPP_LATE_ROWS: usize = 2;

/// Whether a launch of `rows` rows takes the late trigger.
pub fn topp_late_trigger(opts: &LaunchOptions, rows: usize) -> bool {
    match opts.topp_trigger {
        ToppTrigger::Auto => rows >= TOPP_LATE_ROWS,
        ToppTrigger::Early => false,
        ToppTrigger::Late => true,
    }
}

/// Most blocks of a top-p row's cluster (`LaunchOptions::topp_cluster`):
/// the largest cluster an sm_90 device launches (with the non-portable
/// opt-in above 8).
pub const TOPP_CLUSTER_MAX: u32 = 16;

/// Chunks (the cluster's blocks) of a row's top-p histogram in a batch
/// without a first pass, where the histogram alone would take `auto`
/// chunks a row: the caller's `topp_cluster` if set (at most `auto`), else
/// the largest power of two up to [`TOPP_CLUSTER_MAX`] whose blocks, over
/// the batch, take at most two a multiprocessor, and at least `auto` up to
/// two. Measured on the H200 (docs/cuda-notes.md, run 26): clusters of 16
/// at B = 1 and 8 beat 8 (B = 1: 40.7 against 43.7 us per call of top-p
/// 0.9), while at B = 64 eight-block clusters over 512 blocks ran 78.6 us
/// against 69.4 with four.
pub fn topp_cluster_blocks(opts: &LaunchOptions, rows: usize, auto: u32, sm_count: u32) -> u32 {
    let auto = auto.max(1);
    if opts.topp_cluster != 0 {
        return opts.topp_cluster.min(auto);
    }
    let room = 2 * u64::from(sm_count.max(1));
    let rows = rows.max(1) as u64;
    let mut c = 1u32;
    while c * 2 <= TOPP_CLUSTER_MAX && rows * u64::from(c * 2) <= room {
        c *= 2;
    }
    c.max(auto.min(2)).min(auto)
}

/// Keys in each warp's fused top-k buffer (`TR_FUSED_WCAP` in the kernels);
/// a warp pushes at most 256 keys a round onto at most `FUSED_WCAP - 256`.
pub const FUSED_WCAP: u32 = 512;

/// Slots of the exact race's staging ring per lane (`TR_RACE_STAGE_SLOTS`;
/// the kernels use `TR_RACE_STAGES` of them, by default all): each holds one
/// unit of 8 logits, copied in with `cp.async` that many steps minus one
/// ahead (docs/cuda-notes.md, run 14).
pub const RACE_STAGE_SLOTS: u32 = 4;

/// Most static shared memory of a pass kernel (checked when the kernels are
/// loaded: `kernels::kernels_with`); they take under 2 KiB.
pub const PASS_STATIC_SMEM_MAX: u32 = 2 * 1024;

/// Most dynamic shared memory a pass block may take: a block gets 48 KiB
/// without an opt-in, static and dynamic together.
pub const PASS_SMEM_MAX: u32 = 48 * 1024 - PASS_STATIC_SMEM_MAX;

/// Most elements of a bf16 top-p row's cut value that the race lists and
/// settles itself (`TR_TOPP_PEND_CAP`); a row with more takes the gather.
pub const TOPP_PEND_CAP: u32 = 512;

/// Words of a pending top-p row's list (`TR_PEND_WORDS`): a region for each
/// warp of the race (a multiple of four words: its count, then its entries),
/// each entry a unit index shifted left by 8, so the path needs
/// vocabularies below 2^27.
pub const TOPP_PEND_WORDS: u64 = 8192;

/// Dynamic shared memory the race's finish of a pending top-p row takes from
/// the pass kernel's race queues (`TR_PEND_SMEM_WORDS` words: the indices,
/// four words and 128 bucket counts); a launch with less settles no row.
pub const PEND_SMEM_BYTES: u32 = (TOPP_PEND_CAP + 4 + 128) * 4;

/// Most workspace the fused top-k lists may take; larger shapes (very many
/// rows x chunks) take the filter kernel path instead.
pub const FUSED_LIST_BYTES_MAX: u64 = 256 << 20;

/// Bins of the binned top-p path's per-row histogram (`TR_TOPP_BINS`).
pub const TOPP_BINS: u64 = 1024;
/// Elements of the cut's bin the binned top-p path sorts; a row with more
/// goes to the filter kernel (`TR_TOPP_CAP`).
pub const TOPP_CAP: u64 = 2048;
/// Value entries of a bf16 row's top-p histogram (`TR_TOPP_VALUES`): one per
/// bf16 value within 45 T of the row's maximum, tiny magnitudes pooled.
pub const TOPP_VALUES: u64 = 4096;
/// Workspace bytes per row of the binned top-p path: its state (64 bytes),
/// the histogram (an f32/f16 row's bins, 24 bytes a bin, or in the same place
/// a bf16 row's value counts, 4 bytes an entry), a bf16 row's value masses
/// (8 bytes an entry) and the bin's list (16 bytes an element).
pub const TOPP_ROW_BYTES: u64 = 64 + TOPP_BINS * 24 + TOPP_VALUES * 8 + TOPP_CAP * 16;
// A bf16 row's value counts live in the bins' place (kernels/topp.cu).
const _: () = assert!(TOPP_VALUES * 4 <= TOPP_BINS * 24);
/// Count tables (segments) a bf16 top-p histogram block keeps where a row
/// is one chunk of the top-p kernels: each segment of the row is counted in
/// a table of its own, so that the gather reads only the segment holding
/// the cut (kernels/topp.cu, `tr_topp_segs`).
pub const TOPP_SEG_TABLES: u64 = 3;

/// Bytes of one table of a bf16 histogram block's value counts (dynamic
/// shared memory: `TR_TOPP_VALUES + 1` counts of 4 bytes).
pub const TOPP_TABLE_BYTES: u32 = (TOPP_VALUES as u32 + 1) * 4;

/// Most units (8 logits each) a thread of a bf16 top-p histogram block
/// stages in shared memory (`TR_TOPP_STAGE` in the kernels): the block copies
/// its chunk there with all its copies in flight at once, scans it there and
/// counts it from there, without reading it again. In a batch without a
/// first pass whose row chunks have at most this many units a thread of 256
/// (B <= 64 at V = 131072), where the device keeps every row's cluster
/// resident at once with that room (the sampler asks the driver: on an H200
/// B <= 32). Measured on the H200 (docs/cuda-notes.md, runs 28 and 30):
/// top-p 0.9 at B = 1 queued 34.7 -> 31.3 us with 4 units a thread; B = 32
/// 49.6 -> 48.2 us per call with 8.
pub const TOPP_STAGE_UNITS: u32 = 16;

/// Byte offset of a histogram block's staged units: past its first count
/// table, 16-byte aligned (`TR_TOPP_STAGE_AT`).
pub const TOPP_STAGE_AT: u32 = TOPP_TABLE_BYTES.next_multiple_of(16);

/// Most dynamic shared memory a histogram block that stages its units asks
/// for: one count table and [`TOPP_STAGE_UNITS`] units of 16 bytes for each
/// of its 256 threads (80 KiB; two such blocks and their static shared
/// memory fit a multiprocessor of 228 KiB).
pub const TOPP_STAGE_SMEM_MAX: u32 = TOPP_STAGE_AT + TOPP_STAGE_UNITS * 256 * 16;
// One table, then the units, 16-byte aligned right after the table.
const _: () = assert!(TOPP_STAGE_AT % 16 == 0 && TOPP_STAGE_AT >= TOPP_TABLE_BYTES);
const _: () = assert!(TOPP_STAGE_AT < TOPP_TABLE_BYTES + 16);
const _: () = assert!(2 * (TOPP_STAGE_SMEM_MAX + 7 * 1024) <= 228 * 1024);

/// The dynamic shared memory of a histogram block of a batch without a first
/// pass that stages its chunk of `chunk_len` logits (a row of `nchunks`
/// chunks), or `None` where it does not stage: a row of many chunks, each at
/// most [`TOPP_STAGE_UNITS`] units a thread. The room is one count table and
/// the chunk's units a thread (rounded up) for each of 256 threads. The
/// kernel stages where it is given this room and the row is 16-byte aligned.
pub fn topp_stage_smem(nchunks: u32, chunk_len: u32) -> Option<u32> {
    let per = u64::from(chunk_len).div_ceil(8).div_ceil(256);
    (nchunks > 1 && per <= u64::from(TOPP_STAGE_UNITS))
        .then(|| TOPP_STAGE_AT + per as u32 * 256 * 16)
}

/// Most dynamic shared memory a bf16 top-p histogram block asks for
/// ([`TOPP_SEG_TABLES`] tables): over the 48 KiB a launch gets without an
/// opt-in, so the kernel is given that limit when it is loaded. Four such
/// blocks (with their 4 KiB of static shared memory) still fit a
/// multiprocessor's 228 KiB.
pub const TOPP_HIST_SMEM_MAX: u32 = TOPP_SEG_TABLES as u32 * TOPP_TABLE_BYTES;
// Four blocks of the histogram (its bounds) with this and under 7 KiB of
// static shared memory each (6,048 bytes for sm_90) stay within an H200
// multiprocessor's 228 KiB.
const _: () = assert!(4 * (TOPP_HIST_SMEM_MAX + 7 * 1024) <= 228 * 1024);

/// The dynamic shared memory of an f32/f16 top-p histogram block whose
/// chunks hold `chunk_len` logits: the bins' mass sums (`TR_TOPP_SUM_DYN`),
/// room for five 32-bit sums of 15-bit pieces a bin where a chunk holds
/// 2^16 to 2^17 elements (the sums that length takes), else for four (16-bit
/// pieces up to 2^16 elements, or a 128-bit sum a bin). The kernel sums in
/// five pieces only where it is given their room.
pub fn topp_float_hist_smem(chunk_len: u32) -> u32 {
    let pieces = if chunk_len > 1 << 16 && chunk_len <= 1 << 17 {
        5
    } else {
        4
    };
    pieces * TOPP_BINS as u32 * 4
}

/// Units of a histogram segment of a bf16 top-p row that is one chunk of
/// `units` units (0: none): [`TOPP_SEG_TABLES`] segments. Rows shorter
/// than 4 [`TOPP_VALUES`] elements take none: their gather reads little
/// anyway.
pub fn topp_segment_units(units: u64) -> u32 {
    if units * 8 < 4 * TOPP_VALUES {
        return 0;
    }
    u32::try_from(units.div_ceil(TOPP_SEG_TABLES)).unwrap_or(0)
}

/// Most bytes of per-chunk top-p value counts (4 bytes an entry, one table
/// per block of the top-p kernels); a shape needing more gathers every chunk.
pub const TOPP_CHUNK_COUNTS_MAX: u64 = 64 << 20;

/// A resolved launch shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Threads per block of the main pass.
    pub block_threads: u32,
    /// Chunks (blocks) per row.
    pub nchunks: u32,
    /// Elements per chunk (a multiple of 8).
    pub chunk_len: u32,
    /// Chunks (blocks) per row of the binned top-p kernels.
    pub topp_nchunks: u32,
    /// Elements per chunk of the binned top-p kernels (a multiple of 8).
    pub topp_chunk_len: u32,
    /// Threads per block of the filter kernel.
    pub filter_threads: u32,
    /// Queue entries per warp.
    pub queue_cap: u32,
    /// Dynamic shared memory of the main pass's race queues, bytes (a
    /// launch adds the staging ring where it fits: [`Geometry::pass_smem_for`]).
    pub pass_smem: u32,
    /// Dynamic shared memory of the main pass when the batch has fused
    /// top-k rows (their buffers alias the race queues), bytes.
    pub fused_smem: u32,
    /// Bytes of the fused top-k lists (one list of 256 keys per row and
    /// chunk); 0 when the fused path is off for this shape.
    pub fused_list_bytes: u64,
    /// Bytes of the binned top-p workspace; 0 when that path is off.
    pub topp_bytes: u64,
    /// Bytes of the per-chunk value counts of bf16 top-p rows (the gather
    /// then reads the cut's chunk alone); 0 with one chunk a row, or when
    /// they would take more than [`TOPP_CHUNK_COUNTS_MAX`].
    pub topp_cnt_bytes: u64,
    /// Units of a segment of the bf16 top-p histogram where a row is one
    /// chunk of the top-p kernels (its block counts each segment apart, and
    /// the gather reads the segment holding the cut); 0: no segments. See
    /// [`topp_segment_units`].
    pub topp_seg_units: u32,
    /// Dynamic shared memory of a bf16 launch of the top-p histogram: one
    /// table of value counts, or [`TOPP_SEG_TABLES`] with segments.
    pub topp_hist_smem: u32,
}

fn threads(v: u32, default: u32, max: u32, what: &str) -> Result<u32> {
    let t = if v == 0 { default } else { v };
    if t % 32 != 0 || !(32..=max).contains(&t) {
        return Err(CudaError::Shape(format!(
            "{what} must be a multiple of 32 in 32..={max}, got {t}"
        )));
    }
    Ok(t)
}

/// Most threads per block of the pass kernels (the generic one has 128
/// registers per thread, `__launch_bounds__(512)`; the specialized one 80,
/// `__maxnreg__(80)`).
pub const MAX_PASS_THREADS: u32 = 512;

impl Geometry {
    /// The shape for `rows` rows of `vocab` on a device with `sm_count`
    /// multiprocessors.
    pub fn new(opts: &LaunchOptions, rows: usize, vocab: usize, sm_count: u32) -> Result<Self> {
        Self::for_build(opts, rows, vocab, sm_count, true)
    }

    /// [`Geometry::new`] for a launch whose pass takes the specialized
    /// kernels (`specialized`) or the generic one, which keeps 256-thread
    /// blocks: at 128 registers a thread it holds 5 blocks of 96 threads an
    /// SM, 15 warps, against 16 in two blocks of 256, and it was up to 10%
    /// slower in them (the `f32` and `f64` profiles at B = 1024, V = 262144;
    /// docs/cuda-notes.md, run 16, item 4). The two differ in
    /// `block_threads` and the shared memory alone, never in a workspace
    /// size.
    pub fn for_build(
        opts: &LaunchOptions,
        rows: usize,
        vocab: usize,
        sm_count: u32,
        specialized: bool,
    ) -> Result<Self> {
        let block_threads = threads(
            opts.block_threads,
            if specialized {
                auto_block_threads(opts, rows, vocab, sm_count)
            } else {
                256
            },
            MAX_PASS_THREADS,
            "block_threads",
        )?;
        let filter_threads = threads(opts.filter_threads, 512, 512, "filter_threads")?;
        let queue_cap = if opts.queue_cap == 0 {
            64
        } else {
            opts.queue_cap
        };
        if !(32..=1024).contains(&queue_cap) {
            return Err(CudaError::Shape(format!(
                "queue_cap must be in 32..=1024, got {queue_cap}"
            )));
        }
        if opts.topp_cluster > TOPP_CLUSTER_MAX {
            return Err(CudaError::Shape(format!(
                "topp_cluster must be in 0..={TOPP_CLUSTER_MAX}, got {}",
                opts.topp_cluster
            )));
        }
        let pass_smem = (block_threads / 32) * queue_cap * 16;
        if pass_smem > PASS_SMEM_MAX {
            return Err(CudaError::Shape(format!(
                "block_threads {block_threads} with queue_cap {queue_cap} needs {pass_smem} bytes of shared memory (max {PASS_SMEM_MAX})"
            )));
        }
        let units = vocab.div_ceil(8).max(1) as u64;
        let rows64 = rows.max(1) as u64;
        let sms = u64::from(sm_count.max(1));
        // The race is issue-bound: about 512 threads a multiprocessor keep it
        // busy, and every further block only adds its fixed cost (prologue,
        // partial, combine). The top-p kernels are memory-bound and want all
        // four of their 256-thread blocks a multiprocessor (docs/cuda-notes.md,
        // run 7: chunk sweep).
        let (nchunks, chunk_len) = chunking(
            opts,
            vocab,
            auto_chunks(
                rows64,
                units.div_ceil(u64::from(block_threads)),
                sms * 512 / u64::from(block_threads),
            ),
        )?;
        let (topp_nchunks, topp_chunk_len) = chunking(
            opts,
            vocab,
            auto_chunks(rows64, units.div_ceil(256), sms * 4),
        )?;
        // Fused top-k buffers: per warp FUSED_WCAP keys and a 256-bin
        // histogram, the block select's 256 counters, then two lists of the
        // row's last block (the block select's keys and their sorted top k);
        // kernels/sample.cu, tr_fused_counts.
        let fused_smem = (block_threads / 32) * (FUSED_WCAP * 8 + 256 * 4)
            + 256 * 4
            + 2 * crate::params::FUSED_TOP_K_MAX * 8;
        // One list of 256 keys per row and chunk.
        let lists = nchunks * u64::from(crate::params::FUSED_TOP_K_MAX) * rows as u64 * 8;
        let fused_list_bytes =
            if opts.no_fused || lists > FUSED_LIST_BYTES_MAX || fused_smem > PASS_SMEM_MAX {
                0
            } else {
                lists
            };
        let topp = rows as u64 * TOPP_ROW_BYTES;
        let topp_bytes = if opts.no_fused || topp > FUSED_LIST_BYTES_MAX {
            0
        } else {
            topp
        };
        // A chunk's table (16 KiB) pays where it saves reading a longer
        // chunk: from 4 * TOPP_VALUES elements on (docs/cuda-notes.md, run
        // 10: at 2048-element chunks the table writes cost the histogram more
        // than the gather saved).
        let counts = rows as u64 * topp_nchunks * TOPP_VALUES * 4;
        let topp_cnt_bytes = if topp_bytes == 0
            || topp_nchunks == 1
            || topp_chunk_len < 4 * TOPP_VALUES
            || counts > TOPP_CHUNK_COUNTS_MAX
        {
            0
        } else {
            counts
        };
        let topp_seg_units = if topp_bytes == 0 || topp_nchunks != 1 {
            0
        } else {
            topp_segment_units(topp_chunk_len / 8)
        };
        let blocks = nchunks.max(topp_nchunks) * rows as u64;
        if blocks > i32::MAX as u64 {
            return Err(CudaError::Shape(format!(
                "{rows} rows x {nchunks} chunks is too many blocks"
            )));
        }
        Ok(Geometry {
            block_threads,
            nchunks: nchunks as u32,
            chunk_len: chunk_len as u32,
            topp_nchunks: topp_nchunks as u32,
            topp_chunk_len: topp_chunk_len as u32,
            filter_threads,
            queue_cap,
            pass_smem,
            fused_smem,
            fused_list_bytes,
            topp_bytes,
            topp_cnt_bytes,
            topp_seg_units,
            topp_hist_smem: if topp_seg_units > 0 {
                TOPP_HIST_SMEM_MAX
            } else {
                TOPP_TABLE_BYTES
            },
        })
    }

    /// (dynamic shared memory, staged) of a pass launch over logits of
    /// `elem_bytes` bytes: the race queues, and after them the staging ring
    /// of the exact race when it fits in [`PASS_SMEM_MAX`] (`staged` is then
    /// true; otherwise the race loads its logits one step ahead in
    /// registers). Either way the tokens are the same.
    pub fn pass_smem_for(&self, elem_bytes: u32) -> (u32, bool) {
        let ring = (self.block_threads / 32) * RACE_STAGE_SLOTS * 32 * 8 * elem_bytes;
        if self.pass_smem + ring <= PASS_SMEM_MAX {
            (self.pass_smem + ring, true)
        } else {
            (self.pass_smem, false)
        }
    }
}

/// Warps a multiprocessor keeps resident of the 80-register race build
/// (`tr_fast_wide_*`, which batches that queue take): 65,536 registers /
/// (80 x 32) = 25.6 warps, 24 in whole blocks of 3 or 8 warps.
pub const RACE_WARPS_PER_SM: u64 = 24;

/// Units of 8 elements a row may hold for [`auto_block_threads`] to take
/// blocks of fewer than 256 threads: 16,384 (vocabularies up to 131,072),
/// at most 64 steps a warp at 256 threads.
pub const SMALL_BLOCK_MAX_UNITS: u64 = 16_384;

/// Threads a block of the specialized pass kernels when the caller sets
/// neither the block size nor the chunk count: 256, or fewer for a batch
/// whose rows take one chunk each and would need more than one round of
/// 256-thread blocks. Every warp of the race pays a fixed cost (its first
/// step from an empty threshold, its final flush, the block's reduction):
/// about 2,400 instructions against about 110 a step (Nsight Compute, B =
/// 1024, V = 131072: 79.2 M warp instructions with 8 warps a row, 119.2 M
/// with 3 chunks of 8, 67.2 M with 3 warps a row). So such a batch takes as
/// few warps a row as fill the resident warps in one round,
/// `RACE_WARPS_PER_SM x SMs / rows`, but at least 3 (the fewest measured):
/// at B = 1024 blocks of 96 threads, 130.7 us against 144.2 with 256 (plain
/// bf16, V = 131072, H200; 54.8 against 74.3 at V = 32000). Rows longer
/// than [`SMALL_BLOCK_MAX_UNITS`] keep 256 threads: at V = 262144 (128
/// steps a warp) 96 threads were faster for top-k 50 (265.9 against 283.8
/// us) but slower for plain sampling (242.7 against 237.7), top-p and
/// greedy (172.7 against 164.2; docs/cuda-notes.md, run 16, item 4).
fn auto_block_threads(opts: &LaunchOptions, rows: usize, vocab: usize, sm_count: u32) -> u32 {
    let units = vocab.div_ceil(8) as u64;
    if opts.block_threads != 0 || opts.blocks_per_row != 0 || units > SMALL_BLOCK_MAX_UNITS {
        return 256;
    }
    let resident = RACE_WARPS_PER_SM * u64::from(sm_count.max(1));
    let warps = (resident / rows.max(1) as u64).clamp(3, 8);
    32 * warps as u32
}

/// Chunks per row when the caller leaves it open, for kernels that should
/// have about `target` blocks in all: target / rows, at least one, at most
/// `n_max` (one unit of 8 elements a thread). Rounding down keeps a batch
/// from spilling a few blocks into a second round.
fn auto_chunks(rows: u64, n_max: u64, target: u64) -> u64 {
    (target / rows.max(1)).clamp(1, n_max.max(1))
}

/// (chunks, elements per chunk) of a row for the wanted chunk count (the
/// caller's `blocks_per_row` when set): whole units, no empty chunk.
fn chunking(opts: &LaunchOptions, vocab: usize, auto: u64) -> Result<(u64, u64)> {
    let want = if opts.blocks_per_row != 0 {
        u64::from(opts.blocks_per_row)
    } else {
        auto
    };
    split(vocab, want)
}

/// (chunks, elements per chunk) of a row split into at most `want` chunks
/// of whole units, none empty.
pub(crate) fn split(vocab: usize, want: u64) -> Result<(u64, u64)> {
    let units = vocab.div_ceil(8).max(1) as u64;
    let chunk_units = units.div_ceil(want.clamp(1, units));
    let chunk_len = chunk_units * 8;
    if chunk_len > u64::from(u32::MAX) {
        return Err(CudaError::Shape(format!(
            "vocabulary chunk of {chunk_len} elements is too long"
        )));
    }
    Ok(((vocab as u64).div_ceil(chunk_len).max(1), chunk_len))
}

/// The kernels' argument block; must match `struct SampleArgs` in
/// `kernels/sample.cu` field for field.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SampleArgs {
    pub logits: u64,
    pub row_stride: u64,
    pub temperature: u64,
    pub top_k: u64,
    pub top_p: u64,
    pub min_p: u64,
    pub seed: u64,
    pub position: u64,
    pub profile: u64,
    pub bias_kind: u64,
    pub bias_slot: u64,
    pub dense_bias: u64,
    pub dense_stride: u64,
    pub sparse_dense: u64,
    pub sparse_offsets: u64,
    pub sparse_index: u64,
    pub sparse_value: u64,
    pub partials: u64,
    pub counters: u64,
    pub rowstate: u64,
    pub out_token: u64,
    pub out_status: u64,
    pub vocab: u32,
    pub rows: u32,
    pub nchunks: u32,
    pub chunk_len: u32,
    pub phase: u32,
    pub queue_cap: u32,
    pub cand: u64,
    pub fused_on: u32,
    pub topp_on: u32,
    pub topp: u64,
    pub topp_cnt: u64,
    pub race_stages: u32,
    pub topp_seg_units: u32,
    pub topp_pend: u32,
    pub topp_own_max: u32,
    pub topp_late: u32,
}

/// Bytes of the kernels' argument block (`SampleArgs`), which every launch
/// of the sequence passes by value.
pub const SAMPLE_ARGS_BYTES: usize = std::mem::size_of::<SampleArgs>();

/// Bytes of one `Partial` and one `RowState` (kernels/sample.cu).
pub(crate) const PARTIAL_BYTES: usize = 40;
pub(crate) const ROWSTATE_BYTES: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_layout_matches_the_kernel_struct() {
        // 22 pointers/u64, 6 u32, a pointer, 2 u32, two pointers and five
        // u32, then 4 bytes of tail padding to the 8-byte alignment (as in
        // the C struct): 256 bytes.
        assert_eq!(std::mem::size_of::<SampleArgs>(), 25 * 8 + 13 * 4 + 4);
        assert_eq!(std::mem::align_of::<SampleArgs>(), 8);
    }

    #[test]
    fn the_late_trigger_is_taken_from_its_row_count_unless_chosen() {
        let auto = LaunchOptions::default();
        assert_eq!(auto.topp_trigger, ToppTrigger::Auto);
        for rows in [1, TOPP_LATE_ROWS - 1] {
            assert!(!topp_late_trigger(&auto, rows), "{rows} rows");
        }
        for rows in [TOPP_LATE_ROWS, 64, 1024] {
            assert!(topp_late_trigger(&auto, rows), "{rows} rows");
        }
        for (t, want) in [(ToppTrigger::Early, false), (ToppTrigger::Late, true)] {
            let o = LaunchOptions {
                topp_trigger: t,
                ..auto
            };
            for rows in [1, TOPP_LATE_ROWS, 1024] {
                assert_eq!(topp_late_trigger(&o, rows), want, "{t:?}, {rows} rows");
            }
        }
    }

    #[test]
    fn the_float_histogram_gets_the_fifth_piece_where_its_chunks_take_it() {
        // The kernel sums in five 15-bit pieces chunks of 2^16 + 1 to 2^17
        // elements, where its room holds five pieces of TOPP_BINS words;
        // everything else takes four pieces' room (16-bit pieces, or a
        // 128-bit sum of two u64 a bin).
        let four = 4 * TOPP_BINS as u32 * 4;
        let five = 5 * TOPP_BINS as u32 * 4;
        for (len, want) in [
            (1, four),
            (1 << 16, four),
            ((1 << 16) + 1, five),
            (1 << 17, five),
            ((1 << 17) + 1, four),
            (u32::MAX, four),
        ] {
            assert_eq!(topp_float_hist_smem(len), want, "chunk of {len}");
        }
        // Four blocks a multiprocessor with the bins' counts beside it.
        assert!(4 * (five + 8 * 1024) <= 228 * 1024);
    }

    #[test]
    fn geometry_covers_every_vocabulary() {
        for vocab in [
            1usize,
            7,
            8,
            9,
            255,
            4096,
            131071,
            131072,
            262144,
            (1 << 20) + 3,
        ] {
            for rows in [1usize, 3, 64, 1024] {
                for bpr in [0u32, 1, 2, 17, 1000] {
                    let g = Geometry::new(
                        &LaunchOptions {
                            blocks_per_row: bpr,
                            ..Default::default()
                        },
                        rows,
                        vocab,
                        132,
                    )
                    .unwrap();
                    for (n, len) in [(g.nchunks, g.chunk_len), (g.topp_nchunks, g.topp_chunk_len)] {
                        assert_eq!(len % 8, 0);
                        let covered = n as usize * len as usize;
                        assert!(covered >= vocab, "{vocab} {rows} {bpr}");
                        assert!(covered - vocab < len as usize, "no empty chunk");
                    }
                }
            }
        }
    }

    #[test]
    fn cluster_chunks_cover_the_row() {
        // The histogram of a batch without a first pass: at most `want`
        // chunks, whole units, none empty, every element covered.
        for vocab in [1usize, 9, 4096, 131072, 131073, 262144] {
            for want in 1..=TOPP_CLUSTER_MAX as u64 {
                let (n, len) = split(vocab, want).unwrap();
                assert!(n >= 1 && n <= want, "{vocab} {want}");
                assert_eq!(len % 8, 0);
                assert!(n * len >= vocab as u64 && n * len - (vocab as u64) < len);
            }
        }
        assert_eq!(split(131072, 8).unwrap(), (8, 16384));
        assert_eq!(split(131072, 16).unwrap(), (16, 8192));
        // One unit: one chunk, whatever is asked.
        assert_eq!(split(8, 16).unwrap(), (1, 8));
    }

    #[test]
    fn cluster_blocks_follow_the_batch() {
        // An H200 (132 multiprocessors) at V = 131072: the histogram's own
        // chunk counts, then the clusters of a batch without a first pass.
        let d = LaunchOptions::default();
        let cases = [
            (1, 16),
            (8, 16),
            (16, 16),
            (32, 8),
            (64, 4),
            (128, 2),
            (256, 2),
            (1024, 1),
        ];
        for (rows, want) in cases {
            let auto = Geometry::new(&d, rows, 131072, 132).unwrap().topp_nchunks;
            assert_eq!(topp_cluster_blocks(&d, rows, auto, 132), want, "B = {rows}");
        }
        // Never more than the histogram's own count; the caller's size wins.
        assert_eq!(topp_cluster_blocks(&d, 1, 3, 132), 3);
        let o = |c| LaunchOptions {
            topp_cluster: c,
            ..Default::default()
        };
        assert_eq!(topp_cluster_blocks(&o(8), 1, 64, 132), 8);
        assert_eq!(topp_cluster_blocks(&o(16), 300, 1, 132), 1);
        assert_eq!(topp_cluster_blocks(&o(4), 64, 8, 132), 4);
    }

    #[test]
    fn short_chunks_of_clustered_rows_are_staged() {
        // An H200 at V = 131072: the chunks of a batch without a first pass.
        let d = LaunchOptions::default();
        for (rows, want) in [
            (1, true),
            (8, true),
            (16, true),
            (32, true),
            (64, true),
            (128, false),
            (256, false),
        ] {
            let auto = Geometry::new(&d, rows, 131072, 132).unwrap().topp_nchunks;
            let c = topp_cluster_blocks(&d, rows, auto, 132);
            let (n, len) = split(131072, u64::from(c)).unwrap();
            assert_eq!(
                topp_stage_smem(n as u32, len as u32).is_some(),
                want,
                "B = {rows}"
            );
        }
        // The room: the table, then 16 bytes a unit for each of 256 threads,
        // the units a thread rounded up. Exactly 16 units a thread of 256
        // stage, one more does not; a row of one chunk never does (its block
        // may count in segments).
        assert_eq!(
            topp_stage_smem(16, 8 * 1024),
            Some(TOPP_STAGE_AT + 4 * 4096)
        );
        assert_eq!(
            topp_stage_smem(2, 8 * 1024 + 1),
            Some(TOPP_STAGE_AT + 5 * 4096)
        );
        assert_eq!(topp_stage_smem(4, 32 * 1024), Some(TOPP_STAGE_SMEM_MAX));
        assert_eq!(topp_stage_smem(2, 32 * 1024 + 1), None);
        assert_eq!(topp_stage_smem(1, 64), None);
    }

    #[test]
    fn cluster_size_is_validated() {
        let o = |c| LaunchOptions {
            topp_cluster: c,
            ..Default::default()
        };
        for c in [0, 1, 8, TOPP_CLUSTER_MAX] {
            assert!(Geometry::new(&o(c), 4, 131072, 132).is_ok(), "{c}");
        }
        let e = Geometry::new(&o(TOPP_CLUSTER_MAX + 1), 4, 131072, 132).unwrap_err();
        assert!(e.to_string().contains("topp_cluster"), "{e}");
    }

    #[test]
    fn auto_geometry_splits_small_batches() {
        // An H200: 132 multiprocessors.
        let g = |rows| Geometry::new(&LaunchOptions::default(), rows, 131072, 132).unwrap();
        // (race chunks, top-p chunks) a row.
        let chunks = |rows| (g(rows).nchunks, g(rows).topp_nchunks);
        assert_eq!(chunks(1), (64, 64)); // one unit per thread
        assert_eq!(chunks(8), (33, 64)); // 264 race blocks, 512 top-p blocks
        assert_eq!(chunks(64), (4, 8));
        assert_eq!(chunks(128), (2, 4));
        assert_eq!(chunks(256), (1, 2));
        assert_eq!(chunks(1024), (1, 1));
        // Fewer warps a row once a batch takes one chunk a row and queues:
        // 24 x 132 = 3168 resident warps.
        let threads = |rows| g(rows).block_threads;
        assert_eq!(threads(1), 256);
        assert_eq!(threads(256), 256);
        assert_eq!(threads(396), 256);
        assert_eq!(threads(397), 224);
        assert_eq!(threads(512), 192);
        assert_eq!(threads(792), 128);
        assert_eq!(threads(1024), 96);
        assert_eq!(threads(4096), 96);
        assert_eq!(chunks(512), (1, 1));
        assert_eq!(chunks(4096), (1, 1));
        // A caller's block size or chunk count keeps the 256-thread default
        // for what it leaves open.
        let one = LaunchOptions {
            blocks_per_row: 1,
            ..Default::default()
        };
        assert_eq!(
            Geometry::new(&one, 1024, 131072, 132)
                .unwrap()
                .block_threads,
            256
        );
        // Rows of more than 131,072 elements keep 256 threads.
        let long = |rows| {
            Geometry::new(&LaunchOptions::default(), rows, 131073, 132)
                .unwrap()
                .block_threads
        };
        assert_eq!(long(1024), 256);
        assert_eq!(
            Geometry::new(&LaunchOptions::default(), 1024, 32000, 132)
                .unwrap()
                .block_threads,
            96
        );
        // The generic kernel keeps 256 threads, with the same workspace.
        let gen = Geometry::for_build(&LaunchOptions::default(), 1024, 131072, 132, false).unwrap();
        let spec = g(1024);
        assert_eq!(gen.block_threads, 256);
        let sizes = |g: &Geometry| {
            (
                g.nchunks,
                g.topp_nchunks,
                g.fused_list_bytes,
                g.topp_bytes,
                g.topp_cnt_bytes,
            )
        };
        assert_eq!(sizes(&gen), sizes(&spec));
        // 512 threads a block: one block a multiprocessor for the race.
        let wide = LaunchOptions {
            block_threads: 512,
            ..Default::default()
        };
        assert_eq!(Geometry::new(&wide, 8, 131072, 132).unwrap().nchunks, 16);
        // The caller's count applies to both.
        let fixed = LaunchOptions {
            blocks_per_row: 7,
            ..Default::default()
        };
        let f = Geometry::new(&fixed, 8, 131072, 132).unwrap();
        assert_eq!((f.nchunks, f.topp_nchunks), (7, 7));
        assert_eq!(auto_chunks(5, 1, 396), 1);
        assert_eq!(auto_chunks(1000, 64, 1), 1);
    }

    #[test]
    fn chunk_counts_only_for_long_chunks() {
        let g = |rows, bpr| {
            let o = LaunchOptions {
                blocks_per_row: bpr,
                ..Default::default()
            };
            Geometry::new(&o, rows, 131072, 132).unwrap().topp_cnt_bytes
        };
        // 2048- and 4096-element chunks: no table; 16384 and longer: one
        // table of TOPP_VALUES counts per block of the top-p kernels.
        assert_eq!(g(1, 0), 0);
        assert_eq!(g(8, 0), 0);
        assert_eq!(g(32, 0), 0);
        assert_eq!(g(64, 0), 64 * 8 * TOPP_VALUES * 4);
        assert_eq!(g(256, 0), 256 * 2 * TOPP_VALUES * 4);
        // One chunk a row: the gather reads that chunk anyway.
        assert_eq!(g(1024, 0), 0);
        assert_eq!(g(8, 1), 0);
        // More than TOPP_CHUNK_COUNTS_MAX: off.
        assert_eq!(g(1024, 8), 0);
        assert_eq!(g(512, 2), 512 * 2 * TOPP_VALUES * 4);
        // Off with the top-p path.
        let off = LaunchOptions {
            no_fused: true,
            ..Default::default()
        };
        assert_eq!(
            Geometry::new(&off, 256, 131072, 132)
                .unwrap()
                .topp_cnt_bytes,
            0
        );
    }

    #[test]
    fn segments_only_for_rows_of_one_long_chunk() {
        let g = |rows, vocab| {
            Geometry::new(&LaunchOptions::default(), rows, vocab, 132)
                .unwrap()
                .topp_seg_units
        };
        // Rows of many top-p chunks: per-chunk counts instead.
        assert_eq!(g(256, 131072), 0);
        // One chunk a row: three segments.
        assert_eq!(g(1024, 131072), 5462);
        assert_eq!(g(512, 131073), 5462);
        assert_eq!(g(1024, 262144), 10923);
        // Short rows: none.
        assert_eq!(g(2048, 4000), 0);
        assert_eq!(topp_segment_units(2047), 0);
        assert_eq!(topp_segment_units(2048), 683);
        // The histogram's shared memory holds a table a segment, and at
        // least one.
        for (rows, vocab) in [(1, 131072), (256, 131072), (1024, 131072), (2048, 4000)] {
            let geo = Geometry::new(&LaunchOptions::default(), rows, vocab, 132).unwrap();
            let tables = geo.topp_hist_smem / TOPP_TABLE_BYTES;
            assert!(tables >= 1);
            if geo.topp_seg_units > 0 {
                let units = u64::from(geo.topp_chunk_len / 8);
                assert!(units.div_ceil(u64::from(geo.topp_seg_units)) <= u64::from(tables));
            }
        }
        // Off with the top-p path.
        let off = LaunchOptions {
            no_fused: true,
            ..Default::default()
        };
        assert_eq!(
            Geometry::new(&off, 1024, 131072, 132)
                .unwrap()
                .topp_seg_units,
            0
        );
    }

    #[test]
    fn staging_ring_only_where_it_fits() {
        let g = |threads, cap| {
            let o = LaunchOptions {
                block_threads: threads,
                queue_cap: cap,
                ..Default::default()
            };
            Geometry::new(&o, 64, 131072, 132).unwrap()
        };
        // 256 threads, 64 entries: 8 KiB of queues, then 8 warps x
        // RACE_STAGE_SLOTS slots of 32 lanes x one unit.
        let d = g(0, 0);
        let ring16 = 8 * RACE_STAGE_SLOTS * 32 * 16;
        assert_eq!(d.pass_smem_for(2), (8 * 1024 + ring16, true));
        assert_eq!(d.pass_smem_for(4), (8 * 1024 + 2 * ring16, true));
        // 512 threads: the ring (32 KiB for 16-bit rows) and the queues
        // (16 KiB) would leave the static shared memory no room.
        let w = g(512, 0);
        assert_eq!(w.pass_smem_for(2), (16 * 1024, false));
        assert_eq!(w.pass_smem_for(4), (16 * 1024, false));
        assert_eq!(g(128, 0).pass_smem_for(4), (4 * 1024 + 16 * 1024, true));
        // Long queues leave no room: the race loads in registers.
        assert_eq!(g(512, 128).pass_smem_for(2), (32 * 1024, false));
        assert_eq!(g(256, 368).pass_smem_for(2), (PASS_SMEM_MAX, false));
        // Queues alone beyond PASS_SMEM_MAX are refused before any launch.
        let o = LaunchOptions {
            block_threads: 256,
            queue_cap: 384,
            ..Default::default()
        };
        assert!(Geometry::new(&o, 64, 131072, 132).is_err());
    }

    #[test]
    fn fused_path_needs_room() {
        let g = Geometry::new(&LaunchOptions::default(), 1024, 131072, 132).unwrap();
        assert!(g.fused_smem <= 46 * 1024);
        assert_eq!(g.fused_list_bytes, 1024 * 256 * 8);
        // 512 threads: 16 warp buffers do not fit in 48 KiB of shared memory.
        let wide = LaunchOptions {
            block_threads: 512,
            ..Default::default()
        };
        assert_eq!(
            Geometry::new(&wide, 8, 131072, 132)
                .unwrap()
                .fused_list_bytes,
            0
        );
        let off = LaunchOptions {
            no_fused: true,
            ..Default::default()
        };
        assert_eq!(
            Geometry::new(&off, 8, 131072, 132)
                .unwrap()
                .fused_list_bytes,
            0
        );
        // Very many rows x chunks: the lists would pass the workspace cap.
        let many = LaunchOptions {
            blocks_per_row: 1000,
            ..Default::default()
        };
        assert_eq!(
            Geometry::new(&many, 4096, 1 << 20, 132)
                .unwrap()
                .fused_list_bytes,
            0
        );
    }

    #[test]
    fn rejects_bad_block_sizes() {
        for bt in [31u32, 33, 1024, 2048] {
            let o = LaunchOptions {
                block_threads: bt,
                ..Default::default()
            };
            assert!(Geometry::new(&o, 1, 100, 132).is_err());
        }
        let o = LaunchOptions {
            block_threads: 512,
            queue_cap: 1024,
            ..Default::default()
        };
        assert!(Geometry::new(&o, 1, 100, 132).is_err());
    }
}
