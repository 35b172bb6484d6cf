# The app's messages in English (the fallback: every id is here). Ids: see docs/APP.md, "Languages" (a module's
# strings keep their old table key; the account page's have acct-, server messages err-).

## app.js and the modules it lends its texts to (online, lobby, review, movelist, settings, explorer)
title = Xiangqi
new = New game
games = Games
import = Import
editor = Position editor
settings = Settings
flip = Flip
play = Play
takeback = Take back
draw = Offer draw
resign = Resign
analyse = Analyse
share = Export / share
analysis = Analysis
lines = Lines
stop = Stop
start = Start
cancel = Cancel
close = Close
mode = Mode
vsComputer = Against the computer
twoPlayers = Two players on this device
analysisMode = Analysis board
youPlay = You play
red = Red
black = Black
level = Level
toMove = To move
edStart = Start position
edClear = Clear
edAnalyse = Analyse
edTwo = Play (two players)
edComputer = Play the computer
importHelp = A game record — PGN (ICCS, WXF or Chinese moves), XQF, DhtmlXQ, CBF/CBR/CBL, or another program's file (PFC, CHE, XQR, CCM, MXQ, CHN, WXF) — or a FEN. Choose a file or paste the text.
link = Link to this position
copyFen = Copy FEN
copyLink = Copy link
downloadPgn = Download PGN
downloadPng = Download PNG
downloadGif = Download GIF
gifMaking = Drawing the GIF…
notation = Move notation
pieces = Pieces
piecesChinese = Traditional characters (帥 俥)
piecesSimplified = Simplified characters (帅 车)
piecesLetters = Letters (K R)
piecesWestern = Western symbols (♔ ♖)
coords = Coordinates
coordsOutside = Outside the board
coordsInside = On the board
coordsNone = None
language = Language
hints = Show legal moves
typeMove = Type a move (h2e2, C2.5, 炮二平五)
redToMove = Red to move
blackToMove = Black to move
check = Check!
thinking = The computer is thinking…
review = Review
rvTitle = Game review
rvDepth = Depth
rvNext = Next mistake
rvAccuracy = accuracy
rvSep = ,{ " " }
rvInaccuracies = { $n ->
    [one] { $n } inaccuracy
   *[other] { $n } inaccuracies
    }
rvMistakes = { $n ->
    [one] { $n } mistake
   *[other] { $n } mistakes
    }
rvBlunders = { $n ->
    [one] { $n } blunder
   *[other] { $n } blunders
    }
rvProgress = Reviewing: { $done } of { $total } positions
rvCancelled = The review was cancelled.
rvFailed = The review failed
rvStale = The game changed since its review: review it again.
rvBetter = { $kind }: { $move } was better
rvEval = Evaluation { $e }
rvNoMistakes = No inaccuracies, mistakes or blunders for this side.
rv_inaccuracy = Inaccuracy
rv_mistake = Mistake
rv_blunder = Blunder
rvReviewLive = Review
yourMove = Your move
computer = Computer
you = You
player = Player
noMoves = No moves yet.
unsaved = shared position, not saved until you play a move
badLink = This link does not hold a valid position
redWins = Red wins
blackWins = Black wins
drawn = Draw
gameOver = Game over
confirmResign = Resign this game?
confirmAbort = Abort this game? It will not count.
newOpponent = New opponent
backToLive = Back to the live position
confirmDraw = { $side } offers a draw. Does { $other } accept?
drawDeclined = The computer declines the draw:{ " " }
drawAccepted = Draw agreed.
open = Open
del = Delete
confirmDelete = Delete this game for good?
noGames = No games yet.
moves = moves
imported = { $n ->
    [one] Imported 1 game.
   *[other] Imported { $n } games.
    }
