-- The games in the order their last write came (`updated`, wall ms), then by id: how a node's
-- opening explorer follows the games that end on any node (Store::ended_live_after reads the
-- ended ones after a point of this order, a page at a time).
CREATE INDEX IF NOT EXISTS live_games_updated ON live_games(updated, id);
