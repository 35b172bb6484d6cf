//! Xiangqi NNUE foundations: the training-data format ([`data`]), the input features
//! ([`features`]), the network and its files ([`net`]) and a CPU trainer ([`train`]).
//! Inference with incremental accumulators lives in the engine (`xiangqi-engine`'s `nnue`
//! module); docs/NNUE.md describes the whole pipeline.

#![forbid(unsafe_code)]

pub mod data;
pub mod features;
pub mod net;
pub mod train;
pub mod wdl;

pub use data::{DataReader, DataWriter, GameResult, Record};
pub use features::KingBuckets;
pub use net::{Arch, Checkpoint, FloatNet, NetError, QuantisedNet};
