/**
 * Payload versus's view (games/view.ts's `GameView` for `payload-versus`): both players' machines side
 * by side, each with its round, score against the quota, drops left, total and **jam queue** (the units
 * the opponent's surplus queued on it, drawn against the queue's cap, landing when its next round
 * begins; what its own surplus cancelled and sent), every drop played back from its log (./playback.ts:
 * marbles advancing together, cells flashing, labels floating), and for your own seat the draft, the
 * blueprint choice and the drop buttons.
 *
 * The board is drawn in the page (buttons, not the canvas, which it hides): the page's own buttons are
 * the controls. A button sends its move as the seat's input byte (rules/payload/inputs.py) through the
 * same transport as Pengo's keys: it raises a `payload-move` event on the stage that `PayloadControls`
 * (the `InputDevice`) turns into the byte of the next frame. A byte is held, so a move is its edge: the
 * same move twice (two drops down one column) is sent with a neutral frame between.
 *
 * Previews (your board only): each column's total now, and with the picked offer on the cell under the
 * pointer, computed by rules/payload in the browser engine (payload_engine.py `shown_preview`) from the
 * run the stream shows — never by a TypeScript copy of the rules.
 *
 * The rule on previews in versus, ranked included: **previews are exact and always shown.** A preview is
 * a pure function of the player's own visible board under this round's known rules (the drop is
 * deterministic and reads no hidden draw: rules/payload/preview.py), so anyone can compute it with the
 * open rules (the CLI and the bots do); hiding or blurring it in ranked would only handicap the browser
 * player, not make the game fairer. (rules/payload/README.md "Previews".)
 */

import { api } from "../../app/api";
import { el } from "../../app/dom";
import { browserEngine } from "../../engine/engine";
import type { MatchStream } from "../../net/stream";
import { type GameEvent, Vocabulary } from "../../net/vocabulary";
import type { Joined } from "../../net/wire";
import type { Board, GameView, InputDevice, Scene } from "../view";
import { type PayloadSeat, type PayloadTables, PayloadModel, type ShownRun } from "./model";
import { PAYLOAD_INPUT, PAYLOAD_MAX_CHOICES } from "../../generated/protocol";
import { STEP_MS } from "./page";
import { bestColumn, floatLabels, frames } from "./playback";
import type { DropEvent, PartRow } from "./types";

/** rules/payload/inputs.py's bytes, from the generated module. */
export const INPUT = PAYLOAD_INPUT;
/** The stage event a button raises with its move's byte. */
const MOVE_EVENT = "payload-move";

/** What the browser tests read (`window.__floePayloadVersus`). */
export interface VersusHooks {
  /** Preview answers shown, and the last column preview of your board (null when none). */
  previews: number;
  columns: number[] | null;
  /** The column preview shown when each of your drops was sent, and what the drop then paid. */
  drops: { column: number; previewed: number | null; total: number | null }[];
  /** Drops played back to their end (any seat). */
  playedBack: number;
  /** Moves sent by the page's buttons. */
  moves: number;
}

declare global {
  interface Window {
    __floePayloadVersus?: VersusHooks;
  }
}

/** The seat's controls: the bytes the page's buttons asked for, one per frame, neutral between repeats. */
export class PayloadControls implements InputDevice {
  /** Every bit is held (inputs.py: a byte stays until the seat says another). */
  readonly heldMask = 0xff;
  private readonly queue: number[] = [];
  private current: number = INPUT.neutral;
  private surface: HTMLElement | null = null;
  private readonly onMove = (event: Event): void => {
    this.queue.push((event as CustomEvent<number>).detail);
  };

  attach(surface?: HTMLElement): void {
    this.surface = surface ?? document.body;
    this.surface.addEventListener(MOVE_EVENT, this.onMove);
  }

  detach(): void {
    this.surface?.removeEventListener(MOVE_EVENT, this.onMove);
    this.surface = null;
  }

  byte(): number {
    const next = this.queue[0];
    if (next === undefined) return this.current;
    return next === this.current ? INPUT.neutral : next;
  }

  sent(byte: number): void {
    this.current = byte;
    if (this.queue[0] === byte) this.queue.shift();
  }
}