importWarnings = Left out ({ $n }):
copied = Copied.
levelN = level { $n }
depth = depth
analysing = analysing…
engineOff = Engine stopped.
modeComputer = vs computer
modeTwo = two players
modeAnalysis = analysis
ongoing = in progress
chooseFile = Choose a file or paste some text first.
editorHint = Pick a piece below and click points on the board; click a piece to remove it (or use the eraser).
eraser = Eraser
fenOk = A legal position.
leaderboard = Leaderboard
account = Account
login = Log in
rated = Rated
casual = Casual
ratedNeedsAccount = Log in to play rated games
opponentAccount = Opponent's account (rated games)
provisional = provisional
# The title before a bot account's name (lichess's BOT).
bot-title = BOT
lobby = Lobby
playFriend = Play a friend online
timeControl = Time control
randomSide = Random
yourName = Your name
sounds = Sounds
accept = Accept
decline = Decline
withdraw = Withdraw
claimVictory = Claim victory
claimDraw = Claim a draw
inviteLink = Send this link to your opponent
watchLink = Spectators’ link
abort = Abort
rematch = Rematch
createSeek = Create a seek
waitingOpponent = Waiting for an opponent…
cancelSeek = Cancel the seek
noSeeks = No open seeks. Create one!
join = Join
yourSeek = your seek
noClock = no clock
connected = online
disconnected = offline
aborted = Game aborted
connecting = Connecting…
youPlayAs = You play { $side }
spectating = Spectating
reconnecting = Connection lost, reconnecting…
watching = { $n } watching
oppOffersDraw = Your opponent offers a draw.
oppAsksTakeback = Your opponent asks to take back a move.
oppWantsRematch = Your opponent wants a rematch.
youOfferedDraw = You offered a draw.
youAskedTakeback = You asked to take back your move.
youAskedRematch = You asked for a rematch.
oppGoneClaim = Your opponent left the game.
oppGoneWait = Your opponent left; you can claim the game in { $n } s.
soundOn = Sound: on
soundOff = Sound: off
drawOpening = The computer declines the draw: it is too early for a draw, play on.
drawBetter = The computer declines the draw: it thinks it is better.
movesN = { $n ->
    [one] { $n } move
   *[other] { $n } moves
    }
lookingBack = You are looking at an earlier position. Press » (or End) to go back to the game.
noGame = No game is open.
noSuchGame = There is no game #{ $id } (it was deleted, or the link is wrong).
startOrOpen = Start a new game or open a saved one.
ok = OK
viewingStart = Viewing the start position · the game is at { $last }
viewingMove = Viewing { $move } · the game is at { $last }
startPosition = the start position
previewLine = Engine line: { $move }
previewBack = Back to the game
previewPlay = Play this line
analysisOffComputer = Analysis is off while you play the computer.
edSide = You play
edLevel = Level

## How a game ended
drawReason-agreement = Draw by agreement
drawReason-repetition = Draw by repetition
drawReason-move-limit = Draw by the move limit
drawReason-insufficient-material = Draw: neither side can mate
drawReason-time = Draw: out of time, but the opponent cannot mate
reason-checkmate = Checkmate
reason-stalemate = Stalemate (no legal move)
reason-perpetual-check = Perpetual check
reason-perpetual-chase = Perpetual chase
reason-repetition = Draw by repetition
reason-move-limit = Move limit
reason-insufficient-material = Insufficient material
reason-resignation = Resignation
reason-agreement = Draw by agreement
reason-time = Time

## app.js and the modules it lends its texts to (online, lobby, review, movelist, settings, explorer)
foldAll = Fold all
unfoldAll = Unfold all
variationsN = { $n } variations
comment = Comment
addComment = Add a comment
editComment = Edit
save = Save
commentOn = Comment on { $m }
commentStart = Comment before the first move
moreTags = All tags ({ $n })
removeComment = Remove
tagEvent = Event
tagDate = Date
tagSite = Site
tagRound = Round
tagOpening = Opening
tagResult = Result
tagAuthor = Author
tagTitle = Title
tagAnnotator = Annotator
commentHint = Right-click: comment on this move
theme = Theme
themeAuto = As the system
themeLight = Light
themeDark = Dark
board = Board
boardWood = Wood
boardJade = Jade
boardPaper = Paper
pieceStyle = Piece style
pieceClassic = Classic
pieceFlat = Flat
pieceInk = Ink
animation = Animate moves
moveSpeed = Animation speed
speedFast = Fast
speedNormal = Normal
speedSlow = Slow
notify = Notify me of my opponent's move when this tab is in the background
menu = Menu
explorer = Explorer
explorerTitle = Opening explorer
exMasters = Masters
exSite = This site
exMove = Move
exGames = Games
exResults = Red / draw / Black
exRating = Rating
exNone = No game in this database reached this position.
exTop = Top games
exFailed = The explorer did not answer
opening = Opening: { $name }
exOpenGame = Open this game

