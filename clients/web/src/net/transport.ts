/**
 * The session on a websocket: the I/O the sans-I/O session leaves out. It opens the socket, passes
 * the time and every binary message to the session, sends what the session returns, pings every
 * `PING_EVERY_MS`, and reopens the socket when the session's close decision says so.
 */

import { PING_EVERY_MS, type Role, Session, type SessionEvent } from "./session";
import type { Joined, Rated, RematchMessage, Status, StreamMessage, Welcome } from "./wire";
import { browserUpgrade, reloadForNewProtocol } from "./upgrade";

export interface ConnectionHandlers {
  onJoined(joined: Joined): void;
  onStream(message: StreamMessage): void;
  onStatus?(status: Status): void;
  onRated?(rated: Rated): void;
  onRematch?(message: RematchMessage): void;
  onError?(code: string, message: string, fatal: boolean): void;
  /** The socket dropped (true) or is back (false). */
  onConnection?(dropped: boolean): void;
}

/** The time the transport passes to the session: milliseconds on the page's monotonic clock. */
export type Clock = () => number;

export class Connection {
  readonly session: Session;
  private socket: WebSocket | null = null;
  private pingTimer: number | undefined;
  private reconnectTimer: number | undefined;
  private closedByUs = false;

  constructor(
    private readonly url: string,
    token: string | null,
    match: string,
    role: Role,
    private readonly handlers: ConnectionHandlers,
    private readonly now: Clock = () => performance.now(),
  ) {
    this.session = new Session(token, match, role);
  }

  get welcome(): Welcome | null {
    return this.session.welcome;
  }

  open(): void {
    this.closedByUs = false;
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      this.send(this.session.opened(this.now()));
      this.pingTimer = window.setInterval(() => this.send([this.session.ping(this.now())]), PING_EVERY_MS);
    };
    socket.onmessage = (event) => {
      this.dispatch(this.session.receive(new Uint8Array(event.data as ArrayBuffer), this.now()));
    };
    socket.onclose = () => this.closed();
  }

  /** Leave the page: close for good (no reconnect). */
  close(): void {
    this.closedByUs = true;
    window.clearInterval(this.pingTimer);
    window.clearTimeout(this.reconnectTimer);
    this.socket?.close();
  }

  /** Drop the socket as a network failure would (the session reconnects and resumes; tests use it). */
  drop(): void {
    this.socket?.close();
  }

  leave(): void {
    this.send([this.session.leave()]);
  }

  /** Report that the browser engine disagreed with the keyframe of `frame` (the server logs it). */
  desync(frame: number): boolean {
    return this.send([this.session.desync(frame)]);
  }

  /** Offer a rematch of this ended match; false when the socket is not open. */
  rematch(): boolean {
    return this.send([this.session.rematch()]);
  }

  /** Answer the other player's rematch offer; false when the socket is not open. */
  rematchAnswer(accept: boolean): boolean {
    return this.send([this.session.rematchAnswer(accept)]);
  }

  /** The estimated frame the server is on now (null until a pong or a frame arrived). */
  serverFrame(): number | null {
    return this.session.serverFrame(this.now());
  }

  /** Hold `value` from the next frame to stamp on; false when no frame was due yet. */
  input(value: number, heldMask: number): boolean {
    const outcome = this.session.input(value, this.now(), heldMask);
    this.send(outcome.send);
    return outcome.stamped;
  }

  private closed(): void {
    window.clearInterval(this.pingTimer);
    this.socket = null;
    const decision = this.session.closed(this.now(), this.closedByUs);
    this.dispatch(decision.events);
    if (decision.reconnectInMs !== null) this.reconnectTimer = window.setTimeout(() => this.open(), decision.reconnectInMs);
  }

  /** Send while the socket is open (what is due while it is not is lost, as on a dropped network). */
  private send(messages: Uint8Array[]): boolean {
    const socket = this.socket;
    if (socket?.readyState !== WebSocket.OPEN) return false;
    for (const message of messages) socket.send(message);
    return true;
  }

  private dispatch(events: SessionEvent[]): void {
    const handlers = this.handlers;
    for (const event of events) {
      switch (event.kind) {
        case "joined":
          handlers.onJoined(event.joined);
          break;
        case "stream":
          handlers.onStream(event.message);
          break;
        case "status":
          handlers.onStatus?.(event.status);
          break;
        case "rated":
          handlers.onRated?.(event.rated);
          break;
        case "rematch":
          handlers.onRematch?.(event.message);
          break;
        case "error":
          // a server of another protocol version: the page reloads for the client it serves now
          if (event.code === "version" && reloadForNewProtocol(browserUpgrade())) break;
          handlers.onError?.(event.code, event.message, event.fatal);
          break;
        case "connection":
          handlers.onConnection?.(event.dropped);
          break;
      }
    }
  }
}
