//! The table file (`KRKAA.xqtb`), little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 4 | magic `XQTB` |
//! | 4 | format version (2; version 1 files are read too) |
//! | 1 + n | the set's canonical name, its length first |
//! | 8 | positions (indices) |
//! | 4 | positions per block |
//! | 4 | blocks |
//! | 8 × 4 | won, drawn, lost and illegal positions |
//! | 8 × 2 | (version 2 only) of the drawn, those won and lost by the perpetual-check rule |
//! | 2 | the longest DTM |
//! | 4 | CRC-32 of all the values (uncompressed) |
//! | 16 × blocks | per block: offset of its data from the file's start (8), length (4), CRC-32 of the data (4) |
//! | 4 | CRC-32 of everything above |
//! | ... | the blocks: one byte per position ([`crate::Value::to_byte`]), raw DEFLATE |
//!
//! A probe reads one block and inflates it; the [`CACHE_BLOCKS`] blocks last used are kept. Version 2
//! values may be [`crate::WIN_BY_RULE`] and [`crate::LOSS_BY_RULE`] (drawn when repetition
//! is a draw, won or lost under the perpetual-check rule); version 1 tables were made before
//! the rule and are read with the standard results only.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::generate::Stats;
use crate::index::Indexer;
use crate::material::Material;
use crate::{Source, TbError};

pub const MAGIC: &[u8; 4] = b"XQTB";
pub const VERSION: u32 = 2;
/// Positions per block.
pub const BLOCK: u64 = 1 << 16;
/// Inflated blocks kept by a table opened on its own ([`TableFile::open`]): 16 × 64 KiB =
/// 1 MiB. The tables of a [`crate::Tablebase`] share one larger cache
/// ([`crate::DEFAULT_CACHE_BYTES`]).
pub const CACHE_BLOCKS: usize = 16;

/// Inflated blocks of one or more tables, the least recently used dropped first when
/// `capacity` blocks are held. A search's probes spread over many blocks of a large set
/// (a 1.8 × 10⁸-position set has 2,804 blocks), and inflating one costs about as much as
/// a thousand nodes, so a search in such a set needs hundreds of blocks at hand.
#[derive(Debug)]
pub struct BlockCache {
    capacity: usize,
    inner: Mutex<CacheInner>,
}

/// A block of inflated values and the tick of its last use.
type Cached = (Arc<Vec<u8>>, u64);

#[derive(Debug, Default)]
struct CacheInner {
    /// (table, block) -> the block.
    map: HashMap<(u32, u32), Cached>,
    tick: u64,
}

impl BlockCache {
    /// A cache holding at most `bytes` of inflated values (at least one block).
    pub fn new(bytes: usize) -> BlockCache {
        BlockCache {
            capacity: (bytes / BLOCK as usize).max(1),
            inner: Mutex::new(CacheInner::default()),
        }
    }

    /// The most blocks held.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The blocks held now.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        // A panic while holding the lock leaves whole entries: the map is still valid.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: (u32, u32)) -> Option<Arc<Vec<u8>>> {
        let mut c = self.lock();
        c.tick += 1;
        let tick = c.tick;
        c.map.get_mut(&key).map(|e| {
            e.1 = tick;
            e.0.clone()
        })
    }

    fn insert(&self, key: (u32, u32), block: Arc<Vec<u8>>) {
        let mut c = self.lock();
        if c.map.len() >= self.capacity && !c.map.contains_key(&key) {
            // A scan on a miss only, which costs far less than the inflation it follows.
            if let Some(&oldest) = c.map.iter().min_by_key(|(_, e)| e.1).map(|(k, _)| k) {
                c.map.remove(&oldest);
            }
        }
        c.tick += 1;
        let tick = c.tick;
        c.map.insert(key, (block, tick));
    }
}

