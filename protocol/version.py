"""The protocol version: the `hello` a client sends names it, and the server refuses any other.

A change to a message's fields, meaning or order bumps it; clients and server must agree exactly
(there is no negotiation down to an older version: one server speaks one version).
"""

from __future__ import annotations

#: 2: `input` carries a run of bytes (`inputs`); a server websocket message may hold several
#: messages back to back; `welcome` tells `input_batch` and `send_every`.
#: 3: the ranked queue: `queue`, `unqueue` from clients; `queued`, `unqueued`, `matched`, `rated` from
#: the server; new error codes (`cooldown`, `already-queued`).
#: 4: the stream shows everything a client that owns no rules draws (seat summaries, notes, records
#: of every moving thing), lean: `frame` records are arrays, events compact arrays, actors delta-coded;
#: `joined.tables` publishes the words and layouts.
#: 5 (issue 18, no client can hurt another): every websocket frame (pings, pongs, continuations,
#: close) is charged to a per-connection frame and byte budget (fatal `rate-limited`, close 1008, past
#: it), and messages also to a budget shared by the client address's websockets; a text frame that is
#: not UTF-8 closes with 1007; new error codes `idle` (a websocket that follows nothing, fatal),
#: `too-many-matches` (a client address's share of live matches, HTTP 429 and to `queue`) and
#: `duplicate-run` (HTTP 409); `busy` also means the node's work budget or connection cap; `ping` `id`
#: and `t` take 0 … 2**53-1; a frame record's `confirmed` is what was final when its own advance ended
#: (no rewind goes below a `confirmed` already sent); `input-late` asks the clock to lean once by the
#: stamp's lead plus `applied - frame`, not per answer; `welcome` follows the token's revocation check
#: (messages in between held, at most `hello_backlog`); a ranked match ended before a rated result's
#: minimum of play is aborted (`over` with a null result, state cancelled); `queue`, `join` and `watch`
#: work at once on a connection whose match ended; private matches and their replays are unlisted;
#: the replay file's layout 2 names the daily run's `player` (layout 1 still read).
#: 6 (issue 19, the client a player expects): rematch offers (`rematch`, `rematch-answer` from clients;
#: `rematch-offer`, `rematch-refused`, `rematch-ready` from the server; error code `rematch`); `status`
#: carries each seat's `lag` (the server's measured round trip, ms), `grace` (seconds left before a dropped
#: seat forfeits) and `spectators`, and comes while a match runs when these change (looked at every
#: `status_every` seconds); `joined` carries `spectators` and `delay` (a ranked match's spectators follow
#: the confirmed stream `ranked_spectator_delay` seconds late); `welcome` tells `reconnect_grace` and
#: `rematch_offer_seconds`; the websocket URL may name its match (`/ws?match=<id>`: a malformed one is HTTP
#: 400, a `join`/`watch` of another match the new error code `wrong-match`); a forfeited match's replay
#: stream ends with its result; `matched` carries `opponent_provisional` and the abort rule's numbers
#: (`min_play`, `abort_cooldown`) for the page's card before a ranked match. Completed in the next stop,
#: still issue 19's one version (its client and server ship together): rematch offers cover rooms of 2-4
#: players (`rematch-offer` reaches every player, the rematch is made once every other player accepts, by
#: `rematch-answer` or a crossing `rematch`; the first decline ends it), and a rematch is cancelled when one
#: of its players leaves it before the start.
#: 7 (issue 21, your own board in the browser): clients may send `desync` (the browser engine's replica
#: disagreed with a keyframe; logged, at most `limits.desync_reports_per_connection` per connection, nothing
#: else changes); the stream is unchanged (the replica is built from `joined` and the frame records' inputs).
#: Completed later, still issue 21's one version (optional fields, shipped with 9): `join` may ask for
#: the replica's state (`replica`), and then every `resync` to that player carries `state` (the match's
#: snapshot at the resync's frame and the seats' held inputs, at most `MAX_REPLICA_STATE_BYTES`), from
#: which the browser rebuilds its replica.
#: 8 (issue 20, several nodes): any node serves any match: a `join` or `watch` of a match another node
#: owns is served by the node reached (followed over the nodes' bus, the same records with the same
#: numbers; on a shared store `no-such-match` comes only once no owner answered within
#: `cluster.follow_answer_timeout`), `rematch` and `rematch-answer` work from any node, and after a
#: takeover a node's clients go on on the same sockets with no second `joined`; `spectators` (in
#: `joined`, `status` and the live list) counts every node's spectators and `status.lag` is given for a
#: seat on another node. HTTP: `POST /api/rooms/join` takes any node's invitation (503 `busy` with
#: Retry-After when the room's node does not answer in time), `GET /api/matches` lists every node's
#: matches and its entries, like a live `GET /api/matches/{id}` (now answered by any node), name the
#: `node` that owns the match.
#: 9 (issue 22, Payload and a ruleset per match): `queue` may name a `ruleset` (one queue and one rating
#: per ruleset; absent: the server's default) and `queued`, `matched` and `rated` carry it; a match's
#: stream, input byte, events and keyframes are its ruleset's (payload-versus's: rules/payload). HTTP:
#: `ruleset` in `POST /api/rooms` and `/api/bot-matches` (and their answers), the live list, match
#: records, replays, the leaderboard and player pages (`?ruleset=`; a player page's `ratings` by
#: ruleset), `GET /api/rules?ruleset=`, `GET /api/daily?ruleset=payload` (a board per difficulty) and
#: `GET /api/daily/{day}?ruleset=…&board=…`.
PROTOCOL_VERSION = 9
