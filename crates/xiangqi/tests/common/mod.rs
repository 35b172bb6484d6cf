//! Helpers shared by the integration tests (and, through `#[path]`, by the fuzz targets).

pub mod checks;
pub mod reference;
pub mod rng;