/// Numbers the tables that share a cache.
static NEXT_TABLE_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Writes a table (to `path.tmp`, then renamed, so that an interrupted write leaves no
/// table behind); returns the file's size in bytes.
pub fn write(path: &Path, material: &Material, values: &[u8], st: &Stats) -> Result<u64, TbError> {
    let io = |err| TbError::Io {
        path: path.to_path_buf(),
        err,
    };
    let name = material.to_string();
    let nblocks = (values.len() as u64).div_ceil(BLOCK) as usize;
    let blocks: Vec<Vec<u8>> = values
        .chunks(BLOCK as usize)
        .map(|b| miniz_oxide::deflate::compress_to_vec(b, 6))
        .collect();
    let mut head = Vec::new();
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.push(name.len() as u8);
    head.extend_from_slice(name.as_bytes());
    head.extend_from_slice(&(values.len() as u64).to_le_bytes());
    head.extend_from_slice(&(BLOCK as u32).to_le_bytes());
    head.extend_from_slice(&(nblocks as u32).to_le_bytes());
    for c in [
        st.wins,
        st.draws,
        st.losses,
        st.illegal,
        st.rule_wins,
        st.rule_losses,
    ] {
        head.extend_from_slice(&c.to_le_bytes());
    }
    head.extend_from_slice(&st.max_dtm.to_le_bytes());
    head.extend_from_slice(&crc32fast::hash(values).to_le_bytes());
    let mut offset = (head.len() + 16 * nblocks + 4) as u64;
    for b in &blocks {
        head.extend_from_slice(&offset.to_le_bytes());
        head.extend_from_slice(&(b.len() as u32).to_le_bytes());
        head.extend_from_slice(&crc32fast::hash(b).to_le_bytes());
        offset += b.len() as u64;
    }
    let crc = crc32fast::hash(&head);
    head.extend_from_slice(&crc.to_le_bytes());
    for b in &blocks {
        head.extend_from_slice(b);
    }
    let tmp = path.with_extension("xqtb.tmp");
    std::fs::write(&tmp, &head).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)?;
    Ok(head.len() as u64)
}

/// An opened table file.
pub struct TableFile {
    path: PathBuf,
    material: Material,
    indexer: Indexer,
    positions: u64,
    block: u64,
    /// (offset, length, crc) per block.
    blocks: Vec<(u64, u32, u32)>,
    values_crc: u32,
    /// The format version (1 or 2).
    pub version: u32,
    /// Won, drawn, lost, illegal.
    pub counts: [u64; 4],
    /// Of the drawn, won and lost by the perpetual-check rule (0 in version 1).
    pub rule_counts: [u64; 2],
    pub max_dtm: u16,
    data: Vec<u8>,
    /// Inflated blocks, maybe shared with other tables; `id` names this table's there.
    cache: Arc<BlockCache>,
    id: u32,
}

/// Reads fields off a byte slice, failing with a message on a short file.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let s = self.bytes.get(self.at..self.at + n).ok_or_else(|| {
            format!(
                "the file ends at byte {} inside its header",
                self.bytes.len()
            )
        })?;
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
}

impl TableFile {
    /// Opens a table file and checks its header; it keeps [`CACHE_BLOCKS`] inflated blocks.
    pub fn open(path: &Path) -> Result<TableFile, TbError> {
        let cache = Arc::new(BlockCache::new(CACHE_BLOCKS * BLOCK as usize));
        Self::open_cached(path, cache)
    }

    /// Opens a table file whose inflated blocks go to `cache` (shared by several tables).
    pub fn open_cached(path: &Path, cache: Arc<BlockCache>) -> Result<TableFile, TbError> {
        let data = std::fs::read(path).map_err(|err| TbError::Io {
            path: path.to_path_buf(),
            err,
        })?;
        Self::parse(path, data, cache).map_err(|why| TbError::Damaged {
            path: path.to_path_buf(),
            why,
        })
    }