/** One seat's panel: its strip, its jam queue, its columns and its machine's cells. */
interface Panel {
  root: HTMLElement;
  strip: HTMLElement;
  queue: HTMLElement;
  columns: HTMLElement;
  note: HTMLElement;
  grid: HTMLElement;
  cells: HTMLElement[];
  side: HTMLElement;
  skip: HTMLButtonElement;
  shown: string;
  /** The drop being played back on this panel (its skip), if any. */
  playing: (() => void) | null;
  dots: Map<number, HTMLElement>;
}

export class PayloadBoard implements Board<PayloadModel> {
  frames = 0;
  busyMs = 0;
  private readonly root: HTMLElement;
  private readonly seatPanels: Panel[];
  private readonly parts: Map<string, PartRow>;
  private readonly queueCap: number;
  private readonly played = new Set<string>();
  private model: PayloadModel | null = null;
  private mine: number | null = null;
  private previewKey = "";
  private columns: number[] | null = null;
  private placement: { cell: number; totals: number[] } | null = null;
  private hover: number | null = null;
  private readonly hooks: VersusHooks;
  private ended: string | null = null;
  /** Each seat's last exchange, in words (noteExchange). */
  private readonly exchange = new Map<number, { frame: number; text: string }>();

  constructor(private readonly canvas: HTMLCanvasElement, private readonly joined: Joined,
    private readonly tables: PayloadTables) {
    this.parts = new Map(tables.compendium.map((row) => [row.key, row]));
    this.queueCap = Number((joined.config as { queue_cap?: number }).queue_cap ?? 4);
    this.hooks = { previews: 0, columns: null, drops: [], playedBack: 0, moves: 0 };
    window.__floePayloadVersus = this.hooks;
    canvas.style.display = "none";
    // the machines are taller than a canvas's stage leaves room for: the stage scrolls (style.css)
    canvas.parentElement?.classList.add("pv-stage");
    this.seatPanels = joined.seats.map((name, seat) => this.panel(name, seat));
    this.root = el("div", { class: "pv", id: "payload-versus" }, ...this.seatPanels.map((panel) => panel.root));
    canvas.after(this.root);
  }

  private panel(name: string, seat: number): Panel {
    const strip = el("div", { class: "pv-strip", id: `pv-strip-${seat}` });
    const queue = el("div", { class: "pv-queue", id: `pv-queue-${seat}` });
    const columns = el("div", { class: "pl-columns", id: `pv-columns-${seat}` });
    const note = el("p", { class: "help pl-note", id: `pv-note-${seat}` });
    const grid = el("div", { class: "pl-board", id: `pv-board-${seat}` });
    const cells: HTMLElement[] = [];
    for (let cell = 0; cell < 35; cell += 1) {
      const node = el("button", { type: "button", class: "pl-cell", id: `pv-cell-${seat}-${cell}`, "data-cell": String(cell) });
      node.disabled = true;
      node.addEventListener("click", () => this.send(INPUT.place + cell));
      node.addEventListener("mouseenter", () => this.previewAt(cell));
      node.addEventListener("focus", () => this.previewAt(cell));
      cells.push(node);
      grid.append(node);
    }
    const skip = el("button", { type: "button", id: `pv-skip-${seat}`, class: "pv-skip" }, "Skip ▸▸");
    skip.disabled = true;
    const side = el("div", { class: "pv-side", id: `pv-side-${seat}` });
    const root = el("section", { class: "pv-seat", id: `pv-seat-${seat}`, "aria-label": name },
      el("h2", { class: "pv-name" }, name), strip, queue,
      el("div", { class: "pv-row" }, el("div", { class: "pl-machine" }, note, columns, grid, skip), side));
    const panel: Panel = { root, strip, queue, columns, note, grid, cells, side, skip, shown: "", playing: null, dots: new Map() };
    skip.addEventListener("click", () => panel.playing?.());
    return panel;
  }

  fit(): void {
    // the panels are the page's own elements: they flow with it
  }