## the endgame tablebase panel (tablebase.js)
tbTitle = Endgame tablebase
tbResult = Result
tbMate = Mate
tbWins = { $side } wins
tbLoses = { $side } loses
tbDraw = Draw: neither side can force mate
tbMateIn = { $n ->
    [one] mate in 1 move
   *[other] mate in { $n } moves
    }
tbMatedIn = { $n ->
    [one] mated in 1 move
   *[other] mated in { $n } moves
    }
tbMatedNow = no legal move: lost
tbDtm = { $n ->
    [one] DTM 1 ply
   *[other] DTM { $n } plies
    }
tbResWin = Win
tbResDraw = Draw
tbResLoss = Loss
tbResUnknown = Unknown
tbWinsByRule = { $side } wins by the rule on perpetual check: the other side can hold the draw only by checking forever
tbLosesByRule = { $side } loses by the rule on perpetual check: only checking forever would hold the draw
tbResWinByRule = Win by rule
tbResLossByRule = Loss by rule
tbByRuleHint = A draw if repetition were a draw; decided by the rule on perpetual check
tbFailed = The tablebase did not answer

## account.js: the account, profile and leaderboard pages
acct-title = Xiangqi
acct-play = Play
acct-leaderboard = Leaderboard
acct-account = Account
acct-login = Log in
acct-register = Register
acct-logout = Log out
acct-username = Username
acct-password = Password
acct-newAccount = New account
acct-haveAccount = Log in
acct-passwordHint = At least 8 characters
acct-changePassword = Change the password
acct-current = Current password
acct-newPassword = New password
acct-change = Change
acct-changed = The password is changed; other sessions have ended.
acct-tokens = Personal API tokens
acct-tokensHelp = For bots and scripts: send a token as “Authorization: Bearer TOKEN” on the board API; it acts for the seats of your games.
acct-label = Label
acct-createToken = Create a token
acct-revoke = Revoke
acct-shownOnce = Copy it now: it is shown only this once.
acct-noTokens = No tokens.
acct-created = Created
acct-profile = Profile
acct-ratings = Ratings
acct-speed = Speed
acct-rating = Rating
acct-games = Games
acct-recent = Recent games
acct-noGames = No games yet.
acct-wins = Wins
acct-draws = Draws
acct-losses = Losses
acct-opponent = Opponent
acct-result = Result
acct-when = When
acct-rated = Rated
acct-casual = Casual
acct-win = Win
acct-draw = Draw
acct-loss = Loss
acct-aborted = Aborted
acct-playing = Playing
acct-provisional = provisional
acct-graph = Rating over time
acct-noHistory = No rated games yet.
acct-rank = #
acct-player = Player
acct-noPlayers = Nobody is rated at this speed yet.
acct-noSuchPlayer = No such player.
acct-bullet = Bullet
acct-blitz = Blitz
acct-rapid = Rapid
acct-classical = Classical
acct-correspondence = Correspondence
acct-loggedInAs = Logged in as { $name }
acct-red = Red
acct-black = Black
acct-memberSince = Member since { $date }

## keyboard.js: the pieces read aloud (role-x Red's, role-black-x Black's)
role-k = king
role-a = advisor
role-b = elephant
role-n = horse
role-r = chariot
role-c = cannon
role-p = soldier
role-black-k = king
role-black-a = advisor
role-black-b = elephant
role-black-n = horse
role-black-r = chariot
role-black-c = cannon
role-black-p = soldier
# A move said to screen readers: the side that played it, then the move.
said-move = { $side }: { $move }

## Labels and names added with the catalogue
notationChinese = Chinese (炮二平五)
notationVi = Vietnamese (P2-5)
ariaMenu = Menu
ariaEval = Evaluation
ariaBoard = Xiangqi board
ariaMoves = Moves
ariaFirst = First move
ariaPrev = Previous move
ariaNext = Next move
ariaLast = Last move
ariaDatabase = Database
ariaEvalGraph = Evaluation graph
switchLang = Switch the language

