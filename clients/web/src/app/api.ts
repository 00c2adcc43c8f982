/**
 * The HTTP API (protocol/README.md "HTTP API") and the guest identity kept in local storage.
 *
 * A guest's token is valid 7 days: the client keeps it with its expiry and asks for a new one (same
 * name) a day before it ends or when the server refuses it, so a returning player keeps their name.
 */

const TOKEN_KEY = "floe.guest";
/** The name typed in the lobby, kept for pages that have no name field (joining by link). */
const NAME_KEY = "floe.name";
/** Renew a token this long before it expires (ms). */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;

export interface Guest {
  guest: string;
  name: string;
  token: string;
  expires: number;
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) {
    let code = "http";
    let message = response.statusText;
    try {
      const error = (await response.json()) as { code?: string; message?: string };
      code = error.code ?? code;
      message = error.message ?? message;
    } catch {
      // not the error shape
    }
    throw new ApiError(response.status, code, message);
  }
  return (await response.json()) as T;
}

function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { e?: number };
    return (payload.e ?? 0) * 1000;
  } catch {
    return 0;
  }
}

export function storedGuest(): Guest | null {
  const raw = localStorage.getItem(TOKEN_KEY);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as Guest;
  } catch {
    return null;
  }
}

/** Remember the name typed in the lobby. */
export function rememberName(name: string): void {
  localStorage.setItem(NAME_KEY, name.trim());
}

function keep(made: { guest: string; name: string; token: string }): Guest {
  const fresh: Guest = { ...made, expires: expiryOf(made.token) };
  localStorage.setItem(TOKEN_KEY, JSON.stringify(fresh));
  return fresh;
}

/** The guest: the stored one, renewed (`POST /api/guests/renew`: the same guest, so its rating stays)
 * a day before its token ends; a new one when there is none, it has expired, or a new name was typed. */
export async function guest(name?: string): Promise<Guest> {
  const stored = storedGuest();
  const wanted = name?.trim() || localStorage.getItem(NAME_KEY) || stored?.name;
  const now = Date.now();
  if (stored && stored.name === wanted) {
    if (stored.expires - now > RENEW_BEFORE_MS) return stored;
    if (stored.expires > now) {
      try {
        return keep(await call("POST", "/api/guests/renew", undefined, stored.token));
      } catch {
        // refused (expired meanwhile, another secret): a new guest below
      }
    }
  }
  return keep(await call("POST", "/api/guests", wanted ? { name: wanted } : {}));
}

/** The name this browser knows for its player (typed in the lobby, or its guest's), if any. */
export function knownName(): string {
  return localStorage.getItem(NAME_KEY) || storedGuest()?.name || "";
}

/** Become the guest a recovery code from another device speaks for (`POST /api/guests/recover`): its
 * token and name kept here, so this browser plays as that guest (its rating) from now on. */
export async function recover(code: string): Promise<Guest> {
  const made = await call<{ guest: string; name: string; token: string }>("POST", "/api/guests/recover", { code: code.trim() });
  rememberName(made.name);
  return keep(made);
}

/** Revoke every recovery code and every other device's token of this guest; keep the fresh token. */
export async function revokeRecovery(token: string): Promise<Guest> {
  const made = await call<{ guest: string; name: string; token: string }>("POST", "/api/guests/recovery/revoke", undefined, token);
  return keep(made);
}

/** Forget the token (the server refused it); the next `guest()` makes a new one with the same name. */
export function dropToken(): void {
  const stored = storedGuest();
  if (stored) localStorage.setItem(TOKEN_KEY, JSON.stringify({ ...stored, expires: 0 }));
}

export interface Seated {
  match: string;
  seat: number;
  invite?: string;
  /** The ruleset the match plays (rules/registry.py's name). */
  ruleset?: string;
}

export const api = {
  /** A match against the server's `bot` of `ruleset` (absent: the server's default ruleset). */
  botMatch: (token: string, bot: string, ruleset?: string) =>
    call<Seated>("POST", "/api/bot-matches", ruleset === undefined ? { bot } : { bot, ruleset }, token),
  /** A private room; `seats` 2 to 4, a time limit in `minutes` and a `ruleset` (absent: the server's
   * defaults). */
  room: (token: string, options: RoomOptions = {}) =>
    call<Seated>("POST", "/api/rooms", Object.keys(options).length ? options : undefined, token),
  recoveryCode: (token: string) => call<{ code: string; expires: number }>("POST", "/api/guests/recovery", undefined, token),
  origin: () => call<OriginAnswer>("GET", "/api/origin"),
  joinRoom: (token: string, invite: string) => call<Seated>("POST", "/api/rooms/join", { invite }, token),
  matches: () => call<{ matches: LiveMatch[] }>("GET", "/api/matches"),
  match: (id: string) => call<Record<string, unknown>>("GET", `/api/matches/${encodeURIComponent(id)}`),
  recent: () => call<{ replays: RecentReplay[] }>("GET", "/api/replays"),
  /** A ruleset's rule compendium (absent: the server's default ruleset's). */
  rules: (ruleset?: string) => call<{ heading: string; sections: { title: string; rows: [string, string, string][] }[] }>(
    "GET", ruleset === undefined ? "/api/rules" : `/api/rules?ruleset=${encodeURIComponent(ruleset)}`),
};

export interface LiveMatch {
  id: string;
  state: string;
  seats: (string | null)[];
  bots: (string | null)[];
  frame: number;
  spectators: number;
  /** The ruleset the match plays. */
  ruleset: string;
}

export interface RecentReplay {
  id: string;
  seats: string[];
  result: { winner: number | null; reason: string; scores: number[] } | null;
  ended: number;
  /** The ruleset the match was played under. */
  ruleset: string;
}

export interface RoomOptions {
  seats?: number;
  minutes?: number;
  ruleset?: string;
}

/** `GET /api/origin`'s answer (protocol/README.md "The page's origin"). */
export interface OriginAnswer {
  origin: string | null;
  allowed: boolean;
  origins: string[];
  reason: string;
}

/** Will the server's websocket accept a page at `pageOrigin`? A browser sends no `Origin` with a
 * same-origin GET, so the server's answer then says nothing of this page (`origin` null, allowed):
 * the page compares its own origin with the allowed ones, as the server does ("*" allows any). */
export function originAccepted(answer: OriginAnswer, pageOrigin: string): boolean {
  if (answer.origin !== null) return answer.allowed;
  return answer.origins.includes("*") || answer.origins.includes(pageOrigin.replace(/\/$/, ""));
}
