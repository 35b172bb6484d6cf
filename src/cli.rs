//! The command line, as clap (derive) reads it: every subcommand with its options, their
//! defaults and an example in its `--help`. `README.md`'s command-line section is checked
//! against the usage lines clap prints (`tests/cli_help.rs`).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use xiangqi::notation::Notation;
use xiangqi::prose::Lang;
use xiangqi::START_FEN;

use crate::Fail;

/// The version, with the git commit when built from a checkout (`build.rs`).
const VERSION: &str = env!("XIANGQI_VERSION");

#[derive(Parser, Debug)]
#[command(
    name = "xiangqi",
    version = VERSION,
    about = "Xiangqi (Chinese chess): the rules, records, an engine, matches and a browser app",
    long_about = "Xiangqi (Chinese chess): the rules, records, an engine, matches and a browser \
                  app.\n\nWithout a command, `xiangqi` serves the browser app (as `xiangqi serve`).",
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  xiangqi                      serve the browser app on localhost\n  \
                  xiangqi play --level 5        a game against the engine in the terminal\n  \
                  xiangqi help judge            the options of one command"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// `xiangqi` alone (or with only `serve`'s options) serves the browser app.
    #[command(flatten)]
    pub serve: xiangqi_server::ServeArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the browser app (the default) and print its URL
    #[command(
        override_usage = "xiangqi [serve] [--port N] [--host ADDR] [--data DIR] [--no-fallback] [--no-rate-limits] [--https] [--redis URL] [--database URL] [--explorer DIR] [--book FILE | --no-book] [--tb DIR]",
        long_about = "Serve the browser app and print its URL. When the port is taken it listens \
                      on the next free one of the following 19, unless --no-fallback. Games are \
                      kept in a SQLite file in --data DIR. The HTTP API is in docs/API.md.",
        after_help = "Example:\n  xiangqi serve --port 9000 --data ./games"
    )]
    Serve(xiangqi_server::ServeArgs),
    /// Count the leaf nodes DEPTH plies deep
    #[command(
        override_usage = "xiangqi perft [--fen FEN] [--divide] [--no-bulk] DEPTH",
        long_about = "Count the leaf nodes DEPTH plies deep. Prints `MOVE: COUNT` per root move \
                      with --divide, then `nodes N`, and last the time and millions of nodes per \
                      second. The last ply is counted without being played (bulk counting) \
                      unless --no-bulk.",
        after_help = "Examples:\n  xiangqi perft 5\n  xiangqi perft --divide --fen \
                      '4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1' 3"
    )]
    Perft(PerftArgs),
    /// Print the legal moves after the given moves, one per line, sorted
    #[command(
        override_usage = "xiangqi moves [--fen FEN] [MOVE ...]",
        after_help = "Example:\n  xiangqi moves h2e2 h9g7 H0-G2"
    )]
    Moves(MovesArgs),
    /// Play the moves and print `ongoing` or the verdict and reason
    #[command(
        override_usage = "xiangqi judge [--fen FEN] [--repetitions N] [--explain [--lang en|zh|zh-Hant|vi]] MOVE ...",
        long_about = "Play the moves and print `ongoing` or the verdict and reason (e.g. \
                      `black-wins perpetual-chase`); --explain adds a plain-language account of \
                      the ruling, in English or Chinese.",
        after_help = "Example:\n  xiangqi judge --explain --repetitions 2 --fen \
                      '2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1' \
                      c2a2 a7b7 a2b2 b7a7 b2a2"
    )]
    Judge(JudgeArgs),
    /// Read a record file in any format and write PGN, FENs, DhtmlXQ or XQF
    #[command(
        override_usage = "xiangqi convert INPUT [-o OUTPUT] [--notation iccs|wxf|chinese] [--to pgn|fen|dhtmlxq|xqf] [--encoding utf8|gbk] [--strict | --lenient]",
        long_about = "Read a record file in any format (recognised from the content; many games \
                      per file) and write PGN in the chosen notation, each game's final FEN, DhtmlXQ, or XQF \
                      (binary, one game a file: several games need -o DIR, written as \
                      DIR/game-0001.xqf ... numbered by their place in the input; one game goes \
                      to -o FILE, or to stdout when it is not a terminal). A \
                      broken game is reported and the others convert (exit status 1). An illegal \
                      move inside a variation drops that branch with a warning; --strict refuses \
                      such a game instead, --lenient also keeps a game with an unplayable \
                      main-line move (or, in a binary file, a damaged move record) up to the \
                      move before it (with a warning naming the line or byte). Shows a progress bar on stderr for big files when \
                      stderr is a terminal.",
        after_help = "Examples:\n  xiangqi convert games.xqf -o games.pgn --notation wxf\n  \
                      xiangqi convert - --to fen < games.pgn"
    )]
    Convert(ConvertArgs),
    /// Review every game of a record file with the engine: evaluations, mistakes, accuracy
    #[command(
        override_usage = "xiangqi analyze INPUT [-o OUTPUT] [--nodes N | --depth D | --movetime MS] [--threads T] [--hash MB] [--notation iccs|wxf|chinese] [--quiet]",
        long_about = "Review every game of a record file (any format convert reads; many games \
                      per file): every position is searched and PGN is written with an \
                      [%eval] comment on every move (Red's point of view, in pawns), ?! ? ?? on \
                      inaccuracies, mistakes and blunders by the loss of winning chances, the \
                      engine's better move as a variation after each, and per side the accuracy \
                      and the counts (tags and a summary comment). docs/REVIEW.md describes the \
                      analysis. A progress bar shows on stderr when it is a terminal, none with \
                      --quiet. A broken game is reported and the others are analysed.",
        after_help = "Examples:\n  xiangqi analyze game.xqf -o reviewed.pgn\n  \
                      xiangqi analyze games.pgn --nodes 200000 --threads 2 --quiet > out.pgn"
    )]
    Analyze(AnalyzeArgs),
    /// Run the engine, speaking UCI (or UCCI) on stdin/stdout
    #[command(
        override_usage = "xiangqi uci",
        after_help = "Example:\n  echo 'go depth 8' | xiangqi uci"
    )]
    Uci,
    /// Search the engine's fixed positions (last line `N nodes M nps`)
    #[command(
        override_usage = "xiangqi bench [DEPTH]",
        after_help = "Example:\n  xiangqi bench 13"
    )]
    Bench(BenchArgs),
    /// Play engines against each other (cutechess-cli's options; docs/MATCH.md)
    #[command(
        override_usage = "xiangqi match -engine name=A cmd=PATH ... -engine name=B cmd=PATH ... \
                          -each tc=10+0.1 -games 2 -rounds N ...",
        long_about = "Play engines against each other under the real rules, with Elo and an SPRT. \
                      The options are cutechess-cli's, with one dash; see docs/MATCH.md. A \
                      progress bar shows on stderr when it is a terminal.",
        // The after-help (the runner's own option list) is added in `command()`.
    )]
    Match(MatchArgs),
    /// Put a UCI or UCCI engine on a server account as a bot (lichess's Bot API; docs/BOTS.md)
    #[command(
        override_usage = "xiangqi bot --server URL --token T --engine CMD [--option NAME=VALUE ...] [--proto uci|ucci] [--ranks 0|1|auto] [--upgrade] [--accept-tc SPEEDS] [--min-initial S] [--max-initial S] [--min-increment S] [--max-increment S] [--rated | --casual] [--no-bots | --only-bots] [--max-games N] [--move-overhead MS] [--corr-movetime MS] [--resign-score CP] [--resign-moves N] [--draw-score CP] [--draw-moves N] [--draw-pieces N] [--log-dir DIR]",
        long_about = "Put a UCI or UCCI engine on a server account as a bot, through lichess's Bot \
                      API (the server's, or any that speaks it). It reads the account's event \
                      stream, accepts the challenges the policy below allows and declines the \
                      others with lichess's reasons, and plays each game on a thread of its own \
                      with a process of the engine, on the server's clocks.\n\n\
                      Policy: a challenge is declined noBot / onlyBot (--no-bots, --only-bots), \
                      tooFast / tooSlow (its speed, initial time or increment below or above what \
                      --accept-tc, --min-initial, --max-initial, --min-increment, --max-increment \
                      allow), timeControl (a speed not accepted between accepted ones, or no \
                      clock unless correspondence is accepted), variant (not Xiangqi), casual / \
                      rated (--rated: rated games only; --casual: casual only), later (already \
                      --max-games games). Time: the engine is given the gameState's wtime/btime \
                      and winc/binc (Red is white), its own time less --move-overhead and the time \
                      since the state arrived; without a clock (correspondence) --corr-movetime a \
                      move. It resigns when the engine's score is at most --resign-score cp for \
                      --resign-moves of its moves in a row, and offers (or accepts) a draw with \
                      its move (offeringDraw) when the score is within +-(--draw-score) cp for \
                      --draw-moves moves in a row and at most --draw-pieces pieces are left. The \
                      event stream and each game stream are reopened after a loss with backoff \
                      (1, 2, 4 ... 30 s); a game in progress is resumed from its gameFull; a move \
                      that failed to post is sent again until it is taken, or dropped if the game \
                      moved on. One line per move on stderr; with --log-dir each game's PGN \
                      (ID.pgn) and the engine's stderr.",
        after_help = "Examples:\n  xiangqi bot --server https://xiangqi.example --token @token.txt --engine \
                      'xiangqi uci' --upgrade\n  xiangqi bot --server http://localhost:8080 --token \
                      xqt_... --engine /usr/games/fairy-stockfish --option Hash=64 --accept-tc \
                      blitz,rapid --max-games 2 --resign-score -1000 --log-dir games"
    )]
    Bot(BotArgs),
    /// Build and query an opening explorer index (docs/EXPLORER.md)
    #[command(
        override_usage = "xiangqi explorer build RECORDS... -o DIR [--max-ply N] | xiangqi explorer query DIR [--fen FEN] [--play MOVES] [--db masters|site|player] [--json] | xiangqi explorer book DIR -o FILE [--db masters|site|player [--player NAME --color red|black]] [--min-games N] [--max-ply N] [--weights results|games|points] [--min-score F]",
        long_about = "An opening explorer: for every position of a set of games, the moves played \
                      from it with their results. `build` indexes the main lines of record files \
                      (any format convert reads) into DIR/explorer.redb, adding to what is there \
                      (a game already there counts once); `query` shows a position's moves; \
                      `book` writes the engine's opening book (BookFile) from an index.",
        after_help = "Examples:\n  xiangqi explorer build games/*.pgn -o book\n  \
                      xiangqi explorer query book --play h2e2,h9g7 --notation chinese\n  \
                      xiangqi explorer book book -o engine.xqb --min-games 5 --max-ply 16"
    )]
    Explorer(ExplorerArgs),
    /// Generate and probe endgame tablebases (docs/TABLEBASES.md)
    #[command(
        override_usage = "xiangqi tb generate SETS... -o DIR [--threads N] [--method graph|lean|auto] [--memory MB] | xiangqi tb probe FEN --tb DIR | xiangqi tb verify SETS... --tb DIR [--samples N|all] [--searched N] [--depth PLIES] [--seed N] | xiangqi tb list --tb DIR [--changed]",
        long_about = "Endgame tablebases: for every position of a small piece set, whether the side \
                      to move wins, draws or loses and in how many plies mate comes (DTM). \
                      `generate` writes DIR/SET.xqtb for each set named (e.g. KRKAA: the \
                      stronger side first, WXF letters K A E H R C P or FEN letters B N) and for \
                      the smaller sets its captures lead to, skipping sets already there; \
                      `probe` prints a position's result and every legal move's; `verify` \
                      checks tables without trusting the generator: positions (all, or a \
                      random sample) against the values their moves reach, with the \
                      perpetual-check rule's results too, and against a plain mate search of \
                      the rules core (exit status 1 when a fault is found); `list` prints \
                      each table's counts from its file's header (won, drawn, lost, the \
                      draws the perpetual-check rule wins or loses, the longest mate). Two methods \
                      make the same files: `graph` keeps the set's moves in memory (about 8 \
                      bytes a position and 4 a move), `lean` works backwards with two bytes a \
                      position (slower); `auto` takes the graph while its estimated memory \
                      fits `--memory`.",
        after_help = "Examples:\n  xiangqi tb generate KRKAA KHKA -o tables --threads 2\n  \
                      xiangqi tb generate KRPKAAEE -o tables --threads 1 --method lean\n  \
                      xiangqi tb probe '3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1' --tb tables\n  \
                      xiangqi tb verify KRKAA --tb tables --samples all\n  \
                      xiangqi tb list --tb tables --changed"
    )]
    Tb(TbArgs),
    /// Play a game against the engine in the terminal
    #[command(
        override_usage = "xiangqi play [--side red|black] [--level N] [--movetime MS] [--book FILE | --no-book] [--fen FEN] [--notation iccs|wxf|chinese] [--lang en|zh|zh-Hant|vi] [--pgn FILE] [--letters] [--ascii] [--no-color]",
        long_about = "Play a game against the engine in the terminal. Type moves in any notation \
                      (ICCS h2e2 or H2-E2, WXF C2.5, Chinese 炮二平五) and Enter, or move the \
                      cursor with the arrow keys and pick a piece and its square with Enter or \
                      Space. Commands (typed, then Enter): undo (takes back your last move), flip, \
                      save [FILE] (appends the game as PGN), resign, new, help, quit. When stdin \
                      is not a terminal, each line read is a move or a command and the board is \
                      printed after each reply.",
        after_help = "Examples:\n  xiangqi play --level 3 --side black\n  \
                      printf 'h2e2\\nsave game.pgn\\n' | xiangqi play --movetime 100"
    )]
    Play(PlayArgs),
    /// Print a position (a FEN) or step through a game of a record file
    #[command(
        override_usage = "xiangqi show FILE|FEN [--game N] [--ply N | --all] [--notation iccs|wxf|chinese] [--letters] [--ascii] [--no-color]",
        long_about = "Print a position given as a FEN, or a game of a record file (any format \
                      convert reads). In a terminal, a game is stepped through with the arrow keys \
                      (left/right a move, up/down ten, Home/End, q to quit); otherwise the \
                      position at --ply (default: the end) is printed, or every position with \
                      --all.",
        after_help = "Examples:\n  xiangqi show games.pgn --game 3\n  \
                      xiangqi show 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w'"
    )]
    Show(ShowArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell)
    #[command(
        override_usage = "xiangqi completions bash|zsh|fish|elvish|powershell",
        after_help = "Examples:\n  xiangqi completions bash > ~/.local/share/bash-completion/completions/xiangqi\n  \
                      xiangqi completions zsh > ~/.zfunc/_xiangqi\n  \
                      xiangqi completions fish > ~/.config/fish/completions/xiangqi.fish"
    )]
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write one per command into a folder
    #[command(
        override_usage = "xiangqi man [--dir DIR]",
        after_help = "Examples:\n  xiangqi man | man -l -\n  xiangqi man --dir target/man"
    )]
    Man(ManArgs),
}