## messages.js: the server's messages, by their shape ($a1, $a2 ... are the parts it quotes)
side-red = red
side-black = black
piece-general = general
piece-advisor = advisor
piece-elephant = elephant
piece-horse = horse
piece-chariot = chariot
piece-cannon = cannon
piece-soldier = soldier
end-checkmate = checkmate
end-stalemate = stalemate
end-perpetual-check = perpetual check
end-perpetual-chase = perpetual chase
end-repetition = repetition
end-move-limit = move limit
end-insufficient-material = insufficient material
end-resignation = resignation
end-agreement = agreement
end-time = time
err-bad-fen = bad FEN '{ $a1 }': { $a2 }
err-empty-fen = empty FEN
err-fen-ranks = FEN has { $a1 } ranks (expected 10)
err-rank-files = rank { $a1 } has { $a2 } files
err-unknown-letter = unknown letter '{ $a1 }' in rank { $a2 }
err-side-to-move = side to move '{ $a1 }' is not w, r or b
err-fen-field = field { $a1 } is '{ $a2 }' (expected '-')
err-halfmove = no-capture ply count '{ $a1 }' is not a number
err-move-number = move number '{ $a1 }' is not a number
err-fen-fields = FEN has { $a1 } fields (at most 6)
err-no-general = { $a1 } has no general
err-general-outside = { $a1 } general on { $a2 } is outside its palace
err-never-there = { $a1 } { $a2 } on { $a3 } can never stand there
err-too-many = { $a1 } has { $a2 } { $a3 } (at most { $a4 })
err-generals-face = the generals face each other on an open file ({ $a1 } and { $a2 })
err-not-to-move-in-check = the side not to move is in check ({ $a1 } general attacked from { $a2 })
err-not-a-move = '{ $a1 }' is not a move
err-illegal-cannot = illegal move { $a1 }: the piece cannot move that way
err-illegal-empty = illegal move { $a1 }: no piece on the from-square
err-illegal-not-yours = illegal move { $a1 }: the piece on the from-square is not the side to move's
err-illegal-self-check = illegal move { $a1 }: it would leave the general attacked or facing the other general
err-illegal-no-piece-file = illegal move { $a1 }: no such piece on that file
err-illegal-no-like-piece = illegal move { $a1 }: no such piece among like pieces on one file
err-illegal-no-soldier = illegal move { $a1 }: no such soldier among those stacked on files
err-illegal = illegal move { $a1 }
err-ambiguous = ambiguous move { $a1 }: more than one piece can make it
err-empty-move = the move is empty
err-too-long = '{ $a1 }' ({ $a2 } characters) is too long to be a move
err-no-game = no game with id { $a1 }
err-game-over = the game is over ({ $a1 })
err-reload = the game has changed: reload it
err-computer-turn = it is the computer's turn
err-not-record = not a record format this program reads: it starts with "{ $a1 }"
err-binary = not a record format this program reads: it is binary data of no known record format (it starts with the bytes { $a1 })
err-looks-xqf-damaged = this looks like an XQF file whose header is damaged (byte { $a1 })
err-looks-cbr-damaged = this looks like a CCBridge file (.cbr or .cbl) whose signature is damaged (byte { $a1 })
err-looks-move-damaged = this looks like a .{ $a1 } record damaged at move { $a2 } (byte { $a3 }): xiangqi convert --lenient keeps the moves before it
err-looks-archive = this looks like a { $a1 } archive, not a game record: unpack it and read the record files inside
err-looks-document = this looks like a { $a1 } file, not a game record: only game record files are read
err-looks-sgf = this looks like an SGF (Smart Game Format) file: SGF is a format this program does not read
err-xqf-version = the XQF header is damaged: version byte { $a1 } is none XQStudio writes
err-input-empty = the input is empty
err-nothing-to-import = nothing to import: the request body is empty
err-none-imported = no game could be imported
err-too-many-games = the file holds { $a1 } games; import at most 500 at once
err-pgn-line = PGN game { $a1 }, line { $a2 }: { $a3 }
err-pgn-token = '{ $a1 }' is not a move, result or annotation
err-move-ply = move '{ $a1 }' (ply { $a2 }): { $a3 }
err-bad-tag = unreadable tag: { $a1 }
err-bad-variation = bad variation: { $a1 }
err-side-move = { $a1 }'s move { $a2 }: { $a3 }
err-imported-as-far = game { $a1 }: imported as far as { $a2 }'s move { $a3 }: { $a4 }; the { $a5 } later plies of the record were left out
err-rules-end = the rules end the game after { $a1 }'s move { $a2 } ({ $a3 })
err-max-plies = a game has at most { $a1 } plies
err-network = the server cannot be reached
## the server's refusals of accounts, seeks, challenges, chat and live games (messages.js)
err-name-taken = this username is taken
err-wrong-login = wrong username or password
err-login-attempts = too many log-in attempts from your address; try again in { $a1 } s
err-login-failures = too many failed log-ins for this account; try again in { $a1 } s
err-no-token = no such API token of this account
err-too-many-tokens = an account has at most { $a1 } API tokens: revoke one first
err-password-short = a password has at least { $a1 } characters
err-password-long = a password has at most { $a1 } bytes
err-current-password = the current password is wrong
err-token-label = a token's label has at most { $a1 } characters
err-needs-account = this needs an account: log in
err-no-player-named = no player named '{ $a1 }'
err-block-self = you cannot block yourself
err-no-such-player = no such player
err-no-speed = no speed '{ $a1 }' (bullet, blitz, rapid, classical or correspondence)
err-rated-challenge-account = a rated challenge needs an account: log in
err-rated-challenge-opponent = a rated challenge names its opponent's account
err-challenge-self = you cannot challenge yourself
err-refuses-challenges = { $a1 } does not accept your challenges
err-your-games-account = your games need an account: log in
err-live-over = the game is over
err-not-your-turn = it is not your turn
err-too-late-abort = the game can be aborted only before each side has moved
err-no-draw-offer = there is no draw offer to answer
err-no-takeback-request = there is no takeback request to answer
err-no-rematch-request = there is no rematch request to answer
err-nothing-to-take-back = you have no move to take back
err-rematch-not-over = a rematch can be asked for when the game is over
err-corr-claim = a correspondence game cannot be claimed: your opponent has until the deadline to move, and loses on time after it
err-opponent-not-gone = your opponent has not been gone long enough: wait { $a1 } more seconds
err-no-live-game = no such live game
err-no-challenge = no such challenge (or it was accepted, declined or cancelled)
err-seeks-full = too many seeks open; try again later
err-games-full = too many live games open; try again later
err-challenges-full = too many challenges open; try again later
err-rated-seek-take = a rated seek can be taken only by an account: log in
err-own-seek = this is your own seek
err-chat-too-fast = too many chat lines in a short time; wait { $a1 } s
err-chat-empty = a chat line is empty
err-chat-long = a chat line is at most { $a1 } characters (this one has { $a2 })
err-players-chat-only = only the two players write in the players' chat
err-spectator-chat-account = writing in the spectators' chat needs an account: log in
err-player-in-spectator-chat = a player writes in the players' chat while the game goes on
err-rated-seek-account = a rated seek needs an account: log in
err-seek-creator-left = the seek's creator has left
err-bad-fen-short = bad FEN: { $a1 }
err-position-decided = the position is already decided