  /** Raise a move's byte on the stage (PayloadControls sends it). */
  private send(byte: number): void {
    if (this.mine === null) return;
    this.hooks.moves += 1;
    if (byte >= INPUT.drop && byte < INPUT.drop + PAYLOAD_MAX_CHOICES) {
      const column = byte - INPUT.drop;
      this.hooks.drops.push({ column, previewed: this.columns?.[column] ?? null, total: null });
    }
    this.root.dispatchEvent(new CustomEvent(MOVE_EVENT, { detail: byte, bubbles: true }));
  }

  applied(stream: MatchStream<PayloadModel>, frame: number): void {
    this.noteExchange(stream.model.lastEvents, frame);
    for (const event of stream.model.lastEvents) {
      if (event.kind !== "drop" || typeof event.seat !== "number") continue;
      const key = `${frame}:${event.seat}`;
      if (this.played.has(key)) continue; // a frame sent again after a rewind
      this.played.add(key);
      if (event.seat === this.mine) {
        const waiting = this.hooks.drops.find((drop) => drop.total === null && drop.column === event.column);
        if (waiting !== undefined) waiting.total = event.total as number;
      }
      this.playBack(event.seat, event.log as DropEvent[]);
    }
  }

  /** The exchange's last word per seat: what its surplus cancelled and sent, what was queued on it, what
   * landed (a frame applied again after a rewind writes the same words). */
  private noteExchange(events: readonly GameEvent[], frame: number): void {
    const landed = new Map<number, string[]>();
    for (const event of events) {
      const seat = typeof event.seat === "number" ? event.seat : -1;
      if (seat < 0) continue;
      if (event.kind === "attack") {
        this.exchange.set(seat, { frame, text: `a surplus of ${String(event.units)}: ${String(event.cancelled)} `
          + `cancelled from this queue, ${String(event.sent)} sent to the rival` });
      } else if (event.kind === "queued") {
        const units = Number(event.units);
        this.exchange.set(seat, { frame, text: units > 0 ? `${units} queued on it by the rival`
          : "the rival's units were lost: this queue is full" });
      } else if (event.kind === "received") {
        const what = typeof event.jam === "string" ? `jam ${event.jam}` : `${String(event.part)} on cell ${String(event.cell)}`;
        landed.set(seat, [...(landed.get(seat) ?? []), what]);
      }
    }
    for (const [seat, list] of landed) this.exchange.set(seat, { frame, text: `landed: ${list.join(", ")}` });
  }

  restarted(): void {
    this.exchange.clear();
    for (const panel of this.seatPanels) panel.playing?.();
    this.played.clear();
  }

  draw(scene: Scene<PayloadModel>): void {
    const started = performance.now();
    this.frames += 1;
    const model = scene.after.frame <= scene.frame + 1 && scene.alpha > 0 ? scene.after : scene.before;
    this.model = model;
    this.mine = scene.seat;
    model.seats.forEach((seat, index) => {
      const panel = this.seatPanels[index];
      if (panel !== undefined) this.drawSeat(panel, seat, index, scene.names[index] ?? seat.name);
    });
    const end = model.ended;
    const ended = end === null ? null : `${String(end.reason)}:${String(end.winner)}`;
    if (ended !== this.ended) {
      this.ended = ended;
      this.root.dataset.ended = ended ?? "";
    }
    this.busyMs += performance.now() - started;
  }

  private partOf(key: string | null): PartRow | undefined {
    return key === null ? undefined : this.parts.get(key);
  }