    fn parse(path: &Path, data: Vec<u8>, cache: Arc<BlockCache>) -> Result<TableFile, String> {
        let mut r = Reader {
            bytes: &data,
            at: 0,
        };
        if r.take(4)? != MAGIC {
            return Err("not a table file (no XQTB magic)".into());
        }
        let v = r.u32()?;
        if v != 1 && v != VERSION {
            return Err(format!(
                "format version {v}, this program reads 1 and {VERSION}"
            ));
        }
        let n = r.take(1)?[0] as usize;
        let name = String::from_utf8_lossy(r.take(n)?).into_owned();
        let material = Material::parse(&name).map_err(|e| e.to_string())?;
        if material.canonical() != material {
            return Err(format!("{name} is not a canonical set name"));
        }
        let positions = r.u64()?;
        let block = r.u32()? as u64;
        let nblocks = r.u32()? as usize;
        let indexer = Indexer::new(material);
        if positions != indexer.size() || block == 0 || nblocks as u64 != positions.div_ceil(block)
        {
            return Err(format!(
                "sizes do not match {name} ({positions} positions in {nblocks} blocks of {block})"
            ));
        }
        let counts = [r.u64()?, r.u64()?, r.u64()?, r.u64()?];
        let rule_counts = if v >= 2 { [r.u64()?, r.u64()?] } else { [0, 0] };
        let max_dtm = u16::from_le_bytes(r.take(2)?.try_into().expect("2"));
        let values_crc = r.u32()?;
        let mut blocks = Vec::with_capacity(nblocks);
        for _ in 0..nblocks {
            blocks.push((r.u64()?, r.u32()?, r.u32()?));
        }
        let head_end = r.at;
        let crc = r.u32()?;
        if crc32fast::hash(&data[..head_end]) != crc {
            return Err("header checksum mismatch".into());
        }
        for (i, &(off, len, _)) in blocks.iter().enumerate() {
            if off
                .checked_add(len as u64)
                .is_none_or(|e| e > data.len() as u64)
            {
                return Err(format!("block {i} lies past the end of the file"));
            }
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            material,
            indexer,
            positions,
            block,
            blocks,
            values_crc,
            version: v,
            counts,
            rule_counts,
            max_dtm,
            data,
            cache,
            id: NEXT_TABLE_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    pub fn material(&self) -> &Material {
        &self.material
    }
    pub fn positions(&self) -> u64 {
        self.positions
    }
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn inflate(&self, i: usize) -> Result<Vec<u8>, TbError> {
        let damaged = |why: String| TbError::Damaged {
            path: self.path.clone(),
            why,
        };
        let (off, len, crc) = self.blocks[i];
        let raw = &self.data[off as usize..(off + len as u64) as usize];
        if crc32fast::hash(raw) != crc {
            return Err(damaged(format!("block {i} checksum mismatch")));
        }
        let out = miniz_oxide::inflate::decompress_to_vec(raw)
            .map_err(|e| damaged(format!("block {i} does not inflate: {e:?}")))?;
        let want = (self.positions - i as u64 * self.block).min(self.block);
        if out.len() as u64 != want {
            return Err(damaged(format!(
                "block {i} holds {} values, not {want}",
                out.len()
            )));
        }
        Ok(out)
    }

    /// All the values, checked against the checksum of the whole.
    pub fn values(&self) -> Result<Vec<u8>, TbError> {
        let mut v = Vec::with_capacity(self.positions as usize);
        for i in 0..self.blocks.len() {
            v.extend(self.inflate(i)?);
        }
        if crc32fast::hash(&v) != self.values_crc {
            return Err(TbError::Damaged {
                path: self.path.clone(),
                why: "values checksum mismatch".into(),
            });
        }
        Ok(v)
    }
}

impl Source for TableFile {
    fn indexer(&self) -> &Indexer {
        &self.indexer
    }
    fn byte(&self, idx: u64) -> Result<u8, TbError> {
        let b = (idx / self.block) as usize;
        let at = (idx % self.block) as usize;
        let key = (self.id, b as u32);
        if let Some(block) = self.cache.get(key) {
            return Ok(block[at]);
        }
        // Inflated outside the lock, so other threads' probes go on meanwhile.
        let block = Arc::new(self.inflate(b)?);
        let v = block[at];
        self.cache.insert(key, block);
        Ok(v)
    }
    fn rule_results(&self) -> Result<(), TbError> {
        if self.version >= 2 {
            Ok(())
        } else {
            Err(TbError::NoRuleResults {
                path: self.path.clone(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_cache_keeps_the_most_recently_used_within_its_capacity() {
        let c = BlockCache::new(3 * BLOCK as usize);
        assert_eq!(c.capacity(), 3);
        assert_eq!(BlockCache::new(0).capacity(), 1, "one block at least");
        let block = |v: u8| Arc::new(vec![v; 4]);
        // Two tables' block 0 are different entries.
        c.insert((0, 0), block(1));
        c.insert((1, 0), block(2));
        c.insert((0, 1), block(3));
        assert_eq!(c.get((0, 0)).unwrap()[0], 1);
        assert_eq!(c.get((1, 0)).unwrap()[0], 2);
        // Full: the least recently used, (0, 1), goes.
        c.insert((1, 1), block(4));
        assert_eq!(c.len(), 3);
        assert!(c.get((0, 1)).is_none());
        assert_eq!(c.get((0, 0)).unwrap()[0], 1);
        // Now (1, 0) is the oldest.
        c.insert((2, 7), block(5));
        assert!(c.get((1, 0)).is_none());
        assert_eq!(c.get((1, 1)).unwrap()[0], 4);
        assert_eq!(c.get((2, 7)).unwrap()[0], 5);
        // Inserting a key held replaces it without evicting another.
        c.insert((2, 7), block(6));
        assert_eq!(c.len(), 3);
        assert_eq!(c.get((2, 7)).unwrap()[0], 6);
        assert_eq!(c.get((0, 0)).unwrap()[0], 1);
    }
}
