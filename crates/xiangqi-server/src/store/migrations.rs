//! The versioned migrations of both backends, applied in order when the store opens; each
//! database records the versions it has in its `schema_migrations` table. A version has one
//! SQL file per backend (`migrations/sqlite/`, `migrations/postgres/` in the crate), so the
//! two stay in step: a new table is a new version with both files.

/// One step of the schema.
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sqlite: &'static str,
    pub postgres: &'static str,
}

/// Every migration, by ascending version (1, 2, ...).
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "games and live games",
        sqlite: include_str!("../../migrations/sqlite/0001_games_and_live_games.sql"),
        postgres: include_str!("../../migrations/postgres/0001_games_and_live_games.sql"),
    },
    Migration {
        version: 2,
        name: "accounts",
        sqlite: include_str!("../../migrations/sqlite/0002_accounts.sql"),
        postgres: include_str!("../../migrations/postgres/0002_accounts.sql"),
    },
    Migration {
        version: 3,
        name: "notes",
        sqlite: include_str!("../../migrations/sqlite/0003_notes.sql"),
        postgres: include_str!("../../migrations/postgres/0003_notes.sql"),
    },
    Migration {
        version: 4,
        name: "reviews",
        sqlite: include_str!("../../migrations/sqlite/0004_reviews.sql"),
        postgres: include_str!("../../migrations/postgres/0004_reviews.sql"),
    },
    Migration {
        version: 5,
        name: "node beats",
        sqlite: include_str!("../../migrations/sqlite/0005_node_beats.sql"),
        postgres: include_str!("../../migrations/postgres/0005_node_beats.sql"),
    },
    Migration {
        version: 6,
        name: "chat",
        sqlite: include_str!("../../migrations/sqlite/0006_chat.sql"),
        postgres: include_str!("../../migrations/postgres/0006_chat.sql"),
    },
    Migration {
        version: 7,
        name: "correspondence",
        sqlite: include_str!("../../migrations/sqlite/0007_correspondence.sql"),
        postgres: include_str!("../../migrations/postgres/0007_correspondence.sql"),
    },
    Migration {
        version: 8,
        name: "bots",
        sqlite: include_str!("../../migrations/sqlite/0008_bots.sql"),
        postgres: include_str!("../../migrations/postgres/0008_bots.sql"),
    },
    Migration {
        version: 9,
        name: "language",
        sqlite: include_str!("../../migrations/sqlite/0009_language.sql"),
        postgres: include_str!("../../migrations/postgres/0009_language.sql"),
    },
    Migration {
        version: 10,
        name: "ended order",
        sqlite: include_str!("../../migrations/sqlite/0010_ended_order.sql"),
        postgres: include_str!("../../migrations/postgres/0010_ended_order.sql"),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_count_up_from_one() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, i as i64 + 1, "{}", m.name);
            assert!(!m.sqlite.trim().is_empty() && !m.postgres.trim().is_empty());
        }
    }
}