  private drawSeat(panel: Panel, seat: PayloadSeat, index: number, name: string): void {
    const mine = index === this.mine;
    if (mine) this.preview(seat.run);
    const key = JSON.stringify([seat.summary, seat.run, this.exchange.get(index) ?? null, name, mine, this.columns, this.placement, panel.playing !== null]);
    if (key === panel.shown) return;
    panel.shown = key;
    const run = seat.run;
    const model = this.model!;
    const quota = model.field(seat, "quota") as number;
    const queued = model.field(seat, "queue") as number;
    const out = Boolean(model.field(seat, "out"));
    const dropsLeft = run.phase.phase === "dropping" ? run.phase.drops_left : 0;
    panel.root.classList.toggle("mine", mine);
    panel.root.querySelector(".pv-name")!.textContent = `${name}${mine ? " (you)" : ""}`;
    panel.strip.replaceChildren(
      el("span", { class: "pv-round" }, `Round ${run.round + 1}`), " · ",
      el("span", { class: "pv-quota" }, `${run.round_score} / ${quota}`), " · ",
      el("span", { class: "pv-drops" }, `${dropsLeft} drop${dropsLeft === 1 ? "" : "s"} left`), " · total ",
      el("strong", { class: "pv-total", id: `pv-total-${index}` }, String(run.total_score)),
      ` · ${run.rounds_cleared} cleared`,
      run.phase.phase === "over" ? el("span", { class: "pv-over" }, run.phase.won ? " · every quota met" : " · run over") : "",
      out && run.phase.phase !== "over" ? el("span", { class: "pv-over" }, " · out") : "",
      el("div", { class: "help" }, `${run.difficulty} · ${run.variant}`,
        run.blueprints.length ? ` · blueprints: ${run.blueprints.join(", ")}` : "",
        run.received.length ? ` · jams landed: ${run.received.join(", ")}` : ""));
    this.drawQueue(panel, index, queued);
    this.drawBoard(panel, run, mine);
    this.drawColumns(panel, run, mine);
    this.drawSide(panel, run, mine, seat.refused);
  }

  /** The jam queue: its units against the cap (landing when the seat's next round begins), and the
   * exchange's last word on it. */
  private drawQueue(panel: Panel, seat: number, queued: number): void {
    const cap = Math.max(this.queueCap, queued);
    const slots = Array.from({ length: cap }, (_, i) => el("span", { class: `pv-unit${i < queued ? " full" : ""}` }));
    panel.queue.dataset.units = String(queued);
    const last = this.exchange.get(seat);
    panel.queue.replaceChildren(
      el("span", { class: "pv-queue-label" }, "Jam queue "), ...slots,
      el("span", { class: "pv-queue-count" }, ` ${queued}/${this.queueCap}`),
      el("div", { class: "help pv-exchange" }, queued > 0 ? "lands when its next round begins" : "empty",
        last === undefined ? "" : ` · last: ${last.text}`));
  }

  private drawBoard(panel: Panel, run: ShownRun, mine: boolean): void {
    const placing = mine && run.phase.phase === "draft" && run.phase.selected !== null;
    panel.grid.classList.toggle("placing", placing);
    const ghost = placing && run.phase.phase === "draft" ? this.partOf(run.phase.offers[run.phase.selected!] ?? null) : undefined;
    run.board.forEach((key, index) => {
      const cell = panel.cells[index]!;
      const part = this.partOf(key);
      const floats = [...cell.querySelectorAll(".pl-float")];
      cell.replaceChildren(el("span", { class: "pl-glyph" }, part?.glyph ?? ""),
        el("span", { class: "pl-badge" }, part?.badge ?? ""), ...floats);
      cell.title = part ? `${part.name}: ${part.rule}` : `empty cell ${index}`;
      cell.classList.toggle("filled", key !== null);
      cell.dataset.part = key ?? "";
      (cell as HTMLButtonElement).disabled = !placing;
      const hovered = placing && this.hover === index && ghost !== undefined;
      cell.classList.toggle("ghost", hovered);
      if (hovered) cell.dataset.ghost = ghost.glyph;
      else delete cell.dataset.ghost;
    });
  }

  private drawColumns(panel: Panel, run: ShownRun, mine: boolean): void {
    const dropping = run.phase.phase === "dropping";
    if (!mine) {
      panel.columns.replaceChildren();
      panel.note.textContent = "";
      return;
    }
    const placed = this.placement;
    const totals = placed?.totals ?? this.columns;
    const best = totals ? bestColumn(totals) : -1;
    panel.columns.replaceChildren(...Array.from({ length: 5 }, (_, column) => {
      const node = el("button", { type: "button", id: `pv-drop-${column}` }, totals ? `▼ ${totals[column]}` : "▼");
      node.addEventListener("click", () => this.send(INPUT.drop + column));
      node.disabled = !dropping || placed !== null;
      node.classList.toggle("best", column === best);
      if (totals) node.dataset.total = String(totals[column]);
      return node;
    }));
    panel.note.textContent = totals === null ? "" : placed !== null
      ? `What each column would pay with the pick on cell ${placed.cell}:` : "What a marble pays down each column now:";
  }