/// The example and option list of `xiangqi match --help`.
const MATCH_HELP: &str = "Example:\n  xiangqi match -engine name=new cmd=./new -engine name=old \
                          cmd=./old -each tc=10+0.1 -games 2 -rounds 50 -concurrency 2 \
                          -pgnout games.pgn";

/// The whole command line: the derived parser with the match runner's own option list in
/// `xiangqi match --help`.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command().mut_subcommand("match", |c| {
        c.after_help(format!(
            "{MATCH_HELP}\n\nThe runner's options:\n{}",
            xiangqi_match::cli::USAGE
        ))
    })
}

/// Parses the process's arguments; on bad ones prints clap's message and exits with status 2
/// (0 for `--help` and `--version`).
pub fn parse() -> Cli {
    use clap::FromArgMatches;
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

#[derive(Args, Debug)]
pub struct BotArgs {
    /// The server's base URL (http:// or https://)
    #[arg(long, value_name = "URL")]
    pub server: String,
    /// The account's personal API token, or @FILE to read it from a file
    #[arg(long, value_name = "T")]
    pub token: String,
    /// The engine's command line (words split at spaces)
    #[arg(long, value_name = "CMD")]
    pub engine: String,
    /// An engine option set at start (repeatable)
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = name_value)]
    pub options: Vec<(String, String)>,
    /// The engine's protocol
    #[arg(long, value_enum, ignore_case = true, default_value = "uci")]
    pub proto: ProtoArg,
    /// The engine's ranks: 0-9, 1-10 (Fairy-Stockfish; sets UCI_Variant xiangqi), or auto
    /// (1-10 when its id name is Fairy-Stockfish)
    #[arg(long, value_name = "0|1|auto", default_value = "auto", value_parser = ["0", "1", "auto"])]
    pub ranks: String,
    /// Upgrade the account to a bot account first, if it is not one
    #[arg(long)]
    pub upgrade: bool,
    /// The speeds accepted (bullet, blitz, rapid, classical, correspondence), comma-separated
    #[arg(long, value_name = "SPEEDS", default_value = "bullet,blitz,rapid,classical", value_parser = speeds)]
    pub accept_tc: Speeds,
    /// The least initial time accepted, in seconds
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub min_initial: u64,
    /// The most initial time accepted, in seconds
    #[arg(long, value_name = "S", default_value_t = 10800)]
    pub max_initial: u64,
    /// The least increment accepted, in seconds
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub min_increment: u64,
    /// The most increment accepted, in seconds
    #[arg(long, value_name = "S", default_value_t = 180)]
    pub max_increment: u64,
    /// Rated challenges only (casual ones are declined `rated`)
    #[arg(long, conflicts_with = "casual")]
    pub rated: bool,
    /// Casual challenges only (rated ones are declined `casual`)
    #[arg(long)]
    pub casual: bool,
    /// Decline challenges from bots (`noBot`)
    #[arg(long, conflicts_with = "only_bots")]
    pub no_bots: bool,
    /// Decline challenges from people (`onlyBot`)
    #[arg(long)]
    pub only_bots: bool,
    /// Games played at once; a challenge beyond is declined `later`
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_games: u32,
    /// Milliseconds kept back from the bot's own clock for the network
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub move_overhead: u64,
    /// Milliseconds a move in a game without a clock (correspondence)
    #[arg(long, value_name = "MS", default_value_t = 10000, value_parser = clap::value_parser!(u64).range(1..))]
    pub corr_movetime: u64,
    /// Resign when the engine's score is at most this (centipawns, e.g. -1000) [default: never]
    #[arg(long, value_name = "CP", allow_negative_numbers = true)]
    pub resign_score: Option<i32>,
    /// Own moves in a row at or below --resign-score before resigning
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub resign_moves: u32,
    /// Offer or accept a draw when the score is within +-CP [default: never]
    #[arg(long, value_name = "CP", value_parser = clap::value_parser!(i32).range(0..))]
    pub draw_score: Option<i32>,
    /// Own moves in a row within --draw-score before offering
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub draw_moves: u32,
    /// Draws are offered only with at most this many pieces on the board (kings included)
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=32))]
    pub draw_pieces: u32,
    /// A folder for each game's PGN (ID.pgn) and the engine's stderr (made when missing)
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtoArg {
    Uci,
    Ucci,
}

