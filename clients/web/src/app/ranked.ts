/**
 * The lobby's ranked side: the queue over its own websocket (`queue` → `queued` → `matched`, then the
 * match page joins), the leaderboard, the player's rating, and the daily challenge (its board, its
 * best runs, and a replay file submitted from disk: the browser plays no rules, so a daily run is
 * played with `floe daily play` or the rules package and uploaded here).
 */

import { decodeMulti, encode } from "@msgpack/msgpack";
import { PROTOCOL_VERSION } from "../net/wire";
import { browserUpgrade, reloadForNewProtocol } from "../net/upgrade";

export interface Queued {
  kind: "queued";
  rating: number;
  rd: number;
  provisional: boolean;
  window: number;
  max_wait: number;
}

export interface Matched {
  kind: "matched";
  match: string;
  seat: number;
  opponent: string;
  opponent_rating: number;
  join_within: number;
  /** The opponent's rating is provisional; the abort rule's seconds of play and cooldown. */
  opponent_provisional?: boolean;
  min_play?: number;
  abort_cooldown?: number;
}

export interface QueueEvents {
  onQueued(queued: Queued): void;
  onMatched(matched: Matched): void;
  onGone(why: string): void;
}

/** One wait in the ranked queue (closing it leaves the queue at no cost). */
export class RankedQueue {
  private socket: WebSocket | null = null;
  private matched = false;

  /** `ruleset`: the queue's game (rules/registry.py's name; absent: the server's default). */
  constructor(private readonly url: string, private readonly token: string, private readonly events: QueueEvents,
    private readonly ruleset?: string) {}

  start(): void {
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      socket.send(encode({ kind: "hello", version: PROTOCOL_VERSION, token: this.token, client: "web-queue" }));
      socket.send(encode(this.ruleset === undefined ? { kind: "queue" } : { kind: "queue", ruleset: this.ruleset }));
    };
    socket.onmessage = (event) => {
      for (const value of decodeMulti(new Uint8Array(event.data as ArrayBuffer))) {
        const message = value as { kind: string; reason?: string; message?: string; code?: string };
        if (message.kind === "queued") this.events.onQueued(message as unknown as Queued);
        else if (message.kind === "matched") {
          this.matched = true;
          this.events.onMatched(message as unknown as Matched);
          socket.close();
        } else if (message.kind === "unqueued") this.events.onGone(`left the queue (${message.reason})`);
        else if (message.kind === "error") {
          // a server of another protocol version: the page reloads for the client it serves now
          if (message.code === "version" && reloadForNewProtocol(browserUpgrade())) return;
          this.events.onGone(`${message.message} (${message.code})`);
        }
      }
    };
    socket.onclose = () => {
      if (!this.matched) this.events.onGone("not waiting");
    };
  }

  stop(): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(encode({ kind: "unqueue" }));
    this.socket?.close();
  }
}

export interface LeaderRow {
  rank: number;
  id: string;
  name: string;
  rating: number;
  rd: number;
  games: number;
  provisional: boolean;
}

export interface Daily {
  day: string;
  seed: number;
  ruleset: string;
  ruleset_version: number;
  /** The run's config (the ruleset's plain form). */
  config: Record<string, unknown>;
  ends: number;
  runs_close: number;
  submissions: number;
}

export interface DailyEntry {
  rank: number;
  name: string;
  score: number;
  frames: number;
  /** The kept run's replay id; null once the day's replay budget dropped it (the score stays). */
  replay: string | null;
}

/** The daily of a ruleset that deals its own boards (`GET /api/daily?ruleset=payload`): a config per
 * board (Payload: `easy`, `hard`), all from the day's one seed. */
export interface BoardsDaily extends Omit<Daily, "config"> {
  boards: Record<string, Record<string, unknown>>;
}

/** The answer to a daily run: its verified score, and the guest's best run of the day (an entry). */
export interface DailySubmitted {
  ok: boolean;
  score?: number;
  best?: { score: number; frames: number; replay: string | null };
  message?: string;
}

async function json<T>(path: string): Promise<T> {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.json()) as T;
}

export const ranked = {
  /** The leaderboard: the settled ratings, or (provisional) the provisional players, a list apart. */
  leaderboard: (limit = 10, provisional = false, ruleset?: string) =>
    json<{ players: LeaderRow[]; total: number }>(`/api/leaderboard?limit=${limit}&provisional=${provisional}`
      + (ruleset === undefined ? "" : `&ruleset=${encodeURIComponent(ruleset)}`)),
  /** A player's rating in `ruleset`'s ranked play (absent: the server's default ruleset). */
  player: (id: string, ruleset?: string) => json<{ rating: number; rd: number; games: number; provisional: boolean }>(
    `/api/players/${encodeURIComponent(id)}` + (ruleset === undefined ? "" : `?ruleset=${encodeURIComponent(ruleset)}`)),
  daily: () => json<Daily>("/api/daily"),
  dailyBoard: (day: string, limit = 10) => json<{ entries: DailyEntry[]; total: number }>(`/api/daily/${day}?limit=${limit}`),
  /** Today's daily of a ruleset that deals its own boards. */
  boardsDaily: (ruleset: string) => json<BoardsDaily>(`/api/daily?ruleset=${encodeURIComponent(ruleset)}`),
  /** One board of a ruleset's daily (e.g. Payload's `easy`), best first. */
  rulesetBoard: (day: string, ruleset: string, board: string, limit = 10) => json<{ entries: DailyEntry[]; total: number }>(
    `/api/daily/${day}?ruleset=${encodeURIComponent(ruleset)}&board=${encodeURIComponent(board)}&limit=${limit}`),
  /** Submit a daily run's replay file (the server re-verifies it). */
  async submitDaily(token: string, file: Blob): Promise<DailySubmitted> {
    const response = await fetch("/api/daily/runs", {
      method: "POST",
      headers: { "Content-Type": "application/msgpack", Authorization: `Bearer ${token}` },
      body: file,
    });
    const answer = (await response.json()) as Partial<DailySubmitted>;
    return { ok: response.ok && answer.ok === true, ...answer };
  },
};