  private drawSide(panel: Panel, run: ShownRun, mine: boolean, refused: string | null): void {
    const phase = run.phase;
    if (!mine) {
      panel.side.replaceChildren(el("p", { class: "help" }, phase.phase === "draft" ? "drafting"
        : phase.phase === "blueprints" ? "choosing a blueprint" : phase.phase === "dropping" ? "dropping" : "done"));
      return;
    }
    const nodes: Node[] = [];
    if (phase.phase === "draft") {
      nodes.push(el("h3", {}, phase.selected === null ? "Draft: pick a part" : "Place it on a cell"));
      nodes.push(el("div", { class: "pl-offers" }, ...phase.offers.map((key, index) => {
        const part = this.partOf(key);
        const node = el("button", { type: "button", id: `pv-offer-${index}`,
          class: `pl-offer${phase.selected === index ? " selected" : ""}` },
        el("span", { class: "pl-glyph" }, part?.glyph ?? "?"), el("strong", {}, ` ${part?.name ?? key} `),
        el("span", { class: "pl-badge" }, part?.badge ?? ""), el("div", { class: "pl-rule" }, part?.rule ?? ""));
        node.addEventListener("click", () => this.send(INPUT.select + index));
        return node;
      })));
      const skip = el("button", { type: "button", id: "pv-skip-draft" }, "Skip the draft");
      skip.addEventListener("click", () => this.send(INPUT.skip));
      const extra: Node[] = [skip];
      if (run.blueprints.includes("loose_screws") && phase.rerolls === 0) {
        const shake = el("button", { type: "button", id: "pv-reroll" }, "Shake (Loose Screws)");
        shake.addEventListener("click", () => this.send(INPUT.reroll));
        extra.push(shake);
      }
      nodes.push(el("div", { class: "buttons" }, ...extra));
    } else if (phase.phase === "blueprints") {
      nodes.push(el("h3", {}, "A blueprint"), el("div", { class: "pl-offers" }, ...phase.choices.map((key, index) => {
        const node = el("button", { type: "button", id: `pv-blueprint-${index}`, class: "pl-offer" }, key);
        node.addEventListener("click", () => this.send(INPUT.blueprint + index));
        return node;
      })));
      const decline = el("button", { type: "button", id: "pv-decline" }, "Decline");
      decline.addEventListener("click", () => this.send(INPUT.skip));
      nodes.push(decline);
    } else if (phase.phase === "dropping") {
      nodes.push(el("p", {}, "Drop a marble: pick a column above the machine."));
    } else {
      nodes.push(el("p", {}, phase.won ? "Every quota met." : "Your run is over."));
    }
    if (refused !== null) nodes.push(el("p", { class: "help" }, `Refused: ${refused}`));
    panel.side.replaceChildren(...nodes);
  }

  // ---- previews (rules/payload in the browser engine) ----------------------------------------------

  private preview(run: ShownRun): void {
    const key = JSON.stringify(run);
    if (key === this.previewKey) return;
    this.previewKey = key;
    this.placement = null;
    this.hover = null;
    this.columns = null; // an answer for the run before would be a wrong preview
    this.hooks.columns = null;
    const engine = browserEngine();
    if (engine === null) return;
    void engine.request({ op: "payload", call: "shown_preview", arg: { run } }).then((answer) => {
      if (this.previewKey !== key) return;
      const columns = (answer as { columns: number[] | null }).columns;
      this.columns = columns;
      this.hooks.columns = columns;
      this.hooks.previews += 1;
    }, () => undefined);
  }

  private previewAt(cell: number): void {
    const model = this.model;
    const mine = this.mine;
    if (model === null || mine === null) return;
    const run = model.seats[mine]?.run;
    if (run === undefined || run.phase.phase !== "draft" || run.phase.selected === null) return;
    this.hover = cell;
    const key = this.previewKey;
    const engine = browserEngine();
    if (engine === null) return;
    void engine.request({ op: "payload", call: "shown_preview", arg: { run, cell } }).then((answer) => {
      const totals = (answer as { placement: number[] | null }).placement;
      if (this.previewKey !== key || this.hover !== cell || totals === null) return;
      this.placement = { cell, totals };
      this.hooks.previews += 1;
    }, () => undefined);
  }