/// `NAME=VALUE` (the name not empty; the value may be).
fn name_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((n, v)) if !n.trim().is_empty() => Ok((n.trim().to_string(), v.to_string())),
        _ => Err(format!("'{s}' is not NAME=VALUE")),
    }
}

/// Speeds by lichess's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Speeds(pub Vec<String>);

/// A comma-separated list of lichess's speed names.
fn speeds(s: &str) -> Result<Speeds, String> {
    let mut v = Vec::new();
    for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        if !crate::bot::policy::SPEEDS.contains(&w) {
            return Err(format!(
                "'{w}' is not a speed (bullet, blitz, rapid, classical, correspondence)"
            ));
        }
        v.push(w.to_string());
    }
    if v.is_empty() {
        return Err("no speed given".into());
    }
    Ok(Speeds(v))
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The position to count from
    #[arg(long, value_name = "FEN", default_value = START_FEN, hide_default_value = true)]
    pub fen: String,
    /// Print the count below each root move (`MOVE: COUNT`)
    #[arg(long)]
    pub divide: bool,
    /// Play every move of the last ply instead of counting them
    #[arg(long)]
    pub no_bulk: bool,
    /// How many plies deep
    pub depth: u32,
}

#[derive(Args, Debug)]
pub struct MovesArgs {
    /// The position to start from [default: the start position]
    #[arg(long, value_name = "FEN", default_value = START_FEN, hide_default_value = true)]
    pub fen: String,
    /// Moves to play first (UCI h2e2 or ICCS H2-E2)
    #[arg(value_name = "MOVE")]
    pub moves: Vec<String>,
}

