"""The protocol's bounds: sizes and rates a client must stay within (the server may be configured tighter).

Every number a client needs is repeated in the `welcome` message, so a client reads them from there;
these are the defaults and the hard field bounds that the codec enforces.
"""

from __future__ import annotations

#: Largest client frame the server parses (bytes). A client message is a few dozen bytes; a token
#: is the biggest field.
MAX_CLIENT_MESSAGE_BYTES = 2048
#: Largest server frame a client should accept (a resync carries a keyframe and up to a few seconds
#: of frames).
MAX_SERVER_MESSAGE_BYTES = 4 * 1024 * 1024
#: Largest match state a resync carries (`state.snapshot`'s bytes, before base64, for a player that joined
#: with `replica`): a Pengo versus snapshot is 15 to 60 KB; a bigger one is left out (that client waits
#: without prediction).
MAX_REPLICA_STATE_BYTES = 256 * 1024
#: Token bucket per connection: messages per second refilled, and the bucket's size (the burst).
#: One input message per frame at 60 frames/s plus pings fits with room to spare (a client that
#: batches its inputs, as `welcome.input_batch` suggests, sends half that).
RATE_PER_SECOND = 120
RATE_BURST = 240
#: Most input bytes one `input` message carries (consecutive frames).
MAX_INPUT_RUN = 16
#: Longest token, match id and client name.
MAX_TOKEN_CHARS = 512
MAX_ID_CHARS = 64
MAX_NAME_CHARS = 32
#: Longest ruleset name a client message carries (`queue.ruleset`; rules/registry.py's names).
MAX_RULESET_CHARS = 32
#: Frame numbers are non-negative and below 2**31.
MAX_FRAME = 2**31 - 1
#: A ping's `id` and `t` are non-negative integers a JavaScript number holds exactly (at most 2**53 - 1):
#: a client's natural clock, Unix milliseconds (about 1.8e12 in 2027), fits for the next 285,000 years.
MAX_PING_VALUE = 2**53 - 1
#: The largest round trip `status.lag` reports (milliseconds): a longer one shows as this.
MAX_LAG_MS = 9999
#: Seconds a rematch offer waits for its answer by default (`rematch_offer_seconds`; `welcome` tells
#: the server's own).
REMATCH_OFFER_SECONDS = 20.0