  // ---- a drop's playback (./playback.ts) ------------------------------------------------------------

  private playBack(seat: number, log: DropEvent[]): void {
    const panel = this.seatPanels[seat];
    if (panel === undefined) return;
    panel.playing?.();
    const grouped = frames(log);
    const labels = floatLabels(grouped);
    let index = 0;
    let timer = 0;
    const finish = (): void => {
      window.clearInterval(timer);
      for (const dot of panel.dots.values()) dot.remove();
      panel.dots.clear();
      panel.playing = null;
      panel.skip.disabled = true;
      panel.shown = "";
      this.hooks.playedBack += 1;
    };
    const step = (): void => {
      const frame = grouped[index];
      if (frame === undefined) {
        finish();
        return;
      }
      for (const event of frame) this.stepMarble(panel, event);
      for (const label of labels[index] ?? []) this.flash(panel, label.cell, label.text, label.kind);
      index += 1;
    };
    panel.playing = finish;
    panel.skip.disabled = false;
    step();
    timer = window.setInterval(step, STEP_MS);
  }

  private stepMarble(panel: Panel, event: DropEvent): void {
    const place = (value: number): void => {
      let dot = panel.dots.get(event.marble);
      if (dot === undefined) {
        dot = el("span", { class: "pl-marble" });
        panel.dots.set(event.marble, dot);
        panel.grid.append(dot);
      }
      dot.style.setProperty("--col", String(event.cell % 5));
      dot.style.setProperty("--row", String(Math.floor(event.cell / 5)));
      dot.textContent = String(value);
    };
    switch (event.kind) {
      case "enter":
      case "spawn":
        place(event.value);
        break;
      case "trigger":
        place(event.after);
        break;
      case "bank":
        panel.dots.get(event.marble)?.remove();
        panel.dots.delete(event.marble);
        break;
      case "capped":
        break;
    }
  }

  private flash(panel: Panel, cell: number, text: string, kind: string): void {
    const node = panel.cells[cell];
    if (node === undefined) return;
    node.classList.remove("flash");
    void node.offsetWidth; // restart the animation
    node.classList.add("flash");
    const float = el("span", { class: `pl-float ${kind}` }, text);
    float.addEventListener("animationend", () => float.remove());
    node.append(float);
  }
}

async function rulesPage(): Promise<Node[]> {
  const book = await api.rules("payload-versus");
  return [
    el("h2", {}, "How to play Payload versus"),
    el("p", {}, "Both players play the same deals. Each round: draft a part onto your machine (pick an offer, then "
      + "click a cell), then drop marbles down its columns — each column's button shows what it pays. Meet the "
      + "round's quota; every full margin you beat it by sends a unit into your rival's jam queue (cancelling your "
      + "own queue first). A queue lands when its holder's next round begins: a jam or a nuisance part per unit."),
    ...book.sections.map((section) => el("section", {}, el("h3", {}, section.title),
      el("table", { class: "rules" }, ...section.rows.map((row) => el("tr", {}, ...row.map((cell) => el("td", {}, String(cell)))))))),
  ];
}

export const payloadVersusView: GameView<PayloadModel> = {
  ruleset: "payload-versus",
  controlsHelp: () => "your own buttons: pick an offer, click a cell, then a column to drop",
  models(joined: Joined) {
    const vocabulary = new Vocabulary(joined.tables as PayloadTables);
    return () => new PayloadModel(vocabulary);
  },
  board: (canvas: HTMLCanvasElement, joined: Joined) => new PayloadBoard(canvas, joined, joined.tables as PayloadTables),
  controls: () => new PayloadControls(),
  sounds: () => undefined,
  rulesPage,
  predicts: false,
  statistics: false,
  // app/markers.ts marks an `attack` record of 6 units or more; Payload's other events mark nothing
  markerLegend: [["attack", "a big surplus sent (6 units or more)"]],
};