#[derive(Args, Debug)]
pub struct JudgeArgs {
    /// The position to start from [default: the start position]
    #[arg(long, value_name = "FEN", default_value = START_FEN, hide_default_value = true)]
    pub fen: String,
    /// The occurrences of a position that make a repetition (2 or more)
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(2..))]
    pub repetitions: u32,
    /// Add a plain-language account of the ruling (or who is to move)
    #[arg(long)]
    pub explain: bool,
    /// The language of the --explain account
    #[arg(long, value_name = "LANG", requires = "explain", value_parser = parse_lang)]
    pub lang: Option<Lang>,
    /// The moves (UCI h2e2 or ICCS H2-E2)
    #[arg(value_name = "MOVE")]
    pub moves: Vec<String>,
}

/// `en` or `zh`, with the rules core's message otherwise.
fn parse_lang(s: &str) -> Result<Lang, String> {
    s.parse::<Lang>().map_err(|e| e.to_string())
}

/// A notation by its command-line name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum NotationArg {
    /// Coordinates: h2e2
    #[value(alias = "uci")]
    Iccs,
    /// WXF: C2.5
    Wxf,
    /// Chinese: 炮二平五
    #[value(alias = "zh")]
    Chinese,
}

impl From<NotationArg> for Notation {
    fn from(n: NotationArg) -> Notation {
        match n {
            NotationArg::Iccs => Notation::Iccs,
            NotationArg::Wxf => Notation::Wxf,
            NotationArg::Chinese => Notation::Chinese,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// PGN with every game's moves and variations
    Pgn,
    /// One FEN per game: its final position
    Fen,
    /// DhtmlXQ (the web's record format): one [DhtmlXQ] block per game
    Dhtmlxq,
    /// XQF 1.0 (XQStudio's binary format): one game a file, several games need -o DIR
    Xqf,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    #[value(alias = "utf-8")]
    Utf8,
    #[value(alias = "gb18030")]
    Gbk,
}

#[derive(Args, Debug)]
pub struct ExplorerArgs {
    #[command(subcommand)]
    pub command: ExplorerCommand,
}

#[derive(Args, Debug)]
pub struct TbArgs {
    #[command(subcommand)]
    pub command: TbCommand,
}

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Generate the tables of piece sets (and of the smaller sets they lead to) into DIR
    Generate(TbGenerateArgs),
    /// Print a position's result and every legal move's
    Probe(TbProbeArgs),
    /// Check generated tables without trusting the generator: positions against their moves'
    /// values, and against a plain mate search
    Verify(TbVerifyArgs),
    /// List the tables of DIR with the counts their files hold: won, drawn and lost positions,
    /// the draws the perpetual-check rule wins or loses, the longest mate
    List(TbListArgs),
}

#[derive(Args, Debug)]
pub struct TbListArgs {
    /// The tables' folders, separated by `:` (`;` on Windows) as the engine's `TbPath`
    #[arg(long, value_name = "DIR")]
    pub tb: String,
    /// Only the sets where the perpetual-check rule changes a result
    #[arg(long)]
    pub changed: bool,
}

#[derive(Args, Debug)]
pub struct TbGenerateArgs {
    /// Piece sets, e.g. KRKAA KHKAE KPK (stronger side first; WXF or FEN letters)
    #[arg(required = true, value_name = "SETS")]
    pub sets: Vec<String>,
    /// The tables' folder (made when missing)
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Threads
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// How to generate: `graph` (the moves kept in memory), `lean` (no move graph, two bytes
    /// a position, slower) or `auto` (the graph while it fits `--memory`)
    #[arg(long, value_name = "METHOD", default_value = "auto", value_parser = ["graph", "lean", "auto"])]
    pub method: String,
    /// The memory budget of `--method auto`, in MB (the graph's estimate is compared)
    #[arg(long, value_name = "MB", default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..))]
    pub memory: u64,
}

#[derive(Args, Debug)]
pub struct TbProbeArgs {
    /// The position
    #[arg(value_name = "FEN")]
    pub fen: String,
    /// The tables' folder (made by `xiangqi tb generate`)
    #[arg(long, value_name = "DIR")]
    pub tb: PathBuf,
}

#[derive(Args, Debug)]
pub struct TbVerifyArgs {
    /// Piece sets to check (their tables and those of the smaller sets their captures reach
    /// must be in DIR)
    #[arg(required = true, value_name = "SETS")]
    pub sets: Vec<String>,
    /// The tables' folder
    #[arg(long, value_name = "DIR")]
    pub tb: PathBuf,
    /// Positions checked against their moves, drawn at random (`all`: every legal one)
    #[arg(long, value_name = "N|all", default_value = "100000")]
    pub samples: String,
    /// Positions compared with the mate search
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub searched: u64,
    /// The mate search's depth in plies
    #[arg(long, value_name = "PLIES", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=7))]
    pub depth: u32,
    /// The seed of the random positions
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
}

#[derive(Subcommand, Debug)]
pub enum ExplorerCommand {
    /// Index the main lines of record files into DIR/explorer.redb (adding to what is there)
    Build(ExplorerBuildArgs),
    /// Show a position's moves with their results
    Query(ExplorerQueryArgs),
    /// Write the engine's opening book (BookFile) from an index
    Book(ExplorerBookArgs),
}

#[derive(Args, Debug)]
pub struct ExplorerBookArgs {
    /// The index's folder (made by `xiangqi explorer build`)
    #[arg(value_name = "DIR")]
    pub dir: String,
    /// The book file to write
    #[arg(short, long, value_name = "FILE")]
    pub output: String,
    /// Which database (site: all speeds and ratings; player: one account's games, with
    /// --player and --color)
    #[arg(long, value_enum, ignore_case = true, default_value = "masters")]
    pub db: BookDbArg,
    /// The account (with --db player)
    #[arg(long)]
    pub player: Option<String>,
    /// The colour the account played (with --db player)
    #[arg(long, value_enum, ignore_case = true, default_value = "red")]
    pub color: SideArg,
    /// Moves played fewer times are left out
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_games: u32,
    /// Book moves are taken from the first N plies
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub max_ply: u16,
    /// How a move's weight is made: games x (score + 0.1), games, or 2 x wins + draws
    #[arg(long, value_enum, ignore_case = true, default_value = "results")]
    pub weights: BookWeightsArg,
    /// Moves whose mover scored less (0 to 1) are not played
    #[arg(long, value_name = "F", default_value_t = 0.2, value_parser = score_fraction)]
    pub min_score: f64,
}

fn score_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("'{s}' is not a score from 0 to 1")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BookDbArg {
    Masters,
    Site,
    Player,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BookWeightsArg {
    Results,
    Games,
    Points,
}

#[derive(Args, Debug)]
pub struct ExplorerBuildArgs {
    /// Record files (any format `convert` reads; many games per file)
    #[arg(required = true, value_name = "RECORDS")]
    pub records: Vec<String>,
    /// The index's folder (made when missing)
    #[arg(short, long, value_name = "DIR")]
    pub output: String,
    /// Moves past this ply are not indexed; an existing index keeps the limit it was made with
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub max_ply: Option<u16>,
}

#[derive(Args, Debug)]
pub struct ExplorerQueryArgs {
    /// The index's folder (made by `xiangqi explorer build`)
    #[arg(value_name = "DIR")]
    pub dir: String,
    /// The position (default: the start)
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves played from the position first (ICCS/UCI, comma-separated)
    #[arg(long, value_name = "MOVES")]
    pub play: Option<String>,
    /// Which database
    #[arg(long, value_enum, ignore_case = true, default_value = "masters")]
    pub db: ExplorerDbArg,
    /// The player (with --db player)
    #[arg(long)]
    pub player: Option<String>,
    /// The player's colour (with --db player)
    #[arg(long, value_enum, ignore_case = true, default_value = "red")]
    pub color: SideArg,
    /// The speeds (with --db site; comma-separated: bullet,blitz,rapid,classical,correspondence)
    #[arg(long)]
    pub speeds: Option<String>,
    /// The rating bands by their lower bound (with --db site; comma-separated: 0,1000,1200,...)
    #[arg(long)]
    pub ratings: Option<String>,
    /// The notation of the moves shown (JSON has all three)
    #[arg(long, value_enum, ignore_case = true, default_value = "iccs")]
    pub notation: NotationArg,
    /// Write JSON (lila-openingexplorer's shape) instead of a table
    #[arg(long)]
    pub json: bool,
    /// How many top games to show
    #[arg(long, default_value_t = 4)]
    pub top_games: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplorerDbArg {
    Masters,
    Site,
    Player,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The record file ('-': stdin)
    pub input: String,
    /// Where to write ('-': stdout) [default: stdout]
    #[arg(short, long, value_name = "OUTPUT")]
    pub output: Option<String>,
    /// The notation of the PGN written [default: the input's own for PGN, WXF for XieXie,
    /// else Chinese]
    #[arg(long, value_enum, ignore_case = true)]
    pub notation: Option<NotationArg>,
    /// What to write
    #[arg(long, value_enum, ignore_case = true, default_value = "pgn")]
    pub to: OutputFormat,
    /// The encoding of what is written
    #[arg(long, value_enum, ignore_case = true, default_value = "utf8")]
    pub encoding: EncodingArg,
    /// Refuse a game with an illegal move in a variation instead of dropping the branch
    #[arg(long, conflicts_with = "lenient")]
    pub strict: bool,
    /// Keep every game with every move up to the first one that cannot be played or read (a
    /// damaged move record of a binary file), with a warning per loss (an unplayable main-line
    /// move otherwise makes the game an error)
    #[arg(long)]
    pub lenient: bool,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("budget").args(["nodes", "depth", "movetime"])))]
pub struct AnalyzeArgs {
    /// The record file ('-': stdin)
    pub input: String,
    /// Where to write ('-': stdout) [default: stdout]
    #[arg(short, long, value_name = "OUTPUT")]
    pub output: Option<String>,
    /// Search each position to N nodes
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=(1 << 40)))]
    pub nodes: Option<u64>,
    /// Search each position to depth D [default: 12 when no budget is given]
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(i32).range(1..=99))]
    pub depth: Option<i32>,
    /// Search each position for MS milliseconds
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: Option<u64>,
    /// Search threads
    #[arg(long, value_name = "T", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Hash table size in MiB
    #[arg(long, value_name = "MB", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub hash: u32,
    /// The notation of the PGN written [default: the input's own for PGN, WXF for XieXie,
    /// else Chinese]
    #[arg(long, value_enum, ignore_case = true)]
    pub notation: Option<NotationArg>,
    /// No progress bar
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Search depth [default: the engine's bench depth]
    #[arg(value_parser = clap::value_parser!(i32).range(1..=30))]
    pub depth: Option<i32>,
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// cutechess-style options (-engine ..., -each ..., -games N, ...), read by the match
    /// runner itself
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "OPTIONS"
    )]
    pub args: Vec<String>,
}