## chat.js (the live page's chat) and the account page's chat settings
chat = Chat
chatPlayers = Players’ chat
chatSpectators = Spectators’ chat
chatMute = Mute chat
chatUnmute = Show chat
chatSend = Send
chatPlaceholder = Say something…
chatLogIn = Log in to write here
chatEmpty = No messages yet.
chatBlock = Block
chatBlockAsk = Block { $name }? You will no longer see their messages or get their challenges.
chatTooFast = Too many messages: wait { $n } s.
acct-chatPrefs = Chat
acct-chatOn = Game chat on
acct-blockedPlayers = Blocked players
acct-noBlocked = Nobody.
acct-unblock = Unblock
acct-saved = Saved.

## correspondence games: the live page's deadline, the lobby's "your games" (mygames.js)
daysPerMove = { $n ->
    [one] { $n } day per move
   *[other] { $n } days per move
    }
timeLeft = time left: { $t }
unit_days = { $n ->
    [one] { $n } day
   *[other] { $n } days
    }
unit_hours = { $n ->
    [one] { $n } hour
   *[other] { $n } hours
    }
unit_minutes = { $n ->
    [one] { $n } minute
   *[other] { $n } minutes
    }
unit_seconds = { $n ->
    [one] { $n } second
   *[other] { $n } seconds
    }
yourGames = Your games
yourTurn = your turn
theirTurn = their turn
yourTurnCount = games where it is your turn
noOngoingGames = No games in progress.

## a guest who gave no name (online.js shownName)
anonymous = Anonymous
openSeeks = Open seeks