/// Red or Black, by name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum SideArg {
    Red,
    Black,
}

#[derive(Args, Debug)]
pub struct BoardStyle {
    /// Pieces as letters (K A B N R C P, Red in capitals) instead of Chinese characters
    #[arg(long)]
    pub letters: bool,
    /// Plain ASCII only: letters, no colours (also when the locale is not UTF-8)
    #[arg(long)]
    pub ascii: bool,
    /// No colours (as when NO_COLOR is set)
    #[arg(long)]
    pub no_color: bool,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The side you play
    #[arg(long, value_enum, ignore_case = true, default_value = "red")]
    pub side: SideArg,
    /// The engine's Skill Level, 0 (a beginner) to 20 (full strength)
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(i32).range(0..=20))]
    pub level: i32,
    /// The engine's time per move in milliseconds
    #[arg(long, value_name = "MS", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub movetime: u64,
    /// The engine plays its opening moves from this book (`xiangqi explorer book`) [default:
    /// the named openings' lines, which ship with the program]
    #[arg(long, value_name = "FILE")]
    pub book: Option<PathBuf>,
    /// The engine plays no book moves (not even the named openings')
    #[arg(long, conflicts_with = "book")]
    pub no_book: bool,
    /// The position to start from [default: the start position]
    #[arg(long, value_name = "FEN", default_value = START_FEN, hide_default_value = true)]
    pub fen: String,
    /// The notation of the move list [default: Chinese, or WXF with --ascii]
    #[arg(long, value_enum, ignore_case = true)]
    pub notation: Option<NotationArg>,
    /// The language of the game-over account
    #[arg(long, value_name = "LANG", value_parser = parse_lang, default_value = "en")]
    pub lang: Lang,
    /// The file `save` appends the game to
    #[arg(long, value_name = "FILE", default_value = "xiangqi-play.pgn")]
    pub pgn: PathBuf,
    #[command(flatten)]
    pub style: BoardStyle,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A record file (any format convert reads) or a FEN
    #[arg(value_name = "FILE|FEN")]
    pub target: String,
    /// Which game of the file (from 1)
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub game: u64,
    /// Print the position after this many plies of the main line [default: the end]
    #[arg(long, value_name = "N", conflicts_with = "all")]
    pub ply: Option<usize>,
    /// Print every position of the main line, one after another
    #[arg(long)]
    pub all: bool,
    /// The notation of the moves shown [default: Chinese, or WXF with --ascii]
    #[arg(long, value_enum, ignore_case = true)]
    pub notation: Option<NotationArg>,
    #[command(flatten)]
    pub style: BoardStyle,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum, ignore_case = true)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write xiangqi.1 and one xiangqi-COMMAND.1 per command into DIR instead of printing
    /// xiangqi.1
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `xiangqi man`.
pub fn cmd_man(a: &ManArgs) -> Result<(), Fail> {
    let cmd = command();
    let Some(dir) = &a.dir else {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd)
            .render(&mut out)
            .map_err(|e| Fail(format!("cannot render the man page: {e}"), 1))?;
        use std::io::Write;
        return std::io::stdout()
            .write_all(&out)
            .map_err(|e| Fail(format!("cannot write stdout: {e}"), 1));
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Fail::input(format!("cannot create {}: {e}", dir.display())))?;
    let write = |name: &str, man: clap_mangen::Man| -> Result<(), Fail> {
        let path = dir.join(name);
        let mut out = Vec::new();
        man.render(&mut out)
            .map_err(|e| Fail(format!("cannot render {name}: {e}"), 1))?;
        std::fs::write(&path, out)
            .map_err(|e| Fail::input(format!("cannot write {}: {e}", path.display())))
    };
    let mut cmd = cmd;
    cmd.build();
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let name = format!("xiangqi-{}", sub.get_name());
        let sub = sub.clone().name(name.clone());
        write(&format!("{name}.1"), clap_mangen::Man::new(sub))?;
    }
    write("xiangqi.1", clap_mangen::Man::new(cmd))?;
    Ok(())
}
